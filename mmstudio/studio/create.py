"""Creating a project from a prompt: plan → assets → site → evaluate → first version.

The whole project — site, plan, report and its first version — is made in a hidden building
folder beside ``root`` (``.<name>.building-<pid>-*``) and moved into place with one rename once
its first version is committed. So ``root`` either does not exist or holds a complete project
with a head: a failure, a cancellation or a ``kill -9`` at any point before the rename leaves
only the building folder, which the next run at the same place deletes. Reflection then runs on
the project in place, under its writer lock.

The first version is the project's edit transaction like every later change
(:meth:`~mmstudio.project.workspace.Workspace.edit`): the built site and the plan go into a
draft, the draft's page is evaluated (``draft.verify``) and committed in a worker thread (the
loop may be the GUI's). A cancellation that lands during the commit calls it off when it comes
before the version is recorded (nothing is created); after that, the commit runs to its end,
the project is moved into place and stays, and then the run stops.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmstudio.evaluate import evaluate as evaluate_page
from mmstudio.pipeline.generate import ProgressCallback, build_site, no_progress
from mmstudio.pipeline.plan import plan_page
from mmstudio.plan import DesignPlan
from mmstudio.project import Project, ProjectError
from mmstudio.project.errors import InputError, saving
from mmstudio.project.runs import UsageSummary, record_usage
from mmstudio.project.store import ProjectSummary, check_new_root
from mmstudio.project.workspace import Workspace
from mmstudio.providers.base import Designer
from mmstudio.providers.registry import get_designer
from mmstudio.providers.settings import Settings
from mmstudio.render import find_browser
from mmstudio.report import Report
from mmstudio.threads import run_to_end

if TYPE_CHECKING:
    from mmstudio.providers.models import Models

log = logging.getLogger(__name__)

MAX_PROMPT_CHARS = 200_000


@dataclass
class NewProject:
    """The outcome of :func:`new_project`: the project, its plan and seconds per stage;
    ``reflection`` the reflection loop's JSON-ready summary
    (:meth:`~mmstudio.refine.loop.Reflection.as_dict`, None without one), ``usage`` what the
    models spent (None offline)."""

    project: Project
    plan: DesignPlan
    timings: dict[str, float] = field(default_factory=dict)
    reflection: dict[str, Any] | None = None
    usage: UsageSummary | None = None
    notices: list[str] = field(default_factory=list)

    def summary(self) -> NewProjectSummary:
        """What ``mmstudio new`` reports (``--json``: :meth:`NewProjectSummary.to_json`)."""
        return NewProjectSummary(
            project=self.project.summary(),
            usage=self.usage,
            notices=list(self.notices),
            reflection=self.reflection,
            sections=len(self.plan.sections),
            images=len(self.plan.images),
            videos=len(self.plan.videos),
            charts=len(self.plan.charts),
            timings=dict(self.timings),
        )


@dataclass(frozen=True)
class NewProjectSummary:
    """A new project: its :class:`~mmstudio.project.store.ProjectSummary`, what the models
    spent (``usage``, None offline), ``notices`` (one line each), the reflection loop's summary
    (None without one), how many sections, images, videos and charts the plan has, and the
    seconds per stage (``timings``, ``total`` among them)."""

    project: ProjectSummary
    usage: UsageSummary | None
    notices: list[str]
    reflection: dict[str, Any] | None
    sections: int
    images: int
    videos: int
    charts: int
    timings: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        """The JSON object: the project summary's keys, then the rest in field order."""
        return {
            **self.project.to_json(),
            "usage": self.usage,
            "notices": self.notices,
            "reflection": self.reflection,
            "sections": self.sections,
            "images": self.images,
            "videos": self.videos,
            "charts": self.charts,
            "timings": self.timings,
        }


def check_prompt(prompt: str) -> str:
    """The prompt, stripped; raises InputError (a ValueError, one line) when it is empty or
    too long."""
    text = prompt.strip()
    if not text:
        raise InputError("the prompt is empty", "describe the page you want")
    if len(text) > MAX_PROMPT_CHARS:
        raise InputError(f"the prompt has {len(text)} characters; the limit is {MAX_PROMPT_CHARS}")
    return text


async def new_project(
    root: Path,
    prompt: str,
    *,
    provider: str = "offline",
    concurrency: int = 2,
    progress: ProgressCallback = no_progress,
    evaluate: bool = True,
    rounds: int = 3,
    settings: Settings | None = None,
    models: Models | None = None,
) -> NewProject:
    """Generate a new project at ``root`` from ``prompt``.

    Raises ValueError (bad prompt or provider), ProjectError (``root`` taken) and designer
    errors (provider errors among them); in every failure case nothing is left at ``root``.
    ``models``: the model bundle to design, judge and reflect with (its owner closes it; its
    usage log then holds this run's calls); without one, ``provider`` names the designer and
    ``settings`` configure a model provider (default: config file and environment). With
    ``evaluate`` the page is rendered and scored (``report.json``) before the first version is
    committed; then up to ``rounds`` rounds of reflection (MM-WebAgent §3.4) refine it,
    keeping the best version."""
    prompt = check_prompt(prompt)
    root = check_new_root(root)
    # off the loop: the first call imports the designer's modules (~0.1 s offline, more for
    # the OpenAI client), which would stall the app's event loop
    mark = len(models.usage) if models is not None else 0
    if models is not None:
        designer: Designer = models.new_designer()
    else:
        designer = await asyncio.to_thread(get_designer, provider, settings)
    try:
        result = await _generate(root, prompt, designer, concurrency, progress, evaluate, rounds)
    finally:
        close = getattr(designer, "aclose", None)
        if close is not None and models is None:  # a bundle handed in stays open
            await close()
    usage = models.usage.since(mark) if models is not None else getattr(designer, "usage", None)
    result.usage = usage.summary() if usage is not None else None
    if usage is not None:
        record_usage(result.project.root, "new", usage.as_rows())
    result.notices = list(getattr(designer, "notices", []))
    return result


async def _generate(
    root: Path,
    prompt: str,
    designer: Designer,
    concurrency: int,
    progress: ProgressCallback,
    evaluate: bool,
    rounds: int,
) -> NewProject:
    started = time.perf_counter()
    progress("plan", 0, 1, "planning the page")
    plan, plan_seconds = await plan_page(prompt, designer)
    progress("plan", 1, 1, f"{len(plan.sections)} sections, {len(list(plan.elements()))} assets")
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        _remove_dead_buildings(root)
        prefix = f".{root.name}.building-{os.getpid()}-"
        building = Path(tempfile.mkdtemp(prefix=prefix, dir=root.parent))
        _live_buildings.add(building)
    except OSError as exc:
        raise ProjectError(f"cannot create a project in {root.parent}: {exc.strerror}") from None
    timings = {"plan": round(plan_seconds, 3)}
    try:
        site = building / "site"
        site.mkdir()
        with saving(f"the new site in {root.parent}", "nothing was created", disk_only=True):
            build = await build_site(
                plan, designer, site, concurrency=concurrency, progress=progress
            )
        timings.update(build.timings)
        staged = Project.create(
            building / "project", prompt=prompt, provider=designer.name, title=plan.title
        )
        cancelled = False
        models = _models_of(designer)
        with Workspace.of(staged).hold("mmstudio new"):
            try:
                await _first_version(staged, site, plan, evaluate, progress, timings, models)
            except asyncio.CancelledError:
                if staged.manifest.head is None:
                    raise
                cancelled = True  # landed during the commit, which ran to its end
        # committed: one rename puts the complete project in place; from here on it stays
        project_done = _move_into_place(staged.root, root)
        if cancelled:
            raise asyncio.CancelledError
        reflection = None
        with Workspace.of(project_done).hold("mmstudio new"):
            if evaluate and rounds > 0 and project_done.read_report() is not None:
                reflection = await _reflect(project_done, rounds, progress, timings, models)
                plan = project_done.read_plan()
    finally:
        shutil.rmtree(building, ignore_errors=True)
        _live_buildings.discard(building)
    timings["total"] = round(time.perf_counter() - started, 3)
    return NewProject(project=project_done, plan=plan, timings=timings, reflection=reflection)


def _move_into_place(staged: Path, root: Path) -> Project:
    """Rename the committed project folder ``staged`` to ``root`` (absent or an empty folder,
    which the rename replaces) and open it there; raises ProjectError when ``root`` was taken
    meanwhile."""
    try:
        os.rename(staged, root)
    except OSError as exc:
        if root.exists() and any(root.iterdir()):
            raise ProjectError(f"{root} was filled by another program meanwhile") from None
        raise ProjectError(f"cannot create {root}: {exc.strerror}") from None
    return Project.open(root)


_live_buildings: set[Path] = set()  # building folders of this process's running generations


def _remove_dead_buildings(root: Path, *, all_own: bool = False) -> None:
    """Delete the building folders of ``root`` left beside it by runs that were killed
    (``.<name>.building-<pid>-*`` whose process is gone) or by this process's failed runs (an
    asset thread still writing when its run failed can recreate a folder after its cleanup);
    with ``all_own``, every folder of this process, running or not."""
    for folder in root.parent.glob(f".{root.name}.building-*"):
        pid = folder.name.removeprefix(f".{root.name}.building-").split("-")[0]
        own = pid == str(os.getpid()) and (all_own or folder not in _live_buildings)
        if pid.isdigit() and (own or not _alive(int(pid))):
            shutil.rmtree(folder, ignore_errors=True)


def discard_interrupted(root: Path) -> None:
    """Delete every building folder of ``root`` that this process made, once its generation has
    ended interrupted (Ctrl-C, SIGTERM). The interrupt is raised wherever the main thread is — it
    can land between the folder's creation and the ``try`` that removes it, or inside that
    removal — so the front end sweeps again after the event loop (and its worker threads) ended.
    Never raises (a folder that cannot be removed stays, for the next run at ``root``)."""
    _remove_dead_buildings(root.expanduser(), all_own=True)
    _live_buildings.clear()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def _first_version(
    project: Project,
    site: Path,
    plan: DesignPlan,
    evaluate: bool,
    progress: ProgressCallback,
    timings: dict[str, float],
    models: Models | None = None,
) -> None:
    """Commit the built ``site`` and ``plan`` as the new project's first version through its
    edit transaction, evaluated first (``report.json``) with ``evaluate`` (module docstring);
    with ``models`` the model judge's issues are merged in, as they are in reflection."""
    async with Workspace.of(project).edit("generate", what="mmstudio new") as draft:
        await run_to_end(_adopt, site, draft.site)
        draft.write_plan(plan)
        if evaluate:
            progress("evaluate", 0, 1, "rendering and scoring the page")
            t0 = time.perf_counter()
            prompt = project.manifest.prompt

            async def score(page: Path, plan: DesignPlan | None, out_dir: Path) -> Report | None:
                report = await evaluate_first(page, plan, out_dir, prompt)
                if report is None or report.failed or models is None:
                    return report
                from mmstudio.providers.llm.review import judge_site

                review = await judge_site(report, plan, page.parent, models.settings, models=models)
                return review.report

            report = await draft.verify(score, project.renders_dir)
            timings["evaluate"] = round(time.perf_counter() - t0, 3)
            overall = report.scores.overall if report else None
            progress("evaluate", 1, 1, "not evaluated" if report is None else f"overall {overall}")
        progress("commit", 0, 1, "saving the first version")
        await draft.commit("Generated from the prompt")
        progress("commit", 1, 1, "saved")


def _adopt(site: Path, target: Path) -> None:
    """Move the built ``site`` folder to ``target`` (the draft's empty site folder)."""
    target.rmdir()
    site.rename(target)


async def evaluate_first(
    page: Path, plan: DesignPlan | None, out_dir: Path, brief: str
) -> Report | None:
    """Render and score the new page against ``plan`` and the prompt ``brief`` (screenshots to
    ``out_dir``); None, with a logged notice naming the fix, when no browser is installed. A
    failed evaluation's report (``report.failed``) is returned and not saved."""
    browser = await asyncio.to_thread(find_browser)
    if browser.executable is None:
        log.warning("not evaluated: %s", browser.problem)
        return None
    report = await evaluate_page(page, out_dir=out_dir, plan=plan, brief=brief)
    if report.failed:
        log.warning("report.json not written: %s", report.failed)
    return report


def _models_of(designer: Designer) -> Models | None:
    """The model bundle behind a model designer (None for the offline one)."""
    return None if designer.name == "offline" else getattr(designer, "models", None)


async def _reflect(
    project: Project, rounds: int, progress, timings: dict, models: Models | None = None
) -> dict:
    """Run the reflection loop on the new project; returns its summary (JSON-ready). With
    ``models`` (a model designer made the page) trials are judged like the first version and
    the model refines what the judge and the brief found (MM-WebAgent §3.4), the rules standing
    in per call when it fails; offline, the rules refine what was measured."""
    from mmstudio.studio.refining import RefineService

    progress("reflect", 0, 1, f"up to {rounds} rounds of reflection")
    t0 = time.perf_counter()
    service = RefineService(project, models=models)
    result = await service.reflect(rounds)
    timings["reflect"] = round(time.perf_counter() - t0, 3)
    progress("reflect", 1, 1, f"overall {result.before} → {result.after} ({result.stopped})")
    return result.as_dict()
