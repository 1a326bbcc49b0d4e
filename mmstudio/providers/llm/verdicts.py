"""The judge's structured replies (MM-WebAgent §3.4 evaluation) and how they score.

Layout and style are penalty lists scored ``max(0, 1 − 0.5·Σp)`` with the paper's weights;
aesthetics is five grades in {0.2 … 1.0}; image and chart are issue lists labelled asset-side or
page-side, scored ``1 − 0.2`` per distinct issue; video is a 0–1 rubric plus issues.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mmstudio.report import Severity


class _Reply(BaseModel):
    """A judge reply: closed; its lists are required (a reply of the wrong shape, even ``{}``,
    fails validation and is never read as "no issues"). On the wire every field is required
    (strict structured outputs, :func:`~..structured.strict_schema`)."""

    model_config = ConfigDict(extra="forbid")


class LayoutPenalty(_Reply):
    kind: Literal[
        "critical-missing", "minor-missing", "misplaced", "structural-mismatch", "visual-detail"
    ]
    element: str | None = None
    message: str = Field(min_length=1, max_length=600)


class LayoutJudgement(_Reply):
    penalties: list[LayoutPenalty] = Field(max_length=40)


class StylePenalty(_Reply):
    kind: Literal["page-mismatch", "section-mismatch", "minor"]
    section: str | None = None
    message: str = Field(min_length=1, max_length=600)


class StyleJudgement(_Reply):
    penalties: list[StylePenalty] = Field(max_length=40)


Grade = Literal[0.2, 0.4, 0.6, 0.8, 1.0]  # type: ignore[valid-type]  # pydantic takes floats


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
    issues: list[AssetIssue] = Field(max_length=20)


class VideoJudgement(_Reply):
    score: float = Field(ge=0, le=1)
    issues: list[AssetIssue] = Field(max_length=20)


# MM-WebAgent §3.4 penalty weights (DESIGN.md); "misplaced" is 0.1–0.2 in the paper.
LAYOUT_WEIGHTS = {
    "critical-missing": 0.5, "minor-missing": 0.3, "misplaced": 0.15,
    "structural-mismatch": 1.0, "visual-detail": 0.1,
}  # fmt: skip
STYLE_WEIGHTS = {"page-mismatch": 0.5, "section-mismatch": 0.2, "minor": 0.1}
SEVERITY_OF_WEIGHT = {1.0: "critical", 0.5: "critical", 0.3: "major", 0.2: "major", 0.15: "major"}


def penalty_score(weights: list[float]) -> float:
    """``max(0, 1 − 0.5·Σp)`` (MM-WebAgent layout / style score)."""
    return round(max(0.0, 1.0 - 0.5 * sum(weights)), 4)


def issue_score(count: int) -> float:
    """``max(0, 1 − 0.2·n)`` for ``n`` distinct issues (MM-WebAgent image / chart score)."""
    return round(max(0.0, 1.0 - 0.2 * count), 4)
