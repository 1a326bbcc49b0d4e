"""Versions of a project: content-addressed blobs in ``objects/`` and a table in ``history.sqlite``.

A version is the set of files that make up the design at one moment (``plan.json``,
``report.json`` and every file under ``site/``), each stored once under ``objects/<aa>/<sha256>``.
Its id is the first 12 hex digits of the SHA-256 of its file map, so the same content always gets
the same id and committing an unchanged design adds nothing.

Invariants: the database runs in WAL mode (a writer killed mid-transaction leaves the last
committed rows readable); a blob is written atomically before any row names it, so every row's
files exist. ``attempts`` records refinements that were rejected or reverted (never a version).
The tables and their migrations are :mod:`mmstudio.project.schema`'s.
"""

from __future__ import annotations

import errno
import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from pydantic import BaseModel

from mmstudio.project import atomic
from mmstudio.project.schema import migrate


class Version(BaseModel):
    """One committed version: ``files`` maps a project-relative path to its blob's SHA-256;
    ``scores`` are the report's scores (0–1) at commit time; ``created_at`` is Unix time (s)."""

    id: str
    parent: str | None
    created_at: float
    summary: str
    files: dict[str, str]
    scores: dict[str, float | None]
    job: str | None = None
    element: str | None = None
    level: str | None = None


class Attempt(BaseModel):
    """A refinement that did not become a version (or did: ``outcome`` accepted, ``version``
    set): ``codes`` are the issue codes it addressed, ``reason`` one line."""

    created_at: float
    job: str | None = None
    element: str | None = None
    level: str | None = None
    codes: list[str]
    outcome: str
    reason: str
    version: str | None = None


class ObjectStore:
    """Content-addressed blobs under ``root`` (``objects/``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._known: dict[tuple, str] = {}  # (path, size, mtime_ns, inode) → digest

    def path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest

    def put(self, data: bytes) -> str:
        """Store ``data`` (once) and return its SHA-256 hex digest."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.path(digest)
        if not target.exists():
            atomic.write_bytes(target, data)
        return digest

    def put_file(self, path: Path) -> str:
        """Store the file at ``path``; a file unchanged since the last call (same size, mtime
        and inode — atomic writes always make a new inode) is not read again."""
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns, stat.st_ino)
        digest = self._known.get(key)
        if digest is None or not self.path(digest).exists():
            digest = self.put(path.read_bytes())
            self._known[key] = digest
        return digest

    def get(self, digest: str) -> bytes:
        """The blob's bytes; raises FileNotFoundError if missing and ValueError if corrupted."""
        data = self.path(digest).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError(f"object {digest[:12]} is corrupted")
        return data


class History:
    """The versions and attempts tables of ``history.sqlite`` (migrated when opened)."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        migrate(db_path)  # WAL mode, every table, this code's format (project/schema.py)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.db_path, timeout=10)) as db, db:
            yield db

    def _insert(self, sql: str, params: tuple) -> None:
        """Run one INSERT in its own transaction; a full disk (or an I/O error) becomes a
        :class:`~mmstudio.project.atomic.DiskError` and the transaction is rolled back."""
        try:
            self._execute(sql, params)
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if "full" in text:
                reason = "no space left on device"
                raise atomic.DiskError(errno.ENOSPC, reason, self.db_path) from exc
            if "disk I/O" in text:
                raise atomic.DiskError(errno.EIO, "input/output error", self.db_path) from exc
            raise

    def _execute(self, sql: str, params: tuple) -> None:
        with self._connect() as db:
            db.execute(sql, params)

    def add(self, version: Version) -> None:
        """Record ``version`` unless a version with the same id exists; raises DiskError."""
        self._insert(
            "INSERT OR IGNORE INTO versions (id, parent, created_at, summary, files, scores,"
            " job, element, level) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                version.id,
                version.parent,
                version.created_at,
                version.summary,
                json.dumps(version.files, sort_keys=True),
                json.dumps(version.scores),
                version.job,
                version.element,
                version.level,
            ),
        )

    def add_attempt(self, attempt: Attempt) -> None:
        """Record one refinement attempt (accepted, rejected or reverted); raises DiskError."""
        self._insert(
            "INSERT INTO attempts (created_at, job, element, level, codes, outcome, reason,"
            " version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                attempt.created_at,
                attempt.job,
                attempt.element,
                attempt.level,
                json.dumps(attempt.codes),
                attempt.outcome,
                attempt.reason,
                attempt.version,
            ),
        )

    def attempts(self) -> list[Attempt]:
        """Every recorded attempt, oldest first."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT created_at, job, element, level, codes, outcome, reason, version"
                " FROM attempts ORDER BY seq"
            ).fetchall()
        keys = ("created_at", "job", "element", "level", "codes", "outcome", "reason", "version")
        records = [dict(zip(keys, row, strict=True)) for row in rows]
        return [Attempt.model_validate({**r, "codes": json.loads(r["codes"])}) for r in records]

    def list(self) -> list[Version]:
        """All versions, oldest first."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, parent, created_at, summary, files, scores, job, element, level"
                " FROM versions ORDER BY seq"
            ).fetchall()
        return [_row_version(row) for row in rows]

    def get(self, version_id: str) -> Version:
        """The version whose id starts with ``version_id`` (≥ 4 hex digits); raises KeyError
        naming the id when none or several match."""
        if len(version_id) < 4:
            raise KeyError(f"version id {version_id!r} is too short: give at least 4 characters")
        matches = [v for v in self.list() if v.id.startswith(version_id.lower())]
        if len(matches) != 1:
            found = "several versions match" if matches else "no version matches"
            raise KeyError(f"{found} {version_id!r} (see mmstudio history)")
        return matches[0]


def _row_version(row: tuple) -> Version:
    vid, parent, created_at, summary, files, scores, job, element, level = row
    return Version(
        id=vid,
        parent=parent,
        created_at=created_at,
        summary=summary,
        files=json.loads(files),
        scores=json.loads(scores),
        job=job,
        element=element,
        level=level,
    )


def snapshot(root: Path, store: ObjectStore, tracked: list[str]) -> dict[str, str]:
    """Store every file of ``tracked`` (project-relative files or folders) and return the map
    project-relative POSIX path → SHA-256."""
    files: dict[str, str] = {}
    inside = root.resolve()
    for name in tracked:
        top = root / name
        paths = sorted(p for p in top.rglob("*") if p.is_file()) if top.is_dir() else [top]
        for path in paths:
            # a link out of the project (an imported site's) is never read into its history
            if atomic.TEMP_NAME.match(path.name):  # an atomic write under way or interrupted
                continue
            if path.is_file() and path.resolve().is_relative_to(inside):
                files[path.relative_to(root).as_posix()] = store.put_file(path)
    return files


def new_version(
    files: dict[str, str], parent: str | None, summary: str, scores: dict, **tags: str | None
) -> Version:
    """A version of ``files`` whose id is derived from their content; ``tags`` are the optional
    job, element and level that made it."""
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:12]
    return Version(
        id=digest,
        parent=parent,
        created_at=time.time(),
        summary=summary,
        files=files,
        scores=scores,
        **tags,
    )
