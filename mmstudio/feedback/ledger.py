"""The requirement ledger: feedback turns, their requirements, every verdict per version and the
forgetting events, in the project's ``history.sqlite`` (the ``feedback_*`` tables; they and their
migrations are :mod:`mmstudio.project.schema`'s, run when the ledger is opened).

Invariants: the database is in WAL mode (set by :class:`~mmstudio.project.versions.History`);
each write is one transaction; a turn's row is written after its version is committed, so every
turn names a version that exists. A *forgetting* event is a requirement that passed at an earlier
version and fails now (FronTalk); it is recorded once per requirement and turn, with whether the
repair pass restored it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from mmstudio.project.schema import migrate

from .requirements import Requirement


@dataclass
class Verdict:
    """The critic's word on one requirement: ``passed`` True / False / None (not checkable
    without a model); ``detail`` one line with the measurement."""

    requirement: str
    passed: bool | None
    detail: str


@dataclass
class TurnRecord:
    turn: int
    text: str
    words: str
    annotation: str | None
    png: str | None
    base_version: str | None
    version: str | None
    route: str
    summary: str


class Ledger:
    """The feedback tables of one project's ``history.sqlite``."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path)
        migrate(self.db_path)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.db_path, timeout=10)) as db, db:
            yield db

    def next_turn(self) -> int:
        with self._connect() as db:
            row = db.execute("SELECT MAX(turn) FROM feedback_turns").fetchone()
        return (row[0] or 0) + 1

    def add_turn(self, record: TurnRecord, requirements: list[Requirement]) -> None:
        """Record a turn and its requirements (one transaction)."""
        with self._connect() as db:
            db.execute(
                "INSERT INTO feedback_turns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.turn, time.time(), record.text, record.words, record.annotation,
                    record.png, record.base_version, record.version, record.route, record.summary,
                ),
            )  # fmt: skip
            for req in requirements:
                db.execute(
                    "INSERT OR REPLACE INTO feedback_requirements VALUES (?, ?, ?, ?)",
                    (req.id, req.turn, req.model_dump_json(), req.superseded_by),
                )

    def retire(self, requirements: list[Requirement]) -> None:
        """Store the ``superseded_by`` of earlier requirements."""
        with self._connect() as db:
            for req in requirements:
                db.execute(
                    "UPDATE feedback_requirements SET data = ?, superseded_by = ? WHERE id = ?",
                    (req.model_dump_json(), req.superseded_by, req.id),
                )

    def requirements(self) -> list[Requirement]:
        """Every requirement of every turn, in turn order."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT data, superseded_by FROM feedback_requirements ORDER BY turn, id"
            ).fetchall()
        reqs = [Requirement.model_validate_json(data) for data, _ in rows]
        for req, (_, retired) in zip(reqs, rows, strict=True):
            req.superseded_by = retired
        return sorted(reqs, key=lambda r: (r.turn, int(r.id.split(".r")[-1] or 0)))

    def turns(self) -> list[TurnRecord]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT turn, text, words, annotation, png, base_version, version, route, summary"
                " FROM feedback_turns ORDER BY turn"
            ).fetchall()
        return [TurnRecord(*row) for row in rows]

    def add_verdicts(self, verdicts: list[Verdict], turn: int, version: str | None, phase: str):
        """Record the critic's verdicts at ``version`` (``phase`` trial | repair | final)."""
        with self._connect() as db:
            db.executemany(
                "INSERT INTO feedback_verdicts (created_at, requirement, turn, version, phase,"
                " passed, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (time.time(), v.requirement, turn, version, phase,
                     None if v.passed is None else int(v.passed), v.detail)
                    for v in verdicts
                ],
            )  # fmt: skip

    def ever_passed(self) -> set[str]:
        """Ids of requirements that passed in a final verdict of some turn."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT DISTINCT requirement FROM feedback_verdicts WHERE phase = 'final'"
                " AND passed = 1"
            ).fetchall()
        return {r[0] for r in rows}

    def latest_verdicts(self) -> dict[str, Verdict]:
        """Each requirement's last final verdict."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT requirement, passed, detail FROM feedback_verdicts WHERE phase = 'final'"
                " ORDER BY seq"
            ).fetchall()
        return {r: Verdict(r, None if p is None else bool(p), d) for r, p, d in rows}

    def final_verdicts(self) -> list[dict]:
        """Every final verdict, oldest first: {requirement, turn, version, passed (True / False /
        None), detail} — one row per requirement per turn (the status per version)."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT requirement, turn, version, passed, detail FROM feedback_verdicts"
                " WHERE phase = 'final' ORDER BY seq"
            ).fetchall()
        return [
            {"requirement": r, "turn": t, "version": v,
             "passed": None if p is None else bool(p), "detail": d}
            for r, t, v, p, d in rows
        ]  # fmt: skip

    def verdicts_by_turn(self) -> dict[str, dict[int, Verdict]]:
        """``{requirement: {turn: its final verdict at that turn}}`` (the last one recorded when
        a turn has several)."""
        table: dict[str, dict[int, Verdict]] = {}
        for row in self.final_verdicts():
            verdict = Verdict(row["requirement"], row["passed"], row["detail"])
            table.setdefault(row["requirement"], {})[row["turn"]] = verdict
        return table

    def decided(self) -> set[str]:
        """Ids of requirements some final verdict passed or failed (checked at least once)."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT DISTINCT requirement FROM feedback_verdicts"
                " WHERE phase = 'final' AND passed IS NOT NULL"
            ).fetchall()
        return {r[0] for r in rows}

    def passed_at_introduction(self) -> set[str]:
        """Ids of requirements whose final verdict in their own turn was a pass."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT v.requirement FROM feedback_verdicts v JOIN feedback_requirements r"
                " ON r.id = v.requirement WHERE v.phase = 'final' AND v.turn = r.turn"
                " AND v.passed = 1"
            ).fetchall()
        return {r[0] for r in rows}

    def add_forgetting(self, requirement: str, turn: int, detail: str, repaired: bool) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT INTO feedback_forgetting (created_at, requirement, turn, detail, repaired)"
                " VALUES (?, ?, ?, ?, ?)",
                (time.time(), requirement, turn, detail, int(repaired)),
            )

    def forgetting(self) -> list[dict]:
        """Every forgetting event: requirement, turn it was detected at, detail, repaired."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT requirement, turn, detail, repaired FROM feedback_forgetting ORDER BY seq"
            ).fetchall()
        return [
            {"requirement": r, "turn": t, "detail": d, "repaired": bool(rep)}
            for r, t, d, rep in rows
        ]


def rates(ledger: Ledger) -> dict[str, float | None]:
    """FronTalk's numbers over the active requirements that are checked — the measured ones and
    every free one a judge (the model or the condition rules) decided at least once:
    ``pass_rate`` (share passing now) and ``forgetting_rate`` = 1 − passing now / passed when
    introduced (None with nothing to count). An unchecked requirement never counts."""
    latest = ledger.latest_verdicts()
    decided = ledger.decided()
    active = [
        r.id
        for r in ledger.requirements()
        if not r.superseded_by and (r.structural or r.id in decided)
    ]
    now = {i for i in active if latest.get(i) and latest[i].passed}
    introduced = ledger.passed_at_introduction() & set(active)
    return {
        "pass_rate": round(len(now) / len(active), 3) if active else None,
        "forgetting_rate": (
            round(1 - len(now & introduced) / len(introduced), 3) if introduced else None
        ),
    }


def annotation_json(annotation) -> str | None:
    return json.dumps(annotation.model_dump(mode="json")) if annotation is not None else None
