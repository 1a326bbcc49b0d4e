"""Requirements applied by the model refiners, in a turn that has a model (MM Studio issue 7: "the
change is applied with the narrowest tool"; the levels of MM-WebAgent §3.4).

Which requirements: the ones no offline operation applies — free requirements, and structural
ones whose operation could not apply to this page — never a test condition (``check_only``).

Routing, one :class:`Call` per level and element (its requirements' instructions listed):
- a requirement on a medium (image, video, chart: it carries ``data-mm-id``) → a **context**
  refine of that element (how the page shows it: CSS scoped to it, its markup), or a **local**
  refine when it is about the asset itself (``aspect`` "asset": what the picture shows, the
  chart's data);
- a requirement on a text block, a section or the page → a **global** refine (the page's layout
  and style; the context level addresses embedded assets), its instruction naming the target
  and its CSS selector.
The instruction is the requirement's text, the words of the marks on its target (all marks for
a page-wide one) and, in the repair pass, the critic's finding.

Applying: the local and context calls run together on the same draft, then the global calls one
after the other (MM-WebAgent's order: local ∥ context, then global). Their Changes go into the
turn's :class:`~mmstudio.feedback.assets.Draft`: page edits re-applied to the latest draft
page (element patches compose), files merged, a local change's element spec merged into the
draft's plan. A call the model failed or whose reply was refused (the refiners record it as a
``settled`` Change), a change that breaks a guardrail on the draft, or one that does nothing
leaves its requirements not applied, each with a one-line reason; a model's failure never
raises here (a cancellation does).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from mmstudio.plan import DesignPlan
from mmstudio.project.errors import first_line
from mmstudio.refine import guardrails, html_edit
from mmstudio.refine.loop import Target
from mmstudio.refine.model import Change, RefineInput
from mmstudio.refine.registry import Refiners
from mmstudio.render.model import Render
from mmstudio.report import ElementScore, Issue, Level, Report

from .assets import Draft
from .compose import mark_line, target_words
from .elements import MEDIA_KINDS, PageElement, by_id
from .operations import OperationError, selector
from .requirements import Requirement
from .resolve import Mark

log = logging.getLogger(__name__)

MEDIA = ("image", "video", "chart")
CODE = "feedback-request"  # the issue code of a designer's request (no offline rule answers it)
_PLAN_LISTS = {"image": "images", "video": "videos", "chart": "charts"}


@dataclass
class Scene:
    """What the calls of one turn read: the page's ``elements`` before the turn, a ``report``
    whose element rows give each medium's kind and site-relative asset path, and the words of
    the turn's marks by target id (key None: every mark)."""

    elements: list[PageElement]
    report: Report
    marks: dict[str | None, list[str]] = field(default_factory=dict)

    @classmethod
    def of(
        cls, render: Render, elements: list[PageElement], marks: list[Mark], plan: DesignPlan | None
    ) -> Scene:
        words: dict[str | None, list[str]] = {None: [mark_line(m, elements) for m in marks]}
        for mark, line in zip(marks, words[None], strict=True):
            for target in mark.targets:
                words.setdefault(target, []).append(line)
        return cls(elements, Report(elements=element_rows(render, plan)), words)


def element_rows(render: Render, plan: DesignPlan | None) -> list[ElementScore]:
    """One report row per medium of ``render`` with an id: kind and asset path (the plan's
    ``save_path``, else the page's own ``src``)."""
    rows = []
    for media in render.probe.media if render.probe else []:
        if not media.id:
            continue
        path = ""
        if plan is not None:
            try:
                path = plan.element(media.id).save_path
            except KeyError:
                path = ""
        path = path or html_edit.norm_path(media.raw_src or media.src)
        rows.append(ElementScore(id=media.id, kind=MEDIA_KINDS.get(media.tag, "image"), path=path))
    return rows


@dataclass
class Call:
    """One refiner call: ``level``, ``element`` (None: the page), its requirements and the
    instruction line of each (in the same order)."""

    level: Level
    element: str | None
    requirements: list[Requirement] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    @property
    def instruction(self) -> str:
        return "\n".join(self.lines)

    @property
    def what(self) -> str:
        """ "context refine of `hero_image`" / "global refine"."""
        return f"{self.level} refine" + (f" of `{self.element}`" if self.element else "")


def route(req: Requirement, scene: Scene) -> tuple[Level, str | None]:
    """(level, element) of the call that applies ``req`` (see the module docstring)."""
    element = by_id(scene.elements, req.target or "") if req.target else None
    kind = element.kind if element is not None else req.target_kind
    if req.target and kind in MEDIA:
        return ("local" if req.aspect == "asset" else "context"), req.target
    return "global", None


def instruction_line(req: Requirement, scene: Scene, level: Level, finding: str = "") -> str:
    """The designer's words for one requirement: its text, where it applies (a global call on an
    element names it and its selector), the marks on its target and the critic's ``finding``."""
    line = f"- {req.text.strip()}"
    if level == "global" and req.target:
        where = target_words(req.target, scene.elements)
        line += f" (only {where}, CSS selector `{selector(req)}`)"
    marks = scene.marks.get(req.target) if req.target else scene.marks.get(None)
    line += "".join(f"\n  {mark}" for mark in marks or [])
    if finding:
        line += f"\n  A reviewer checked the page: it is still not met ({finding}). Fix it."
    return line


def plan_calls(
    reqs: list[Requirement], scene: Scene, findings: dict[str, str] | None = None
) -> list[Call]:
    """The calls for ``reqs``, one per (level, element), in first-requirement order;
    ``findings`` (requirement id → the critic's detail) makes them repair calls."""
    calls: dict[tuple[str, str | None], Call] = {}
    for req in reqs:
        level, element = route(req, scene)
        call = calls.setdefault((level, element), Call(level, element))
        call.requirements.append(req)
        call.lines.append(instruction_line(req, scene, level, (findings or {}).get(req.id, "")))
    return list(calls.values())


def _issue(req: Requirement, call: Call, scene: Scene) -> Issue:
    row = next((e for e in scene.report.elements if e.id == call.element), None)
    return Issue(
        id=f"fb-{req.id}", element=call.element, dimension=row.kind if row else "layout",
        level=call.level, code=CODE, message=req.text.strip()[:300] or "(marks only)",
        evidence={"requirement": req.id}, source="judge",
    )  # fmt: skip


@dataclass
class Applied:
    """The result of :func:`apply_calls`: the new ``draft``, what applied ("t1.r1, t1.r2:
    context refine of `hero_image` — <summary> (<note>)") and, per requirement id not applied,
    why (one line)."""

    draft: Draft
    done: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)


async def apply_calls(refiners: Refiners, calls: list[Call], draft: Draft, scene: Scene) -> Applied:
    """Run ``calls`` and apply their Changes to ``draft`` (see the module docstring)."""
    result = Applied(draft)
    elements = [c for c in calls if c.level != "global"]
    proposed = await asyncio.gather(*(_propose(refiners, c, draft, scene) for c in elements))
    for call, changes in zip(elements, proposed, strict=True):
        _take(result, call, changes)
    for call in (c for c in calls if c.level == "global"):
        _take(result, call, await _propose(refiners, call, result.draft, scene))
    return result


async def _propose(
    refiners: Refiners, call: Call, draft: Draft, scene: Scene
) -> list[Change] | str:
    """The refiners' Changes for ``call`` on ``draft``, or why the call failed (one line)."""
    issues = [_issue(r, call, scene) for r in call.requirements]
    inp = RefineInput(
        call.level, call.element, issues, scene.report, draft.plan, draft.site_dir,
        draft.page, call.instruction,
    )  # fmt: skip
    try:
        return await refiners.propose(Target(call.level, call.element, issues), inp)
    except Exception as exc:  # one failing call leaves its requirements unapplied, not the turn
        log.warning("%s failed", call.what, exc_info=log.isEnabledFor(logging.DEBUG))
        return f"the {call.what} failed: {first_line(exc)[:200]}"


def _take(result: Applied, call: Call, changes: list[Change] | str) -> None:
    """Apply the Changes of one call to ``result.draft``; record what applied or why not."""
    ids = [r.id for r in call.requirements]
    reasons = [changes] if isinstance(changes, str) else []
    applied = []
    for change in [] if isinstance(changes, str) else changes:
        if change.settled is not None:
            reasons.append(change.settled[1])
            continue
        try:
            result.draft = merge(result.draft, change)
        except (OperationError, RuntimeError, ValueError) as exc:
            reasons.append(f"the {call.what} was refused: {first_line(exc)[:200]}")
            continue
        note = f" ({change.note})" if change.note else ""
        applied.append(f"{call.what} — {change.summary}{note}")
    if applied:
        result.done.update({i: "; ".join(applied) for i in ids})
        return
    reason = reasons[0] if reasons else f"the {call.what} proposed no change"
    result.failed.update({i: reason for i in ids})


def merge(draft: Draft, change: Change) -> Draft:
    """A copy of ``draft`` with ``change`` applied; raises OperationError (one line) when it
    breaks a guardrail on the draft or changes nothing."""
    problems = guardrails.file_problems(change.files)
    page = change.page(draft.page) if change.page else draft.page
    problems += guardrails.page_problems(draft.page, page)
    if problems:
        raise OperationError(problems[0])
    if page == draft.page and not change.files and change.plan is None:
        raise OperationError("the change does nothing to this page")
    plan, plan_changed = draft.plan, draft.plan_changed
    if change.plan is not None:
        plan, plan_changed = merged_plan(draft.plan, change.plan, change.element), True
    files = {**draft.files, **change.files}
    return Draft(page, plan, draft.site_dir, files, plan_changed)


def merged_plan(
    current: DesignPlan | None, proposed: DesignPlan, element: str | None
) -> DesignPlan:
    """``current`` with ``element``'s spec taken from ``proposed`` (local changes made side by
    side each bring a whole plan; only their own element is theirs to change)."""
    if current is None or element is None:
        return proposed
    try:
        spec = proposed.element(element)
    except KeyError:
        return current
    name = _PLAN_LISTS[spec.kind]
    specs = [spec if e.id == element else e for e in getattr(current, name)]
    return current.model_copy(update={name: specs})
