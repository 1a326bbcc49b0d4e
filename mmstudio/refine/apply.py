"""Applying a refiner's Change to a project: guardrails, a trial render, a verdict, then install
and commit — or a recorded revert.

Invariants:
- One :class:`SiteEditor` per open project; its lock guards every write to ``site/``,
  ``plan.json``, ``report.json`` and every commit. The lock is never held while rendering.
- A change is tried on a *trial site* (a hard-linked copy of ``site/`` in a ``.staging-trial-*``
  folder inside the project, which opening the project removes after a crash); the real site is
  untouched until the verdict is in. The trial folder is named before it is made and removed
  however the attempt ends (a full disk or a cancellation while it is being prepared included).
- Installing re-applies the change's page edit to the *latest* ``index.html`` under the lock, so
  element-scoped patches from concurrent jobs compose and none is lost. The new site, plan and
  report are built in a staging folder and installed and committed as ONE step
  (:meth:`~mmstudio.project.Project.commit_staged`): a crash or a full disk leaves the old
  version or the new one, never a site that no version records.
- File work (preparing a trial, installing, recording an attempt) runs in a worker thread, off
  the event loop (:func:`~mmstudio.threads.run_to_end`); cancelling an attempt lets a write
  already under way run to its end before the cancellation goes on, so no file is left half
  written and the lock is never let go while a thread still writes.
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
from mmstudio.project.errors import saving
from mmstudio.project.versions import Attempt
from mmstudio.report import Report
from mmstudio.threads import run_to_end

from . import guardrails
from .model import Change, Outcome
from .verdict import judge

log = logging.getLogger(__name__)

#: numbers of this process's trial folders (one counter for every editor: names never collide)
_trial_ids = itertools.count(1)

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
            return await self._record(change, *change.settled, baseline, job)
        problems = guardrails.file_problems(list(change.files))
        if problems:
            return await self._record(change, "rejected", problems[0], baseline, job)
        trial = self.project.root / f".staging-trial-{os.getpid()}-{next(_trial_ids)}"
        try:
            async with self.lock:
                problem = await run_to_end(self._prepare_trial, change, trial)
            if problem:
                outcome = "skipped" if problem.startswith("the change does nothing") else "rejected"
                return await self._record(change, outcome, problem, baseline, job)
            return await self._verify_and_install(change, baseline, trial, job)
        finally:
            await run_to_end(shutil.rmtree, trial, ignore_errors=True)

    async def _verify_and_install(
        self, change: Change, baseline: Report, trial: Path, job: str | None
    ) -> Outcome:
        out_dir = self.project.renders_dir / "trials" / trial.name
        plan = change.plan or self.read_plan()
        report = await self.evaluator(trial / "site" / "index.html", plan, out_dir)
        accepted, reason = judge(baseline, report, change)
        if not accepted:
            await run_to_end(shutil.rmtree, out_dir, ignore_errors=True)
            return await self._record(change, "reverted", reason, baseline, job, report)
        async with self.lock:
            version, problem = await run_to_end(self._install, change, report, job)
        if problem:
            return await self._record(change, "rejected", problem, baseline, job, report)
        return await self._record(change, "accepted", reason, baseline, job, report, version)

    def _prepare_trial(self, change: Change, trial: Path) -> str | None:
        """Fill ``trial`` with a copy of the site with ``change`` applied (under the lock, in a
        worker thread); returns a problem, or None."""
        html = self.page_path.read_text(encoding="utf-8", errors="surrogateescape")
        candidate = change.page(html) if change.page else html
        problems = guardrails.page_problems(html, candidate) or self._link_problems(change)
        if problems:
            return problems[0]
        if candidate == html and not change.files and change.plan is None:
            return "the change does nothing to this page"
        _write_site(self.project.site_dir, trial / "site", change.files, candidate, html)
        return None

    def _link_problems(self, change: Change) -> list[str]:
        """A problem per file of ``change`` that a symbolic link in the site would send outside
        the site folder (copies keep such links, so the write would go through them)."""
        site = self.project.site_dir.resolve()
        return [
            f"the refiner writes outside the site folder through a link: {path}"
            for path in change.files
            if not (self.project.site_dir / path).parent.resolve().is_relative_to(site)
        ]

    def _install(self, change: Change, report: Report, job: str | None):
        """Apply ``change`` to the latest page, build the new site (with the plan, if changed,
        and ``report``) in a staging folder and install and commit it as one step (under the
        lock, in a worker thread); returns (version id, problem)."""
        html = self.page_path.read_text(encoding="utf-8", errors="surrogateescape")
        new = change.page(html) if change.page else html
        problems = guardrails.page_problems(html, new)
        if problems:
            return None, f"the patch no longer applies to the latest page: {problems[0]}"
        problems = self._link_problems(change)
        if problems:
            return None, problems[0]
        report.target = str(self.page_path)
        with saving("the version"):
            staging = self.project.staging_dir()
        try:
            with saving("the version"):
                _write_site(self.project.site_dir, staging / "site", change.files, new, html)
                if change.plan is not None:
                    atomic.write_text(staging / "plan.json", _json(change.plan))
                atomic.write_text(staging / "report.json", _json(report))
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        version = self.project.commit_staged(
            staging, change.summary, job=job, element=change.element, level=change.level
        )
        return version.id, None

    async def _record(
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
        await run_to_end(self.project.history.add_attempt, attempt)
        log.info("%s %s %s: %s", change.level, change.element or "page", outcome, reason)
        after = report.scores.overall if report else None
        return Outcome(
            change.level, change.element, change.codes, outcome, reason,
            baseline.scores.overall, after, version, report,
        )  # fmt: skip


def _write_site(site: Path, target: Path, files: dict[str, bytes], page: str, current: str) -> None:
    """``target``: a hard-linked copy of ``site`` with ``files`` (site-relative path → bytes)
    written in and ``index.html`` replaced by ``page`` where it differs from ``current``."""
    atomic.link_tree(site, target)
    for path, data in files.items():
        atomic.write_bytes(target / path, data)
    if page != current:
        atomic.write_text(target / "index.html", page)


def _json(model: DesignPlan | Report) -> str:
    """``plan.json`` / ``report.json`` text, as the project writes them."""
    return model.model_dump_json(indent=2) + "\n"
