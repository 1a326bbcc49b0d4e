"""Atomic file writes: write a temp file in the same folder, flush to disk, then rename over.

A reader (or a crash) sees either the old file or the new one, never half of one; a write that
fails (a full disk) removes its temp file and raises :class:`DiskError`, whose text is one line.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS}


class DiskError(OSError):
    """The disk refused a write (full, over quota, read-only, I/O error); ``str()`` is one line
    naming the file (not its machine path): "cannot write plan.json: no space left on device"."""

    def __str__(self) -> str:
        return f"cannot write {Path(str(self.filename)).name}: {self.strerror}"


def disk_error(exc: OSError, path: Path) -> OSError:
    """``exc`` as a :class:`DiskError` about ``path`` when it is a disk error, else ``exc``."""
    if isinstance(exc, DiskError) or exc.errno not in DISK_ERRNOS:
        return exc
    reason = "no space left on device" if exc.errno == errno.ENOSPC else os.strerror(exc.errno)
    return DiskError(exc.errno, reason.lower(), str(path))


def write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (parents created); returns ``path``. Raises
    DiskError (the temp file removed, ``path`` as it was) when the disk refuses."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        prefix = f".{path.name}.{os.getpid()}-"  # the pid: recovery leaves live ones alone
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise disk_error(exc, path) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        publish(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise disk_error(exc, path) from exc
        raise
    return path


TEMP_NAME = re.compile(r"^\..+\.(?:(\d+)-)?[a-z0-9_]{8}\.tmp$")


def dead_temp_files(folder: Path) -> list[Path]:
    """The temp files of atomic writes under ``folder`` that no live write of this process
    owns: what a killed writer left behind (only call it while holding the writer lock)."""
    own = str(os.getpid())
    found = []
    for path in folder.rglob(".*.tmp"):
        match = TEMP_NAME.match(path.name)
        if match and match.group(1) != own and path.is_file():
            found.append(path)
    return found


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once at import: os.umask() is process-wide, not thread-safe


def publish(tmp: Path | str, path: Path) -> Path:
    """Give a finished temp file (written by us or by a tool such as ffmpeg) the permissions of
    an ordinary file and rename it over ``path`` (temp files are created 0600)."""
    os.chmod(tmp, 0o666 & ~_UMASK)
    os.replace(tmp, path)
    return path


def write_text(path: Path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    return write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, value: Any) -> Path:
    """Write ``value`` as indented UTF-8 JSON to ``path`` atomically."""
    return write_text(path, json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def link_or_copy(source: Path | str, target: Path | str) -> None:
    """Make ``target`` a hard link to the file ``source`` (a copy where the file system refuses
    links). Safe for project files: they are only ever replaced by rename, never rewritten."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def link_tree(source: Path, target: Path) -> None:
    """Copy the folder ``source`` to the new folder ``target`` with hard links (see
    :func:`link_or_copy`); symbolic links stay links, so a copy never pulls in what a link
    points to outside the folder, and writing into the copy (atomically, by rename) never
    changes ``source``."""
    shutil.copytree(source, target, symlinks=True, copy_function=link_or_copy)
