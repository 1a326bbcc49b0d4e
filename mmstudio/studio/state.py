"""The app's state in one evented model, with no Qt: what every panel of the desktop app shows.

:class:`StudioState` holds the open project (or a site folder opened for evaluation only),
what was read of its head version in one go (:class:`HeadView`: plan, report, versions, the
requirement statuses AT the head, the head check's evidence crops), the selection, the flags,
the preview's device width and the jobs of the session. Listeners get a :class:`Change` naming
what changed (its ``topics``); the panels redraw from the state, never from files.

Invariants:
- One read per refresh: plan, report, history, ledger statuses and the head check are read
  together off the event loop's thread (:func:`read_head` in a worker), and published as ONE
  change — no panel can show a version another panel does not. The latest read wins (an older
  one that finishes late is dropped).
- "Operation finished": when a job that may move the head or change the report ends (generate,
  evaluate, refine, feedback, undo / redo / restore, plan edits, a head check), the state reads
  the head again and publishes the change with ``finished`` set to that job; panels refresh on
  that one event.
- Requirement statuses describe the head: when the head moved past the turn critic's checks
  (undo, restore, a refine) and a requirement is "not checked at this version", the state starts
  one ``check`` job (:func:`mmstudio.studio.head_check.check_head`) and shows ``checking`` until
  it ends; its result (kept with the version) is read with the next refresh.
- Flags, selection and device live here only; :class:`~mmstudio.studio.session.Session` reads
  its flags from the state.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.project.versions import Version
from mmstudio.report import Report
from mmstudio.studio.head_check import (
    HeadCheck,
    HeadLedgerView,
    check_head,
    evidence_ids,
    needs_check,
    read_check,
    statuses_at_head,
)
from mmstudio.studio.jobs import Job, JobContext, JobManager

log = logging.getLogger(__name__)

#: every topic a change can name
TOPICS = frozenset(
    {"project", "head", "plan", "report", "versions", "turns", "evidence", "selection", "flags",
     "device", "jobs", "checking"}
)  # fmt: skip
_ACTIVE = ("queued", "running")


def changes_project(kind: str) -> bool:
    """Whether a finished job of ``kind`` may have moved the head or changed what it shows."""
    return kind in ("generate", "evaluate", "feedback", "undo", "redo", "restore", "check") or (
        kind.startswith(("refine", "edit-"))
    )


@dataclass(frozen=True)
class HeadView:
    """What the panels show of one project at one head, read together (see :func:`read_head`).
    ``turns``: the ledger view with statuses at the head
    (:func:`~mmstudio.studio.head_check.statuses_at_head`'s shape); ``check``: the head's kept
    check (evidence crops by element id), None when there is none yet."""

    root: Path
    plan: DesignPlan
    report: Report | None
    versions: list[Version]
    head: str | None
    can_undo: bool
    can_redo: bool
    turns: HeadLedgerView = field(default_factory=lambda: HeadLedgerView(turns=[]))
    check: HeadCheck | None = None

    @property
    def element_ids(self) -> set[str]:
        """Ids of the plan's elements (images, videos, charts)."""
        return {element.id for element in self.plan.elements()}

    @property
    def section_ids(self) -> set[str]:
        return {section.id for section in self.plan.sections}

    def crop_of(self, element_id: str | None) -> str | None:
        """The head check's evidence crop (PNG path) of an element or section, if any."""
        if element_id is None or self.check is None:
            return None
        return self.check.crops.get(element_id)

    @property
    def wants_check(self) -> bool:
        """Whether the head should be checked: a requirement is not checked at this version, or
        there is evidence to cut and no check has been kept yet."""
        if not self.head:
            return False
        if needs_check(self.turns):
            return True
        return self.check is None and bool(evidence_ids(self.report))


def read_head(project: Project) -> HeadView:
    """Read ``project`` at its head: plan, report, versions, the ledger's statuses at the head
    and the head's check. Files and the history database only (a new SQLite connection per
    call), no Qt: safe in a worker thread while jobs commit (writes are atomic renames). Raises
    ProjectError when the plan is missing or invalid."""
    from mmstudio.feedback import Ledger
    from mmstudio.studio.feedback import LedgerView, ledger_view

    project.refresh()  # the head as on disk (another Project object or process may move it)
    plan = project.read_plan()
    report = project.read_report()
    versions = project.history.list()
    head = project.manifest.head
    parents = {v.id: v.parent for v in versions}
    check = read_check(project, head)
    ledger = Ledger(project.root / "history.sqlite")
    try:
        view = ledger_view(ledger)
        finals = ledger.final_verdicts()
    except Exception as exc:  # a locked or older database: the panel says why
        log.warning("cannot read the feedback ledger: %s", exc)
        failed: LedgerView = {"turns": [], "error": str(exc).splitlines()[0] if str(exc) else ""}
        view, finals = failed, []
    return HeadView(
        root=project.root,
        plan=plan,
        report=report,
        versions=versions,
        head=head,
        can_undo=bool(parents.get(head)) if head else False,
        can_redo=bool(project.manifest.redo),
        turns=statuses_at_head(view, head, parents, finals, check),
        check=check,
    )


@dataclass(frozen=True)
class Change:
    """One event of the state: ``topics`` ⊆ :data:`TOPICS`; ``job`` the job whose event caused
    it (topic "jobs"); ``finished`` the operation whose end this refresh follows (or None)."""

    topics: frozenset[str]
    job: Job | None = None
    finished: Job | None = None

    def __contains__(self, topic: str) -> bool:
        return topic in self.topics

    def touches(self, *topics: str) -> bool:
        return any(t in self.topics for t in topics)


Listener = Callable[["StudioState", Change], None]


class StudioState:
    """The evented state of one app window (see the module docstring). ``reader`` reads a head
    (:func:`read_head` by default); ``checker`` checks one (:func:`check_head`)."""

    def __init__(
        self,
        jobs: JobManager,
        reader: Callable[[Project], HeadView] = read_head,
        checker=check_head,
    ) -> None:
        self.jobs = jobs
        self.project: Project | None = None
        self.site_only: Path | None = None
        self.view: HeadView | None = None
        self.site_report: Report | None = None  # a site folder's evaluation (no project)
        self.selection: str | None = None
        self.flags: set[str] = set()
        self.device = 1280
        self.job_list: dict[str, Job] = {}  # this project's jobs (latest state), oldest first
        self.error: str | None = None  # why the last read failed (None: it did not)
        self._reader, self._checker = reader, checker
        self._listeners: list[Listener] = []
        self._reads = 0  # the latest read's number: an older one that ends late is dropped
        self._reading: asyncio.Task | None = None
        self._check_job: str | None = None
        self._check_heads: dict[str, str] = {}  # check job id → the head it checks
        self._checked: set[str] = set()  # heads a check was started for (once per head)
        self._unsubscribe = jobs.subscribe(self._job_event)

    # -- listening ---------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(state, change)`` on every change; returns the unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def publish(self, topics: Iterable[str], job: Job | None = None, finished=None) -> Change:
        """Tell every listener what changed (a failing listener is logged, never raised)."""
        change = Change(frozenset(topics) & TOPICS, job, finished)
        for listener in list(self._listeners):
            try:
                listener(self, change)
            except Exception:
                log.exception("state listener failed")
        return change

    def close(self) -> None:
        """Stop listening to the jobs (the window closes)."""
        self._unsubscribe()
        if self._reading is not None:
            self._reading.cancel()

    # -- what the panels read ----------------------------------------------------------------
    @property
    def report(self) -> Report | None:
        """The report shown: the head's, or the site folder's evaluation."""
        if self.site_only is not None:
            return self.site_report
        return self.view.report if self.view is not None else None

    @property
    def head(self) -> str | None:
        return self.view.head if self.view is not None else None

    @property
    def checking(self) -> bool:
        """Whether a check of the head is running."""
        job = self.job_list.get(self._check_job or "")
        return job is not None and job.state in _ACTIVE

    @property
    def active_jobs(self) -> list[Job]:
        return [j for j in self.job_list.values() if j.state in _ACTIVE]

    @property
    def busy_jobs(self) -> list[Job]:
        """The running jobs that make the project busy: every active job but a head check (it
        only reads, and gives way to a job that moves the head)."""
        return [j for j in self.active_jobs if j.kind != "check"]

    @property
    def running_elements(self) -> set[str]:
        """The elements jobs are working on now."""
        return {j.element for j in self.active_jobs if j.element}

    @property
    def selected_is_element(self) -> bool:
        return bool(self.view and self.selection and self.selection in self.view.element_ids)

    # -- changing it -------------------------------------------------------------------------
    def set_project(self, project: Project | None, keep_job: str | None = None) -> None:
        """Show ``project`` (None: nothing): the selection goes; another project's flags go,
        and the finished jobs of the previous project (except ``keep_job``: the one that made
        this project); its head is read with :meth:`reload`."""
        changed = self.project is None or project is None or self.project.root != project.root
        self.site_only, self.site_report = None, None
        if changed:
            self.view = None
            self.flags.clear()
            self._checked.clear()
            self._drop_finished(keep_job)
        self.project = project
        self.selection = None
        self.publish(TOPICS - {"device"})

    def set_site(self, folder: Path) -> None:
        """Show a site folder evaluated as found (no project, no versions, no turns)."""
        self.project, self.view, self.site_only, self.site_report = None, None, folder, None
        self.selection = None
        self.flags.clear()
        self._drop_finished(None)
        self.publish(TOPICS - {"device"})

    def set_site_report(self, report: Report) -> None:
        """The site folder's evaluation arrived."""
        self.site_report = report
        self.publish({"report", "plan", "evidence"})

    def select(self, item_id: str | None) -> None:
        """Select an element or section (None: the page)."""
        if item_id == self.selection:
            return
        self.selection = item_id
        self.publish({"selection"})

    def toggle_flag(self, element_id: str) -> bool:
        """Flag or unflag an element for "Refine all flagged"; returns whether it is flagged."""
        if element_id in self.flags:
            self.flags.discard(element_id)
        else:
            self.flags.add(element_id)
        self.publish({"flags"})
        return element_id in self.flags

    def set_flags(self, flags: Iterable[str]) -> None:
        """Replace the flags (those remembered with the project), keeping known ids only once
        the head is read."""
        self.flags = set(flags)
        self.publish({"flags"})

    def set_device(self, width: int) -> None:
        """The preview's width in px (1280 desktop, 768 tablet, 390 mobile)."""
        if width != self.device:
            self.device = width
            self.publish({"device"})

    # -- reading the head --------------------------------------------------------------------
    async def reload(self, finished: Job | None = None) -> HeadView | None:
        """Read the open project's head in a worker thread and publish it (one change naming
        what differs, ``finished`` set). Returns the view (None: no project, or a newer read
        or another project replaced this one). A failed read (ProjectError) sets :attr:`error`
        and publishes "project"; it is not raised."""
        project = self.project
        if project is None:
            return None
        self._reads += 1
        number = self._reads
        try:
            view = await asyncio.to_thread(self._reader, project)
        except Exception as exc:
            if number == self._reads and self.project is project:
                self.error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                self.publish({"project"}, finished=finished)
            raise
        if number != self._reads or self.project is not project:
            return None
        self.apply(view, finished)
        return view

    def apply(self, view: HeadView, finished: Job | None = None) -> Change:
        """Make ``view`` the shown head and publish what differs from the previous one; starts
        the head check when the view wants one (see :attr:`HeadView.wants_check`)."""
        old, self.view, self.error = self.view, view, None
        if old is None:
            topics = set(TOPICS - {"device", "selection"})
        else:
            topics = {"jobs"} if finished is not None else set()
            if old.head != view.head:
                topics |= {"head"}
            if old.plan != view.plan:
                topics |= {"plan"}
            if old.report != view.report:
                topics |= {"report", "evidence"}
            if [v.id for v in old.versions] != [v.id for v in view.versions] or (
                old.can_undo, old.can_redo) != (view.can_undo, view.can_redo):  # fmt: skip
                topics |= {"versions"}
            if old.turns != view.turns:
                topics |= {"turns"}
            if old.check != view.check:
                topics |= {"evidence", "turns"}
        known = view.element_ids | view.section_ids
        if self.flags - known:
            self.flags &= known
            topics.add("flags")
        if self.selection is not None and self.selection not in known:
            self.selection = None
            topics.add("selection")
        change = self.publish(topics, finished=finished)
        self._maybe_check(view)
        return change

    def _maybe_check(self, view: HeadView) -> None:
        if not view.wants_check or not view.head or view.head in self._checked:
            return
        if self.project is None:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop runs (a test driving the state directly): nothing to schedule
        self._checked.add(view.head)
        self.check()

    def check(self) -> Job | None:
        """Check the head now (a ``check`` page job: the requirements so far on its render, the
        evidence crops); a newer check replaces an older one. None without a project."""
        project = self.project
        if project is None:
            return None
        checker = self._checker

        async def run(ctx: JobContext):
            check = await checker(project, progress=ctx.progress)
            if check is None:
                ctx.progress(1.0, "the head moved while it was checked")
            return check

        job = self.jobs.submit("check", run, slot="check")
        self._check_job = job.id
        if self.view is not None and self.view.head:
            self._check_heads[job.id] = self.view.head
        self.publish({"checking"})
        return job

    # -- jobs --------------------------------------------------------------------------------
    def _drop_finished(self, keep: str | None) -> None:
        self.job_list = {k: j for k, j in self.job_list.items() if j.state in _ACTIVE or k == keep}

    def _job_event(self, job: Job) -> None:
        new = job.id not in self.job_list
        self.job_list[job.id] = replace(job)
        finished = job.state not in _ACTIVE
        if new and job.kind != "check" and changes_project(job.kind) and self.checking:
            # the head is about to move: the running check would describe an old version (and
            # hold the page the new job needs) — the new head is checked once it is read
            self.jobs.cancel(self._check_job or "")
        if job.kind == "check" and finished:
            head = self._check_heads.pop(job.id, None)
            if job.state != "done" and head:
                self._checked.discard(head)  # not checked after all: again when it is shown
        topics = {"jobs"} | ({"checking"} if job.id == self._check_job else set())
        self.publish(topics, job=job)
        if not finished or job.state != "done":
            return
        if job.kind == "evaluate" and self.site_only is not None:
            if job.result is not None and not getattr(job.result, "failed", None):
                self.set_site_report(job.result)
            return
        if changes_project(job.kind) and self.project is not None:
            self.reload_soon(job)

    def reload_soon(self, job: Job | None = None) -> asyncio.Task | None:
        """:meth:`reload` as a task on the running loop (None without one); an older read still
        running is cancelled (the latest wins). ``job``: the operation that finished."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        if self._reading is not None and not self._reading.done():
            self._reading.cancel()  # the latest read wins
        task = loop.create_task(self.reload(finished=job))
        task.add_done_callback(_log_failure)
        self._reading = task
        return task


def _log_failure(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("reading the project failed: %s", task.exception())
