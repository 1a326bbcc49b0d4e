"""The schema of ``history.sqlite`` and its migrations: one database per project, one ordered
list of steps.

Tables: ``versions`` and ``attempts`` (:mod:`.versions`), the feedback ledger's
``feedback_turns``, ``feedback_requirements``, ``feedback_verdicts`` and ``feedback_forgetting``
(:mod:`mmstudio.feedback.ledger`), ``jobs`` and ``usage`` (:mod:`.runs`).

Invariants:
- The database's ``PRAGMA user_version`` is the number of migration steps applied; step *n*
  (1-based) of :data:`MIGRATIONS` takes a database from version *n − 1* to *n*.
- :func:`migrate` runs at every open. The pending steps and the new ``user_version`` commit in
  ONE transaction (``BEGIN IMMEDIATE``: SQLite's DDL is transactional), so a crash or a full disk
  mid-migration leaves the database at its old version with every row, and two processes opening
  the same project at once migrate it once (the second finds the work done).
- Steps never drop a table or a column that holds rows; a step that adds what a database made
  before this mechanism may already have (``user_version`` 0, tables created ad hoc) checks first.
- A database newer than this code (``user_version`` above the last step) is refused with a
  ProjectError rather than written with an older schema.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from mmstudio.project.errors import ProjectError

Step = Callable[[sqlite3.Connection], None]


def _statements(*sql: str) -> Step:
    def run(db: sqlite3.Connection) -> None:
        for statement in sql:
            db.execute(statement)

    return run


def _add_columns(table: str, columns: dict[str, str]) -> Step:
    """Add ``columns`` (name → SQL type) that ``table`` lacks."""

    def run(db: sqlite3.Connection) -> None:
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        for name, sql_type in columns.items():
            if name not in present:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {sql_type}")

    return run


# The first format's tables (before migrations; ``IF NOT EXISTS``: such databases exist).
_V1_VERSIONS = _statements(
    """CREATE TABLE IF NOT EXISTS versions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        parent TEXT,
        created_at REAL NOT NULL,
        summary TEXT NOT NULL,
        files TEXT NOT NULL,
        scores TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS attempts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at REAL NOT NULL,
        job TEXT,
        element TEXT,
        level TEXT,
        codes TEXT NOT NULL,
        outcome TEXT NOT NULL,
        reason TEXT NOT NULL,
        version TEXT
    )""",
)

_V3_LEDGER = _statements(
    """CREATE TABLE IF NOT EXISTS feedback_turns (
        turn INTEGER PRIMARY KEY,
        created_at REAL NOT NULL,
        text TEXT NOT NULL,
        words TEXT NOT NULL,
        annotation TEXT,
        png TEXT,
        base_version TEXT,
        version TEXT,
        route TEXT NOT NULL,
        summary TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS feedback_requirements (
        id TEXT PRIMARY KEY,
        turn INTEGER NOT NULL,
        data TEXT NOT NULL,
        superseded_by TEXT
    )""",
    """CREATE TABLE IF NOT EXISTS feedback_verdicts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at REAL NOT NULL,
        requirement TEXT NOT NULL,
        turn INTEGER NOT NULL,
        version TEXT,
        phase TEXT NOT NULL,
        passed INTEGER,
        detail TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS feedback_forgetting (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at REAL NOT NULL,
        requirement TEXT NOT NULL,
        turn INTEGER NOT NULL,
        detail TEXT NOT NULL,
        repaired INTEGER NOT NULL
    )""",
)

_V4_JOBS_USAGE = _statements(
    # one row per job a JobManager ran on the project: ``job`` is the manager's id (job-3,
    # unique within one process ``pid``), times in s since the epoch, ``status`` running |
    # done | failed | cancelled (a row left "running" belongs to a process that died)
    """CREATE TABLE IF NOT EXISTS jobs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        job TEXT NOT NULL,
        pid INTEGER NOT NULL,
        kind TEXT NOT NULL,
        element TEXT,
        level TEXT,
        started_at REAL NOT NULL,
        ended_at REAL,
        status TEXT NOT NULL,
        error TEXT
    )""",
    # one row per model call: ``run`` the command or job that made it (new, refine, feedback,
    # evaluate, a job id), ``stage`` the role it served (plan, layout, image, judge …), tokens,
    # images, video seconds (s) and USD (NULL: the model has no price)
    """CREATE TABLE IF NOT EXISTS usage (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at REAL NOT NULL,
        run TEXT NOT NULL,
        stage TEXT NOT NULL,
        element TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        images INTEGER NOT NULL,
        video_seconds REAL NOT NULL,
        cost_usd REAL
    )""",
    "CREATE INDEX IF NOT EXISTS usage_by_run ON usage (run)",
)

MIGRATIONS: tuple[tuple[str, Step], ...] = (
    ("versions and attempts", _V1_VERSIONS),
    ("versions: the job, element and level that made each",
     _add_columns("versions", {"job": "TEXT", "element": "TEXT", "level": "TEXT"})),
    ("the feedback ledger", _V3_LEDGER),
    ("jobs and usage", _V4_JOBS_USAGE),
)  # fmt: skip
LATEST = len(MIGRATIONS)


def connect(db_path: Path) -> sqlite3.Connection:
    """A connection to ``db_path`` (10 s busy timeout); the caller closes it."""
    return sqlite3.connect(db_path, timeout=10)


def migrate(db_path: Path) -> int:
    """Bring ``db_path`` (created if absent, in WAL mode) to :data:`LATEST`; returns the
    version it had before. Raises ProjectError when the database is newer than this code,
    sqlite3.Error when it cannot be read or written (the caller words it)."""
    with closing(sqlite3.connect(db_path, timeout=10, isolation_level=None)) as db:
        if _version(db) == LATEST:
            return LATEST
        db.execute("PRAGMA journal_mode=WAL")  # not inside a transaction
        db.execute("BEGIN IMMEDIATE")  # one writer: a second opener waits, then finds it done
        try:
            before = _version(db)
            if before > LATEST:
                raise ProjectError(
                    f"{db_path} was written by a newer MM Studio (history format {before}, "
                    f"this one reads up to {LATEST})",
                    "upgrade MM Studio to open this project",
                )
            for _, step in MIGRATIONS[before:]:
                step(db)
            db.execute(f"PRAGMA user_version = {LATEST}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return before


def _version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])
