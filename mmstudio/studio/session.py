"""A working session on one project: every user action is one job on the session's JobManager.

The desktop app (and any other front end) calls these methods and listens to the JobManager's
events; it never touches project files itself. Each method returns the submitted
:class:`~mmstudio.studio.jobs.Job` at once; the work runs on the current event loop.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mmstudio.pipeline.generate import ProgressCallback
from mmstudio.project import Project
from mmstudio.project.export import export_site
from mmstudio.studio.create import new_project
from mmstudio.studio.evaluation import evaluate_project
from mmstudio.studio.jobs import Job, JobContext, JobManager

log = logging.getLogger(__name__)


def _progress(ctx: JobContext) -> ProgressCallback:
    def report(stage: str, done: int, total: int, detail: str) -> None:
        ctx.progress(done / total if total else 0.0, f"{stage}: {detail}")

    return report


class Session:
    """The open project (None until one is opened or generated) and its jobs."""

    def __init__(self, jobs: JobManager | None = None) -> None:
        self.jobs = jobs or JobManager()
        self.project: Project | None = None

    def open(self, root: Path) -> Project:
        """Open the project at ``root`` (cancelling the jobs of the previous one); raises
        ProjectError."""
        project = Project.open(root)
        self.jobs.cancel_all()
        self.project = project
        return project

    def _require(self) -> Project:
        if self.project is None:
            raise ValueError("no project is open")
        return self.project

    def generate(self, root: Path, prompt: str, provider: str = "offline") -> Job:
        """Create a new project at ``root`` from ``prompt``; it becomes the open project."""

        async def run(ctx: JobContext) -> Project:
            result = await new_project(root, prompt, provider=provider, progress=_progress(ctx))
            self.project = result.project
            return result.project

        return self.jobs.submit("generate", run)

    def evaluate(self) -> Job:
        """Render and score the open project (a newer request cancels an older one)."""
        project = self._require()

        async def run(ctx: JobContext):
            ctx.progress(0.1, "rendering")
            return await evaluate_project(project)

        return self.jobs.submit("evaluate", run, slot="evaluate")

    def export(self, dest: Path, *, as_zip: bool = False, overwrite: bool = False) -> Job:
        """Write the open project's site to ``dest`` (folder or zip)."""
        project = self._require()

        async def run(ctx: JobContext) -> Path:
            return export_site(project.site_dir, dest, as_zip=as_zip, overwrite=overwrite)

        return self.jobs.submit("export", run)

    def restore(self, version_id: str) -> Job:
        """Make an earlier version current."""
        project = self._require()

        async def run(ctx: JobContext):
            return project.restore(version_id)

        return self.jobs.submit("restore", run)
