"""Versions of a project: content-addressed blobs in ``objects/`` and a table in ``history.sqlite``.

A version is the set of files that make up the design at one moment (``plan.json``,
``report.json`` and every file under ``site/``), each stored once under ``objects/<aa>/<sha256>``.
Its id is the first 12 hex digits of the SHA-256 of its file map, so the same content always gets
the same id and committing an unchanged design adds nothing.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from pydantic import BaseModel

from mmstudio.project import atomic

_SCHEMA = """
CREATE TABLE IF NOT EXISTS versions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    parent TEXT,
    created_at REAL NOT NULL,
    summary TEXT NOT NULL,
    files TEXT NOT NULL,
    scores TEXT NOT NULL
);
"""


class Version(BaseModel):
    """One committed version: ``files`` maps a project-relative path to its blob's SHA-256;
    ``scores`` are the report's scores (0–1) at commit time; ``created_at`` is Unix time (s)."""

    id: str
    parent: str | None
    created_at: float
    summary: str
    files: dict[str, str]
    scores: dict[str, float | None]


class ObjectStore:
    """Content-addressed blobs under ``root`` (``objects/``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest

    def put(self, data: bytes) -> str:
        """Store ``data`` (once) and return its SHA-256 hex digest."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.path(digest)
        if not target.exists():
            atomic.write_bytes(target, data)
        return digest

    def get(self, digest: str) -> bytes:
        """The blob's bytes; raises FileNotFoundError if missing and ValueError if corrupted."""
        data = self.path(digest).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError(f"object {digest[:12]} is corrupted")
        return data


class History:
    """The versions table of ``history.sqlite``."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.db_path, timeout=10)) as db, db:
            yield db

    def add(self, version: Version) -> None:
        """Record ``version`` unless a version with the same id exists."""
        with self._connect() as db:
            db.execute(
                "INSERT OR IGNORE INTO versions (id, parent, created_at, summary, files, scores)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    version.id,
                    version.parent,
                    version.created_at,
                    version.summary,
                    json.dumps(version.files, sort_keys=True),
                    json.dumps(version.scores),
                ),
            )

    def list(self) -> list[Version]:
        """All versions, oldest first."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, parent, created_at, summary, files, scores FROM versions ORDER BY seq"
            ).fetchall()
        return [_row_version(row) for row in rows]

    def get(self, version_id: str) -> Version:
        """The version whose id starts with ``version_id`` (≥ 4 hex digits); raises KeyError
        naming the id when none or several match."""
        matches = [v for v in self.list() if v.id.startswith(version_id.lower())]
        if len(version_id) < 4 or len(matches) != 1:
            raise KeyError(f"no single version matches {version_id!r}")
        return matches[0]


def _row_version(row: tuple) -> Version:
    vid, parent, created_at, summary, files, scores = row
    return Version(
        id=vid,
        parent=parent,
        created_at=created_at,
        summary=summary,
        files=json.loads(files),
        scores=json.loads(scores),
    )


def snapshot(root: Path, store: ObjectStore, tracked: list[str]) -> dict[str, str]:
    """Store every file of ``tracked`` (project-relative files or folders) and return the map
    project-relative POSIX path → SHA-256."""
    files: dict[str, str] = {}
    for name in tracked:
        top = root / name
        paths = sorted(p for p in top.rglob("*") if p.is_file()) if top.is_dir() else [top]
        for path in paths:
            if path.is_file():
                files[path.relative_to(root).as_posix()] = store.put(path.read_bytes())
    return files


def new_version(files: dict[str, str], parent: str | None, summary: str, scores: dict) -> Version:
    """A version of ``files`` whose id is derived from their content."""
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:12]
    return Version(
        id=digest,
        parent=parent,
        created_at=time.time(),
        summary=summary,
        files=files,
        scores=scores,
    )
