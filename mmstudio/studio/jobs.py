"""The job manager: the one place that runs work for the CLI and the desktop app.

Invariants:
- Every job runs as one asyncio task; its outcome is always recorded as a state (done, failed,
  cancelled) — an exception inside a job never escapes the manager.
- Element jobs hold the page *shared* plus their element's lock, so jobs on different elements run
  at once while two jobs on one element queue; a page job (``element=None``) holds the page
  *exclusively* and waits for running element jobs to finish (and blocks new ones) — the global
  refiner never races a context patch. These locks are the project's
  (:class:`~mmstudio.project.workspace.JobLocks`, owned by its Workspace) once the manager is
  bound to a project (:meth:`JobManager.bind`): every manager bound to the same project — the
  app's session, a service's own — schedules against the same locks. Unbound, a manager uses
  its own.
- The latest request for the same ``slot`` wins: submitting a job with a slot cancels the older
  queued or running job of that slot (a newer evaluation replaces a stale one).
- Only cancellations the manager asked for become ``cancelled``; cancelling a job never cancels
  another one. A cancelled job keeps the stage it was in (``stage``; ``message`` says
  "cancelled during <stage>"), so the designer sees where it stopped.
- Listeners get a copy of the job's public state after each change (queued, started, progress,
  finished), on the event loop's thread.
- A manager bound to a project records each job in the project's ``jobs`` table
  (:class:`~mmstudio.project.runs.Runs`): a row when it starts, its status, end time and error
  when it ends (also when it is cancelled). Recording is bookkeeping: a database that cannot be
  written is logged, never a failed job.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from mmstudio.project.errors import UserError, one_line
from mmstudio.project.runs import Runs
from mmstudio.project.workspace import JobLocks, ProjectLocks

log = logging.getLogger(__name__)

JobState = Literal["queued", "running", "done", "failed", "cancelled"]


@dataclass
class Job:
    """Public state of a job: ``progress`` 0–1, ``stage`` the pipeline stage it last reported
    (plan, assets, evaluate, reflect, refine, commit …), times in s since the epoch, ``error``
    one line (:func:`~mmstudio.project.errors.one_line`), ``bug`` whether the failure was not
    a :class:`~mmstudio.project.errors.UserError`."""

    id: str
    kind: str
    element: str | None = None
    level: str | None = None
    state: JobState = "queued"
    progress: float = 0.0
    message: str = ""
    stage: str | None = None
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None
    error: str | None = None
    bug: bool = False  # failed by an unexpected exception (its traceback is in the log)
    result: Any = None

    @property
    def outcome(self) -> str:
        """One line for a jobs list: "running", "done", "failed: <error>", "cancelled during
        <stage>"."""
        if self.state == "failed":
            return f"failed: {self.error}"
        if self.state == "cancelled":
            if self.stage:
                return f"cancelled during {self.stage}"
            return "cancelled" if self.started_at else "cancelled before it started"
        return self.state

    @property
    def elapsed_s(self) -> float:
        if self.started_at is None:
            return 0.0
        return (self.finished_at or time.time()) - self.started_at


class JobContext:
    """Handed to a running job: report progress (0–1), a short message and the stage."""

    def __init__(self, manager: JobManager, job: Job) -> None:
        self._manager = manager
        self.job = job

    def progress(self, fraction: float, message: str = "", stage: str | None = None) -> None:
        self.job.progress = max(0.0, min(1.0, fraction))
        self.job.message = message or self.job.message
        self.job.stage = stage or self.job.stage
        self._manager._notify(self.job)


JobFunc = Callable[[JobContext], Awaitable[Any]]
Listener = Callable[[Job], None]


class JobManager:
    """Runs jobs on the current event loop; see the module docstring for the rules."""

    def __init__(self) -> None:
        self.jobs: dict[str, Job] = {}
        self._tasks: dict[str, asyncio.Task] = {}
        self._slots: dict[str, str] = {}
        self._cancel_requested: set[str] = set()
        self._own: JobLocks | None = None  # made on the loop that first runs a job
        self._bound: ProjectLocks | None = None
        self._runs: dict[Path, Runs] = {}  # per project root, opened (migrated) once
        self._listeners: list[Listener] = []
        self._ids = itertools.count(1)

    def bind(self, project_locks: ProjectLocks | None) -> None:
        """Schedule the jobs submitted from now on with the job locks of ``project_locks`` (a
        Workspace's ``locks``); None: with this manager's own."""
        self._bound = project_locks

    def _locks(self) -> JobLocks:
        if self._bound is not None:
            return self._bound.jobs()
        if self._own is None:
            self._own = JobLocks()
        return self._own

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(job)`` on every change; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def submit(
        self,
        kind: str,
        func: JobFunc,
        *,
        element: str | None = None,
        level: str | None = None,
        slot: str | None = None,
    ) -> Job:
        """Start ``func(context)`` as a job; ``element=None`` makes it a page (exclusive) job."""
        job = Job(id=f"job-{next(self._ids)}", kind=kind, element=element, level=level)
        self.jobs[job.id] = job
        if slot is not None:
            older = self._slots.get(slot)
            if older:
                self.cancel(older)
            self._slots[slot] = job.id
        locks = self._locks()
        root = self._bound.root if self._bound is not None else None
        run = self._run(job, func, locks, root)
        task = asyncio.get_running_loop().create_task(run)
        task.add_done_callback(lambda _task: self._settle_unstarted(job))
        self._tasks[job.id] = task
        self._notify(job)
        return job

    def _settle_unstarted(self, job: Job) -> None:
        """A task cancelled before its first step never runs :meth:`_run`'s body: its job
        would stay "queued" for ever. Settle it as cancelled and tell the listeners."""
        if job.state == "queued":
            job.state, job.finished_at = "cancelled", time.time()
            job.message = job.outcome
            self._notify(job)

    def cancel(self, job_id: str) -> bool:
        """Ask a queued or running job to stop; returns False if it had already finished."""
        task = self._tasks.get(job_id)
        if task is None or task.done():
            return False
        self._cancel_requested.add(job_id)
        task.cancel()
        return True

    def cancel_all(self) -> None:
        """Cancel every unfinished job (closing a project)."""
        for job_id in list(self._tasks):
            self.cancel(job_id)

    async def wait(self, job_id: str) -> Job:
        """Wait for a job to finish and return its final state."""
        task = self._tasks[job_id]
        await asyncio.wait({task})
        return self.jobs[job_id]

    async def wait_all(self) -> list[Job]:
        """Wait for every job submitted so far."""
        if self._tasks:
            await asyncio.wait(set(self._tasks.values()))
        return list(self.jobs.values())

    async def _run(self, job: Job, func: JobFunc, locks: JobLocks, root: Path | None) -> None:
        exclusive = job.element is None
        lock = locks.element(job.element or "")
        row: int | None = None
        try:
            await locks.page.acquire(exclusive)
            try:
                async with lock:
                    job.state, job.started_at = "running", time.time()
                    row = self._record_start(root, job)
                    self._notify(job)
                    job.result = await func(JobContext(self, job))
                    job.state, job.progress = "done", 1.0
            finally:
                await asyncio.shield(locks.page.release(exclusive))
        except asyncio.CancelledError:
            if job.id not in self._cancel_requested:
                raise
            job.state = "cancelled"
            job.message = job.outcome
        except UserError as exc:  # the user's situation (bad input, a locked project, a model)
            log.warning("job %s (%s) failed: %s", job.id, job.kind, one_line(exc))
            job.state, job.error = "failed", one_line(exc)
        except Exception as exc:  # a bug; still an outcome, never a crash of the app
            log.error("job %s (%s) failed (a bug): %s", job.id, job.kind, exc, exc_info=True)
            job.state, job.error, job.bug = "failed", one_line(exc), True
        finally:
            job.finished_at = time.time()
            self._record_end(root, row, job)
            self._notify(job)

    def _history(self, root: Path) -> Runs:
        runs = self._runs.get(root)
        if runs is None:
            runs = self._runs[root] = Runs(root)
        return runs

    def _record_start(self, root: Path | None, job: Job) -> int | None:
        """The ``jobs`` row of ``job`` in the project at ``root`` (None: unbound or not
        recorded). One short SQLite write on the loop's thread (milliseconds)."""
        if root is None or job.started_at is None:
            return None
        try:
            return self._history(root).job_started(
                job.id, job.kind, element=job.element, level=job.level, at=job.started_at
            )
        except (sqlite3.Error, OSError, UserError) as exc:
            self._runs.pop(root, None)  # a replaced database is migrated again next time
            log.warning("job %s not recorded in %s: %s", job.id, root, one_line(exc))
            return None

    def _record_end(self, root: Path | None, row: int | None, job: Job) -> None:
        if root is None or row is None or job.finished_at is None:
            return
        try:
            self._history(root).job_ended(row, job.state, at=job.finished_at, error=job.error)
        except (sqlite3.Error, OSError, UserError) as exc:
            log.warning("the end of job %s not recorded in %s: %s", job.id, root, one_line(exc))

    def _notify(self, job: Job) -> None:
        snapshot = replace(job)
        for listener in list(self._listeners):
            try:
                listener(snapshot)
            except Exception:  # a broken listener must not break the job
                log.exception("job listener failed")
