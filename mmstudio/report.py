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
    source: Literal["measured", "judge"] = "measured"


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


class Report(_Model):
    """The whole evaluation of one page render."""

    format_version: int = 1
    target: str = ""
    scores: Scores = Field(default_factory=Scores)
    elements: list[ElementScore] = Field(default_factory=list)
    issues: list[Issue] = Field(default_factory=list)
    render: RenderInfo = Field(default_factory=RenderInfo)
    timings: dict[str, float] = Field(default_factory=dict)

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
