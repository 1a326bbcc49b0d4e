"""history.sqlite: versioned migrations (an old database upgrades without losing rows, atomically),
the jobs and usage tables, and their views in the CLI."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing

import pytest

from mmstudio.cli import main
from mmstudio.feedback.ledger import Ledger
from mmstudio.project import Project, ProjectError, Workspace, schema
from mmstudio.project.runs import Runs, record_usage
from mmstudio.project.versions import History
from mmstudio.studio.jobs import JobManager

# The DDL as the first format wrote it (versions without job/element/level, no user_version),
# and the ledger's tables as the feedback code created them beside it.
OLD_DDL = """
CREATE TABLE versions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    parent TEXT,
    created_at REAL NOT NULL,
    summary TEXT NOT NULL,
    files TEXT NOT NULL,
    scores TEXT NOT NULL
);
CREATE TABLE attempts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at REAL NOT NULL,
    job TEXT,
    element TEXT,
    level TEXT,
    codes TEXT NOT NULL,
    outcome TEXT NOT NULL,
    reason TEXT NOT NULL,
    version TEXT
);
CREATE TABLE feedback_turns (
    turn INTEGER PRIMARY KEY, created_at REAL NOT NULL, text TEXT NOT NULL, words TEXT NOT NULL,
    annotation TEXT, png TEXT, base_version TEXT, version TEXT, route TEXT NOT NULL,
    summary TEXT NOT NULL
);
CREATE TABLE feedback_requirements (
    id TEXT PRIMARY KEY, turn INTEGER NOT NULL, data TEXT NOT NULL, superseded_by TEXT
);
CREATE TABLE feedback_verdicts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, created_at REAL NOT NULL, requirement TEXT NOT NULL,
    turn INTEGER NOT NULL, version TEXT, phase TEXT NOT NULL, passed INTEGER, detail TEXT NOT NULL
);
CREATE TABLE feedback_forgetting (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, created_at REAL NOT NULL, requirement TEXT NOT NULL,
    turn INTEGER NOT NULL, detail TEXT NOT NULL, repaired INTEGER NOT NULL
);
"""


def _old_database(path):
    with closing(sqlite3.connect(path)) as db, db:
        db.executescript(OLD_DDL)
        for n in range(3):
            db.execute(
                "INSERT INTO versions (id, parent, created_at, summary, files, scores)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (f"v{n:011d}", f"v{n - 1:011d}" if n else None, 100.0 + n, f"version {n}",
                 json.dumps({"site/index.html": "ab" * 32}), json.dumps({"overall": 0.5})),
            )  # fmt: skip
        db.execute(
            "INSERT INTO attempts (created_at, job, element, level, codes, outcome, reason,"
            " version) VALUES (101, 'job-1', 'hero', 'local', '[\"contrast\"]', 'rejected',"
            " 'no gain', NULL)"
        )
        db.execute(
            "INSERT INTO feedback_turns VALUES (1, 102, 'make it blue', 'make it blue', NULL,"
            " NULL, 'v00000000001', 'v00000000002', 'offline', 'blue')"
        )
        db.execute(
            "INSERT INTO feedback_verdicts (created_at, requirement, turn, version, phase,"
            " passed, detail) VALUES (102, 't1.r1', 1, 'v00000000002', 'final', 1, 'blue')"
        )
    return path


def _tables(path) -> set[str]:
    with closing(sqlite3.connect(path)) as db:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _user_version(path) -> int:
    with closing(sqlite3.connect(path)) as db:
        return db.execute("PRAGMA user_version").fetchone()[0]


def test_an_old_database_upgrades_without_losing_rows(tmp_path):
    path = _old_database(tmp_path / "history.sqlite")
    assert _user_version(path) == 0
    history = History(path)
    assert _user_version(path) == schema.LATEST
    versions = history.list()
    assert [v.summary for v in versions] == ["version 0", "version 1", "version 2"]
    assert versions[1].parent == "v00000000000" and versions[0].job is None
    assert [(a.element, a.codes, a.outcome) for a in history.attempts()] == [
        ("hero", ["contrast"], "rejected")
    ]
    ledger = Ledger(path)
    assert [t.text for t in ledger.turns()] == ["make it blue"]
    assert ledger.ever_passed() == {"t1.r1"}
    assert {"jobs", "usage"} <= _tables(path)
    with closing(sqlite3.connect(path)) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(versions)")}
    assert {"job", "element", "level"} <= columns
    # the new columns and tables take rows; reopening migrates nothing more
    Runs(tmp_path).job_started("job-1", "refine", element="hero", level="local", at=1.0)
    assert schema.migrate(path) == schema.LATEST
    assert len(History(path).list()) == 3


def test_a_database_that_already_had_the_later_columns_migrates(tmp_path):
    """Databases of the ad-hoc era (user_version 0) may already have versions.job etc."""
    path = _old_database(tmp_path / "history.sqlite")
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("ALTER TABLE versions ADD COLUMN job TEXT")
        db.execute("UPDATE versions SET job = 'job-9' WHERE summary = 'version 2'")
    assert schema.migrate(path) == 0
    assert History(path).list()[2].job == "job-9"


def test_a_failed_migration_leaves_the_old_database_whole(tmp_path, monkeypatch):
    path = _old_database(tmp_path / "history.sqlite")

    def boom(db):
        db.execute("CREATE TABLE half_done (x)")
        raise sqlite3.OperationalError("database or disk is full")

    steps = (*schema.MIGRATIONS[:3], ("breaks", boom))
    monkeypatch.setattr(schema, "MIGRATIONS", steps)
    monkeypatch.setattr(schema, "LATEST", len(steps))
    with pytest.raises(sqlite3.OperationalError):
        schema.migrate(path)
    assert _user_version(path) == 0
    assert "half_done" not in _tables(path)
    with closing(sqlite3.connect(path)) as db:
        assert "job" not in {row[1] for row in db.execute("PRAGMA table_info(versions)")}
        assert db.execute("SELECT COUNT(*) FROM versions").fetchone()[0] == 3


def test_a_newer_database_is_refused(tmp_path):
    path = tmp_path / "history.sqlite"
    schema.migrate(path)
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA user_version = {schema.LATEST + 1}")
    with pytest.raises(ProjectError, match=r"newer MM Studio.*upgrade MM Studio"):
        History(path)


def test_a_bound_job_manager_records_each_job(tmp_path):
    project = Project.create(tmp_path / "p", prompt="x", provider="offline", title="T")

    async def scenario():
        manager = JobManager()
        manager.bind(Workspace.of(project).locks)

        async def ok(ctx):
            return 1

        async def bad(ctx):
            raise ProjectError("nothing to undo", "make a change first")

        async def slow(ctx):
            ctx.progress(0.1, stage="assets")
            await asyncio.sleep(30)

        manager.submit("evaluate", ok)
        await manager.wait_all()
        manager.submit("refine", bad, element="hero", level="local")
        await manager.wait_all()
        stuck = manager.submit("generate", slow)
        await asyncio.sleep(0.05)
        manager.cancel(stuck.id)
        return await manager.wait_all()

    asyncio.run(scenario())
    jobs = Runs(project.root).jobs()
    assert [(j.kind, j.element, j.level, j.status) for j in jobs] == [
        ("evaluate", None, None, "done"),
        ("refine", "hero", "local", "failed"),
        ("generate", None, None, "cancelled"),
    ]
    assert jobs[1].error == "nothing to undo; make a change first"
    assert all(j.seconds is not None and j.seconds >= 0 for j in jobs)


def test_usage_and_jobs_show_in_the_cli(tmp_path, capsys):
    project = Project.create(tmp_path / "p", prompt="x", provider="offline", title="T")
    call = {"stage": "plan", "element": "", "model": "gpt-5.5", "input_tokens": 1200,
            "output_tokens": 300, "images": 0, "video_seconds": 0.0, "cost_usd": 0.004}  # fmt: skip
    image = dict(call, stage="image", element="hero", model="local-image", input_tokens=0,
                 output_tokens=0, images=1, cost_usd=None)  # fmt: skip
    assert record_usage(project.root, "new", [call, image]) == 2
    assert record_usage(project.root, "refine", [call]) == 1
    assert main(["usage", str(project.root), "--json"]) == 0
    by_run = json.loads(capsys.readouterr().out)["usage"]
    assert by_run["new"]["calls"] == 2 and by_run["new"]["unpriced"] == 1
    assert by_run["new"]["cost_usd"] == pytest.approx(0.004)
    assert by_run["refine"]["input_tokens"] == 1200
    assert main(["usage", str(project.root), "--by", "model"]) == 0
    text = capsys.readouterr().out
    assert "gpt-5.5" in text and "tokens 2400 in / 600 out" in text and "1 unpriced" in text
    runs = Runs(project.root)
    row = runs.job_started("job-4", "export", element=None, level=None, at=10.0)
    runs.job_ended(row, "failed", at=12.5, error="cannot write out: no space left on device")
    assert main(["history", str(project.root), "--jobs"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.split()[:3] == ["job-4", "export", "page"]
    assert "2.5 s  failed: cannot write out: no space left on device" in line
