"""Routing issues to refiners, and the reflection loop's bookkeeping (MM-WebAgent §3.4).

The loop (run by :mod:`mmstudio.studio.refining` on the job manager) is: evaluate → route →
local ∥ context jobs per element → the global job after them → re-evaluate → stop when no issue
reaches the severity threshold, when a round gains nothing, or after ``rounds`` rounds (paper: at
most 3; most gain in the first 1–2) — keeping the best version seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mmstudio.report import Issue, Level, Report, Severity

from . import brief_charts, context, local, page_rules, requirement_rules
from .model import SEVERITY_RANK, Change, Outcome, RefineInput

ROUNDS = 3
CODES_BY_LEVEL: dict[str, tuple[str, ...]] = {
    "local": local.CODES,
    "context": context.CODES,
    "global": (*page_rules.CODES, *requirement_rules.CODES),
}


@dataclass
class Target:
    """One refiner call to make: ``level``, ``element`` (None: the page) and its issues."""

    level: Level
    element: str | None
    issues: list[Issue]


def _fixable(issue: Issue, level: str, model: bool = False) -> bool:
    if model and issue.source in ("judge", "requirement") and issue.level == level:
        return True  # a model refiner takes what the judge or the brief says, at its level
    if level == "global" and issue.source == "judge" and "spacing" in issue.message.lower():
        return True
    if issue.source == "requirement":
        if level == "local":
            return brief_charts.fixable(issue)
        return level == "global" and requirement_rules.fixable(issue)
    return issue.code in CODES_BY_LEVEL[level]


def route(
    report: Report,
    *,
    min_severity: Severity = "minor",
    level: Level | None = None,
    element: str | None = None,
    model: bool = False,
) -> list[Target]:
    """The refiner calls for ``report``'s issues at or above ``min_severity``: one per element
    and level (local, context), one for the page (global). ``level``/``element`` narrow it; an
    explicit element takes every issue of it that the level's rules can fix, whatever its
    routed level (e.g. a local regenerate for a cover-cropped image). With ``model`` (the
    refiners are a model's) the judge's and the brief's issues go to their own level too."""
    floor = SEVERITY_RANK[min_severity]
    issues = [i for i in report.issues if SEVERITY_RANK[i.severity] >= floor]
    levels = [level] if level else ["local", "context", "global"]
    targets: list[Target] = []
    for lvl in levels:
        chosen = [
            i for i in issues
            if _fixable(i, lvl, model) and (i.level == lvl or (element and lvl != "global"))
        ]  # fmt: skip
        if element is not None:
            chosen = [i for i in chosen if i.element == element]
        if lvl == "global":
            targets += [Target("global", None, chosen)] if chosen else []
            continue
        for element_id in dict.fromkeys(i.element for i in _one_per_file(chosen) if i.element):
            targets.append(Target(lvl, element_id, [i for i in chosen if i.element == element_id]))
    return targets


def _one_per_file(issues: list[Issue]) -> list[Issue]:
    """Drop missing/broken-asset issues of a file an earlier issue already names (a page that
    shows one missing file in many places needs it made once)."""
    seen, kept = set(), []
    for issue in issues:
        path = (
            issue.evidence.get("path") if issue.code in ("missing-asset", "broken-asset") else None
        )
        if path and path in seen:
            continue
        seen.add(path)
        kept.append(issue)
    return kept


async def propose(target: Target, inp: RefineInput) -> list[Change]:
    """The offline refiner of ``target.level`` on ``inp``: the Changes to try, in order."""
    if target.level == "local":
        change = await local.propose(inp) or await brief_charts.propose(inp)
    elif target.level == "context":
        change = context.propose(inp)
    else:
        return page_rules.propose(inp) + requirement_rules.propose(inp)
    return [change] if change is not None else []


def measured_issues(report: Report | None) -> int:
    """How many measured issues a report lists (0 for None)."""
    return sum(i.source == "measured" for i in report.issues) if report else 0


@dataclass
class Reflection:
    """What the loop did: ``rounds`` run, per round the overall score (0–1) and issue count after
    it, every attempt's outcome, why it stopped and which version it kept."""

    before: float | None = None
    issues_before: int = 0
    after: float | None = None
    issues_after: int = 0
    rounds: int = 0
    history: list[dict] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    stopped: str = ""
    kept: str | None = None

    def as_dict(self) -> dict:
        return {
            "before": self.before,
            "issues_before": self.issues_before,
            "after": self.after,
            "issues_after": self.issues_after,
            "rounds": self.rounds,
            "history": self.history,
            "outcomes": [o.as_dict() for o in self.outcomes],
            "stopped": self.stopped,
            "kept": self.kept,
        }


def better(a: Report | None, b: Report | None) -> bool:
    """Is ``a`` strictly better than ``b``: a higher overall, or as high with fewer issues."""
    if a is None:
        return False
    if b is None:
        return True
    sa, sb = a.scores.overall or 0.0, b.scores.overall or 0.0
    if abs(sa - sb) > 1e-6:
        return sa > sb
    return measured_issues(a) < measured_issues(b)
