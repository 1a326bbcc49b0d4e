"""The check of the project's CURRENT version: every feedback requirement so far, as the
critic reads the head's render, and the evidence crops of what fails there.

A feedback turn's critic checks the requirements at the version the turn commits. Once the head
moves without a turn — undo, redo, restore, a refine, a plan edit — those verdicts describe
another version. :func:`check_head` renders the head's site once, runs the same critic
(:func:`mmstudio.feedback.critic.critique`, the offline condition rules for free-text
requirements) on every requirement of the ledger, and cuts a small PNG around each element that
a failing requirement or issue of the head's report is about. The result is kept with the
version it describes (``renders/checks/<version>/check.json`` and the crops beside it): versions
are content-addressed, so a check never goes stale, and nothing in ``history.sqlite`` changes
(the ledger's per-turn verdicts and FronTalk's rates stay the turns' own).

:func:`statuses_at_head` merges the ledger view with the turns' final verdicts and the head's
check into each requirement's status AT the head: pass / fail / unchecked (checked here),
"undone" (its turn is not in the head's history), "superseded", or "stale" (not checked at this
version: no turn and no check has read it here yet).
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Required, TypedDict

from mmstudio.project import Project
from mmstudio.project.atomic import write_text
from mmstudio.report import Report
from mmstudio.threads import run_cpu

if TYPE_CHECKING:
    from mmstudio.studio.feedback import LedgerView
    from mmstudio.studio.turns import ForgettingEvent

log = logging.getLogger(__name__)

#: the check's crops: at most this size (px), the element's box plus :data:`MARGIN` around it
CROP_MAX = (320, 200)
MARGIN = 12
MAX_ASPECT = 3  # a wider box is cut taller (centred on it), so its thumbnail stays legible
FORMAT = 1


@dataclass
class HeadCheck:
    """What :func:`check_head` found at ``version``: ``verdicts`` requirement id → {passed
    (True / False / None), detail}; ``crops`` element or section id → PNG path (page px box
    cut from ``screenshot``, scaled to fit :data:`CROP_MAX`); ``boxes`` the same ids → [x, y,
    w, h] in page px; ``error`` one line when the page could not be rendered."""

    version: str
    verdicts: dict[str, dict] = field(default_factory=dict)
    crops: dict[str, str] = field(default_factory=dict)
    boxes: dict[str, list[float]] = field(default_factory=dict)
    screenshot: str = ""
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": self.version, "verdicts": self.verdicts,
                "crops": self.crops, "boxes": self.boxes, "screenshot": self.screenshot,
                "error": self.error}  # fmt: skip


def check_dir(project: Project, version: str) -> Path:
    """Where the check of ``version`` is kept (``renders/checks/<version>``)."""
    return project.renders_dir / "checks" / version


def read_check(project: Project, version: str | None) -> HeadCheck | None:
    """The kept check of ``version`` (None: never checked, or an unreadable file). Reads a file:
    call it off the GUI thread."""
    if not version:
        return None
    path = check_dir(project, version) / "check.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != version:
        return None
    return HeadCheck(
        version=version,
        verdicts=dict(data.get("verdicts") or {}),
        crops={k: v for k, v in (data.get("crops") or {}).items() if Path(v).is_file()},
        boxes=dict(data.get("boxes") or {}),
        screenshot=str(data.get("screenshot") or ""),
        error=data.get("error"),
    )


def evidence_ids(report: Report | None) -> set[str]:
    """The element and section ids a crop is wanted for: those of the report's failing
    requirements and of its issues (an issue's ``target`` evidence included)."""
    if report is None:
        return set()
    ids = {r.element for r in report.requirements if r.status == "fail" and r.element}
    for issue in report.issues:
        if issue.element:
            ids.add(issue.element)
        target = issue.evidence.get("target") if isinstance(issue.evidence, dict) else None
        if isinstance(target, str) and target:
            ids.add(target)
    return ids


async def check_head(project: Project, renderer=None, progress=None) -> HeadCheck | None:
    """Render the head's site, check every ledger requirement on it and cut the evidence crops;
    keeps and returns the check (None when the head moved while it ran: the check would describe
    no current version). A page that does not render gives a check with ``error`` (kept, so it
    is not tried again at this version). ``progress(fraction, message)`` is called between
    steps. Raises ProjectError for an unreadable project."""
    from mmstudio.feedback import Ledger
    from mmstudio.feedback.condition_judge import condition_judge
    from mmstudio.feedback.critic import Measured, critique
    from mmstudio.feedback.elements import by_id
    from mmstudio.render import get_renderer

    version = project.manifest.head
    if not version:
        return None
    say = progress or (lambda fraction, message: None)
    out = check_dir(project, version)
    ledger = Ledger(project.root / "history.sqlite")
    requirements, report = await asyncio.to_thread(
        lambda: (ledger.requirements(), project.read_report())
    )
    say(0.1, f"rendering version {version}")
    render = await (renderer or get_renderer()).render(project.site_dir, "index.html", 1280, out)
    check = HeadCheck(version=version, screenshot=render.screenshot)
    if render.failure:
        check.error = render.failure
    else:
        measured = Measured.of(render)
        await asyncio.to_thread(measured.image)  # decoded here, not on the loop by a check
        if requirements:
            say(0.5, f"checking {len(requirements)} requirement(s)")
            verdicts = await critique(requirements, measured, condition_judge(None, turns=True))
            check.verdicts = {v.requirement: {"passed": v.passed, "detail": v.detail}
                              for v in verdicts}  # fmt: skip
        wanted = evidence_ids(report)
        failing = {v for v, row in check.verdicts.items() if row["passed"] is False}
        wanted |= {r.target for r in requirements if r.id in failing and r.target}
        for element_id in sorted(wanted):
            element = by_id(measured.elements, element_id)
            if element is not None and element.box.w >= 2 and element.box.h >= 2:
                b = element.box
                check.boxes[element_id] = [round(v, 1) for v in (b.x, b.y, b.w, b.h)]
        say(0.8, f"cutting {len(check.boxes)} evidence crop(s)")
        check.crops = await run_cpu(cut_crops, Path(render.screenshot), check.boxes, out)
    if project.manifest.head != version:
        return None
    await asyncio.to_thread(
        write_text, out / "check.json", json.dumps(check.to_json(), indent=1) + "\n"
    )
    return check


def cut_crops(screenshot: Path, boxes: dict[str, list[float]], out: Path) -> dict[str, str]:
    """Cut each box (page px [x, y, w, h]) with :data:`MARGIN` around it out of ``screenshot``
    into ``out/crop-<id>.png``, scaled down to fit :data:`CROP_MAX`; a box wider than
    :data:`MAX_ASPECT` times its height is cut taller, centred on it. Returns id → path (boxes
    outside the picture are left out; no screenshot: nothing)."""
    from PIL import Image

    if not boxes or not screenshot.is_file():
        return {}
    out.mkdir(parents=True, exist_ok=True)
    crops: dict[str, str] = {}
    with Image.open(screenshot) as shot:
        shot.load()
        width, height = shot.size
        for element_id, (x, y, w, h) in boxes.items():
            if w > MAX_ASPECT * h:  # a strip (a header, a nav bar): with the page around it
                grow = (w / MAX_ASPECT - h) / 2
                y, h = y - grow, h + 2 * grow
            left, top = max(0, int(x - MARGIN)), max(0, int(y - MARGIN))
            right, bottom = min(width, int(x + w + MARGIN)), min(height, int(y + h + MARGIN))
            if right - left < 4 or bottom - top < 4:
                continue
            part = shot.crop((left, top, right, bottom)).convert("RGB")
            part.thumbnail(CROP_MAX)
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in element_id)
            path = out / f"crop-{safe}.png"
            part.save(path, optimize=False)
            crops[element_id] = str(path)
    return crops


STALE_WORDS = "not checked at this version"


class HeadRequirement(TypedDict):
    """A ledger requirement with its status AT the head (see :func:`statuses_at_head`) and
    what decided it (``checked_by`` "turn" / "check" / None)."""

    id: str
    text: str
    op: str
    target: str | None
    status: str
    detail: str
    checked_by: str | None


class HeadTurn(TypedDict):
    """A ledger turn whose requirements carry their statuses at the head; ``undone``: its
    version is not in the head's history."""

    turn: int
    text: str
    version: str | None
    route: str
    summary: str
    requirements: list[HeadRequirement]
    undone: bool


class HeadLedgerView(TypedDict, total=False):
    """:func:`statuses_at_head`: the ledger view (:class:`~mmstudio.studio.feedback.LedgerView`)
    with statuses at ``head`` and ``checked`` (whether a head check exists). A JSON document
    the app's requirement list reads by key."""

    turns: Required[list[HeadTurn]]
    forgetting: list[ForgettingEvent]
    pass_rate: float | None
    forgetting_rate: float | None
    error: str
    head: str | None
    checked: bool


def statuses_at_head(
    view: LedgerView,
    head: str | None,
    parents: dict[str, str | None],
    finals: list[dict[str, Any]],
    check: HeadCheck | None = None,
) -> HeadLedgerView:
    """``view`` (the ledger view: ``{turns: [{turn, text, version, requirements: [{id, text,
    status, detail, …}]}], …}``) with each requirement's status as of the version ``head``: the
    turn critic's final verdict recorded AT ``head``, else the head check's (``check``), else
    "undone" when its turn's version is not ``head`` or one of its ancestors (``parents``:
    version → parent), else "stale" (:data:`STALE_WORDS`). ``finals``: the ledger's final
    verdicts ({requirement, turn, version, passed, detail}). Superseded requirements stay
    superseded. Each row gains ``checked_by`` ("turn" / "check" / None). Returns a new dict
    with ``head`` and ``checked`` (whether a head check exists)."""
    lineage: list[str] = []
    version = head
    while version and version not in lineage:
        lineage.append(version)
        version = parents.get(version)
    here = {row["requirement"]: row for row in finals if row["version"] == head}
    checked = check.verdicts if check is not None and check.version == head else {}
    turns: list[HeadTurn] = []
    for turn in view.get("turns", []):
        undone = turn.get("version") not in lineage
        rows: list[HeadRequirement] = []
        for ledger_row in turn.get("requirements", []):
            row: HeadRequirement = {**ledger_row, "checked_by": None}
            if row.get("status") != "superseded":
                found = here.get(row["id"])
                by = "turn"
                if found is None and row["id"] in checked:
                    found, by = checked[row["id"]], "check"
                if undone:
                    row["status"] = "undone"
                    row["detail"] = (
                        f"turn {turn['turn']}'s version {turn.get('version')} is not in the "
                        f"current version {head} (undone, or an earlier version restored)"
                    )
                elif found is not None:
                    passed = found["passed"]
                    row["status"] = "unchecked" if passed is None else "pass" if passed else "fail"
                    row["detail"] = found.get("detail", "")
                    row["checked_by"] = by
                else:
                    row["status"] = "stale"
                    row["detail"] = (
                        f"{STALE_WORDS} ({head}): its last verdict was at another version"
                    )
            rows.append(row)
        turns.append({**turn, "requirements": rows, "undone": undone})
    return {**view, "turns": turns, "head": head, "checked": bool(checked) or check is not None}


def needs_check(view: HeadLedgerView) -> bool:
    """Whether a requirement of ``view`` (:func:`statuses_at_head`'s) is stale at the head."""
    return any(
        row.get("status") == "stale" for t in view.get("turns", []) for row in t["requirements"]
    )
