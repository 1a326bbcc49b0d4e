"""The page against the brief: requirement results as routed issues, plus the measured checks
a strict reviewer makes without reading the brief (near-duplicate pictures, empty cards).

Routing (MM-WebAgent §3.4, arXiv 2604.15309): wrong asset content or chart data / type → local;
embedding, size, crop, position → context; missing or misordered sections, layout ratios,
palette roles, header → global. Weights (layout / style: 1 − 0.5·Σp): missing critical element
0.5, minor element 0.3, misplaced 0.2 / 0.1 — see the ``req-*`` rows of :data:`.table.CHECKS`.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, UnidentifiedImageError

from mmstudio.render import Render
from mmstudio.render.sandbox import relative
from mmstudio.report import RequirementResult

from .findings import Findings

#: largest Hamming distances between two pictures' hashes that a visitor reads as "the same
#: picture twice": the 64-bit difference hash (structure) with a loosely similar 256-bit average
#: hash (light and dark), or a close average hash alone (one composition in other colours)
DUPLICATE_BITS, LOOSE_LAYOUT_BITS = 12, 64
LAYOUT_BITS = 40


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


def hashes(path: Path) -> tuple[int, int] | None:
    """(64-bit difference hash, 256-bit average hash) of the picture at ``path``; None when
    it cannot be read."""
    try:
        with Image.open(path) as image:
            image.draft("L", (64, 64))  # JPEG decodes small; other formats are shrunk first
            image.thumbnail((128, 128), Image.Resampling.BILINEAR)
            grey = image.convert("L")
            small = grey.resize((9, 8), Image.Resampling.LANCZOS).tobytes()
            grid = grey.resize((16, 16), Image.Resampling.LANCZOS).tobytes()
    except (OSError, UnidentifiedImageError, ValueError):
        return None
    diff = 0
    for row in range(8):
        for col in range(8):
            diff = (diff << 1) | (small[row * 9 + col] > small[row * 9 + col + 1])
    mean = sum(grid) / len(grid)
    average = sum(1 << i for i, v in enumerate(grid) if v > mean)
    return diff, average


def _bits(a: int, b: int) -> int:
    return bin(a ^ b).count("1")


def near_duplicates(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two pictures' :func:`hashes` say "the same picture" to a visitor."""
    structure, layout = _bits(a[0], b[0]), _bits(a[1], b[1])
    return (structure <= DUPLICATE_BITS and layout <= LOOSE_LAYOUT_BITS) or layout <= LAYOUT_BITS


def check_duplicates(render: Render, found: Findings) -> None:
    """Two visible pictures of the page that look the same (:func:`near_duplicates`) in
    different slots: one issue per picture that repeats an earlier one, on the later one."""
    facts = render.facts
    if facts is None:
        return
    site = Path(render.site_dir)
    seen: list[tuple[int, str, str]] = []
    for picture in facts.pictures:
        if picture.rect.w * picture.rect.h < 6000:
            continue
        rel = relative(picture.src, site) if picture.src else ""
        if not rel or not (site / rel).is_file():
            continue
        value = hashes(site / rel)
        if value is None:
            continue
        name = picture.owner or rel
        for other, other_name, other_rel in seen:
            if other_rel != rel and near_duplicates(value, other):
                element = picture.owner if picture.owner in found.elements else None
                found.add(
                    "duplicate-image",
                    f"{name} looks the same as {other_name}: a visitor sees one picture twice.",
                    element,
                    pair=[other_name, name],
                    bits=[_bits(value[0], other[0]), _bits(value[1], other[1])],
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
