"""Every measured check, its dimension, reflection level, severity and penalty — in one table.

Source: MM-WebAgent (arXiv 2604.15309) §3.3–3.4 and its judge rubrics.
- Layout and style start at 1 and lose weighted penalties: score = max(0, 1 − 0.5·Σp). Layout
  weights: critical element missing 0.5, minor element missing 0.3, misplaced 0.1–0.2, structural
  mismatch 1.0, visual detail 0.1. Style weights: whole-page mismatch 0.5, section-level 0.2,
  minor 0.1.
- Image and chart start at 1 and lose 0.2 per distinct issue; each issue is asset-side (→ local)
  or page-side (→ context). An element a visitor cannot see scores 0 (MM Studio issue 3: "a chart
  or image a visitor cannot see scores 0 for that element").
- Video is graded 0–1 over sampled frames in the paper; here the measured grade loses
  :data:`VIDEO_DEDUCTION` per issue by severity (a video that cannot play scores 0).
- Aesthetics is the mean of five grades in {0.2, 0.4, 0.6, 0.8, 1.0} (balance/spacing,
  typography, colour, clarity/polish, overall); :data:`AESTHETIC_BUCKET` says which grade each
  check lowers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mmstudio.report import Dimension, Level, Severity

ELEMENT = "element"  # the dimension of the element's own kind: image, video or chart


@dataclass(frozen=True)
class Check:
    """How one measured check scores: ``penalty`` is p in 1 − 0.5·Σp for layout/style, or the
    deduction (0–1) from an element's score; ``zeroes`` sets the element's score to 0."""

    dimension: Dimension | Literal["element"]
    level: Level
    severity: Severity
    penalty: float
    zeroes: bool = False


CHECKS: dict[str, Check] = {
    # element checks (image / video / chart): 0.2 per distinct issue (MM-WebAgent)
    "missing-asset": Check(ELEMENT, "local", "critical", 0.2, zeroes=True),
    "broken-asset": Check(ELEMENT, "local", "critical", 0.2, zeroes=True),
    "external-asset": Check(ELEMENT, "local", "critical", 0.2, zeroes=True),
    "missing-poster": Check(ELEMENT, "local", "minor", 0.2),
    "invisible-default": Check(ELEMENT, "context", "critical", 0.2, zeroes=True),
    "hidden-by-design": Check(ELEMENT, "context", "minor", 0.2),
    "covered": Check(ELEMENT, "context", "critical", 0.2, zeroes=True),
    "cover-crop": Check(ELEMENT, "context", "major", 0.2),
    "stretched": Check(ELEMENT, "context", "major", 0.2),
    "missing-alt": Check(ELEMENT, "context", "minor", 0.2),
    "chart-empty": Check(ELEMENT, "local", "critical", 0.2, zeroes=True),
    "chart-script-hang": Check(ELEMENT, "local", "critical", 0.2, zeroes=True),
    "chart-overflow": Check(ELEMENT, "local", "major", 0.2),
    "chart-undersized": Check(ELEMENT, "context", "major", 0.2),
    "frame-too-short": Check(ELEMENT, "context", "major", 0.2),
    "video-unplayable": Check(ELEMENT, "local", "critical", 0.2, zeroes=True),
    "video-format": Check(ELEMENT, "local", "major", 0.2),
    # an asset whose colours clash with the page palette: a minor style issue fixed on the asset
    "palette-drift": Check("style", "local", "minor", 0.1),
    # page layout (weights: missing 0.5 / 0.3, misplaced 0.1–0.2, structure 1.0, detail 0.1)
    "render-failed": Check("layout", "global", "critical", 1.0),
    "section-missing": Check("layout", "global", "critical", 0.5),
    "section-missing-minor": Check("layout", "global", "major", 0.3),
    "element-missing": Check("layout", "global", "critical", 0.5),
    "section-order": Check("layout", "global", "major", 0.2),
    "element-misplaced": Check("layout", "global", "minor", 0.1),
    "horizontal-overflow": Check("layout", "global", "major", 0.2),
    "text-overlap": Check("layout", "global", "minor", 0.1),
    "text-overflow": Check("layout", "global", "minor", 0.1),
    "script-timeout": Check("layout", "global", "major", 0.2),
    "blocked-request": Check("layout", "global", "major", 0.2),
    "missing-file": Check("layout", "global", "major", 0.2),
    "navigation": Check("layout", "global", "major", 0.2),
    "dialog": Check("layout", "global", "minor", 0.1),
    "console-error": Check("layout", "global", "minor", 0.1),
    "a11y": Check("layout", "global", "minor", 0.1),
    # page style (weights: whole page 0.5, section 0.2, minor 0.1)
    "low-contrast": Check("style", "global", "major", 0.2),
    "low-contrast-minor": Check("style", "global", "minor", 0.1),
    # measured without the brief: what a strict reviewer sees at a glance
    "duplicate-image": Check(ELEMENT, "local", "major", 0.2),
    # an offline picture whose plan records that no motif matched its subject (issue 15)
    "subject-unmatched": Check(ELEMENT, "local", "minor", 0.2),
    "empty-section": Check("layout", "global", "major", 0.3),
    "empty-card": Check("layout", "global", "minor", 0.1),
    # requirements of the brief (source "requirement"); a requirement's own severity scales p
    # (a minor one counts half): missing critical element 0.5, minor element 0.3, misplaced 0.2
    "req-section": Check("layout", "global", "critical", 0.5),
    "req-order": Check("layout", "global", "major", 0.2),
    "req-nav": Check("layout", "global", "major", 0.3),
    "req-label": Check("layout", "global", "major", 0.2),
    "req-copy": Check("layout", "global", "major", 0.3),
    "req-image": Check("layout", "global", "critical", 0.5),
    "req-video": Check("layout", "global", "critical", 0.5),
    "req-chart": Check(ELEMENT, "local", "critical", 0.2),
    "req-chart-missing": Check("layout", "global", "critical", 0.5),
    "req-widget": Check("layout", "global", "critical", 0.5),
    "req-data": Check("layout", "global", "major", 0.3),
    "req-palette": Check("style", "global", "major", 0.2),
    "req-font": Check("style", "global", "major", 0.2),
    "req-layout": Check("layout", "global", "major", 0.2),
    "req-prohibition": Check("style", "global", "major", 0.5),
    "req-leak": Check("layout", "global", "major", 0.3),
    "req-behaviour": Check("layout", "global", "major", 0.3),
    "req-pairing": Check("layout", "global", "major", 0.2),
}

# Measured video grade: deduction per issue by severity (MM-WebAgent grades video 0–1).
VIDEO_DEDUCTION: dict[str, float] = {"critical": 1.0, "major": 0.3, "minor": 0.1}

AestheticBucket = Literal["balance", "typography", "colour", "polish"]
AESTHETIC_BUCKET: dict[str, AestheticBucket] = {
    "horizontal-overflow": "balance",
    "text-overlap": "balance",
    "covered": "balance",
    "section-order": "balance",
    "element-misplaced": "balance",
    "frame-too-short": "balance",
    "text-overflow": "typography",
    "low-contrast": "colour",
    "low-contrast-minor": "colour",
    "palette-drift": "colour",
    "duplicate-image": "polish",
    "empty-section": "balance",
    "empty-card": "balance",
}
# every other check lowers clarity/polish (broken, missing, invisible, cropped assets; errors)
GRADES = (0.2, 0.4, 0.6, 0.8, 1.0)


def check(code: str) -> Check:
    """The table row of ``code``; raises KeyError for an unknown check."""
    return CHECKS[code]
