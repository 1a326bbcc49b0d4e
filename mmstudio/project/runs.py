"""What ran on a project and what it cost: the ``jobs`` and ``usage`` tables of
``history.sqlite`` (schema in :mod:`.schema`).

A job row is written when a job starts (status ``running``) and updated when it ends (done,
failed, cancelled; ``error`` one line). A usage row is one model call of a run (tokens, images,
video seconds, USD or NULL when unpriced). Each write is its own short transaction. Recording is
bookkeeping: callers that must not fail because of it (the job manager) catch ``sqlite3.Error``
and ``OSError`` themselves.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, TypedDict

from pydantic import BaseModel

from mmstudio.project.errors import UserError, one_line
from mmstudio.project.schema import connect, migrate

log = logging.getLogger(__name__)

HISTORY_DB = "history.sqlite"
_USAGE_FIELDS = (
    "stage", "element", "model", "input_tokens", "output_tokens", "images", "video_seconds",
    "cost_usd",
)  # fmt: skip


class UsageTotals(TypedDict):
    """Summed model calls (a JSON document: a bench record's ``usage``, ``mmstudio usage
    --json``'s rows): ``calls``, tokens in/out, ``images``, ``video_seconds``, ``cost_usd`` over
    the priced calls and how many calls were ``unpriced``."""

    calls: int
    input_tokens: int
    output_tokens: int
    images: int
    video_seconds: float
    cost_usd: float
    unpriced: int


class UsageSummary(TypedDict):
    """What a model bundle spent (:meth:`~mmstudio.providers.usage.UsageLog.summary`'s shape):
    ``calls``, the ``total`` and the totals per stage and per model."""

    calls: int
    total: UsageTotals
    by_stage: dict[str, UsageTotals]
    by_model: dict[str, UsageTotals]


class JobRecord(BaseModel):
    """One row of ``jobs``: times in s since the epoch (``ended_at`` None while running)."""

    seq: int
    job: str
    pid: int
    kind: str
    element: str | None
    level: str | None
    started_at: float
    ended_at: float | None
    status: str
    error: str | None

    @property
    def seconds(self) -> float | None:
        """How long it ran (s), or None while running (or after its process died)."""
        return None if self.ended_at is None else self.ended_at - self.started_at


class UsageRow(BaseModel):
    """One row of ``usage``: a model call of ``run`` (tokens, images, video seconds in s, USD
    or None when the model has no price)."""

    created_at: float
    run: str
    stage: str
    element: str
    model: str
    input_tokens: int
    output_tokens: int
    images: int
    video_seconds: float
    cost_usd: float | None


class Runs:
    """The jobs and usage tables of the project at ``root`` (migrated on first use)."""

    def __init__(self, root: Path) -> None:
        self.db_path = Path(root) / HISTORY_DB
        migrate(self.db_path)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(connect(self.db_path)) as db, db:
            # bookkeeping: in WAL mode a commit then skips its fsync (a power cut may lose the
            # last rows, never corrupt the database): recording a job on the event loop's
            # thread stays a few ms
            db.execute("PRAGMA synchronous=NORMAL")
            yield db

    def job_started(
        self, job: str, kind: str, *, element: str | None, level: str | None, at: float
    ) -> int:
        """Record a job that started at ``at`` (s); returns its row's ``seq`` for
        :meth:`job_ended`."""
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO jobs (job, pid, kind, element, level, started_at, status)"
                " VALUES (?, ?, ?, ?, ?, ?, 'running')",
                (job, os.getpid(), kind, element, level, at),
            )
        return int(cursor.lastrowid or 0)

    def job_ended(self, seq: int, status: str, *, at: float, error: str | None = None) -> None:
        """Record how the job of row ``seq`` ended (done | failed | cancelled) at ``at`` (s)."""
        with self._connect() as db:
            db.execute(
                "UPDATE jobs SET status = ?, ended_at = ?, error = ? WHERE seq = ?",
                (status, at, error, seq),
            )

    def jobs(self) -> list[JobRecord]:
        """Every recorded job, oldest first."""
        with self._connect() as db:
            db.row_factory = sqlite3.Row
            rows = db.execute("SELECT * FROM jobs ORDER BY seq").fetchall()
        return [JobRecord.model_validate(dict(row)) for row in rows]

    def add_usage(self, run: str, calls: Iterable[Mapping[str, Any]]) -> int:
        """Record the model ``calls`` of ``run`` (dicts with :data:`_USAGE_FIELDS`, e.g.
        ``UsageLog.as_rows()``) in one transaction; returns how many."""
        now = time.time()
        rows = [
            (now, run, *(call.get(name) for name in _USAGE_FIELDS))
            for call in calls
        ]  # fmt: skip
        if not rows:
            return 0
        with self._connect() as db:
            db.executemany(
                f"INSERT INTO usage (created_at, run, {', '.join(_USAGE_FIELDS)})"
                f" VALUES ({', '.join('?' * (len(_USAGE_FIELDS) + 2))})",
                rows,
            )
        return len(rows)

    def usage(self) -> list[UsageRow]:
        """Every recorded model call, oldest first."""
        with self._connect() as db:
            db.row_factory = sqlite3.Row
            rows = db.execute(
                f"SELECT created_at, run, {', '.join(_USAGE_FIELDS)} FROM usage ORDER BY seq"
            ).fetchall()
        return [UsageRow.model_validate(dict(row)) for row in rows]

    def usage_totals(self, by: str = "run") -> dict[str, UsageTotals]:
        """Sums per ``by`` (run | stage | model): calls, tokens in/out, images, video seconds,
        USD over the priced calls and ``unpriced`` calls."""
        if by not in ("run", "stage", "model"):
            raise ValueError(f"cannot sum usage by {by!r}")
        sums: dict[str, UsageTotals] = {}
        for row in self.usage():
            key = getattr(row, by) or "-"
            total = sums.setdefault(key, _empty())
            total["calls"] += 1
            total["input_tokens"] += row.input_tokens
            total["output_tokens"] += row.output_tokens
            total["images"] += row.images
            total["video_seconds"] += row.video_seconds
            if row.cost_usd is None:
                total["unpriced"] += 1
            else:
                total["cost_usd"] = round(total["cost_usd"] + row.cost_usd, 6)
        return sums


def _empty() -> UsageTotals:
    return UsageTotals(calls=0, input_tokens=0, output_tokens=0, images=0, video_seconds=0,
                       cost_usd=0, unpriced=0)  # fmt: skip


def record_usage(root: Path, run: str, calls: Iterable[Mapping[str, Any]]) -> int:
    """Add the model ``calls`` of ``run`` to the ``usage`` table of the project at ``root``;
    returns how many were recorded. Bookkeeping: a database that cannot be written is logged
    and 0 returned, never a failed run."""
    calls = list(calls)
    if not calls:
        return 0
    try:
        return Runs(root).add_usage(run, calls)
    except (sqlite3.Error, OSError, UserError) as exc:
        log.warning("usage of %s not recorded in %s: %s", run, root, one_line(exc))
        return 0
