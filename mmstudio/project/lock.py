"""One writer per project across processes: ``with writer_lock(root, "mmstudio refine"): …``.

Invariants:
- The lock is an exclusive ``flock`` on ``<project>/.lock``, taken without waiting: a second
  process that wants to change the same project fails at once with one line naming the holder
  (its pid and what it is doing), never with interleaved writes.
- The operating system drops the lock when its holder exits, however it exits (SIGKILL
  included), so a crash never leaves a project locked; the file's text is only a description.
- Within one process the lock is re-entrant (a count per project root), so nested services and
  in-process callers that already hold it do not lock themselves out.
- Where ``fcntl`` does not exist (Windows) the lock is a no-op.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from .errors import ProjectLocked

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

LOCK_FILE = ".lock"
_held: dict[Path, tuple[int, int]] = {}  # resolved root -> (fd, depth)
_guard = threading.Lock()


@contextlib.contextmanager
def writer_lock(root: Path, what: str) -> Iterator[None]:
    """Hold the project's writer lock while the block runs; ``what`` ("mmstudio refine")
    describes the holder to whoever is refused. Raises ProjectLocked (one line) when another
    process holds it."""
    if fcntl is None or not root.is_dir():
        yield
        return
    key = root.resolve()
    _acquire(key, what)
    try:
        yield
    finally:
        _release(key)


def _acquire(key: Path, what: str) -> None:
    with _guard:
        if key in _held:
            fd, depth = _held[key]
            _held[key] = (fd, depth + 1)
            return
        fd = os.open(key / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise ProjectLocked(
                f"{key.name} is being changed by another MM Studio process ({holder})",
                "try again when it has finished",
            ) from None
        try:  # the text only describes the holder: a full disk must not fail the lock
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}: {what}".encode(), 0)
        except OSError as exc:
            log.warning("could not describe the lock holder in %s: %s", key, exc)
        _held[key] = (fd, 1)


def _release(key: Path) -> None:
    with _guard:
        fd, depth = _held[key]
        if depth > 1:
            _held[key] = (fd, depth - 1)
            return
        del _held[key]
        os.close(fd)  # closing the descriptor drops the flock
