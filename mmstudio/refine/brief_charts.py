"""The local fix for a chart the brief's requirement says is wrong (MM-WebAgent §3.4 "local").

A ``req-chart`` issue on a planned chart means the page draws another type than the brief asks
(a bar chart for a donut) or data that is not the brief's dataset (made-up numbers while the
prompt prints its table). The fix rebuilds the chart from the brief's own reading of it — the
requirement (:mod:`mmstudio.requirements`) keeps the asked type, the categories and the numbers
— through the same chart pipeline as generation, and records the new type and data in the plan.
The change is kept only when the re-evaluation against the same brief improves.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from mmstudio.pipeline import charts
from mmstudio.plan import ChartPlan, DataTable
from mmstudio.report import Issue
from mmstudio.requirements import Requirement, extract
from mmstudio.requirements.datasets import similarity

from . import html_edit
from .model import Change, RefineInput

log = logging.getLogger(__name__)


def fixable(issue: Issue) -> bool:
    """A failed chart requirement on a page chart (an element the plan may describe)."""
    return issue.source == "requirement" and issue.code == "req-chart" and bool(issue.element)


def _requirement(issue: Issue, brief: str | None) -> Requirement | None:
    if not brief:
        return None
    wanted = issue.evidence.get("requirement")
    return next((r for r in extract(brief) if r.id == wanted), None)


def _brief_of(site_dir: Path) -> str | None:
    from mmstudio.evaluate.core import find_brief

    return find_brief(site_dir)


def rebuilt(spec: ChartPlan, req: Requirement) -> ChartPlan:
    """``spec`` with the brief's chart type, its title (the quoted one, or the words saying what
    it shows) when the chart's own does not say it, and, when the brief gives one series of
    numbers for its categories, that data."""
    update: dict = {}
    kind = charts.chart_kind(req.role) if req.role else spec.attributes.chart_type
    if kind != charts.chart_kind(spec.attributes.chart_type):
        update["attributes"] = spec.attributes.model_copy(update={"chart_type": kind})
    if req.values and len(req.values) == len(req.numbers):
        label = spec.source_data.columns[0] if spec.source_data.columns else "Category"
        value = req.label or (spec.source_data.columns[-1] if spec.source_data.columns else "Value")
        rows = [[v, n] for v, n in zip(req.values, req.numbers, strict=True)]
        update["source_data"] = DataTable(
            columns=[label[:80], value[:80]], rows=rows, source="the brief's dataset"
        )
    title = req.label or (req.subject[:1].upper() + req.subject[1:] if req.subject else "")
    if title and similarity(title, spec.title) < 0.5:  # "Chart" for "students per month"
        update["title"] = title[:120]
    return spec.model_copy(update=update)


async def propose(inp: RefineInput) -> Change | None:
    """One local Change rebuilding the chart from the brief (None when nothing would change)."""
    issues = [i for i in inp.issues if fixable(i)]
    spec = inp.element_plan()
    if not issues or not isinstance(spec, ChartPlan) or inp.plan is None:
        return None
    brief = await asyncio.to_thread(_brief_of, inp.site_dir)
    req = _requirement(issues[0], brief)
    if req is None:
        return None
    new = rebuilt(spec, req)
    if new == spec:
        return None
    plan = inp.plan.model_copy(deep=True)
    plan.charts = [new if c.id == spec.id else c for c in plan.charts]
    from .local import _chart_files

    files = await asyncio.to_thread(_chart_files, new, plan, inp.site_dir)
    what = f"{new.attributes.chart_type} chart from the brief's data"
    retitle = html_edit.media_page_edit(spec, new)  # the figure's heading and the frame's title

    def page(html: str) -> str:
        try:
            return retitle(html) if retitle is not None else html
        except ValueError:  # a page that shows the chart some other way keeps its markup
            return html

    return Change(
        "local", spec.id, ["req-chart"], f"Rebuilt {spec.id} as a {what}",
        page=page, files=files, plan=plan,
    )  # fmt: skip
