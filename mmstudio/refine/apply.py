"""Applying a refiner's Change to a project: guardrails, a trial render, a verdict, then the
project's edit transaction commits it — or the attempt is recorded as reverted / rejected.

Flow of one attempt (:meth:`SiteEditor.attempt`): guardrails on the change's files → a draft of
the project (:meth:`~mmstudio.project.workspace.Workspace.edit`: a hard-linked copy of ``site/``
in a ``.staging-trial-*`` folder, removed however the attempt ends) → the change applied to the
draft (guardrails on the page) → ``draft.verify(evaluator)`` → :func:`~mmstudio.refine.verdict.
judge` → ``draft.commit`` (version + accepted attempt row in one step) or a recorded revert.

Invariants:
- The live site is never written here: only the draft is, and only the transaction installs it.
  A cancelled or failed attempt leaves the project as it was (no file, version or row).
- Committing re-applies the change's page edit to the *latest* ``index.html`` when another
  change was installed since the draft opened (``rebase``), so element-scoped patches from
  concurrent jobs compose and none is lost; a patch that no longer applies is ``rejected``.
- File work (preparing the draft, committing, recording an attempt) runs in worker threads to
  its end (:func:`~mmstudio.threads.run_to_end`); the page guardrails (parsing both pages) run
  in a worker process in the app (:func:`~mmstudio.threads.run_pure`); no lock is held while
  rendering.
- Every attempt ends in an :class:`~mmstudio.refine.model.Outcome` and a row in the project's
  ``attempts`` table: accepted (with its version), reverted (scored worse or gained nothing),
  rejected (failed a guardrail) or skipped (the change does nothing).
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from mmstudio.evaluate import evaluate
from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.project.versions import Attempt
from mmstudio.project.workspace import Draft, RebaseError, Workspace
from mmstudio.report import Report
from mmstudio.threads import run_pure, run_to_end

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
    """Tries and commits Changes on one project through its workspace (module docstring)."""

    def __init__(self, project: Project, evaluator: Evaluator | None = None) -> None:
        self.project = project
        self.workspace = Workspace.of(project)
        self.evaluator = evaluator or render_and_score

    @property
    def page_path(self) -> Path:
        return self.project.site_dir / "index.html"

    def read_plan(self) -> DesignPlan | None:
        return self.project.read_plan() if self.project.plan_path.exists() else None

    async def attempt(self, change: Change, baseline: Report, *, job: str | None = None) -> Outcome:
        """Try ``change`` against ``baseline`` (the report its issues come from); commit it when
        it does not score worse and fixes something. Never raises for a bad change: the outcome
        says what happened. A ``settled`` change is only recorded."""
        if change.settled is not None:
            return await self._record(change, *change.settled, baseline, job)
        problems = guardrails.file_problems(change.files)
        if problems:
            return await self._record(change, "rejected", problems[0], baseline, job)
        async with self.workspace.edit(job, kind="trial", what="mmstudio refine") as draft:
            html = await run_to_end(draft.read_text, "index.html")
            candidate = await run_to_end(change.page, html) if change.page else html
            # parsing both pages is the heavy part: in the app, a worker process's
            problems = await run_pure(guardrails.page_problems, html, candidate)
            problem = problems[0] if problems else None
            problem = problem or await run_to_end(self._prepare, change, draft, html, candidate)
            if problem:
                outcome = "skipped" if problem.startswith("the change does nothing") else "rejected"
                return await self._record(change, outcome, problem, baseline, job)
            return await self._verify_and_commit(change, baseline, draft, job)

    async def _verify_and_commit(
        self, change: Change, baseline: Report, draft: Draft, job: str | None
    ) -> Outcome:
        out_dir = self.project.renders_dir / "trials" / draft.folder.name
        report = await draft.verify(self.evaluator, out_dir)
        accepted, reason = judge(baseline, report, change)
        if not accepted:
            await run_to_end(shutil.rmtree, out_dir, ignore_errors=True)
            return await self._record(change, "reverted", reason, baseline, job, report)
        attempt = self._attempt(change, "accepted", reason, job)
        try:
            version = await draft.commit(
                change.summary, element=change.element, level=change.level,
                rebase=_rebase(change), attempt=attempt,
            )  # fmt: skip
        except RebaseError as exc:
            return await self._record(change, "rejected", str(exc), baseline, job, report)
        log.info("%s %s accepted: %s", change.level, change.element or "page", attempt.reason)
        return self._outcome(change, "accepted", attempt.reason, baseline, report, version.id)

    def _prepare(self, change: Change, draft: Draft, html: str, candidate: str) -> str | None:
        """Apply ``change`` to the draft (in a worker thread) whose page ``html`` it turns into
        ``candidate`` (checked by the guardrails already); returns a problem, or None."""
        problems = [
            f"the refiner writes outside the site folder through a link: {path}"
            for path in change.files
            if draft.outside(path)
        ]
        if problems:
            return problems[0]
        if candidate == html and not change.files and change.plan is None:
            return "the change does nothing to this page"
        for path, data in change.files.items():
            draft.write_bytes(path, data)
        if candidate != html:
            draft.write_text("index.html", candidate)
        if change.plan is not None:
            draft.write_plan(change.plan)
        return None

    def _attempt(self, change: Change, outcome: str, reason: str, job: str | None) -> Attempt:
        reason = f"{reason} ({change.note})" if change.note else reason
        return Attempt(
            created_at=time.time(), job=job, element=change.element, level=change.level,
            codes=change.codes, outcome=outcome, reason=reason,
        )  # fmt: skip

    async def _record(
        self,
        change: Change,
        outcome: str,
        reason: str,
        baseline: Report,
        job: str | None,
        report: Report | None = None,
    ) -> Outcome:
        """Record an attempt that made no version; its Outcome."""
        attempt = self._attempt(change, outcome, reason, job)
        await self.workspace.add_attempt(attempt)
        log.info("%s %s %s: %s", change.level, change.element or "page", outcome, attempt.reason)
        return self._outcome(change, outcome, attempt.reason, baseline, report, None)

    @staticmethod
    def _outcome(change, outcome, reason, baseline, report, version) -> Outcome:
        after = report.scores.overall if report else None
        return Outcome(
            change.level, change.element, change.codes, outcome, reason,
            baseline.scores.overall, after, version, report,
        )  # fmt: skip


def _rebase(change: Change) -> Callable[[str], str]:
    """The change's page edit replayed on the latest page (guardrails checked again)."""

    def rebase(latest: str) -> str:
        new = change.page(latest) if change.page else latest
        problems = guardrails.page_problems(latest, new)
        if problems:
            raise RebaseError(f"the patch no longer applies to the latest page: {problems[0]}")
        return new

    return rebase
