"""Folding the judge's findings into a measured :class:`~mmstudio.report.Report`.

Rules (the Report schema is unchanged):

- Judge issues are appended (``source="judge"``) and linked to their element's ``issues``.
- Measured findings keep precedence where they are certain: an element whose measured score is 0
  or that has a measured ``critical`` issue (an invisible chart, a missing video) keeps its
  measured score whatever the judge says; so does a page dimension with a measured critical
  page-level issue. Judge issues on such an element are still listed, marked
  ``evidence["superseded_by_measured"] = True``.
- Elsewhere, a score both sides gave is the lower of the two (each only subtracts for problems
  it can see); a score only one side gave is taken as is.
- Element dimensions (image, video, chart) are the mean of their elements' scores, and
  ``overall`` the mean of the dimensions present (MM-WebAgent §4).
- What the judge could not judge is said in the report's ``notices`` (``judge: layout not judged
  (…)``); such a dimension or element keeps its measured score, or None where nothing measured
  it — never a clean 1.0 the judge did not give.
"""

from __future__ import annotations

from mmstudio.providers.llm.judge import Judgement
from mmstudio.report import DIMENSIONS, ElementScore, Issue, Report

_PAGE_DIMENSIONS = ("layout", "style", "aesthetics")
_ELEMENT_DIMENSIONS = ("image", "video", "chart")


def _certain_elements(report: Report) -> set[str]:
    """Ids of elements whose measured verdict is certain (score 0 or a critical issue)."""
    certain = {e.id for e in report.elements if e.score == 0}
    certain |= {
        i.element
        for i in report.issues
        if i.source == "measured" and i.severity == "critical" and i.element
    }
    return certain


def _certain_dimensions(report: Report) -> set[str]:
    return {
        i.dimension
        for i in report.issues
        if i.source == "measured" and i.severity == "critical" and i.element is None
    }


def _combine(measured: float | None, judged: float | None, certain: bool) -> float | None:
    if measured is None:
        return judged
    if judged is None or certain:
        return measured
    return min(measured, judged)


def _judge_issues(report: Report, judgement: Judgement, certain: set[str]) -> list[Issue]:
    taken = {i.id for i in report.issues}
    issues = []
    for issue in judgement.issues:
        update: dict = {}
        if issue.id in taken:
            update["id"] = f"{issue.id}-{len(taken)}"
        if issue.element in certain:
            update["evidence"] = {**issue.evidence, "superseded_by_measured": True}
        issue = issue.model_copy(update=update) if update else issue
        taken.add(issue.id)
        issues.append(issue)
    return issues


def _elements(report: Report, judgement: Judgement, issues: list[Issue], certain: set[str]):
    by_element: dict[str, list[str]] = {}
    for issue in issues:
        if issue.element:
            by_element.setdefault(issue.element, []).append(issue.id)
    elements = []
    for element in report.elements:
        score = _combine(
            element.score, judgement.element_scores.get(element.id), element.id in certain
        )
        ids = element.issues + by_element.pop(element.id, [])
        elements.append(element.model_copy(update={"score": score, "issues": ids}))
    for element_id, score in judgement.element_scores.items():
        if all(e.id != element_id for e in elements):
            kind = judgement.element_kinds.get(element_id, "image")
            ids = by_element.get(element_id, [])
            elements.append(ElementScore(id=element_id, kind=kind, score=score, issues=ids))  # type: ignore[arg-type]
    return elements


def merge_judgement(
    report: Report, judgement: Judgement, *, seconds: float | None = None
) -> Report:
    """A copy of the measured ``report`` with ``judgement`` folded in (rules in the module
    docstring); ``seconds`` (the judge's wall time) is added to ``timings["judge"]``."""
    certain = _certain_elements(report)
    issues = _judge_issues(report, judgement, certain)
    elements = _elements(report, judgement, issues, certain)
    scores = report.scores.model_dump()
    certain_dims = _certain_dimensions(report)
    for dimension in _PAGE_DIMENSIONS:
        scores[dimension] = _combine(
            scores[dimension], judgement.scores.get(dimension), dimension in certain_dims
        )
    judged_kinds = set(judgement.element_kinds.values())
    for dimension in _ELEMENT_DIMENSIONS:
        values = [e.score for e in elements if e.kind == dimension and e.score is not None]
        if dimension in judged_kinds and values:
            scores[dimension] = round(sum(values) / len(values), 4)
    merged_scores = report.scores.model_validate({d: scores[d] for d in DIMENSIONS}).with_overall()
    timings = dict(report.timings)
    notices = [*report.notices, *(n for n in judgement.notices if n not in report.notices)]
    if seconds is not None:
        timings["judge"] = round(seconds, 3)
    return report.model_copy(
        update={
            "scores": merged_scores,
            "elements": elements,
            "issues": [*report.issues, *issues],
            "timings": timings,
            "notices": notices,
        }
    )
