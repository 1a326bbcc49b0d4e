"""Errors of the project layer: :class:`ProjectError` (one line for the user) and the turning of
disk errors (a full disk, an I/O error, a read-only folder) into one."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sqlite3
from collections.abc import Iterator

from pydantic import ValidationError

from mmstudio.project import atomic


class ProjectError(Exception):
    """A project cannot be created, opened or changed; the message is one line for the user."""


@contextlib.contextmanager
def saving(
    what: str, after: str = "the project keeps its last saved version", *, disk_only: bool = False
) -> Iterator[None]:
    """Turn a disk error raised inside the block into one ProjectError line ("cannot save
    ``what``: no space left on device; ``after``"). With ``disk_only`` other OSErrors (a refused
    connection, a missing tool) pass through unchanged."""
    try:
        yield
    except (OSError, sqlite3.Error) as exc:
        if disk_only and not is_disk_error(exc):
            raise
        raise ProjectError(f"cannot save {what}: {disk_reason(exc)}; {after}") from exc


def is_disk_error(exc: BaseException) -> bool:
    """Whether ``exc`` is the disk refusing a write (full, over quota, read-only, I/O)."""
    if isinstance(exc, sqlite3.Error):
        return "full" in str(exc) or "disk I/O" in str(exc)
    if isinstance(exc, shutil.Error):  # a copytree's list of per-file errors
        return os.strerror(errno.ENOSPC) in str(exc)
    return isinstance(exc, OSError) and exc.errno in atomic.DISK_ERRNOS


def disk_reason(exc: BaseException) -> str:
    """A few words for a disk error: "no space left on device", "permission denied", …"""
    if isinstance(exc, atomic.DiskError):
        return exc.strerror or "a disk error"
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return "no space left on device"
    if isinstance(exc, shutil.Error) and is_disk_error(exc):
        return "no space left on device"
    if isinstance(exc, sqlite3.Error) and "full" in str(exc):
        return "no space left on device"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return first_line(exc)


def first_line(exc: BaseException) -> str:
    """The first non-empty line of ``exc`` ("where: what" for a pydantic ValidationError)."""
    if isinstance(exc, ValidationError) and exc.errors():
        # "where: what", never pydantic's echo of the (possibly huge) input or its help URL
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else first["msg"]
    text = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc)
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


class Withdrawn(Exception):
    """A change was called off (its caller was cancelled) before its decision point: nothing of
    it was recorded or installed."""
