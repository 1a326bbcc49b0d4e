"""The evaluation report (``report.json``): six scores, per-element scores and routed issues.

Source: MM-WebAgent (arXiv 2604.15309) §3.3–3.4 — six dimensions (layout, style, aesthetics at page
level; image, video, chart at element level), each 0–1; every issue is routed to one reflection
level: ``local`` (fix the asset), ``context`` (fix how the page embeds it), ``global`` (fix the
page's layout and style). A score is ``None`` where the page has no element of that dimension.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Dimension = Literal["layout", "style", "aesthetics", "image", "video", "chart"]
Level = Literal["local", "context", "global"]
Severity = Literal["critical", "major", "minor"]
RequirementKind = Literal[
    "copy",  # quoted text that must be visible (not alt/title text)
    "label",  # a short label (button, tag, badge) that must be an element's whole text
    "nav",  # a named navigation link
    "section",  # a section the brief asks for (``role`` holds its name); order via ``order``
    "image",  # pictures asked for (``count``)
    "video",  # a video asked for (``role``: hero / background / small …)
    "chart",  # a chart: ``role`` holds the type asked; ``values`` the categories of its dataset
    "widget",  # table, map, counter, form, toggle, search, tabs (``role``)
    "palette",  # a colour (``label`` = #rrggbb) with a role (background, text, cta, accent, any)
    "font",  # a typeface (``label`` = family name)
    "layout",  # sticky/fixed header, column ratio, grid count (``role`` names the directive)
    "prohibition",  # something the brief forbids (``role``: video, gradient, shadow, photo …)
    "leak",  # design notes / font names / hex codes that must not show up as page copy
    "behaviour",  # click / type → effect (checked by the functional machinery, or unchecked)
    "pairing",  # two quoted fields of one item (plan ↔ price, question ↔ answer) in one box
]
RequirementStatus = Literal["pass", "fail", "unchecked"]
DIMENSIONS: tuple[Dimension, ...] = ("layout", "style", "aesthetics", "image", "video", "chart")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Issue(_Model):
    """One finding. ``element`` is a ``data-mm-id`` (or None for the page); ``code`` is a stable
    machine name of the check ("invisible-default", "cover-crop", …); ``evidence`` holds the
    numbers behind it (px, ratios 0–1) and, where there is one, the path of a crop PNG."""

    id: str
    element: str | None = None
    dimension: Dimension
    level: Level
    severity: Severity = "major"
    code: str = ""
    message: str
    evidence: dict[str, Any] = Field(default_factory=dict)
    source: Literal["measured", "requirement", "judge"] = "measured"
    page: str | None = None  # the page file it was found on in a multi-page site; None: one page


class Span(_Model):
    """Where a requirement was read: ``source`` is ``prompt``, ``turn N`` or ``condition``;
    ``start``/``end`` are character offsets into that text; ``excerpt`` is the text itself
    (at most ~160 characters)."""

    source: str = "prompt"
    start: int = 0
    end: int = 0
    excerpt: str = ""


class RequirementResult(_Model):
    """A requirement and its status on one render. ``unchecked`` never counts as a pass;
    ``element`` is the ``data-mm-id`` / ``data-mm-section`` the finding is about, when known."""

    id: str
    kind: RequirementKind
    key: str
    text: str
    span: Span = Field(default_factory=Span)
    severity: Severity = "major"
    status: RequirementStatus = "unchecked"
    element: str | None = None
    message: str = ""
    evidence: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, req: Any, status: RequirementStatus, message: str = "", **evidence: Any):
        """The result of ``req`` (a :class:`mmstudio.requirements.Requirement`); ``element``
        may be passed among the evidence keywords."""
        element = evidence.pop("element", None)
        return cls(
            id=req.id,
            kind=req.kind,
            key=req.key,
            text=req.text,
            span=req.span,
            severity=req.severity,
            status=status,
            element=element,
            message=message,
            evidence={k: v for k, v in evidence.items() if v is not None},
        )


class ElementScore(_Model):
    """The score (0–1, None when not evaluated) of one planned or discovered element, with the ids
    of its issues; ``path`` is the asset's site-relative path."""

    id: str
    kind: Literal["image", "video", "chart"]
    path: str = ""
    score: float | None = Field(default=None, ge=0, le=1)
    issues: list[str] = Field(default_factory=list)


class Scores(_Model):
    """Dimension scores 0–1 (None where absent); ``overall`` is the mean of those present."""

    layout: float | None = Field(default=None, ge=0, le=1)
    style: float | None = Field(default=None, ge=0, le=1)
    aesthetics: float | None = Field(default=None, ge=0, le=1)
    image: float | None = Field(default=None, ge=0, le=1)
    video: float | None = Field(default=None, ge=0, le=1)
    chart: float | None = Field(default=None, ge=0, le=1)
    overall: float | None = Field(default=None, ge=0, le=1)

    def with_overall(self) -> Scores:
        """A copy whose ``overall`` is the mean of the dimensions present (MM-WebAgent §4)."""
        present = [getattr(self, d) for d in DIMENSIONS if getattr(self, d) is not None]
        overall = round(sum(present) / len(present), 4) if present else None
        return self.model_copy(update={"overall": overall})


class RenderInfo(_Model):
    """What was rendered: viewport and full page size (px) and the screenshot path."""

    viewport: dict[str, int] = Field(default_factory=lambda: {"width": 1280, "height": 800})
    page_size: dict[str, int] = Field(default_factory=dict)
    screenshot: str = ""


class PageRender(_Model):
    """One page of a multi-page site as evaluated: its file, screenshot, size (px), scores."""

    path: str
    title: str = ""
    screenshot: str = ""
    page_size: dict[str, int] = Field(default_factory=dict)
    scores: Scores = Field(default_factory=Scores)
    issues: int = 0


class Report(_Model):
    """The whole evaluation of one page render — or of every page of a multi-page site, when
    ``pages`` lists them (home first; ``render`` is then the home page's; each issue names its
    ``page``; the page-level scores are the mean over pages)."""

    format_version: int = 1
    target: str = ""
    scores: Scores = Field(default_factory=Scores)
    elements: list[ElementScore] = Field(default_factory=list)
    issues: list[Issue] = Field(default_factory=list)
    render: RenderInfo = Field(default_factory=RenderInfo)
    requirements: list[RequirementResult] = Field(default_factory=list)
    requirement_share: float | None = Field(default=None, ge=0, le=1)
    notices: list[str] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)
    pages: list[PageRender] = Field(default_factory=list)

    @property
    def failed(self) -> str | None:
        """Why the evaluation itself failed (render timeout, crash, no browser), or None. A
        failed report is never a score of the page: callers must not keep it as the project's
        report nor commit a version on it."""
        issue = next((i for i in self.issues if i.code == "render-failed"), None)
        return issue.message if issue else None

    def issues_for(self, element_id: str | None) -> list[Issue]:
        """The issues of one element (``None``: page-level issues)."""
        return [i for i in self.issues if i.element == element_id]
