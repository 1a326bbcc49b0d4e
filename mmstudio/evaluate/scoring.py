"""Turn routed issues into the six MM-WebAgent scores (rules and weights in :mod:`.table`)."""

from __future__ import annotations

from statistics import fmean

from mmstudio.report import ElementScore, Issue, Report, Scores

from .findings import Element
from .table import AESTHETIC_BUCKET, CHECKS, GRADES, VIDEO_DEDUCTION

_SEVERITY_SCALE = {"critical": 1.0, "major": 1.0, "minor": 0.5}


def _penalty(issue: Issue) -> float:
    """p of one issue; a severity lowered below the table's halves it."""
    row = CHECKS.get(issue.code)
    if row is None:
        return {"critical": 0.5, "major": 0.2, "minor": 0.1}[issue.severity]
    if issue.severity != row.severity and issue.severity == "minor":
        return row.penalty * 0.5
    if issue.source == "requirement" and row.severity == "critical" != issue.severity:
        return row.penalty * 0.6  # a major requirement of a critical kind: a minor element
    return row.penalty


def weighted(issues: list[Issue], dimension: str, checked: dict[str, int] | None = None) -> float:
    """Layout/style: max(0, 1 − 0.5·Σp) over the issues of ``dimension`` (MM-WebAgent).

    Requirements of the brief come in dozens per page (every quoted line, every nav link), so
    their p is read per check code: a missing critical element (a section, a widget, a video)
    costs its full weight each, as in the paper; the others cost twice their weight times the
    share of that code's checked requirements that failed (``checked``: code → how many were
    checked) — one altered line of sixty is not a page-level mismatch, all sixty are."""
    own = [i for i in issues if i.dimension == dimension]
    total = sum(_penalty(i) for i in own if i.source != "requirement" or i.severity == "critical")
    groups: dict[str, list[Issue]] = {}
    for issue in own:
        if issue.source == "requirement" and issue.severity != "critical":
            groups.setdefault(issue.code, []).append(issue)
    for code, failed in groups.items():
        weight = 2 * max(_penalty(i) for i in failed)
        share = len(failed) / max(len(failed), (checked or {}).get(code, len(failed)))
        total += weight * share
    return round(max(0.0, 1.0 - 0.5 * total), 4)


def element_score(element: Element) -> float:
    """0–1: image/chart lose 0.2 per distinct issue of their own dimension, video loses
    :data:`VIDEO_DEDUCTION` by severity; 0 when the visitor cannot see it or it is missing."""
    own = [i for i in element.issues if i.dimension == element.kind]
    if element.probe is None or any(
        CHECKS.get(i.code, None) and CHECKS[i.code].zeroes for i in own
    ):
        return 0.0
    # 0.2 per distinct issue: a measured check once, each failed requirement on its own
    codes = {i.code if i.source != "requirement" else i.id for i in own}
    if element.kind == "video":
        loss = sum(VIDEO_DEDUCTION[i.severity] for i in own)
    else:
        loss = 0.2 * len(codes)
    return round(max(0.0, 1.0 - loss), 4)


def _grade(value: float) -> float:
    return min(GRADES, key=lambda g: abs(g - value))


def aesthetics(issues: list[Issue]) -> tuple[float, dict[str, float]]:
    """Mean of five grades in {0.2 … 1.0}: balance, typography, colour, polish, overall."""
    loss = dict.fromkeys(("balance", "typography", "colour", "polish"), 0.0)
    for issue in issues:
        if issue.source == "requirement":
            continue  # fidelity to the brief is layout / style, not beauty
        bucket = AESTHETIC_BUCKET.get(issue.code, "polish")
        loss[bucket] += 0.1 if issue.severity == "minor" else 0.2
    grades = {k: _grade(max(0.2, 1.0 - v)) for k, v in loss.items()}
    grades["overall"] = _grade(fmean(grades.values()))
    return round(fmean(grades.values()), 4), grades


def score(
    issues: list[Issue], elements: dict[str, Element], checked: dict[str, int] | None = None
) -> tuple[Scores, list[ElementScore]]:
    """Dimension scores (None where the page has no such element) and per-element scores;
    ``checked`` counts the brief's checked requirements per check code (see :func:`weighted`)."""
    rows = [
        ElementScore(
            id=e.id,
            kind=e.kind,
            path=e.path,
            score=element_score(e),
            issues=[i.id for i in e.issues],
        )
        for e in elements.values()
    ]
    by_kind: dict[str, list[float]] = {}
    for row in rows:
        by_kind.setdefault(row.kind, []).append(row.score or 0.0)
    value, _grades = aesthetics(issues)
    scores = Scores(
        layout=weighted(issues, "layout", checked),
        style=weighted(issues, "style", checked),
        aesthetics=value,
        **{kind: round(fmean(vals), 4) for kind, vals in by_kind.items()},
    )
    return scores.with_overall(), rows


def failed_scores(kinds: set[str]) -> Scores:
    """Scores of an evaluation that could not run: 0 everywhere that applies — never a pass
    (MM-WebAgent scores an unparseable judge reply 1.0; we do the opposite)."""
    values = {"layout": 0.0, "style": 0.0, "aesthetics": 0.0}
    values.update(dict.fromkeys(kinds, 0.0))
    return Scores(**values).with_overall()


def section_score(report: Report | None, section_id: str, element_ids: list[str]) -> float | None:
    """0–1 score of one section: the lowest of its elements' scores and of its own issues'
    MM-WebAgent weighting, max(0, 1 − 0.5·Σp) over the issues the report places on the section
    itself. None when the page was not evaluated (or the report is a failed render)."""
    if report is None or report.scores.overall is None or report.failed:
        return None
    scores = {e.id: e.score for e in report.elements}
    own = sum(_penalty(i) for i in report.issues if i.element == section_id)
    parts = [scores[e] for e in element_ids if scores.get(e) is not None]
    return round(min([max(0.0, 1.0 - 0.5 * own), *parts]), 4)
