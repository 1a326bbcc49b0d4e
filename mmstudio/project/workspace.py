"""The one way to change a project: a :class:`Workspace` per open project, owning its locks, and
its edit transaction.

Every change to a project that has versions goes through here — a refine attempt, a feedback
turn, a restore / undo / redo — and nothing else writes ``site/``::

    workspace = Workspace.of(project)
    async with workspace.edit(job, kind="turn") as draft:   # a trial copy of site/ (and plan)
        draft.write_text("index.html", page)                # the change, on the copy only
        report = await draft.verify(evaluator)              # render + score the copy
        version = await draft.commit(summary, attempt=..., record=...)

Flow of one edit: open (hard-linked copy of ``site/`` in ``<project>/.staging-<kind>-<pid>-<n>``,
the base head noted, under the edit lock) → change the copy → verify (no lock held: renders run
in parallel) → commit (under the edit lock, in a worker thread: a new version built from the
copy — or, when another edit changed the site meanwhile, from the latest site with the change
replayed by ``rebase`` — installed and recorded by :meth:`~mmstudio.project.Project.
commit_staged`, then the attempt row and the caller's ``record`` rows). Leaving the block
removes the copy however it ends.

Invariants:
- A draft that is cancelled or fails before its commit's decision point leaves nothing behind:
  the live ``site/``, ``plan.json``, ``report.json``, the head and the history are exactly as
  before (only blobs no row names may stay in ``objects/``). A cancellation that lands during
  the commit stops it before the history row is written; one that lands after that point lets
  the commit (with its attempt and record rows) finish and is then re-raised, so a version is
  never without its rows.
- A draft never commits on top of a change it did not see: when the site or plan of the head
  changed since the draft opened (an element refine beside it), the commit replays the draft's
  written files and ``rebase(latest_page)`` on the latest site, or, without ``rebase``, raises
  :class:`~mmstudio.project.errors.ProjectError` and saves nothing. A head that moved only by a
  new report (an evaluation committed) is no conflict.
- Locks (all keyed by the project's RESOLVED path, so a symlinked path shares them): the
  cross-process writer lock (:func:`~mmstudio.project.lock.writer_lock`, held for each edit and
  by :meth:`Workspace.hold`), the thread lock every :class:`~mmstudio.project.Project` write
  holds, the edit lock (an ``asyncio.Lock`` per event loop) that serialises opening drafts,
  commits and checkouts (never held while rendering), and the job locks
  (:class:`JobLocks`: the page lock and one lock per element) with which every job manager
  bound to the project schedules its jobs.
- Restore, undo and redo (:meth:`Workspace.restore`, :meth:`undo`, :meth:`redo`) stage the
  version, then install it under the same locks, with the same cancellation rule.
- A new project's first site (a project without a head) is seeded with
  :meth:`~mmstudio.project.Project.install_site`; generation does that in its building folder
  before the project exists at its place (:mod:`mmstudio.studio.create`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import shutil
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mmstudio.plan import DesignPlan
from mmstudio.project import atomic
from mmstudio.project.errors import ProjectError, Withdrawn, saving
from mmstudio.project.lock import writer_lock
from mmstudio.project.versions import Attempt, Version
from mmstudio.report import Report
from mmstudio.threads import run_to_end

if TYPE_CHECKING:
    from mmstudio.project.store import Project

log = logging.getLogger(__name__)

T = TypeVar("T")

#: ``await evaluator(page_html_path, plan, out_dir) -> Report | None`` (None: not evaluated)
Evaluator = Callable[[Path, DesignPlan | None, Path], Awaitable[Report | None]]
#: ``rebase(latest_index_html) -> new_index_html``; raises RebaseError when it cannot apply
Rebase = Callable[[str], str]

DRAFT_KINDS = ("trial", "turn", "edit")  # .staging-<kind>-<pid>-<n>: a draft's folder
_draft_ids = itertools.count(1)  # one counter per process: draft folders never collide


class RebaseError(ProjectError):
    """A draft's change no longer applies to the latest site (one line for the user)."""


class PageLock:
    """Shared (element jobs) / exclusive (page jobs) lock with writer preference."""

    def __init__(self) -> None:
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0
        self._changed = asyncio.Condition()

    async def acquire(self, exclusive: bool) -> None:
        async with self._changed:
            if exclusive:
                self._writers_waiting += 1
                try:
                    await self._changed.wait_for(lambda: not self._writer and self._readers == 0)
                finally:
                    self._writers_waiting -= 1
                self._writer = True
            else:
                await self._changed.wait_for(
                    lambda: not self._writer and self._writers_waiting == 0
                )
                self._readers += 1

    async def release(self, exclusive: bool) -> None:
        async with self._changed:
            if exclusive:
                self._writer = False
            else:
                self._readers -= 1
            self._changed.notify_all()


class JobLocks:
    """How jobs on one project may overlap (:class:`~mmstudio.studio.jobs.JobManager`): an
    element job holds :attr:`page` shared and its element's lock, a page job holds the page
    exclusively. One event loop's."""

    def __init__(self) -> None:
        self.page = PageLock()
        self._elements: dict[str, asyncio.Lock] = {}

    def element(self, element_id: str) -> asyncio.Lock:
        """The lock of ``element_id`` ("" for page jobs)."""
        return self._elements.setdefault(element_id, asyncio.Lock())


class ProjectLocks:
    """The locks of one project folder, one object per resolved path (see the module doc)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = threading.RLock()  # every Project write method holds it
        self.drafts: set[Path] = set()  # this process's open draft folders
        self._per_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[asyncio.Lock, JobLocks]
        ] = weakref.WeakKeyDictionary()
        self._guard = threading.Lock()

    def _of_loop(self) -> tuple[asyncio.Lock, JobLocks]:
        loop = asyncio.get_running_loop()  # asyncio locks belong to one loop
        with self._guard:
            found = self._per_loop.get(loop)
            if found is None:
                found = self._per_loop[loop] = (asyncio.Lock(), JobLocks())
            return found

    def edit(self) -> asyncio.Lock:
        """The edit lock of the running event loop."""
        return self._of_loop()[0]

    def jobs(self) -> JobLocks:
        """The job locks of the running event loop."""
        return self._of_loop()[1]


_registry: dict[Path, ProjectLocks] = {}
_registry_guard = threading.Lock()


def locks_for(root: Path) -> ProjectLocks:
    """The locks of the project folder ``root`` (resolved: every path to it shares them)."""
    key = Path(root).resolve()
    with _registry_guard:
        locks = _registry.get(key)
        if locks is None:
            locks = _registry[key] = ProjectLocks(key)
        return locks


async def _run_stoppable(func: Callable[[threading.Event], T]) -> T:
    """``func(stop)`` in a worker thread, to its end; a cancellation meanwhile sets ``stop``
    (the function withdraws if it has not reached its decision point) and is re-raised once
    the thread has finished."""
    stop = threading.Event()
    task = asyncio.ensure_future(asyncio.to_thread(func, stop))
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
            stop.set()
        except Exception:
            break  # the thread's own error: ``task.result()`` raises it below
    if cancelled:
        if not task.cancelled():
            task.exception()  # retrieved (a Withdrawn, or the commit's own error)
        raise asyncio.CancelledError
    return task.result()


class Workspace:
    """One open project's locks and its edit transaction (see the module docstring). Get it
    with :meth:`of`; every Workspace of the same folder shares the same locks."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.locks = locks_for(project.root)

    @classmethod
    def of(cls, project: Project) -> Workspace:
        """The workspace of ``project`` (one per Project object, locks shared per folder)."""
        found = project.__dict__.get("_workspace")
        if found is None:
            found = cls(project)
            project.__dict__["_workspace"] = found
        return found

    @property
    def root(self) -> Path:
        return self.project.root

    @contextlib.contextmanager
    def hold(self, what: str) -> Iterator[None]:
        """Hold the cross-process writer lock while the block runs (re-entrant in a process);
        ``what`` describes the holder. Raises ProjectError when another process holds it."""
        with writer_lock(self.locks.root, what):
            yield

    # -- the edit transaction -----------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def edit(
        self, job: str | None = None, *, kind: str = "edit", what: str = "mmstudio edit"
    ) -> AsyncIterator[Draft]:
        """A :class:`Draft` of the project as it is now; the block changes it, verifies it and
        commits it. Leaving the block without a commit (an error, a cancellation) discards it.
        ``kind`` (one of :data:`DRAFT_KINDS`) names the draft's folder. Raises ProjectError when
        another process is changing the project or the disk refuses the copy."""
        if kind not in DRAFT_KINDS:
            raise ValueError(f"unknown draft kind {kind!r}")
        with self.hold(what):
            folder = self.root / f".staging-{kind}-{os.getpid()}-{next(_draft_ids)}"
            self.locks.drafts.add(folder)
            draft = Draft(self, folder, job)
            try:
                async with self.locks.edit():
                    await run_to_end(self._remove_dead_drafts)
                    await run_to_end(draft._open)
                yield draft
            finally:
                draft._closed = True
                await run_to_end(shutil.rmtree, folder, ignore_errors=True)
                # a draft's own renders (``renders/trials/<draft>``) go with it; a committed
                # draft's were moved into ``renders/`` by the commit
                trial = self.project.renders_dir / "trials" / folder.name
                await run_to_end(shutil.rmtree, trial, ignore_errors=True)
                self.locks.drafts.discard(folder)

    def _remove_dead_drafts(self) -> None:
        """Delete this process's draft folders no open draft owns (a removal that failed);
        other processes' are removed by :meth:`~mmstudio.project.Project.recover`."""
        for kind in DRAFT_KINDS:
            for folder in self.root.glob(f".staging-{kind}-{os.getpid()}-*"):
                if folder not in self.locks.drafts:
                    log.info("removing %s left by an ended edit", folder.name)
                    shutil.rmtree(folder, ignore_errors=True)

    # -- moving the head ----------------------------------------------------------------------
    async def restore(self, version_id: str) -> Version:
        """Make ``version_id`` current (:meth:`~mmstudio.project.Project.restore`)."""
        return await self._checkout(lambda proceed: self.project.restore(version_id, proceed))

    async def undo(self) -> Version:
        """Move the head to its parent (:meth:`~mmstudio.project.Project.undo`)."""
        return await self._checkout(self.project.undo)

    async def redo(self) -> Version:
        """Move the head to the version last undone (:meth:`~mmstudio.project.Project.redo`)."""
        return await self._checkout(self.project.redo)

    async def _checkout(self, move: Callable[[Callable[[], bool]], Version]) -> Version:
        def run(stop: threading.Event) -> Version:
            self.project.refresh()
            return move(lambda: not stop.is_set())

        with self.hold("mmstudio checkout"):
            async with self.locks.edit():
                return await _run_stoppable(run)

    # -- recording without changing the site --------------------------------------------------
    async def commit_current(self, summary: str, **tags: str | None) -> Version:
        """Record the project as it is (a new report, say) as a version; an unchanged state adds
        none (:meth:`~mmstudio.project.Project.commit`; ``tags``: job, element, level)."""

        def run() -> Version:
            self.project.refresh()
            return self.project.commit(summary, **tags)

        with self.hold("mmstudio commit"):
            async with self.locks.edit():
                return await run_to_end(run)

    async def write_report(self, report: Report) -> None:
        """Write ``report.json`` (not committed) under the edit lock."""
        async with self.locks.edit():
            await run_to_end(self.project.write_report, report)

    async def add_attempt(self, attempt: Attempt) -> None:
        """Record an attempt that made no version (a refiner that failed)."""
        await run_to_end(self.project.history.add_attempt, attempt)


class Draft:
    """A change being made to a project: a private copy of ``site/`` (:attr:`site`) and of the
    plan, a verdict, and one commit. Made by :meth:`Workspace.edit` only."""

    def __init__(self, workspace: Workspace, folder: Path, job: str | None) -> None:
        self.workspace = workspace
        self.folder = folder
        self.job = job
        self.base: str | None = None  # the head the draft started from
        self.plan: DesignPlan | None = None  # the base plan, or the one written
        self.report: Report | None = None  # the verified report (None: keep the current one)
        self._base_files: dict[str, str] = {}  # site/ and plan.json blobs of the base head
        self._written: dict[str, bytes] = {}  # site-relative path → bytes written here
        self._plan_written = False
        self._committed = False
        self._closed = False

    @property
    def project(self) -> Project:
        return self.workspace.project

    @property
    def site(self) -> Path:
        """The draft's copy of ``site/`` (hard links: write only through :meth:`write_bytes`
        or by replacing files, never by writing into an existing file)."""
        return self.folder / "site"

    @property
    def page_path(self) -> Path:
        return self.site / "index.html"

    def _open(self) -> None:
        """Copy the site (hard links) and note the base (under the edit lock, in a thread)."""
        project = self.project
        with project._writing:
            project.refresh()
            self.base = project.manifest.head
            self._base_files = self._shape(self.base)
            try:
                with saving("a working copy of the site", "nothing was changed"):
                    self.folder.mkdir()
                    if project.site_dir.is_dir():
                        atomic.link_tree(project.site_dir, self.site)
                    else:
                        self.site.mkdir()
            except BaseException:
                shutil.rmtree(self.folder, ignore_errors=True)
                raise
            self.plan = _read_plan(project)

    def _shape(self, head: str | None) -> dict[str, str]:
        """The site and plan files of version ``head`` (what a conflict is judged on)."""
        if head is None:
            return {}
        try:
            files = self.project.history.get(head).files
        except KeyError:
            return {}
        return {p: d for p, d in files.items() if p == "plan.json" or p.startswith("site/")}

    # -- reading and writing the copy ---------------------------------------------------------
    def read_bytes(self, path: str) -> bytes | None:
        """A site file of the draft (site-relative POSIX path); None when there is none."""
        try:
            return (self.site / path).read_bytes()
        except OSError:
            return None

    def read_text(self, path: str = "index.html") -> str:
        """A site text file of the draft (``surrogateescape`` keeps odd bytes); raises
        ProjectError when it does not exist."""
        data = self.read_bytes(path)
        if data is None:
            raise ProjectError(f"the site has no {path}")
        return data.decode("utf-8", errors="surrogateescape")

    def outside(self, path: str) -> bool:
        """Whether writing site-relative ``path`` would land outside the site folder (``..``,
        an absolute path, or a symbolic link in the copy pointing out)."""
        if Path(path).is_absolute() or ".." in Path(path).parts:
            return True
        return not (self.site / path).parent.resolve().is_relative_to(self.site.resolve())

    def write_bytes(self, path: str, data: bytes) -> None:
        """Write a site file of the draft atomically (a new file: the live site is never
        written through a link). Raises ProjectError for a path outside the site or on a disk
        error."""
        self._check_open()
        if self.outside(path):
            raise ProjectError(f"the change writes outside the site folder: {path}")
        with saving(path, "nothing was changed"):
            atomic.write_bytes(self.site / path, data)
        self._written[path] = data

    def write_text(self, path: str, text: str) -> None:
        """:meth:`write_bytes` of UTF-8 text (``surrogateescape``: bytes read in come back)."""
        self.write_bytes(path, text.encode("utf-8", errors="surrogateescape"))

    def write_plan(self, plan: DesignPlan) -> None:
        """Make ``plan`` the draft's plan (written at commit)."""
        self._check_open()
        self.plan, self._plan_written = plan, True

    # -- verdict and commit -------------------------------------------------------------------
    async def verify(self, evaluator: Evaluator, out_dir: Path | None = None) -> Report | None:
        """Render and score the draft's page with ``evaluator`` (screenshots to ``out_dir``,
        default ``renders/trials/<draft>``); returns the report. A report that did not fail
        becomes the one the commit writes. No lock is held meanwhile."""
        self._check_open()
        out = out_dir or self.project.renders_dir / "trials" / self.folder.name
        report = await evaluator(self.page_path, self.plan, out)
        self.report = report if report is not None and not report.failed else None
        return report

    async def commit(
        self,
        summary: str,
        *,
        element: str | None = None,
        level: str | None = None,
        rebase: Rebase | None = None,
        attempt: Attempt | None = None,
        record: Callable[[Version], Any] | None = None,
    ) -> Version:
        """Install the draft and record it as the new head version, tagged with the draft's
        job, ``element`` and ``level``; then add ``attempt`` (its ``version`` filled in) and run
        ``record(version)`` (more rows: a turn's), all in one worker thread under the edit lock.
        Raises RebaseError / ProjectError when the change no longer applies or the project
        changed under a draft without ``rebase`` (nothing saved), ProjectError on a disk error
        (the old version stays), CancelledError as the module docstring says."""
        self._check_open()

        def run(stop: threading.Event) -> Version:
            with self.project._writing:
                return self._commit(stop, summary, element, level, rebase, attempt, record)

        async with self.workspace.locks.edit():
            version = await _run_stoppable(run)
        return version

    def _commit(self, stop, summary, element, level, rebase, attempt, record) -> Version:
        project = self.project
        project.refresh()
        staging = self.folder
        if self._shape(project.manifest.head) != self._base_files:
            staging = self._rebased(rebase)
        trial = self._trial_renders()
        try:
            with saving("the version"):
                if self._plan_written and self.plan is not None:
                    atomic.write_text(staging / "plan.json", _json(self.plan))
                if self.report is not None:
                    report = self.report.model_copy()
                    report.target = str(project.site_dir / "index.html")
                    text = _json(report)
                    if trial is not None:  # its screenshots become the head's (moved below)
                        text = text.replace(_json_path(trial), _json_path(project.renders_dir))
                    atomic.write_text(staging / "report.json", text)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self._committed = True  # the staging folder is consumed from here on
        version = project.commit_staged(
            staging, summary, job=self.job, element=element, level=level,
            proceed=lambda: not stop.is_set(),
        )  # fmt: skip
        if trial is not None:
            _promote(trial, project.renders_dir)
        if attempt is not None:
            attempt.version = version.id
            with saving("the attempt", "the version was saved"):
                project.history.add_attempt(attempt)
        if record is not None:
            record(version)
        return version

    def _trial_renders(self) -> Path | None:
        """The folder under ``renders/trials/`` the draft's report was rendered into, if so."""
        shot = self.report.render.screenshot if self.report is not None else ""
        trials = self.project.renders_dir / "trials"
        folder = Path(shot).parent if shot else None
        return folder if folder is not None and folder.parent == trials else None

    def _rebased(self, rebase: Rebase | None) -> Path:
        """A staging folder holding the latest site with this draft's writes replayed (the
        draft's own copy is stale: another edit changed the site or plan since it opened)."""
        if rebase is None and (self._written or self._plan_written):
            raise ProjectError(
                "the project changed while this change was made; nothing was saved (try again)"
            )
        project = self.project
        latest = (project.site_dir / "index.html").read_text(
            encoding="utf-8", errors="surrogateescape"
        )
        page = rebase(latest) if rebase is not None else latest  # RebaseError: nothing written
        with saving("the version"):
            staging = project.staging_dir()
        try:
            with saving("the version"):
                atomic.link_tree(project.site_dir, staging / "site")
                for path, data in self._written.items():
                    if path != "index.html":
                        atomic.write_bytes(staging / "site" / path, data)
                if page != latest:
                    atomic.write_text(staging / "site" / "index.html", page)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        shutil.rmtree(self.folder, ignore_errors=True)
        return staging

    def _check_open(self) -> None:
        if self._committed or self._closed:
            raise ProjectError("this change was already committed or discarded")


def _json_path(path: Path) -> str:
    """``path`` as it appears inside a JSON string (backslashes escaped)."""
    return json.dumps(str(path))[1:-1]


def _promote(trial: Path, renders: Path) -> None:
    """Move a committed trial's screenshots and crops into ``renders/`` (the head's), so the
    report the commit wrote points at files that exist. A failure is logged: the version is
    saved, its report then names the older pictures."""
    try:
        for item in trial.iterdir():
            target = renders / item.name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            os.replace(item, target)
        trial.rmdir()
    except OSError as exc:
        log.warning("the accepted change's screenshots stay in %s: %s", trial, exc)


def _read_plan(project: Project) -> DesignPlan | None:
    """The project's plan; None when it has none or it does not validate (the edit's code says
    what it needs; a commit without a new plan keeps the file as it is)."""
    if not project.plan_path.exists():
        return None
    try:
        return project.read_plan()
    except ProjectError as exc:
        log.warning("editing without the plan: %s", exc)
        return None


def _json(model: DesignPlan | Report) -> str:
    """``plan.json`` / ``report.json`` text, as the project writes them."""
    return model.model_dump_json(indent=2) + "\n"


__all__ = [
    "DRAFT_KINDS",
    "Draft",
    "Evaluator",
    "JobLocks",
    "PageLock",
    "ProjectLocks",
    "Rebase",
    "RebaseError",
    "Withdrawn",
    "Workspace",
    "locks_for",
]
