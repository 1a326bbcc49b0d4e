"""What a refiner reads (:class:`RefineInput`) and proposes (:class:`Change`), and what became of
the proposal (:class:`Outcome`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mmstudio.plan import DesignPlan
from mmstudio.report import Issue, Level, Report

PageEdit = Callable[[str], str]
SEVERITY_RANK = {"critical": 3, "major": 2, "minor": 1}


@dataclass
class RefineInput:
    """One refiner call: the ``element`` (None: the page) and its ``issues`` at one level, with
    the report they come from, the plan (None for a site with no plan), the site folder and the
    page's current HTML; ``instruction`` is the user's optional text."""

    level: Level
    element: str | None
    issues: list[Issue]
    report: Report
    plan: DesignPlan | None
    site_dir: Path
    html: str
    instruction: str = ""

    def element_path(self) -> str:
        """The element's site-relative asset path from the report ("" when unknown)."""
        row = next((e for e in self.report.elements if e.id == self.element), None)
        return row.path if row else ""

    def element_plan(self):
        """The element's plan, or None (no plan, or a discovered element)."""
        if self.plan is None or self.element is None:
            return None
        try:
            return self.plan.element(self.element)
        except KeyError:
            return None


@dataclass
class Change:
    """A proposed refinement. ``page`` edits the page's HTML and is re-applied to the latest
    ``index.html`` when the change is installed (so concurrent element patches compose);
    ``files`` are site-relative paths → new bytes (assets); ``plan`` replaces plan.json.
    ``note`` says where the change comes from when that is not the offline rules (e.g.
    "by the model gpt-5.1", "rule-based fallback: …"); it is added to the recorded reason.
    ``settled`` is the proposer's own verdict, (outcome, reason) with outcome failed | rejected:
    such a change is recorded as it is and never tried (a model call that failed, a model reply
    the guardrails refused). ``requested`` holds the user's instruction when the change answers
    one: it is kept when it makes nothing worse, whether or not it fixes a reported issue."""

    level: Level
    element: str | None
    codes: list[str]
    summary: str
    page: PageEdit | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    plan: DesignPlan | None = None
    note: str = ""
    settled: tuple[str, str] | None = None
    requested: str = ""


@dataclass
class Outcome:
    """What became of one attempt: ``outcome`` is accepted | reverted | rejected | skipped;
    ``reason`` one line; ``before``/``after`` overall scores (0–1); ``version`` when accepted."""

    level: Level
    element: str | None
    codes: list[str]
    outcome: str
    reason: str
    before: float | None = None
    after: float | None = None
    version: str | None = None
    report: Report | None = None

    def as_dict(self) -> dict:
        return {
            "level": self.level,
            "element": self.element,
            "codes": self.codes,
            "outcome": self.outcome,
            "reason": self.reason,
            "before": self.before,
            "after": self.after,
            "version": self.version,
        }
