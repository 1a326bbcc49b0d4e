"""The LLM judge: MM-WebAgent's six-dimension evaluation as structured outputs.

Page level: layout and style as penalty lists, scored ``max(0, 1 − 0.5·Σp)`` with the paper's
weights; aesthetics as five grades in {0.2 … 1.0}, scored as their mean. Element level: image and
chart as issue lists labelled asset-side (→ ``local``) or page-side (→ ``context``), scored
``1 − 0.2`` per distinct issue; video as a 0–1 rubric over sampled frames (MM-WebAgent §3.3–3.4).
Every issue comes back as a :class:`mmstudio.report.Issue` with ``source="judge"``;
:mod:`.merge` folds them into a measured report.

Degrading: without ``vision``, layout and style are judged from the HTML and the rest is skipped;
without a plan (a site opened from disk), layout and style are left to the measured checks and
elements are judged by what they are (:class:`Brief` with only id and kind);
a judge call that fails — the endpoint errs, or the reply cannot be parsed even after the one
repair — leaves that dimension "not judged" (listed in :attr:`Judgement.not_judged`, with a
notice; never read as a clean score) and the measured checks stand — the evaluation never fails
because the judge did.

Concurrency: calls run in one ``asyncio.TaskGroup`` bounded by a semaphore of
``settings.concurrency``; each task writes only its own slot of the result.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mmstudio.plan import ChartPlan, DesignPlan, ElementPlan, VideoPlan
from mmstudio.providers.errors import ProviderError
from mmstudio.providers.llm.verdicts import (
    LAYOUT_WEIGHTS,
    SEVERITY_OF_WEIGHT,
    STYLE_WEIGHTS,
    AestheticsJudgement,
    AssetIssue,
    AssetJudgement,
    LayoutJudgement,
    StyleJudgement,
    VideoJudgement,
    issue_score,
    penalty_score,
)
from mmstudio.providers.models import Models
from mmstudio.providers.prompting import render_prompt
from mmstudio.providers.protocols import ChatModel, Message
from mmstudio.providers.settings import Settings
from mmstudio.providers.structured import schema_text, structured_chat
from mmstudio.report import Dimension, Issue, Level

log = logging.getLogger(__name__)

_HTML_LIMIT = 30_000  # characters of page source sent to a text-only judge
#: the notice of a judge call that failed (``name``: a page dimension or an element id)
NOT_JUDGED = "judge: {name} not judged ({why}); measured findings stand"
_JUDGED_DIMENSIONS = ("layout", "style", "aesthetics", "image", "video", "chart")
_NOT_JUDGED = re.compile(r"^judge: (\S+) not judged \(")


def not_judged(notices: list[str], kinds: Mapping[str, str] | None = None) -> set[str]:
    """The dimensions the judge failed to judge, read from a report's ``notices`` (the
    :data:`NOT_JUDGED` lines): page dimensions by name, element ids mapped to their dimension
    through ``kinds`` {element id: image|video|chart}."""
    names = {m.group(1) for n in notices if (m := _NOT_JUDGED.match(n))}
    kinds = kinds or {}
    return {kinds.get(name, name) for name in names} & set(_JUDGED_DIMENSIONS)


@dataclass
class Judgement:
    """What the judge found: dimension ``scores`` (0–1), ``element_scores`` {id: 0–1}, the
    ``issues`` (source judge) and ``notices`` about what it could not judge."""

    scores: dict[str, float] = field(default_factory=dict)
    element_scores: dict[str, float] = field(default_factory=dict)
    element_kinds: dict[str, str] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    not_judged: list[str] = field(default_factory=list)

    def add_issue(
        self, dimension: Dimension, level: Level, severity: str, message: str,
        element: str | None = None, code: str = "",
    ) -> None:  # fmt: skip
        number = sum(1 for i in self.issues if i.dimension == dimension) + 1
        self.issues.append(
            Issue(
                id=f"judge-{dimension}-{number}", element=element, dimension=dimension,
                level=level, severity=severity, code=code or f"judge-{dimension}",  # type: ignore[arg-type]
                message=message, source="judge",
            )
        )  # fmt: skip


@dataclass
class PageEvidence:
    """What the judge looks at: the page ``html``, a full-page ``screenshot`` (PNG bytes or
    None), per-element ``crops`` {id: PNG bytes} and sampled ``video_frames`` {id: [PNG]}."""

    html: str
    screenshot: bytes | None = None
    crops: dict[str, bytes] = field(default_factory=dict)
    video_frames: dict[str, list[bytes]] = field(default_factory=dict)


@dataclass(frozen=True)
class Brief:
    """What the judge is told about one element: its plan's wording (``planned``), or — on a page
    without a plan — only its ``id`` and ``kind``. Sizes in px, ``seconds`` in s."""

    id: str
    kind: str
    planned: bool = False
    prompt: str = ""
    role: str = ""
    section: str = ""
    page_style: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    width: int = 0
    height: int = 0
    title: str = ""
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    seconds: int = 0

    @classmethod
    def of(cls, element: ElementPlan) -> Brief:
        """The brief of a planned element."""
        extra: dict[str, Any] = {}
        if isinstance(element, ChartPlan):
            data = element.source_data
            extra = {"title": element.title, "columns": data.columns, "rows": data.rows[:6]}
        elif isinstance(element, VideoPlan):
            extra = {"seconds": element.seconds}
        context = element.context
        return cls(
            element.id, element.kind, True, element.prompt, context.role, context.section,
            context.page_style, element.attributes.model_dump(), element.display_width_px,
            element.display_height_px, **extra,
        )  # fmt: skip


def briefs(plan: DesignPlan | None, discovered: Mapping[str, str] | None = None) -> list[Brief]:
    """A brief per planned element, then one per ``discovered`` {id: kind} element (found on the
    page by the measured checks) that the plan lacks."""
    found = [Brief.of(e) for e in plan.elements()] if plan else []
    known = {b.id for b in found}
    for element_id, kind in (discovered or {}).items():
        if element_id not in known and kind in ("image", "video", "chart"):
            found.append(Brief(element_id, kind))
    return found


class Judge:
    """The evaluator agent over a :class:`~mmstudio.providers.protocols.ChatModel`."""

    def __init__(
        self, settings: Settings, chat: ChatModel, *, models: Models | None = None
    ) -> None:
        self.settings = settings
        self.chat = chat
        self.models = models
        self._limit = asyncio.Semaphore(settings.concurrency)

    @property
    def vision(self) -> bool:
        """Whether the judge model sees images (the bundle's judge, else the settings)."""
        if self.models is not None:
            return self.models["judge"].can("vision")
        return self.settings.capabilities.vision

    async def judge(
        self,
        plan: DesignPlan | None,
        evidence: PageEvidence,
        discovered: Mapping[str, str] | None = None,
    ) -> Judgement:
        """Judge the page and every element there is evidence for (see module docstring);
        ``discovered`` {id: kind} adds elements the measured checks found beyond the plan."""
        result = Judgement()
        if not self.vision:
            result.notices.append(
                "judge: the endpoint lacks vision; layout and style judged from the HTML, "
                "aesthetics, images, videos and charts by the measured checks only"
            )
        if plan is None:
            result.notices.append("judge: no plan; layout and style left to the measured checks")
        async with asyncio.TaskGroup() as group:
            for name, job in self._jobs(plan, evidence, briefs(plan, discovered), result):
                group.create_task(self._guarded(name, job, result))
        return result

    def _jobs(self, plan, evidence: PageEvidence, elements: list[Brief], result: Judgement):
        if plan is not None:
            yield "layout", lambda: self._layout(plan, evidence, result)
            yield "style", lambda: self._style(plan, evidence, result)
        if not self.vision:
            return
        if evidence.screenshot:
            yield "aesthetics", lambda: self._aesthetics(plan, evidence.screenshot, result)
        for brief in elements:
            job = self._element_job(brief, evidence, result)
            if job is not None:
                yield brief.id, job

    def _element_job(
        self, brief: Brief, evidence: PageEvidence, result: Judgement
    ) -> Callable[[], Awaitable[None]] | None:
        if brief.kind == "video":
            frames = evidence.video_frames.get(brief.id)
            return (lambda: self._video(brief, frames, result)) if frames else None
        crop = evidence.crops.get(brief.id)
        return (lambda: self._asset(brief, crop, result)) if crop else None

    async def _guarded(
        self, name: str, job: Callable[[], Awaitable[None]], result: Judgement
    ) -> None:
        async with self._limit:
            try:
                await job()
            except ProviderError as exc:
                notice = NOT_JUDGED.format(name=name, why=exc)
                log.warning("%s", notice)
                result.notices.append(notice)
                result.not_judged.append(name)

    async def _ask(
        self, template: str, model: type, stage: str, images=(), element_id="", **values
    ):
        text = render_prompt(template, schema=schema_text(model), **values)
        return await structured_chat(
            self.chat, [Message("user", text, tuple(images))], model, role="judge",
            stage=stage, element=element_id,
            schema_supported=self.settings.capabilities.structured_outputs,
        )  # fmt: skip

    def _page_inputs(self, evidence: PageEvidence) -> tuple[tuple[bytes, ...], str]:
        if self.vision and evidence.screenshot:
            return (evidence.screenshot,), ""
        return (), evidence.html[:_HTML_LIMIT]

    async def _layout(self, plan: DesignPlan, evidence: PageEvidence, result: Judgement) -> None:
        images, html = self._page_inputs(evidence)
        reply: LayoutJudgement = await self._ask(
            "judge_layout.md.j2", LayoutJudgement, "judge-layout", images,
            plan_json=plan.model_dump_json(exclude_defaults=True), html=html,
            with_image=bool(images),
        )  # fmt: skip
        weights = [LAYOUT_WEIGHTS[p.kind] for p in reply.penalties]
        result.scores["layout"] = penalty_score(weights)
        for penalty, weight in zip(reply.penalties, weights, strict=True):
            result.add_issue(
                "layout", "global", SEVERITY_OF_WEIGHT.get(weight, "minor"), penalty.message,
                _known(plan, penalty.element), f"judge-layout-{penalty.kind}",
            )  # fmt: skip

    async def _style(self, plan: DesignPlan, evidence: PageEvidence, result: Judgement) -> None:
        images, html = self._page_inputs(evidence)
        reply: StyleJudgement = await self._ask(
            "judge_style.md.j2", StyleJudgement, "judge-style", images,
            palette=[c.model_dump() for c in plan.layout.palette],
            typography=plan.layout.typography, mood=plan.layout.mood, html=html,
            with_image=bool(images),
        )  # fmt: skip
        weights = [STYLE_WEIGHTS[p.kind] for p in reply.penalties]
        result.scores["style"] = penalty_score(weights)
        for penalty, weight in zip(reply.penalties, weights, strict=True):
            result.add_issue(
                "style", "global", SEVERITY_OF_WEIGHT.get(weight, "minor"), penalty.message,
                None, f"judge-style-{penalty.kind}",
            )  # fmt: skip

    async def _aesthetics(
        self, plan: DesignPlan | None, screenshot: bytes, result: Judgement
    ) -> None:
        reply: AestheticsJudgement = await self._ask(
            "judge_aesthetics.md.j2", AestheticsJudgement, "judge-aesthetics", (screenshot,),
            title=plan.title if plan else "", page_kind=plan.page_kind if plan else "",
            mood=plan.layout.mood if plan else [],
        )  # fmt: skip
        grades = [reply.balance_spacing, reply.typography, reply.colour, reply.clarity_polish,
                  reply.overall]  # fmt: skip
        result.scores["aesthetics"] = round(sum(grades) / len(grades), 4)
        for note in reply.notes:
            severity = "major" if min(grades) <= 0.4 else "minor"
            result.add_issue("aesthetics", "global", severity, note)

    async def _asset(self, brief: Brief, crop: bytes, result: Judgement) -> None:
        template = "judge_image.md.j2" if brief.kind == "image" else "judge_chart.md.j2"
        reply: AssetJudgement = await self._ask(
            template, AssetJudgement, f"judge-{brief.kind}", (crop,), brief.id, e=brief
        )
        result.element_scores[brief.id] = issue_score(len(reply.issues))
        result.element_kinds[brief.id] = brief.kind
        self._asset_issues(brief.kind, brief.id, reply.issues, result)

    async def _video(self, brief: Brief, frames: list[bytes], result: Judgement) -> None:
        reply: VideoJudgement = await self._ask(
            "judge_video.md.j2", VideoJudgement, "judge-video", tuple(frames), brief.id,
            e=brief, count=len(frames),
        )  # fmt: skip
        result.element_scores[brief.id] = round(reply.score, 4)
        result.element_kinds[brief.id] = "video"
        self._asset_issues("video", brief.id, reply.issues, result)

    @staticmethod
    def _asset_issues(kind, element_id: str, issues: list[AssetIssue], result: Judgement) -> None:
        for issue in issues:
            level: Level = "local" if issue.side == "asset" else "context"
            result.add_issue(
                kind, level, issue.severity, issue.message, element_id,
                f"judge-{kind}-{issue.side}-side",
            )  # fmt: skip


def _known(plan: DesignPlan, element_id: str | None) -> str | None:
    """``element_id`` when it names a planned element, else None (a section or a made-up id)."""
    ids = {e.id for e in plan.elements()}
    return element_id if element_id in ids else None
