"""The LLM judge: MM-WebAgent's six-dimension evaluation as structured outputs.

Page level: layout and style as penalty lists, scored ``max(0, 1 − 0.5·Σp)`` with the paper's
weights; aesthetics as five grades in {0.2 … 1.0}, scored as their mean. Element level: image and
chart as issue lists labelled asset-side (→ ``local``) or page-side (→ ``context``), scored
``1 − 0.2`` per distinct issue; video as a 0–1 rubric over sampled frames (MM-WebAgent §3.3–3.4).
Every issue comes back as a :class:`mmstudio.report.Issue` with ``source="judge"``;
:mod:`.merge` folds them into a measured report.

Degrading: without ``vision``, layout and style are judged from the HTML and the rest is skipped;
a judge call that fails leaves that dimension to the measured checks, with a notice — the
evaluation never fails because the judge did.

Concurrency: calls run in one ``asyncio.TaskGroup`` bounded by a semaphore of
``settings.concurrency``; each task writes only its own slot of the result.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mmstudio.plan import ChartPlan, DesignPlan, ElementPlan, ImagePlan, VideoPlan
from mmstudio.providers.errors import ProviderError
from mmstudio.providers.prompting import render_prompt
from mmstudio.providers.protocols import ChatModel, Message
from mmstudio.providers.settings import Settings
from mmstudio.providers.structured import schema_text, structured_chat
from mmstudio.report import Dimension, Issue, Level, Severity

log = logging.getLogger(__name__)

_HTML_LIMIT = 30_000  # characters of page source sent to a text-only judge


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LayoutPenalty(_Reply):
    kind: Literal[
        "critical-missing", "minor-missing", "misplaced", "structural-mismatch", "visual-detail"
    ]
    element: str | None = None
    message: str = Field(min_length=1, max_length=600)


class LayoutJudgement(_Reply):
    penalties: list[LayoutPenalty] = Field(default_factory=list, max_length=40)


class StylePenalty(_Reply):
    kind: Literal["page-mismatch", "section-mismatch", "minor"]
    section: str | None = None
    message: str = Field(min_length=1, max_length=600)


class StyleJudgement(_Reply):
    penalties: list[StylePenalty] = Field(default_factory=list, max_length=40)


Grade = Literal[0.2, 0.4, 0.6, 0.8, 1.0]


class AestheticsJudgement(_Reply):
    balance_spacing: Grade
    typography: Grade
    colour: Grade
    clarity_polish: Grade
    overall: Grade
    notes: list[str] = Field(default_factory=list, max_length=5)


class AssetIssue(_Reply):
    side: Literal["asset", "page"]
    severity: Severity = "major"
    message: str = Field(min_length=1, max_length=600)


class AssetJudgement(_Reply):
    issues: list[AssetIssue] = Field(default_factory=list, max_length=20)


class VideoJudgement(_Reply):
    score: float = Field(ge=0, le=1)
    issues: list[AssetIssue] = Field(default_factory=list, max_length=20)


# MM-WebAgent §3.4 penalty weights (DESIGN.md); "misplaced" is 0.1–0.2 in the paper.
LAYOUT_WEIGHTS = {
    "critical-missing": 0.5, "minor-missing": 0.3, "misplaced": 0.15,
    "structural-mismatch": 1.0, "visual-detail": 0.1,
}  # fmt: skip
STYLE_WEIGHTS = {"page-mismatch": 0.5, "section-mismatch": 0.2, "minor": 0.1}
_SEVERITY = {1.0: "critical", 0.5: "critical", 0.3: "major", 0.2: "major", 0.15: "major"}


def penalty_score(weights: list[float]) -> float:
    """``max(0, 1 − 0.5·Σp)`` (MM-WebAgent layout / style score)."""
    return round(max(0.0, 1.0 - 0.5 * sum(weights)), 4)


def issue_score(count: int) -> float:
    """``max(0, 1 − 0.2·n)`` for ``n`` distinct issues (MM-WebAgent image / chart score)."""
    return round(max(0.0, 1.0 - 0.2 * count), 4)


@dataclass
class Judgement:
    """What the judge found: dimension ``scores`` (0–1), ``element_scores`` {id: 0–1}, the
    ``issues`` (source judge) and ``notices`` about what it could not judge."""

    scores: dict[str, float] = field(default_factory=dict)
    element_scores: dict[str, float] = field(default_factory=dict)
    element_kinds: dict[str, str] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

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


class Judge:
    """The evaluator agent over a :class:`~mmstudio.providers.protocols.ChatModel`."""

    def __init__(self, settings: Settings, chat: ChatModel) -> None:
        self.settings = settings
        self.chat = chat
        self._limit = asyncio.Semaphore(settings.concurrency)

    @property
    def vision(self) -> bool:
        return self.settings.capabilities.vision

    async def judge(self, plan: DesignPlan, evidence: PageEvidence) -> Judgement:
        """Judge the page and every element there is evidence for (see module docstring)."""
        result = Judgement()
        if not self.vision:
            result.notices.append(
                "judge: the endpoint lacks vision; layout and style judged from the HTML, "
                "aesthetics, images, videos and charts by the measured checks only"
            )
        async with asyncio.TaskGroup() as group:
            for name, job in self._jobs(plan, evidence, result):
                group.create_task(self._guarded(name, job, result))
        return result

    def _jobs(self, plan: DesignPlan, evidence: PageEvidence, result: Judgement):
        yield "layout", lambda: self._layout(plan, evidence, result)
        yield "style", lambda: self._style(plan, evidence, result)
        if not self.vision:
            return
        if evidence.screenshot:
            yield "aesthetics", lambda: self._aesthetics(plan, evidence.screenshot, result)
        for element in plan.elements():
            job = self._element_job(element, evidence, result)
            if job is not None:
                yield element.id, job

    def _element_job(
        self, element: ElementPlan, evidence: PageEvidence, result: Judgement
    ) -> Callable[[], Awaitable[None]] | None:
        if isinstance(element, VideoPlan):
            frames = evidence.video_frames.get(element.id)
            return (lambda: self._video(element, frames, result)) if frames else None
        crop = evidence.crops.get(element.id)
        return (lambda: self._asset(element, crop, result)) if crop else None

    async def _guarded(
        self, name: str, job: Callable[[], Awaitable[None]], result: Judgement
    ) -> None:
        async with self._limit:
            try:
                await job()
            except ProviderError as exc:
                notice = f"judge: {name} not judged ({exc}); measured findings stand"
                log.warning("%s", notice)
                result.notices.append(notice)

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
                "layout", "global", _SEVERITY.get(weight, "minor"), penalty.message,
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
                "style", "global", _SEVERITY.get(weight, "minor"), penalty.message,
                None, f"judge-style-{penalty.kind}",
            )  # fmt: skip

    async def _aesthetics(self, plan: DesignPlan, screenshot: bytes, result: Judgement) -> None:
        reply: AestheticsJudgement = await self._ask(
            "judge_aesthetics.md.j2", AestheticsJudgement, "judge-aesthetics", (screenshot,),
            title=plan.title, page_kind=plan.page_kind, mood=plan.layout.mood,
        )  # fmt: skip
        grades = [reply.balance_spacing, reply.typography, reply.colour, reply.clarity_polish,
                  reply.overall]  # fmt: skip
        result.scores["aesthetics"] = round(sum(grades) / len(grades), 4)
        for note in reply.notes:
            severity = "major" if min(grades) <= 0.4 else "minor"
            result.add_issue("aesthetics", "global", severity, note)

    async def _asset(self, element: ImagePlan | ChartPlan, crop: bytes, result: Judgement) -> None:
        template = "judge_image.md.j2" if element.kind == "image" else "judge_chart.md.j2"
        reply: AssetJudgement = await self._ask(
            template, AssetJudgement, f"judge-{element.kind}", (crop,), element.id,
            element=element, asset_only=False,
        )  # fmt: skip
        result.element_scores[element.id] = issue_score(len(reply.issues))
        result.element_kinds[element.id] = element.kind
        self._asset_issues(element.kind, element.id, reply.issues, result)

    async def _video(self, element: VideoPlan, frames: list[bytes], result: Judgement) -> None:
        reply: VideoJudgement = await self._ask(
            "judge_video.md.j2", VideoJudgement, "judge-video", tuple(frames), element.id,
            element=element, count=len(frames),
        )  # fmt: skip
        result.element_scores[element.id] = round(reply.score, 4)
        result.element_kinds[element.id] = "video"
        self._asset_issues("video", element.id, reply.issues, result)

    @staticmethod
    def _asset_issues(kind, element_id: str, issues: list[AssetIssue], result: Judgement) -> None:
        for issue in issues:
            level = "local" if issue.side == "asset" else "context"
            result.add_issue(
                kind, level, issue.severity, issue.message, element_id,
                f"judge-{kind}-{issue.side}-side",
            )  # fmt: skip


def _known(plan: DesignPlan, element_id: str | None) -> str | None:
    """``element_id`` when it names a planned element, else None (a section or a made-up id)."""
    ids = {e.id for e in plan.elements()}
    return element_id if element_id in ids else None
