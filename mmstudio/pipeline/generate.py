"""Stage 3 of generation: the site folder — every page laid out by the designer, in parallel
with every element's assets (:mod:`.assets`), after the plan (:mod:`.plan`).

Concurrency invariants: the layout and every asset run as tasks of one ``asyncio.TaskGroup``; at
most ``concurrency`` assets are being made at any moment (a semaphore), since each one is CPU-bound
on a small machine. The first failure cancels the rest and propagates, so a caller that builds the
site in a staging folder installs either a complete new site or nothing. Files are checked and
written in worker threads (the loop may be the GUI's), each write run to its end before a
cancellation goes on (:func:`~mmstudio.threads.run_to_end`): nothing writes into the site after
the build has stopped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mmstudio.pipeline import assets
from mmstudio.plan import HOME_PATH, DesignPlan, ElementPlan, PagePlan, slot_problems
from mmstudio.project import atomic
from mmstudio.providers.base import Designer, DesignerError
from mmstudio.threads import run_to_end

log = logging.getLogger(__name__)

#: ``progress(stage, done, total, detail)`` — called as each step of a stage finishes.
ProgressCallback = Callable[[str, int, int, str], None]


@dataclass
class SiteBuild:
    """What :func:`build_site` made: site-relative files written and seconds per stage."""

    files: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def no_progress(stage: str, done: int, total: int, detail: str) -> None:
    log.debug("%s %d/%d %s", stage, done, total, detail)


async def build_site(
    plan: DesignPlan,
    designer: Designer,
    site_dir: Path,
    *,
    concurrency: int = 2,
    progress: ProgressCallback = no_progress,
) -> SiteBuild:
    """Write the complete site for ``plan`` into the empty folder ``site_dir``: one HTML file
    per page (``index.html``, and ``<page>.html`` for each further page of a multi-page plan,
    each laid out from :meth:`~mmstudio.plan.DesignPlan.page_view`) and every asset.

    Raises DesignerError when a page does not hold exactly one slot per element and section
    planned on it, and whatever a designer stage raises."""
    build = SiteBuild()
    elements = list(plan.elements())
    pages = plan.site_pages()
    total = len(elements) + len(pages)
    done = 0
    limit = asyncio.Semaphore(max(1, concurrency))
    started = time.perf_counter()

    def finished(detail: str) -> None:
        nonlocal done
        done += 1
        progress("assets", done, total, detail)

    async def one_asset(element: ElementPlan) -> None:
        async with limit:
            t0 = time.perf_counter()
            build.files += await assets.make(element, plan, designer, site_dir)
            build.timings[f"asset:{element.id}"] = round(time.perf_counter() - t0, 3)
        finished(f"{element.kind} {element.id}")

    async def page(page: PagePlan) -> None:
        t0 = time.perf_counter()
        view = plan.page_view(page.id) if plan.multi_page else plan
        html = await designer.layout(view)
        problems = await asyncio.to_thread(slot_problems, view, html)
        if problems:
            where = f" {page.path}" if plan.multi_page else ""
            raise DesignerError(f"the page{where} does not match the plan: {problems[0]}")
        await run_to_end(atomic.write_text, site_dir / page.path, html)
        build.files.append(page.path)
        key = "layout" if page.path == HOME_PATH else f"layout:{page.path}"
        build.timings[key] = round(time.perf_counter() - t0, 3)
        finished(f"layout {page.path}")

    try:
        async with asyncio.TaskGroup() as group:
            for one in pages:
                group.create_task(page(one))
            for element in elements:
                group.create_task(one_asset(element))
    except BaseExceptionGroup as group:
        raise _first_error(group) from None
    if plan.charts:
        build.files.append(await run_to_end(assets.vendor, site_dir, "echarts.min.js"))
    build.timings["assets_total"] = round(time.perf_counter() - started, 3)
    return build


def _first_error(group: BaseExceptionGroup) -> BaseException:
    """The first real error inside (nested) exception groups: the one the user should read."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error
