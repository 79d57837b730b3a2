"""The calibration probes of an embedding server, run after the hook has answered.

``calibrate`` decides from a server's calibration; this module measures it: the probe prompts
are searched (one search each) and the fit stored in the recall state, in a detached child so
no prompt waits for the ~15 searches.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ovhooks.backend.base import Backend
    from ovhooks.recall.rank import Candidate
    from ovhooks.settings.config import Settings


def refresh_calibration(
    backend: Backend,
    settings: Settings,
    key: str,
    now: float,
    retrieve: Callable[..., list[Candidate]],
) -> dict[str, object] | None:
    """Search the probe prompts and store the server's calibration, after the hook answered.

    With ``detach`` on (hooks) this runs in a detached child, so the prompt does not wait for
    the ~15 searches; otherwise (tests, dry runs) right here. Failures leave the old state.
    """
    import os

    def measure() -> dict[str, object] | None:
        from ovhooks.recall import calibrate
        from ovhooks.recall.state import ServerState
        from ovhooks.transport.errors import BackendError

        if hasattr(backend, "deadline"):
            import time

            backend.deadline = time.monotonic() + calibrate.PROBE_BUDGET_S
        placeholder = ServerState(settings.state_dir, key)
        try:
            doc = calibrate.run_probes(
                lambda probe: retrieve(
                    probe,
                    backend=backend,
                    settings=settings,
                    server=placeholder,
                    now=now,
                    threshold=0.0,  # the probes' true best scores, however low
                ),
                now,
            )
        except BackendError:
            return None
        server = ServerState(settings.state_dir, key)  # re-read: the hook may have saved since
        server.set_calibration(doc)
        server.save()
        return doc

    if not settings.detach or not hasattr(os, "fork"):
        return measure()
    from ovhooks.spawn import run_detached

    try:
        pid = run_detached(measure)
    except OSError:
        return None
    try:
        os.waitpid(pid, 0)  # the intermediate child exits at once
    except OSError:
        pass
    return None
