"""Doctor's state-directory check: the folder ovhooks keeps sessions, the queue and the log in
can be created or written, and is private (it holds queued conversation text)."""

from __future__ import annotations

import os

from ovhooks.commands.doctor.result import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.commands.doctor.result import Check


def state_dir_fix(state_dir: str) -> str:
    """What to do about a state directory that cannot be used (doctor and every command)."""
    return f"make {state_dir} a folder you can write (chmod u+rwx), or set OVHOOKS_STATE_DIR to one"


def check_state_dir(state_dir: str) -> Check:
    import tempfile

    fix = state_dir_fix(state_dir)
    if not os.path.isdir(state_dir):
        probe = state_dir
        while probe and not os.path.exists(probe):
            parent = os.path.dirname(probe)
            if parent == probe:
                break
            probe = parent
        if os.path.isdir(probe) and os.access(probe, os.W_OK):
            return check(
                "state_dir", "ok", f"{state_dir} will be created on first use", path=state_dir
            )
        return check(
            "state_dir",
            "fail",
            f"state directory unwritable: {state_dir} cannot be "
            f"created ({probe} is not a writable folder)",
            fix,
            path=state_dir,
        )
    try:
        fd, probe_path = tempfile.mkstemp(prefix=".doctor-", dir=state_dir)
        os.close(fd)
        os.unlink(probe_path)
    except OSError as exc:
        return check(
            "state_dir",
            "fail",
            f"state directory unwritable: {state_dir} ({exc})",
            fix,
            path=state_dir,
        )
    mode = os.stat(state_dir).st_mode & 0o777
    if mode & 0o077:
        return check(
            "state_dir",
            "warn",
            f"{state_dir} is readable by others (mode {mode:o}); it holds queued conversation text",
            f"chmod 700 {state_dir}",
            path=state_dir,
            mode=f"{mode:o}",
        )
    return check(
        "state_dir", "ok", f"{state_dir} writable, mode {mode:o}", path=state_dir, mode=f"{mode:o}"
    )
