"""Applying a refiner's Change to a project: guardrails, a trial render, a verdict, then install
and commit — or a recorded revert.

Invariants:
- One :class:`SiteEditor` per open project; its lock guards every write to ``site/``,
  ``plan.json``, ``report.json`` and every commit. The lock is never held while rendering.
- A change is tried on a *trial site* (a hard-linked copy of ``site/`` in a ``.staging-trial-*``
  folder inside the project, which opening the project removes after a crash); the real site is
  untouched until the verdict is in.
- Installing re-applies the change's page edit to the *latest* ``index.html`` under the lock, so
  element-scoped patches from concurrent jobs compose and none is lost; files are written
  atomically and the version is committed before the lock is released.
- Cancelling an attempt leaves no partial file: the trial folder is removed, and a write
  already under way (trial or install) runs to its end before the cancellation goes on.
- Every attempt ends in an :class:`~mmstudio.refine.model.Outcome` and a row in the project's
  ``attempts`` table: accepted (with its version), reverted (scored worse or gained nothing),
  rejected (failed a guardrail) or skipped (the change does nothing).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from mmstudio.evaluate import evaluate
from mmstudio.plan import DesignPlan
from mmstudio.project import Project, atomic
from mmstudio.project.versions import Attempt
from mmstudio.report import Report

from . import guardrails
from .model import Change, Outcome
from .verdict import judge

log = logging.getLogger(__name__)

#: ``await evaluator(page_html_path, plan, out_dir) -> Report``
Evaluator = Callable[[Path, DesignPlan | None, Path], Awaitable[Report]]


async def render_and_score(page: Path, plan: DesignPlan | None, out_dir: Path) -> Report:
    """The default evaluator: render in the shared browser and run the measured checks."""
    return await evaluate(page, plan=plan, out_dir=out_dir)


class SiteEditor:
    """Tries and installs Changes on one project (see the module docstring)."""

    def __init__(self, project: Project, evaluator: Evaluator | None = None) -> None:
        self.project = project
        self.evaluator = evaluator or render_and_score
        self.lock = asyncio.Lock()
        self._ids = itertools.count(1)

    @property
    def page_path(self) -> Path:
        return self.project.site_dir / "index.html"

    def read_plan(self) -> DesignPlan | None:
        return self.project.read_plan() if self.project.plan_path.exists() else None

    async def attempt(self, change: Change, baseline: Report, *, job: str | None = None) -> Outcome:
        """Try ``change`` against ``baseline`` (the report its issues come from); install and
        commit it when it does not score worse and fixes something. Never raises for a bad
        change: the outcome says what happened. A ``settled`` change is only recorded."""
        if change.settled is not None:
            return self._record(change, *change.settled, baseline, job)
        problems = guardrails.file_problems(list(change.files))
        if problems:
            return self._record(change, "rejected", problems[0], baseline, job)
        trial = None
        try:
            async with self.lock:
                trial, problem = await _complete(self._prepare_trial, change)
            if problem:
                outcome = "skipped" if problem.startswith("the change does nothing") else "rejected"
                return self._record(change, outcome, problem, baseline, job)
            return await self._verify_and_install(change, baseline, trial, job)
        finally:
            if trial is not None:
                shutil.rmtree(trial, ignore_errors=True)

    async def _verify_and_install(
        self, change: Change, baseline: Report, trial: Path, job: str | None
    ) -> Outcome:
        out_dir = self.project.renders_dir / "trials" / trial.name
        plan = change.plan or self.read_plan()
        report = await self.evaluator(trial / "site" / "index.html", plan, out_dir)
        accepted, reason = judge(baseline, report, change)
        if not accepted:
            shutil.rmtree(out_dir, ignore_errors=True)
            return self._record(change, "reverted", reason, baseline, job, report)
        async with self.lock:
            version, problem = await _complete(self._install, change, report, job)
        if problem:
            return self._record(change, "rejected", problem, baseline, job, report)
        return self._record(change, "accepted", reason, baseline, job, report, version)

    def _prepare_trial(self, change: Change) -> tuple[Path, str | None]:
        """A trial copy of the site with ``change`` applied (under the lock), and a problem."""
        trial = self.project.root / f".staging-trial-{os.getpid()}-{next(self._ids)}"
        html = self.page_path.read_text(encoding="utf-8", errors="surrogateescape")
        candidate = change.page(html) if change.page else html
        problems = guardrails.page_problems(html, candidate)
        if problems:
            return trial, problems[0]
        if candidate == html and not change.files and change.plan is None:
            return trial, "the change does nothing to this page"
        _link_tree(self.project.site_dir, trial / "site")
        for path, data in change.files.items():
            atomic.write_bytes(trial / "site" / path, data)
        if candidate != html:
            atomic.write_text(trial / "site" / "index.html", candidate)
        return trial, None

    def _install(self, change: Change, report: Report, job: str | None):
        """Write ``change`` into the real site (latest page) and commit; (version id, problem)."""
        html = self.page_path.read_text(encoding="utf-8", errors="surrogateescape")
        new = change.page(html) if change.page else html
        problems = guardrails.page_problems(html, new)
        if problems:
            return None, f"the patch no longer applies to the latest page: {problems[0]}"
        site = self.project.site_dir.resolve()
        for path in change.files:
            if not (self.project.site_dir / path).parent.resolve().is_relative_to(site):
                return None, f"the refiner writes outside the site folder through a link: {path}"
        for path, data in change.files.items():
            atomic.write_bytes(self.project.site_dir / path, data)
        if new != html:
            atomic.write_text(self.page_path, new)
        if change.plan is not None:
            self.project.write_plan(change.plan)
        report.target = str(self.page_path)
        self.project.write_report(report)
        version = self.project.commit(
            change.summary, job=job, element=change.element, level=change.level
        )
        return version.id, None

    def _record(
        self,
        change: Change,
        outcome: str,
        reason: str,
        baseline: Report,
        job: str | None,
        report: Report | None = None,
        version: str | None = None,
    ) -> Outcome:
        reason = f"{reason} ({change.note})" if change.note else reason
        attempt = Attempt(
            created_at=time.time(),
            job=job,
            element=change.element,
            level=change.level,
            codes=change.codes,
            outcome=outcome,
            reason=reason,
            version=version,
        )
        self.project.history.add_attempt(attempt)
        log.info("%s %s %s: %s", change.level, change.element or "page", outcome, reason)
        after = report.scores.overall if report else None
        return Outcome(
            change.level, change.element, change.codes, outcome, reason,
            baseline.scores.overall, after, version, report,
        )  # fmt: skip


async def _complete(func, *args):
    """Run ``func(*args)`` in a worker thread to the end, even when the caller is cancelled
    meanwhile (the cancellation is re-raised afterwards): a lock holder never lets go while its
    thread is still writing."""
    task = asyncio.ensure_future(asyncio.to_thread(func, *args))
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()


def _link_tree(source: Path, target: Path) -> None:
    """Copy the folder ``source`` to ``target`` with hard links (plain copies where the file
    system refuses links). Files are only ever replaced by rename, so sharing inodes is safe."""

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, copy_function=link)
