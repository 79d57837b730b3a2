"""Files that survive crashes and concurrent hooks: atomic JSON writes and session locks.

Locks use ``fcntl.flock`` directly where it exists. That is the same primitive ``filelock``
uses on POSIX, so the two interoperate on one lock file; we avoid importing ``filelock`` on
hook paths because it costs ~28 ms (more than half a hook's budget). Elsewhere (Windows) the
lock falls back to ``filelock``.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType


class LockTimeoutError(Exception):
    """The lock stayed busy for longer than the caller was willing to wait."""


def missing_dirs(path: str) -> list[str]:
    """``path`` and those of its ancestors that do not exist yet, deepest first."""
    missing = []
    probe = os.path.abspath(path)
    while probe and not os.path.isdir(probe):
        missing.append(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return missing


def ensure_dir(path: str, *, private: bool = True) -> None:
    """Create ``path`` if it does not exist, every new directory private to the user.

    ``os.makedirs(mode=...)`` applies the mode to the last directory only; the state dir
    itself (``~/.local/state/ovhooks``) would be left world-readable, and it holds queued
    conversation text. With ``private`` (ovhooks' own directories), an existing ``path``
    that others can read is tightened to 0700 as well: a directory made by an older version
    or by hand under a permissive umask does not stay open.
    """
    if os.path.isdir(path):
        if private:
            tighten(path, 0o700)
        return
    for directory in reversed(missing_dirs(path)):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            continue
        tighten(directory, 0o700)  # mkdir's mode passes through the umask


def tighten(path: str, mode: int) -> None:
    """Set ``path``'s permission bits to ``mode`` if they differ and the file is ours."""
    try:
        st = os.stat(path)
        if st.st_mode & 0o777 != mode and st.st_uid == os.getuid():
            os.chmod(path, mode)
    except (OSError, AttributeError):  # AttributeError: os.getuid on Windows
        pass


def private_file(path: str) -> None:
    """Make sure ``path`` exists and is 0600 (created so, or tightened if it pre-existed).

    An existing file is never opened, only chmod-ed: closing any descriptor of a file drops
    every POSIX lock this process holds on it, so opening and closing a SQLite database (or
    its -wal/-shm) here would silently strip the locks of another connection to it in the
    same process; another process then believes it is the last user, resets the WAL index,
    and that connection fails with "disk I/O error" (seen with the viewer's connections).
    """
    if not os.path.exists(path):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.close(fd)
        except FileExistsError:
            pass  # created meanwhile by another process: it was never ours to hold locks on
        except OSError:
            return
    tighten(path, 0o600)


def write_atomic(path: str, data: bytes, *, durable: bool = True, private: bool = True) -> None:
    """Write ``data`` to ``path`` so readers see the old or the new file, never a torn one.

    The temp file is a unique sibling (pid + time), so concurrent writers never share it
    (the anchor's fixed ``<file>.tmp`` name let two writers clobber each other). The file is
    0600 whatever the umask; ``private=False`` is for a host's own config file, whose
    directory ovhooks does not own (the caller restores the file's mode).
    """
    directory = os.path.dirname(path) or "."
    ensure_dir(directory, private=private)
    tmp = f"{path}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_json_atomic(path: str, doc: object, *, durable: bool = True) -> None:
    from ovhooks.redact import redact_json_text

    # State at rest (sessions, queues, breaker notes, export progress) never keeps our key,
    # even where it quotes a server's error.
    text = redact_json_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))
    write_atomic(path, text.encode("utf-8"), durable=durable)


READ_LIMIT = 32 * 1024 * 1024  # far above any file ovhooks writes; bounds what one read holds


def open_regular(path: str) -> int:
    """A read-only descriptor of the regular file at ``path``; anything else raises
    ``OSError`` (``EINVAL``) at once. A FIFO would block its reader forever and a link to
    ``/dev/zero`` fill memory faster than any deadline can fire (one C call), so the open
    does not block (``O_NONBLOCK``) and the type is checked on the open file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", path)
    return fd


def read_bounded(path: str, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (``open_regular``), at most ``limit``
    (default ``READ_LIMIT``); past it, ``OSError`` (``EFBIG``)."""
    limit = READ_LIMIT if limit is None else limit
    fd = open_regular(path)
    try:
        st = os.fstat(fd)
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", path)
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:  # grew past the limit while being read
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", path)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text_file(path: str, limit: int | None = None, *, errors: str = "strict") -> str:
    """``read_bounded`` decoded as UTF-8 (``errors`` as for ``bytes.decode``), line ends kept."""
    return read_bounded(path, limit).decode("utf-8", errors)


def read_json(path: str) -> object:
    """Parse a JSON file; raises ``OSError`` or ``ValueError`` (nesting too deep for the
    parser too: a damaged or hostile file is no reason for a traceback). Only a regular file
    of at most ``READ_LIMIT`` bytes is read (``read_bounded``)."""
    data = read_bounded(path)
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply") from None


class FileLock:
    """An exclusive lock on a sibling lock file, held across a read-modify-write.

    ``timeout_s`` of 0 tries once (``acquire`` returns False when busy); otherwise
    ``__enter__`` waits up to ``timeout_s`` and raises ``LockTimeoutError``.
    """

    def __init__(self, path: str, timeout_s: float = 10.0) -> None:
        self.path = path
        self.timeout_s = timeout_s
        self._fd: int | None = None
        self._fallback: object = None

    def acquire(self, timeout_s: float | None = None) -> bool:
        wait = self.timeout_s if timeout_s is None else timeout_s
        ensure_dir(os.path.dirname(self.path) or ".")
        try:
            # imported here, not with the module: most hooks read and write state without a
            # lock (UserPromptSubmit never takes one), and fcntl costs them ~0.2 ms to import
            import fcntl
        except ImportError:  # pragma: no cover (Windows)
            import filelock

            lock = filelock.FileLock(self.path)
            try:
                lock.acquire(timeout=wait)
            except filelock.Timeout:
                return False
            self._fallback = lock
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        tighten(self.path, 0o600)
        deadline = time.monotonic() + wait
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return False
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
                continue
            self._fd = fd
            return True

    def release(self) -> None:
        if self._fd is not None:  # only ever set once fcntl was imported
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
        if self._fallback is not None:  # pragma: no cover (Windows)
            self._fallback.release()  # type: ignore[attr-defined]
            self._fallback = None

    def __enter__(self) -> FileLock:
        if not self.acquire():
            raise LockTimeoutError(f"lock {self.path} busy for {self.timeout_s:.0f} s")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def remove_stale_tmp(directory: str, *, prefix: str = "", older_than_s: float = 60.0) -> None:
    """Delete ``*.tmp`` files a killed writer left behind (a live writer's are younger)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    limit = time.time() - older_than_s
    for name in names:
        if not name.endswith(".tmp") or not name.startswith(prefix):
            continue
        path = os.path.join(directory, name)
        try:
            if os.stat(path).st_mtime < limit:
                os.unlink(path)
        except OSError:
            continue
