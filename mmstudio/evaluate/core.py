"""Evaluate one page: render it in the warm browser, run the measured checks, score, route.

The judge (an LLM reading the screenshot) adds issues with ``source="judge"`` to the same Report
later; nothing here depends on it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import tempfile
import time
from collections import Counter
from pathlib import Path
from statistics import fmean

from pydantic import ValidationError

from mmstudio.plan import HOME_PATH, DesignPlan, PagePlan
from mmstudio.project.errors import InputError, MissingInput, first_line
from mmstudio.render import Render, get_renderer
from mmstudio.render.model import MediaProbe
from mmstudio.report import Issue, PageRender, RenderInfo, Report, RequirementResult, Scores
from mmstudio.requirements import ExtractionError, Requirement, check_all, extract, pass_share
from mmstudio.requirements.pairs import pairs_of
from mmstudio.requirements.text import MAX_TEXT
from mmstudio.threads import offloading, run_pure

from .assets import check_elements
from .colour import check_contrast, check_palette
from .findings import Element, Findings, Kind
from .frames import checkable_facts
from .grounded import add_requirement_issues, check_duplicates, check_empties, code_of
from .page_checks import check_page, check_plan
from .scoring import failed_scores, score

log = logging.getLogger(__name__)

_KIND_BY_TAG: dict[str, Kind] = {"img": "image", "video": "video", "iframe": "chart"}


def resolve_target(path: Path) -> tuple[Path, str, DesignPlan | None]:
    """(site folder, page file name, plan) for a project folder (``plan.json`` + ``site/``), a
    site folder (with ``index.html``) or an HTML file.

    Raises MissingInput (a FileNotFoundError) or InputError (a ValueError), one line."""
    path = Path(path)
    if not path.exists():
        raise MissingInput(f"{path} does not exist")
    if path.is_file():
        if path.suffix.lower() not in (".html", ".htm"):
            raise InputError(f"{path} is not an HTML file")
        return path.parent, path.name, None
    if (path / "site").is_dir() and (path / "site" / "index.html").is_file():
        return path / "site", "index.html", _plan(path / "plan.json")
    if (path / "index.html").is_file():
        return path, "index.html", None
    pages = sorted(path.glob("*.html"))
    if pages:
        return path, pages[0].name, None
    raise MissingInput(f"no index.html in {path} (nor a site/ folder of a project)")


def _plan(path: Path) -> DesignPlan | None:
    if not path.is_file():
        return None
    try:
        return DesignPlan.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError) as exc:
        raise InputError(f"{path} is not a valid plan: {first_line(exc)}") from exc


async def evaluate(
    target: Path,
    *,
    viewport_width: int = 1280,
    extra_viewports: tuple[int, ...] = (390,),
    out_dir: Path | None = None,
    plan: DesignPlan | None = None,
    brief: str | None = None,
) -> Report:
    """Render ``target`` (site folder, HTML file or project folder) and measure it, against
    ``brief`` (the designer's prompt) when given — else the prompt of the project the site
    belongs to (:func:`find_brief`): every requirement it asks for is checked on the page.

    Screenshots and crops go to ``out_dir`` (a new temp dir when None). A render that fails or
    times out gives a Report whose issues say so and whose scores are 0 — never a good score.
    Raises FileNotFoundError/ValueError only for a target that cannot be resolved."""
    started = time.perf_counter()
    site_dir, page, found_plan = resolve_target(Path(target))
    plan = plan or found_plan
    out = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="mmstudio-eval-"))
    if brief is None:
        brief = await asyncio.to_thread(find_brief, Path(site_dir))
    requirements, notices = await read_requirements(brief)
    pages = _pages_of(Path(site_dir), page, plan)
    if plan is not None and len(pages) > 1:
        report = await evaluate_site(
            Path(site_dir), plan, pages, requirements, out, viewport_width, extra_viewports
        )
        report.notices.extend(notices)
        report.timings["evaluate_s"] = round(time.perf_counter() - started, 3)
        return report
    render = await get_renderer().render(
        site_dir,
        page,
        viewport_width,
        out,
        extra_viewports=tuple(extra_viewports),
        pairs=pairs_of(requirements),
    )
    t0 = time.perf_counter()
    # the measured checks are ~0.3–0.5 s of pure Python: in the app, a worker process's
    page_path = Path(site_dir) / page
    report = await run_pure(_page_report, _sendable(render), page_path, plan, requirements)
    report.notices.extend(notices)
    report.target = str(Path(site_dir) / page)
    report.timings.update(render.timings)
    report.timings["checks_s"] = round(time.perf_counter() - t0, 3)
    report.timings["evaluate_s"] = round(time.perf_counter() - started, 3)
    return report


def _pages_of(site_dir: Path, page: str, plan: DesignPlan | None) -> list[PagePlan]:
    """The pages to evaluate: every page of a multi-page ``plan`` whose file is in ``site_dir``
    when the target is its home page; otherwise none (one page: the usual path)."""
    if plan is None or not plan.multi_page or page != HOME_PATH:
        return []
    return [p for p in plan.site_pages() if (site_dir / p.path).is_file()]


async def evaluate_site(
    site_dir: Path,
    plan: DesignPlan,
    pages: list[PagePlan],
    requirements: list[Requirement],
    out: Path,
    viewport_width: int = 1280,
    extra_viewports: tuple[int, ...] = (390,),
) -> Report:
    """Render every page of a multi-page site (side by side in the warm browser, as many at
    once as its pool allows) and build one Report (:func:`build_site_report`). The home page's
    screenshots go to ``out``, each other page's to ``out/<page id>/``."""
    t0 = time.perf_counter()
    renderer = get_renderer()

    async def one(page: PagePlan) -> Render:
        folder = out if page.path == HOME_PATH else out / page.id
        return await renderer.render(
            site_dir,
            page.path,
            viewport_width,
            folder,
            extra_viewports=tuple(extra_viewports),
            pairs=pairs_of(requirements),
        )

    renders = await asyncio.gather(*(one(p) for p in pages))
    rendered = time.perf_counter()
    sent = [_sendable(r) for r in renders]
    report = await run_pure(_site_report, site_dir, pages, sent, plan, requirements)
    report.target = str(site_dir / HOME_PATH)
    report.timings.update(renders[0].timings)
    report.timings["render_pages_s"] = round(rendered - t0, 3)
    report.timings["checks_s"] = round(time.perf_counter() - rendered, 3)
    return report


#: requirement kinds a page can break on its own: failing on any page fails the site
_ANY_PAGE_FAILS = ("prohibition", "leak")


def merge_requirements(
    per_page: list[tuple[str, list[RequirementResult]]],
) -> list[RequirementResult]:
    """One result per requirement over the pages (``(page file, results)``, home first): a
    prohibition or leak fails when it fails on any page; any other requirement passes when it
    passes on some page (the site holds what the brief asks somewhere), else fails (the home
    page's failure first), else stays unchecked. Each result's evidence names its ``page``."""
    merged: dict[str, RequirementResult] = {}
    rank = {"pass": 2, "fail": 1, "unchecked": 0}
    for path, results in per_page:
        for result in results:
            result = result.model_copy(update={"evidence": {**result.evidence, "page": path}})
            best = merged.get(result.id)
            if best is None:
                merged[result.id] = result
                continue
            if result.kind in _ANY_PAGE_FAILS:
                better = result.status == "fail" and best.status != "fail"
            else:
                better = rank[result.status] > rank[best.status]
            if better:
                merged[result.id] = result
    return list(merged.values())


def build_site_report(
    pages: list[tuple[PagePlan, Render, set[str]]],
    plan: DesignPlan,
    requirements: list[Requirement] | None = None,
) -> Report:
    """The Report of a multi-page site from each page's render (pure): the measured checks run on
    every page (each issue names its ``page``; a message on a page other than home starts with
    its file); the brief's requirements are checked on every page and merged
    (:func:`merge_requirements`); layout, style and aesthetics are the mean of the pages'
    scores (each page with the site's requirement issues), image / video / chart scores come
    from every element of every page. A page whose render failed fails the whole report."""
    elements: dict[str, Element] = {}
    found = Findings(elements)
    home = pages[0][1]
    info = RenderInfo(
        viewport=dict(home.viewport), page_size=dict(home.page_size), screenshot=home.screenshot
    )
    own: dict[str, list] = {}
    page_elements: dict[str, dict[str, Element]] = {}
    per_page: list[tuple[str, list[RequirementResult]]] = []
    for page, render, hidden in pages:
        view = plan.page_view(page.id)
        mine = _elements(render, view)
        elements.update(mine)
        start = len(found.issues)
        if render.failure or render.probe is None:
            reason = render.failure or "the page could not be probed"
            found.add(
                "render-failed",
                f"Evaluation failed on {page.path}: {reason}. The site was not scored.",
                failure=reason,
                timeouts=render.script_timeouts or None,
            )
        else:
            _measure(render, mine, view, found)
            _attach_crops(render, found)
            if requirements:
                per_page.append((page.path, check_all(requirements, checkable_facts(render))))
        new = found.issues[start:]
        if hidden:
            found.issues[start:] = new = [i for i in new if i.element not in hidden]
            for element_id in hidden:
                mine.pop(element_id, None)
                elements.pop(element_id, None)
        for issue in new:
            _on_page(issue, page.path)
        own[page.id] = new
        page_elements[page.id] = mine
    if any(i.code == "render-failed" for i in found.issues):
        kinds: set[str] = {e.kind for e in elements.values()}
        _scores, rows = score([], elements)
        for row in rows:
            row.score = 0.0
        failed = [i for i in found.issues if i.code == "render-failed"]
        rows_of_pages = [_page_row(p, r, Scores(), 0) for p, r, _hidden in pages]
        return Report(
            scores=failed_scores(kinds),
            elements=rows,
            issues=failed,
            render=info,
            pages=rows_of_pages,
        )
    results = merge_requirements(per_page)
    start = len(found.issues)
    add_requirement_issues(results, found)
    asked = found.issues[start:]
    page_of = {r.id: r.evidence.get("page") for r in results}
    for issue in asked:
        issue.page = page_of.get(issue.evidence.get("requirement", "")) or None
    checked = dict(Counter(code_of(r) for r in results if r.status != "unchecked"))
    site_scores, rows = score(found.issues, elements, checked)
    page_scores = {
        page.id: score([*own[page.id], *asked], page_elements[page.id], checked)[0]
        for page, _render, _hidden in pages
    }
    means = {
        dim: round(fmean(getattr(s, dim) for s in page_scores.values()), 4)
        for dim in ("layout", "style", "aesthetics")
    }
    scores = _absent_media(site_scores.model_copy(update=means).with_overall(), results)
    return Report(
        scores=scores,
        elements=rows,
        issues=found.issues,
        render=info,
        requirements=results,
        requirement_share=pass_share(results),
        pages=[_page_row(p, r, page_scores[p.id], len(own[p.id])) for p, r, _hidden in pages],
    )


def _on_page(issue: Issue, path: str) -> None:
    """Name the page an issue was found on (its field, and its message off the home page)."""
    issue.page = path
    if path != HOME_PATH and not issue.message.startswith(f"{path}: "):
        issue.message = f"{path}: {issue.message}"


def _page_row(page: PagePlan, render: Render, scores: Scores, issues: int) -> PageRender:
    return PageRender(
        path=page.path,
        title=page.title,
        screenshot=render.screenshot,
        page_size=dict(render.page_size),
        scores=scores,
        issues=issues,
    )


_FEEDBACK_BLOCK = re.compile(r'<style data-mm-patch="fb-[^"]*">(.*?)</style>', re.S)
_HIDE_RULE = re.compile(r'\[data-mm-id="([^"]+)"\]\s*\{\s*display\s*:\s*none\s*!important\s*\}')


def designer_hidden(html: str) -> set[str]:
    """Ids of the elements a designer hid on purpose: a ``display:none`` rule for the element in
    a feedback patch block (``<style data-mm-patch="fb-…">``, written by a feedback turn's "hide"
    operation and dropped again by "show"). The evaluation leaves these out — no "invisible"
    issue, no score — so that a refine never undoes what the designer asked for."""
    return {m for block in _FEEDBACK_BLOCK.findall(html) for m in _HIDE_RULE.findall(block)}


def _sendable(render: Render) -> Render | dict:
    """``render`` as a worker process gets it: its fields as plain data (dumped by pydantic's
    core on the loop in a few ms; pickling the model itself took 7–13 ms of a thread that
    holds the GIL); the model itself when the work stays in this process."""
    return render.model_dump() if offloading() else render


def _received(render: Render | dict) -> Render:
    return render if isinstance(render, Render) else Render.model_validate(render)


def _page_report(
    render: Render | dict, page: Path, plan: DesignPlan | None, requirements: list[Requirement]
) -> Report:
    """:func:`build_report` of ``render`` (or its :func:`_sendable` data) with the elements the
    designer hid in ``page``."""
    hidden = designer_hidden(_read_page(page))
    return build_report(_received(render), plan, hidden, requirements)


def _site_report(
    site_dir: Path,
    pages: list[PagePlan],
    renders: list[Render | dict],
    plan: DesignPlan,
    requirements: list[Requirement],
) -> Report:
    """:func:`build_site_report` of ``renders`` (one per page of ``pages``, in order, or their
    :func:`_sendable` data) with the elements the designer hid in each page."""
    hidden = [designer_hidden(_read_page(site_dir / p.path)) for p in pages]
    rows = list(zip(pages, [_received(r) for r in renders], hidden, strict=True))
    return build_site_report(rows, plan, requirements)


def _read_page(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def build_report(
    render: Render,
    plan: DesignPlan | None = None,
    hidden: set[str] | frozenset = frozenset(),
    requirements: list[Requirement] | None = None,
) -> Report:
    """The Report of one render (pure: reads the render's files, writes nothing); the elements
    in ``hidden`` (see :func:`designer_hidden`) are left out of the issues and the scores;
    ``requirements`` (from the brief) are checked on the render's page facts."""
    info = RenderInfo(
        viewport=dict(render.viewport),
        page_size=dict(render.page_size),
        screenshot=render.screenshot,
    )
    elements = _elements(render, plan)
    found = Findings(elements)
    if render.failure or render.probe is None:
        return _failed(render, plan, elements, found, info)
    _measure(render, elements, plan, found)
    results = check_all(requirements, checkable_facts(render)) if requirements else []
    add_requirement_issues(results, found)
    _attach_crops(render, found)
    if hidden:
        found.issues = [i for i in found.issues if i.element not in hidden]
        elements = {k: e for k, e in elements.items() if k not in hidden}
    checked = Counter(code_of(r) for r in results if r.status != "unchecked")
    scores, rows = score(found.issues, elements, dict(checked))
    scores = _absent_media(scores, results)
    return Report(
        scores=scores,
        elements=rows,
        issues=found.issues,
        render=info,
        requirements=results,
        requirement_share=pass_share(results),
    )


def _measure(
    render: Render, elements: dict[str, Element], plan: DesignPlan | None, found: Findings
) -> None:
    """Every measured check of one rendered page (its elements, the page, its plan)."""
    check_elements(render, elements, found)
    check_page(render, elements, found)
    if plan is not None:
        check_plan(render, plan, found)
    check_contrast(render, found)
    check_palette(render, elements, plan, found)
    check_duplicates(render, found)
    check_empties(render, found)


def _absent_media(scores: Scores, results: list[RequirementResult]) -> Scores:
    """A brief's image, video or chart that the page lacks altogether scores 0 for its
    dimension (MM-WebAgent: a missing element scores 0), instead of "not judged"."""
    update = {}
    for result in results:
        if result.status != "fail":
            continue
        kind = {"image": "image", "video": "video", "chart": "chart"}.get(result.kind)
        if kind and getattr(scores, kind) is None and not result.element:
            update[kind] = 0.0
    return scores.model_copy(update=update).with_overall() if update else scores


#: seconds the brief's reading may take before the evaluation goes on without it
READ_TIMEOUT_S = 10.0


async def read_requirements(brief: str | None) -> tuple[list[Requirement], list[str]]:
    """The requirements of ``brief`` and the notices of their reading (one line each): an
    extractor that fails or runs past :data:`READ_TIMEOUT_S` gives none, and a notice — the
    measured checks still run."""
    if not brief or not brief.strip():
        return [], []
    notices = []
    if len(brief) > MAX_TEXT:
        notices.append(
            f"the brief is {len(brief):,} characters; requirements read from the first {MAX_TEXT:,}"
        )
    try:
        found = await asyncio.wait_for(run_pure(extract, brief), READ_TIMEOUT_S)
    except TimeoutError:
        return [], [
            *notices,
            f"reading the brief's requirements took over {READ_TIMEOUT_S:.0f} s; "
            "only measured checks ran",
        ]
    except ExtractionError as exc:
        log.warning("requirements not read: %s", exc, exc_info=True)
        return [], [
            *notices,
            f"the brief's requirements could not be read ({exc}); only measured checks ran",
        ]
    return found, notices


def find_brief(site_dir: Path) -> str | None:
    """The prompt of the project ``site_dir`` belongs to: ``<project>/site`` or a trial copy
    ``<project>/.staging-*/site``; None for any other folder."""
    site_dir = Path(site_dir)
    for root in (site_dir.parent, site_dir.parent.parent):
        manifest = root / "mmstudio.json"
        if manifest.is_file():
            try:
                return json.loads(manifest.read_text(encoding="utf-8")).get("prompt") or None
            except (OSError, ValueError):
                return None
        if not site_dir.parent.name.startswith(".staging"):
            break
    return None


def _failed(render, plan, elements, found: Findings, info: RenderInfo) -> Report:
    reason = render.failure or "the page could not be probed"
    found.add(
        "render-failed",
        f"Evaluation failed: {reason}. The page was not scored.",
        failure=reason,
        timeouts=render.script_timeouts or None,
    )
    kinds = {e.kind for e in elements.values()}
    _scores, rows = score([], elements)
    for row in rows:
        row.score = 0.0
    return Report(scores=failed_scores(kinds), elements=rows, issues=found.issues, render=info)


def _elements(render: Render, plan: DesignPlan | None) -> dict[str, Element]:
    """Planned elements (found on the page or not) plus media discovered on the page."""
    planned = {e.id: e for e in plan.elements()} if plan else {}
    media = {m.id: m for m in render.probe.media} if render.probe else {}
    elements: dict[str, Element] = {}
    for element_id, spec in planned.items():
        probe = media.get(element_id)
        path = probe.path if probe and probe.path else spec.save_path
        elements[element_id] = Element(element_id, spec.kind, path, True, probe)
    for element_id, probe in media.items():
        if element_id in elements or not element_id:
            continue
        kind = _kind(probe)
        if kind is not None:
            elements[element_id] = Element(element_id, kind, probe.path, False, probe)
    return elements


def _kind(media: MediaProbe) -> Kind | None:
    if media.tag in _KIND_BY_TAG:
        return _KIND_BY_TAG[media.tag]
    if media.tag == "canvas" or media.graphics:
        return "chart"
    return None


def _attach_crops(render: Render, found: Findings) -> None:
    """Put the element's crop path into the evidence of each of its issues."""
    for issue in found.issues:
        crop = render.crops.get(issue.element or "")
        if crop and "crop" not in issue.evidence:
            issue.evidence["crop"] = crop
