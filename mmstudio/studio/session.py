"""A working session on one project: every user action is one job on the session's JobManager.

The desktop app (and any other front end) calls these methods and listens to the JobManager's
events; it never touches project files itself. Each method returns the submitted
:class:`~mmstudio.studio.jobs.Job` at once; the work runs on the current event loop.

Invariants:
- While a project is open the session holds its writer lock (its
  :class:`~mmstudio.project.workspace.Workspace`'s :meth:`~mmstudio.project.workspace.Workspace.
  hold`), so every job the app runs on it — generate,
  evaluate, refine, feedback, undo, redo, restore — writes under that lock. A second app or a
  CLI command that changes the project is refused with one line naming this process; opening a
  project another process is changing raises ProjectError with that line (and the previously
  open project stays open). :meth:`close` (or opening another project) releases it.
- A project made with a model (``provider`` openai in its manifest) is worked on with one
  model bundle (:mod:`mmstudio.studio.bundle`, from ``settings`` or the config file and
  environment), opened with the project and closed with it: evaluate adds the model judge,
  refine uses the model refiners with trials judged like their baseline, and feedback turns
  (:meth:`Session.feedback`) split, apply and judge with it. Settings that cannot be read
  leave the project on the offline path with a notice (:attr:`Session.notices`).
- Undo, redo and restore are workspace checkouts (the same locks as every edit; a cancellation
  before the new version is decided leaves the old one); export writes in a worker thread, off
  the loop (the GUI's), to its end (:func:`~mmstudio.threads.run_to_end`). The
  writer lock is held per process, whatever the thread, and is never let go while a write runs:
  closing cancels the project's jobs and refine tasks and releases the lock once they have
  stopped (at once when nothing is running).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from mmstudio.pipeline.generate import ProgressCallback
from mmstudio.project import Project
from mmstudio.project.export import export_site
from mmstudio.project.workspace import Workspace
from mmstudio.providers.settings import Settings
from mmstudio.report import Level
from mmstudio.studio.bundle import open_models, using_models
from mmstudio.studio.create import new_project
from mmstudio.studio.credits import export_extras
from mmstudio.studio.evaluation import evaluate_project
from mmstudio.studio.feedback import FeedbackService
from mmstudio.studio.jobs import Job, JobContext, JobManager
from mmstudio.studio.refining import RefineService
from mmstudio.studio.state import StudioState
from mmstudio.threads import run_to_end

if TYPE_CHECKING:
    from mmstudio.providers.models import Models

log = logging.getLogger(__name__)


def _progress(ctx: JobContext) -> ProgressCallback:
    def report(stage: str, done: int, total: int, detail: str) -> None:
        ctx.progress(done / total if total else 0.0, f"{stage}: {detail}", stage=stage)

    return report


def _take_lock(project: Project) -> contextlib.ExitStack:
    """The project's writer lock, held until the returned stack is closed; raises ProjectError."""
    lock = contextlib.ExitStack()
    lock.enter_context(Workspace.of(project).hold("the MM Studio app has it open"))
    return lock


class Session:
    """The open project (None until one is opened or generated), its jobs and the app's state
    (:attr:`state`, a :class:`~mmstudio.studio.state.StudioState` the panels bind to: it
    follows the open project and holds the flags)."""

    def __init__(self, jobs: JobManager | None = None, settings: Settings | None = None) -> None:
        """``settings``: the model endpoint of projects made with a model (None: the config
        file and environment, read when such a project is opened)."""
        self.jobs = jobs or JobManager()
        self.settings = settings
        self.models: Models | None = None  # the open project's model bundle (None: offline)
        self.notices: list[str] = []
        self.project: Project | None = None
        self.state = StudioState(self.jobs)
        self._refiner: RefineService | None = None
        self._tasks: set[asyncio.Task] = set()
        self._lock: contextlib.ExitStack | None = None  # the open project's writer lock
        self._releasing: set[asyncio.Task] = set()  # locks let go once their jobs have stopped

    def open(self, root: Path) -> Project:
        """Open the project at ``root`` (cancelling the jobs of the previous one) and hold its
        writer lock; raises ProjectError (one line, naming the holder when another process is
        changing it)."""
        project = Project.open(root)
        lock = _take_lock(project)
        self.jobs.cancel_all()
        self._set_project(project, lock)
        return project

    def close(self) -> None:
        """Cancel the open project's jobs and release its writer lock (closing the window or
        showing a plain site folder)."""
        self.jobs.cancel_all()
        for task in list(self._tasks):
            task.cancel()
        self.project, self._refiner = None, None
        self.state.set_project(None)
        self.jobs.bind(None)
        self._drop_models()
        self._release()

    def take_notices(self) -> list[str]:
        """The notices not yet shown (:attr:`notices`, one line each, oldest first: a model
        not used for the open project, an asset the offline maker made instead of the
        model), which are then cleared."""
        taken = list(self.notices)
        self.notices.clear()
        return taken

    @property
    def flagged(self) -> set[str]:
        """The flagged elements (the state's)."""
        return self.state.flags

    def _set_project(self, project: Project, lock: contextlib.ExitStack | None = None) -> None:
        """Make ``project`` the open one; its lock is taken before the previous one is let go,
        so a refused lock (ProjectError) changes nothing."""
        lock = lock or _take_lock(project)
        self._release()
        self._lock = lock
        self.project = project
        self.jobs.bind(Workspace.of(project).locks)  # jobs on it share the project's job locks
        self._drop_models()
        self.models = self._models_for(project)
        self._refiner = RefineService(project, self.jobs, models=self.models)
        self.state.set_project(project)  # another project's flags and selection go

    def _models_for(self, project: Project) -> Models | None:
        """The bundle for ``project``: its provider's (None offline); settings that cannot be
        read give None and a notice, so the project still opens."""
        try:
            return open_models(project.manifest.provider, self.settings)
        except ValueError as exc:
            notice = f"the model is not used for this project: {exc}"
            log.warning("%s", notice)
            self.notices.append(notice)
            return None

    def _drop_models(self) -> None:
        """Close the open project's bundle (its client closes on the running loop, after the
        jobs that may still use it have stopped)."""
        models, self.models = self.models, None
        if models is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop runs: nothing of ours can be using its client
        busy = [j.id for j in self.jobs.jobs.values() if j.state in ("queued", "running")]
        tasks = [t for t in self._tasks if not t.done()]

        async def close_when_stopped() -> None:
            waits = [asyncio.ensure_future(self.jobs.wait(job_id)) for job_id in busy]
            if waits or tasks:
                await asyncio.wait([*waits, *tasks])
            await models.aclose()

        task = loop.create_task(close_when_stopped())
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    def feedback(self) -> FeedbackService:
        """The feedback service of the open project: on the session's jobs and refiner, with
        the project's model bundle when it has one (the app's annotate and turn actions)."""
        project = self._require()
        return FeedbackService(project, self.jobs, refine=self._refiner, models=self.models)

    def _release(self) -> None:
        """Let go of the open project's writer lock once its unfinished jobs and refine tasks
        (cancelled by now, or about to be) have stopped: a write of theirs in a worker thread
        runs to its end first."""
        lock, self._lock = self._lock, None
        if lock is None:
            return
        busy = [j.id for j in self.jobs.jobs.values() if j.state in ("queued", "running")]
        tasks = [t for t in self._tasks if not t.done()]
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop runs: nothing of ours can be running either
            loop = None
        if loop is None or not (busy or tasks):
            lock.close()
            return

        async def release_when_stopped() -> None:
            try:
                waits = [asyncio.ensure_future(self.jobs.wait(job_id)) for job_id in busy]
                await asyncio.wait([*waits, *tasks])
            finally:
                lock.close()

        task = loop.create_task(release_when_stopped())
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    def _require(self) -> Project:
        if self.project is None:
            raise ValueError("no project is open")
        return self.project

    def generate(
        self,
        root: Path,
        prompt: str,
        provider: str = "offline",
        *,
        rounds: int = 3,
        concurrency: int = 2,
    ) -> Job:
        """Create a new project at ``root`` from ``prompt`` (then ``rounds`` of reflection); it
        becomes the open project."""

        async def run(ctx: JobContext) -> Project:
            async with using_models(provider, self.settings) as models:
                result = await new_project(
                    root, prompt, provider=provider, rounds=rounds, concurrency=concurrency,
                    progress=_progress(ctx), models=models,
                )  # fmt: skip
            # what fell back on the way (an asset made offline, a role not used) is told
            self.notices.extend(result.notices)
            self._set_project(result.project)
            return result.project

        return self.jobs.submit("generate", run)

    def evaluate(self) -> Job:
        """Render and score the open project (a newer request cancels an older one)."""
        project = self._require()

        models = self.models

        async def run(ctx: JobContext):
            ctx.progress(0.1, "rendering" if models is None else "rendering and judging")
            return await evaluate_project(project, models=models)

        return self.jobs.submit("evaluate", run, slot="evaluate")

    def export(self, dest: Path, *, as_zip: bool = False, overwrite: bool = False) -> Job:
        """Write the open project's site to ``dest`` (folder or zip)."""
        project = self._require()

        async def run(ctx: JobContext) -> Path:
            extra = await asyncio.to_thread(export_extras, project)
            return await run_to_end(
                export_site, project.site_dir, dest, as_zip=as_zip, overwrite=overwrite,
                extra=extra,
            )  # fmt: skip

        return self.jobs.submit("export", run)

    def toggle_flag(self, element_id: str) -> bool:
        """Flag or unflag an element for "Refine all flagged"; returns whether it is flagged."""
        return self.state.toggle_flag(element_id)

    def refine(
        self, level: Level, element: str | None = None, instruction: str = ""
    ) -> asyncio.Task:
        """Refine ``element`` (None: every element with issues at ``level``) once. The refiner
        runs its own element and page jobs on :attr:`jobs` (so this is a task, not a job: an
        outer page job would hold the page its element jobs need)."""
        self._require()
        refiner = self._refiner
        assert refiner is not None
        return self._spawn(refiner.refine(level, element, instruction))

    def refine_flagged(self) -> asyncio.Task:
        """One refine per flagged element and level its issues are routed to; elements run at
        once (their jobs hold only their own element)."""
        project = self._require()
        refiner = self._refiner
        assert refiner is not None

        async def run() -> list:
            # the report on disk now (the state's may wait for its refresh), read off the loop
            report = await asyncio.to_thread(project.read_report)

            async def one(element_id: str) -> list:
                levels = {i.level for i in (report.issues_for(element_id) if report else [])}
                outcomes: list = []
                for level in [lv for lv in ("local", "context") if lv in levels]:
                    outcomes += await refiner.refine(level, element_id)
                return outcomes

            results = await asyncio.gather(*(one(e) for e in sorted(self.flagged)))
            return [o for outcomes in results for o in outcomes]

        return self._spawn(run())

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("refine stopped: %s", task.exception())

    def undo(self) -> Job:
        """Move the open project back to the previous version."""
        project = self._require()

        async def run(ctx: JobContext):
            return await Workspace.of(project).undo()

        return self.jobs.submit("undo", run)

    def redo(self) -> Job:
        """Move the open project forward to the version last undone."""
        project = self._require()

        async def run(ctx: JobContext):
            return await Workspace.of(project).redo()

        return self.jobs.submit("redo", run)

    def restore(self, version_id: str) -> Job:
        """Make an earlier version current."""
        project = self._require()

        async def run(ctx: JobContext):
            return await Workspace.of(project).restore(version_id)

        return self.jobs.submit("restore", run)
