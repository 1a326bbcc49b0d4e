"""The page against the brief: requirement results as routed issues, plus the measured checks
a strict reviewer makes without reading the brief (near-duplicate pictures, empty cards).

Routing (MM-WebAgent §3.4, arXiv 2604.15309): wrong asset content or chart data / type → local;
embedding, size, crop, position → context; missing or misordered sections, layout ratios,
palette roles, header → global. Weights (layout / style: 1 − 0.5·Σp): missing critical element
0.5, minor element 0.3, misplaced 0.2 / 0.1 — see the ``req-*`` rows of :data:`.table.CHECKS`.
"""

from __future__ import annotations

from pathlib import Path

from mmstudio.providers import likeness
from mmstudio.render import Render
from mmstudio.render.sandbox import relative
from mmstudio.report import RequirementResult

from .findings import Findings


def code_of(result: RequirementResult) -> str:
    """The check code of a failed requirement (``req-<kind>``; ``req-order``, ``req-data``,
    ``req-chart-missing`` for the special cases)."""
    if result.id.endswith("section-order"):
        return "req-order"
    if result.kind == "chart":
        return "req-chart" if result.element else "req-chart-missing"
    if result.kind == "widget" and result.evidence.get("data"):
        return "req-data"
    return f"req-{result.kind}"


def add_requirement_issues(results: list[RequirementResult], found: Findings) -> None:
    """One issue (source ``requirement``) per failed requirement, with its span as evidence."""
    for result in results:
        if result.status != "fail":
            continue
        element = result.element if result.element in found.elements else None
        issue = found.add(
            code_of(result),
            f"{result.text}: {result.message}" if result.message else result.text,
            element,
            severity=result.severity,
            requirement=result.id,
            span=result.span.excerpt,
            **{k: v for k, v in result.evidence.items() if k not in ("requirement", "span")},
        )
        issue.source = "requirement"
        if element is None and result.element:
            issue.evidence["target"] = result.element


def check_duplicates(render: Render, found: Findings) -> None:
    """Two visible pictures of the page that look the same (:func:`.likeness.look_alike`, the
    measure the picture makers keep their pictures apart by) in different slots: one issue per
    picture that repeats an earlier one, on the later one, with the measures as ``distances``."""
    facts = render.facts
    if facts is None:
        return
    site = Path(render.site_dir)
    seen: list[tuple[likeness.Fingerprint, str, str]] = []
    for picture in facts.pictures:
        if picture.rect.w * picture.rect.h < 6000:
            continue
        rel = relative(picture.src, site) if picture.src else ""
        if not rel or not (site / rel).is_file():
            continue
        value = likeness.fingerprint_file(site / rel)
        if value is None:
            continue
        name = picture.owner or rel
        for other, other_name, other_rel in seen:
            if other_rel != rel and likeness.look_alike(value, other):
                element = picture.owner if picture.owner in found.elements else None
                found.add(
                    "duplicate-image",
                    f"{name} looks the same as {other_name}: a visitor sees one picture twice.",
                    element,
                    pair=[other_name, name],
                    distances=likeness.distances(value, other),
                )
                break
        seen.append((value, name, rel))


def check_empties(render: Render, found: Findings) -> None:
    """Cards and sections with no visible text and no media."""
    facts = render.facts
    for empty in (facts.empties if facts else [])[:10]:
        code = "empty-section" if empty.kind == "section" else "empty-card"
        where = empty.section or empty.selector
        found.add(code, f"An empty {empty.kind} ({where}): nothing a visitor can read or see.")
