"""What the window shows of a project, read in one go so it can be read off the GUI thread.

:func:`read_snapshot` touches only files and the history database (a new SQLite connection per
call), never Qt, so ``asyncio.to_thread(read_snapshot, project)`` is safe while jobs commit: the
project's writes are atomic renames, so a read sees the old or the new file, never half of one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.project.versions import Version
from mmstudio.report import Report


@dataclass(frozen=True)
class ProjectSnapshot:
    """Plan, latest report, versions (oldest first), head id and what undo / redo can do."""

    root: Path
    plan: DesignPlan
    report: Report | None
    versions: list[Version]
    head: str | None
    can_undo: bool
    can_redo: bool

    @property
    def element_ids(self) -> set[str]:
        """Ids of the plan's elements (images, videos, charts)."""
        return {element.id for element in self.plan.elements()}


def read_snapshot(project: Project) -> ProjectSnapshot:
    """Read ``project`` (raises ProjectError when its plan is missing or invalid)."""
    plan = project.read_plan()
    report = project.read_report()
    versions = project.history.list()
    head = project.manifest.head
    parent = next((v.parent for v in versions if v.id == head), None)
    return ProjectSnapshot(
        root=project.root,
        plan=plan,
        report=report,
        versions=versions,
        head=head,
        can_undo=bool(parent),
        can_redo=bool(project.manifest.redo),
    )
