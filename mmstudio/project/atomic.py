"""Atomic file writes: write a temp file in the same folder, flush to disk, then rename over.

A reader (or a crash) sees either the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (parents created); returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        publish(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return path


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
