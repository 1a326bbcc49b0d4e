"""Evaluating a project or any site folder and keeping the report with the project."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

from mmstudio.evaluate import evaluate, resolve_target
from mmstudio.project import Project
from mmstudio.providers.settings import Settings
from mmstudio.render import find_browser, get_renderer
from mmstudio.report import Report

if TYPE_CHECKING:
    from mmstudio.providers.models import Models

log = logging.getLogger(__name__)


async def evaluate_path(
    path: Path,
    *,
    viewport_width: int = 1280,
    judge_settings: Settings | None = None,
    brief: str | None = None,
    models: Models | None = None,
) -> tuple[Report, Project | None]:
    """Evaluate a project folder (its report is written to ``report.json``; screenshots go to
    ``renders/``), a site folder or an HTML file (screenshots to a temp folder).

    Raises FileNotFoundError/ValueError for a target that cannot be resolved; a page that cannot
    be rendered (no browser, timeout, crash) gives a report that says so, scored 0. With
    ``models`` (a bundle; or ``judge_settings``, from which one is made for this call) the
    model judge's issues (source ``judge``) are merged in; what it could not judge is in the
    report's ``notices`` and keeps its measured score (None where nothing measured it).
    ``brief`` (the designer's prompt) is what the page is checked against; a project's own
    prompt when None."""
    path = Path(path)
    if (path / "mmstudio.json").is_file():
        project = Project.open(path)
        report = await evaluate_project(
            project, viewport_width=viewport_width, judge_settings=judge_settings, brief=brief,
            models=models,
        )  # fmt: skip
        return report, project
    site_dir, _, plan = resolve_target(path)
    out_dir = await asyncio.to_thread(renders_for, path)
    report = await evaluate(path, viewport_width=viewport_width, out_dir=out_dir, brief=brief)
    if not report.failed and (models is not None or judge_settings is not None):
        report = await _judge(report, plan, site_dir, judge_settings, models)
    return report, None


def renders_for(path: Path) -> Path:
    """Where screenshots of a site that is not a project go: one folder per site in the user
    cache (``<cache>/mmstudio/renders/<hash of the path>``), replaced by the next evaluation of
    the same site, so nothing is ever written into someone else's folder and nothing piles up."""
    digest = hashlib.sha256(str(Path(path).resolve()).encode()).hexdigest()[:16]
    folder = Path(platformdirs.user_cache_dir("mmstudio", appauthor=False)) / "renders" / digest
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def _judge(
    report: Report, plan, site_dir: Path, settings: Settings | None, models: Models | None
) -> Report:
    from mmstudio.providers.llm.review import judge_site

    settings = models.settings if models is not None else settings
    assert settings is not None
    review = await judge_site(report, plan, site_dir, settings, models=models)
    for notice in review.notices:
        log.warning("judge: %s", notice)
    return review.report


async def evaluate_project(
    project: Project,
    *,
    viewport_width: int = 1280,
    judge_settings: Settings | None = None,
    brief: str | None = None,
    models: Models | None = None,
) -> Report:
    """Render and measure the project's site against its plan (plus the model judge of
    ``models``, or of a bundle made from ``judge_settings``); writes ``report.json`` — except
    when the evaluation itself failed (``report.failed``): the previous report is kept and the
    failed one returned. The plan is read and the report written in a worker thread (the loop
    may be the GUI's)."""
    plan = await asyncio.to_thread(_read_plan, project)
    report = await evaluate(
        project.site_dir / "index.html",
        viewport_width=viewport_width,
        out_dir=project.renders_dir,
        plan=plan,
        brief=brief if brief is not None else project.manifest.prompt,
    )
    if report.failed:
        log.warning("report.json kept as it was: %s", report.failed)
        return report
    if models is not None or judge_settings is not None:
        report = await _judge(report, plan, project.site_dir, judge_settings, models)
    await asyncio.to_thread(project.write_report, report)
    return report


def _read_plan(project: Project):
    return project.read_plan() if project.plan_path.exists() else None


async def try_evaluate_project(project: Project) -> Report | None:
    """Like :func:`evaluate_project`, but with no browser installed it logs a notice (with the
    fix) and returns None instead of a failed report."""
    browser = await asyncio.to_thread(find_browser)
    if browser.executable is None:
        log.warning("not evaluated: %s", browser.problem)
        return None
    return await evaluate_project(project)


async def close_renderer() -> None:
    """Stop the shared browser if this process started one (call before the loop ends)."""
    await get_renderer().close()
