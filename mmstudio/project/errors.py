"""Errors a user can act on, and the one way to say an error in one line.

:class:`UserError` (``message``, ``hint``) is the base of every error that is the user's situation
rather than a bug: bad input (:class:`InputError`: a prompt file, an annotation file, a settings
value, a plan), a project that cannot be opened or changed (:class:`ProjectError`, a held writer
lock :class:`ProjectLocked`), a model endpoint's refusal (``providers.errors.ProviderError``), an
export that cannot be written. Front ends catch only ``UserError`` and print :func:`one_line`;
anything else is a bug and keeps its traceback.

This module sits at the bottom of the layers (only ``plan``/``report`` below) so that every
package can raise these. It also turns disk errors (a full disk, an I/O error, a read-only folder)
into a ProjectError (:func:`saving`)."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from mmstudio.project import atomic


class UserError(Exception):
    """An error the user can fix: ``message`` (one line, what went wrong) and ``hint`` (what to
    do about it, or ""). ``str()`` is "message; hint" (the message alone without a hint)."""

    def __init__(self, message: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}; {self.hint}" if self.hint else str(self.message)


class InputError(UserError, ValueError):
    """Input the user gave cannot be used: an unreadable or non-UTF-8 file, a malformed JSON
    document, an out-of-range value. A ValueError too, so callers that validate input keep
    catching it as one."""


class MissingInput(InputError, FileNotFoundError):
    """A file or folder the user named does not exist (a FileNotFoundError too)."""


class ProjectError(UserError):
    """A project cannot be created, opened or changed; the message is one line for the user."""


class ProjectLocked(ProjectError):
    """Another process holds the project's writer lock (``mmstudio refine`` while the app
    changes the same project)."""


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


def read_input(path: Path, what: str) -> str:
    """The text of the UTF-8 file at ``path`` (a leading BOM dropped), which the user gave as
    ``what`` ("the prompt file"). Raises MissingInput when it does not exist, InputError when
    it cannot be read or is not UTF-8 — one line naming ``what`` and ``path``."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise MissingInput(f"{what} {path} does not exist") from None
    except OSError as exc:
        raise InputError(
            f"cannot read {what} {path}: {exc.strerror or type(exc).__name__}"
        ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path} is not UTF-8 text (byte {exc.start})", "save it as UTF-8"
        ) from None


def output_folder(path: Path, what: str = "the output folder") -> Path:
    """``path``, created (with its parents) if absent, for results the user asked to be
    written there; raises InputError naming ``what`` when it cannot be made (a file is in the
    way, no permission, a read-only disk)."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {what} {path}: {exc.strerror or exc}") from None
    return path


def one_line(exc: BaseException, limit: int | None = None) -> str:
    """The one line a user sees for ``exc``, at most ``limit`` characters: a UserError's
    message and hint ("message; hint"), a pydantic ValidationError as "Model: where: what",
    anything else its first non-empty line (its type's name when it has no text)."""
    if isinstance(exc, UserError):
        lines = [line for line in exc.message.splitlines() if line.strip()]
        line = lines[0] if lines else type(exc).__name__
        if exc.hint:
            line = f"{line}; {exc.hint}"
    elif isinstance(exc, ValidationError) and exc.errors():
        line = f"{exc.title}: {first_line(exc)}"  # which model was malformed
    else:
        line = first_line(exc)
    return line if limit is None or len(line) <= limit else line[: limit - 1] + "…"


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
