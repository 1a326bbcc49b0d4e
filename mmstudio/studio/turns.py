"""``mmstudio turns``: the feedback ledger of one project as a table — every turn (number, text,
marks, version), every requirement with its status at each turn's version (pass / fail /
unchecked; superseded once a later turn replaced it), the forgetting events and FronTalk's rates.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict, cast

from mmstudio.feedback import Ledger
from mmstudio.feedback.ledger import rates
from mmstudio.project import Project


class ForgettingEvent(TypedDict):
    """A requirement that passed earlier and failed at ``turn``; whether the repair pass fixed
    it."""

    requirement: str
    turn: int
    detail: str
    repaired: bool


def forgetting_events(ledger: Ledger) -> list[ForgettingEvent]:
    """The ledger's forgetting events, oldest first (:meth:`Ledger.forgetting`'s rows)."""
    return cast("list[ForgettingEvent]", ledger.forgetting())


class TurnRow(TypedDict):
    """One turn: number, text, its mark lines, the version it committed, route, summary."""

    turn: int
    text: str
    marks: list[str]
    version: str | None
    route: str
    summary: str


class VersionStatus(TypedDict):
    """A requirement's final status at one turn's version."""

    turn: int
    version: str | None
    status: str


class RequirementRow(TypedDict):
    """One requirement with its latest status and its status at each turn's version."""

    id: str
    turn: int
    text: str
    op: str
    target: str | None
    superseded_by: str | None
    status: str
    by_version: list[VersionStatus]
    detail: str


class TurnsView(TypedDict):
    """:func:`turns_view` (``mmstudio turns --json``, a JSON document printed as it is)."""

    project: str
    head: str | None
    checked_at: str | None
    turns: list[TurnRow]
    requirements: list[RequirementRow]
    forgetting: list[ForgettingEvent]
    pass_rate: float | None
    forgetting_rate: float | None


def _status(passed: bool | None) -> str:
    return "unchecked" if passed is None else ("pass" if passed else "fail")


def _marks(words: str) -> list[str]:
    """The mark lines of a turn's words ("mark 1: rectangle over …")."""
    lines = (line.strip().removeprefix("- ") for line in words.splitlines())
    return [line for line in lines if line.startswith("mark ")]


def turns_view(root: Path) -> TurnsView:
    """The ledger of the project at ``root`` (a :class:`TurnsView`)::

        {project, head, checked_at, turns: [{turn, text, marks: [str], version, route, summary}],
         requirements: [{id, turn, text, op, target, superseded_by, status,
                         by_version: [{turn, version, status}], detail}],
         forgetting: [{requirement, turn, detail, repaired}], pass_rate, forgetting_rate}

    ``status`` is the latest final verdict ("superseded" for a retired requirement);
    ``by_version`` holds the final verdict at each turn's committed version, in turn order;
    ``checked_at`` is the version of the last turn (the statuses describe it), ``head`` the
    project's current version (different after an undo, restore or refine since).
    Raises ProjectError when ``root`` is not a project."""
    project = Project.open(Path(root))
    ledger = Ledger(project.root / "history.sqlite")
    table = ledger.verdicts_by_turn()
    versions = {t.turn: t.version for t in ledger.turns()}
    turns: list[TurnRow] = [
        {"turn": t.turn, "text": t.text, "marks": _marks(t.words), "version": t.version,
         "route": t.route, "summary": t.summary}
        for t in ledger.turns()
    ]  # fmt: skip
    requirements: list[RequirementRow] = []
    for req in ledger.requirements():
        seen = table.get(req.id, {})
        latest = seen[max(seen)] if seen else None
        requirements.append(
            {
                "id": req.id, "turn": req.turn, "text": req.text, "op": req.op,
                "target": req.target, "superseded_by": req.superseded_by,
                "status": "superseded" if req.superseded_by else _status(
                    latest.passed if latest else None),
                "by_version": [
                    {"turn": t, "version": versions.get(t), "status": _status(v.passed)}
                    for t, v in sorted(seen.items())
                ],
                "detail": latest.detail if latest else "",
            }
        )  # fmt: skip
    found = rates(ledger)
    return {
        "project": str(project.root),
        "head": project.manifest.head,
        "checked_at": turns[-1]["version"] if turns else None,
        "turns": turns,
        "requirements": requirements,
        "forgetting": forgetting_events(ledger),
        "pass_rate": found["pass_rate"],
        "forgetting_rate": found["forgetting_rate"],
    }


_SHORT = {"pass": "pass", "fail": "FAIL", "unchecked": "—"}


def turns_text(view: TurnsView, width: int = 60) -> str:
    """``view`` as readable text: the turns, a requirement × turn status table, the forgetting
    events and the rates (``width``: characters of requirement text shown)."""
    if not view["turns"]:
        return "no feedback turns yet"
    lines = ["turns:"]
    for t in view["turns"]:
        text = " ".join(t["text"].split()) or "(annotations only)"
        lines.append(f"  {t['turn']:>3}  {str(t['version'] or '-')[:10]:<10}  {text[:width]}")
        lines += [f"         {m}" for m in t["marks"]]
    numbers = [t["turn"] for t in view["turns"]]
    ident = max([len("requirement")] + [len(r["id"]) for r in view["requirements"]])
    head = f"  {'requirement':<{ident}}  " + "".join(f"t{n:<5}" for n in numbers)
    lines += ["", "requirements (status at each turn's version):", head + " latest      text"]
    for r in view["requirements"]:
        at = {v["turn"]: _SHORT[v["status"]] for v in r["by_version"]}
        cells = "".join(f"{at.get(n, ''):<6}" for n in numbers)
        text = " ".join(r["text"].split())[:width]
        lines.append(f"  {r['id']:<{ident}}  {cells} {r['status']:<11} {text}")
    if view["forgetting"]:
        lines += ["", "forgetting:"]
        for e in view["forgetting"]:
            state = "repaired" if e["repaired"] else "NOT repaired"
            lines.append(f"  {e['requirement']} at turn {e['turn']}: {e['detail']} ({state})")
    if view.get("checked_at") and view.get("head") != view["checked_at"]:
        lines += ["", f"note: the project is at version {str(view['head'])[:12]}, not the last "
                  f"turn's {str(view['checked_at'])[:12]} (undo, restore or refine since); the "
                  "statuses are those of the last turn's check"]  # fmt: skip
    lines += ["", f"pass rate {_rate(view['pass_rate'])}, "
              f"forgetting rate {_rate(view['forgetting_rate'])}"]  # fmt: skip
    return "\n".join(lines)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
