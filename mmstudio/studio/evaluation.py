"""Evaluating a project or any site folder and keeping the report with the project."""

from __future__ import annotations

import logging
from pathlib import Path

from mmstudio.evaluate import evaluate, resolve_target
from mmstudio.project import Project
from mmstudio.render import find_browser, get_renderer
from mmstudio.report import Report

log = logging.getLogger(__name__)


async def evaluate_path(path: Path, *, viewport_width: int = 1280) -> tuple[Report, Project | None]:
    """Evaluate a project folder (its report is written to ``report.json``; screenshots go to
    ``renders/``), a site folder or an HTML file (screenshots to a temp folder).

    Raises FileNotFoundError/ValueError for a target that cannot be resolved; a page that cannot
    be rendered (no browser, timeout, crash) gives a report that says so, scored 0."""
    path = Path(path)
    if (path / "mmstudio.json").is_file():
        project = Project.open(path)
        return await evaluate_project(project, viewport_width=viewport_width), project
    resolve_target(path)
    return await evaluate(path, viewport_width=viewport_width), None


async def evaluate_project(project: Project, *, viewport_width: int = 1280) -> Report:
    """Render and measure the project's site against its plan; writes ``report.json``."""
    report = await evaluate(
        project.site_dir / "index.html",
        viewport_width=viewport_width,
        out_dir=project.renders_dir,
        plan=project.read_plan() if project.plan_path.exists() else None,
    )
    project.write_report(report)
    return report


async def try_evaluate_project(project: Project) -> Report | None:
    """Like :func:`evaluate_project`, but with no browser installed it logs a notice (with the
    fix) and returns None instead of a failed report."""
    browser = find_browser()
    if browser.executable is None:
        log.warning("not evaluated: %s", browser.problem)
        return None
    return await evaluate_project(project)


async def close_renderer() -> None:
    """Stop the shared browser if this process started one (call before the loop ends)."""
    await get_renderer().close()
