"""The refinement service the CLI and the desktop app call: refine one element or every element
at a level as jobs on the :class:`~mmstudio.studio.jobs.JobManager`, and run the reflection loop.

Invariants:
- Local and context refines are element jobs (different elements run at once; one element's jobs
  queue); a global refine is a page job, so it never overlaps an element patch.
- Every change goes through the project's edit transaction
  (:class:`~mmstudio.project.workspace.Workspace`, via :class:`~mmstudio.refine.SiteEditor`):
  accepted changes are committed as versions tagged with job, element and level; reverted and
  rejected attempts are recorded with their reason. A refiner that raises becomes a failed job
  and a ``failed`` attempt, never an unhandled exception.
- The loop keeps the best version seen: if the last round left the page worse than an earlier
  version, that version is restored at the end (a workspace checkout).
- Project writes (commits, reports, attempts, restores) go through the workspace: worker
  threads under its edit lock, each to its end, so the event loop — the GUI's in the app —
  never waits on the disk.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from mmstudio.project import Project
from mmstudio.project.errors import InputError, one_line
from mmstudio.project.versions import Attempt
from mmstudio.project.workspace import Workspace
from mmstudio.providers.settings import Settings
from mmstudio.refine import (
    ROUNDS,
    Evaluator,
    Outcome,
    RefineInput,
    Reflection,
    SiteEditor,
    Target,
    apply,
    better,
    measured_issues,
    route,
)
from mmstudio.refine.registry import Refiners, RuleRefiners, refiners_of
from mmstudio.report import Level, Report, Severity
from mmstudio.studio.jobs import Job, JobContext, JobManager

if TYPE_CHECKING:
    from mmstudio.providers.models import Models

log = logging.getLogger(__name__)

CARRIED = (
    "judge: the judge's findings are carried from the last judged evaluation and not judged "
    "again (no model here); refine or evaluate with --provider openai to judge the page anew"
)


def judged(report: Report | None) -> bool:
    """Whether ``report`` holds the model judge's findings (a judged evaluation, or findings
    carried from one)."""
    if report is None:
        return False
    return "judge" in report.timings or any(i.source == "judge" for i in report.issues)


def carry_judgement(trial: Report, judged_report: Report) -> Report:
    """The measured ``trial`` with the judge's findings of ``judged_report`` (the baseline)
    carried over, for a refine that has no judge: its judge issues stay (marked
    ``evidence["carried"]``) and each score is at most the baseline's judged one, so a change
    is kept for what the measured checks see it fix and never for the judge's findings
    vanishing from the report. A notice says so."""
    from mmstudio.providers.llm.judge import Judgement
    from mmstudio.providers.llm.merge import merge_judgement

    carried = Judgement(notices=[CARRIED])
    for dim in ("layout", "style", "aesthetics"):
        value = getattr(judged_report.scores, dim)
        if value is not None and any(
            i.source == "judge" and i.dimension == dim for i in judged_report.issues
        ):
            carried.scores[dim] = value
    judged_elements = {i.element for i in judged_report.issues if i.source == "judge"}
    for element in judged_report.elements:
        if element.id in judged_elements and element.score is not None:
            carried.element_scores[element.id] = element.score
            carried.element_kinds[element.id] = element.kind
    carried.issues = [
        i.model_copy(update={"evidence": {**i.evidence, "carried": True}})
        for i in judged_report.issues
        if i.source == "judge"
    ]
    return merge_judgement(trial, carried)


class RefineService:
    """Refinement of one open project; share one per project (it owns the project's editor)."""

    def __init__(
        self,
        project: Project,
        jobs: JobManager | None = None,
        evaluator: Evaluator | None = None,
        refiners: Refiners | None = None,
        models: Models | None = None,
    ) -> None:
        """``evaluator`` renders and measures a page (default: render + measured checks);
        ``models``, the model bundle to refine with, adds its judge to every evaluation (trials
        are judged like their baseline) and its refiners (unless ``refiners`` are given).
        Without a bundle, ``refiners`` default to the offline rules, and a report the judge made
        is refined with its findings carried, never dropped (:func:`carry_judgement`)."""
        self.project = project
        self.workspace = Workspace.of(project)
        if jobs is None:  # its own manager schedules with the project's job locks
            jobs = JobManager()
            jobs.bind(self.workspace.locks)
        self.jobs = jobs
        self.models = models
        self.judges = models is not None
        measure = evaluator or apply.render_and_score  # the one default, looked up now
        if models is not None:
            from mmstudio.providers.llm.review import judged_evaluator

            measure = judged_evaluator(models, measure)
        self._measure = measure
        self._carry: Report | None = None  # the judged baseline whose findings are carried
        self.editor = SiteEditor(project, self._evaluate)
        # the bundle's model refiners, else the offline rules unless told otherwise
        self.refiners = refiners or (refiners_of(models) if models else RuleRefiners())

    async def _evaluate(self, page: Path, plan, out: Path) -> Report:
        """The service's evaluator: ``self._measure``, then the carried judge findings when
        the baseline was judged and this service has no judge."""
        report = await self._measure(page, plan, out)
        if self._carry is not None and not report.failed:
            report = carry_judgement(report, self._carry)
        return report

    def _same_evaluator(self, report: Report) -> None:
        """Make every trial of this refine scored like ``report``: judged again (a bundle) or
        with its judge findings carried (none)."""
        self._carry = report if judged(report) and not self.judges else None

    @property
    def model(self) -> bool:
        """The refiners are a model's: the judge's and the brief's issues are routed to them."""
        return getattr(self.refiners, "name", "offline") != "offline"

    async def current_report(self, commit: bool = True) -> Report:
        """The project's report (the site is evaluated first when there is none), with the
        current state committed (``commit``), so every refinement can be undone. Committing an
        unchanged state adds no version."""
        report = self.project.read_report()
        if report is not None and self.judges and not judged(report):
            report = None  # a measured-only report: judge it first, so trials compare alike
        report = report if report is not None else await self.evaluate()
        self._same_evaluator(report)
        if commit:
            await self._commit_current()
        return report

    async def _commit_current(self) -> None:
        await self.workspace.commit_current("Before refinement")

    async def evaluate(self) -> Report:
        """Render and score the current site (``report.json`` written, not committed)."""
        plan = self.editor.read_plan()
        out = self.project.renders_dir
        report = await self.editor.evaluator(self.editor.page_path, plan, out)
        await self.workspace.write_report(report)
        return report

    def submit(self, target: Target, report: Report, instruction: str = "") -> Job:
        """Start one refiner call as a job (``refine-<level>``); its result is a list of
        Outcomes (one per Change tried; empty when no rule applies)."""

        async def run(ctx: JobContext) -> list[Outcome]:
            return await self._refine(ctx, target, report, instruction)

        element = None if target.level == "global" else target.element
        return self.jobs.submit(f"refine-{target.level}", run, element=element, level=target.level)

    async def _refine(
        self, ctx: JobContext, target: Target, report: Report, instruction: str
    ) -> list[Outcome]:
        what = target.element or "the page"
        ctx.progress(0.1, f"{target.level} refine of {what}", stage="propose")
        html = self.editor.page_path.read_text(encoding="utf-8", errors="surrogateescape")
        inp = RefineInput(
            target.level, target.element, target.issues, report,
            self.editor.read_plan(), self.project.site_dir, html, instruction,
        )  # fmt: skip
        try:
            changes = await self.refiners.propose(target, inp)
        except Exception as exc:
            await self._record_failure(ctx.job, target, exc)
            raise
        outcomes = []
        for number, change in enumerate(changes, start=1):
            if instruction:
                change.summary += f" — “{instruction[:200]}”"
                change.requested = change.requested or instruction
            ctx.progress(0.2 + 0.8 * (number - 1) / len(changes), change.summary, stage="try")
            outcome = await self.editor.attempt(change, report, job=ctx.job.id)
            if outcome.outcome == "accepted" and outcome.report is not None:
                report = outcome.report  # the next change is judged against the new page
            outcomes.append(outcome)
        return outcomes

    async def _record_failure(self, job: Job, target: Target, exc: Exception) -> None:
        reason = one_line(exc)
        attempt = Attempt(
            created_at=time.time(),
            job=job.id,
            element=target.element,
            level=target.level,
            codes=[i.code for i in target.issues],
            outcome="failed",
            reason=reason,
        )
        await self.workspace.add_attempt(attempt)

    async def run_targets(
        self,
        targets: list[Target],
        report: Report,
        instruction: str = "",
        *,
        min_severity: Severity = "minor",
        element: str | None = None,
    ) -> list[Outcome]:
        """Run ``targets`` as jobs (element jobs in parallel, the global one after them) and
        return every attempt's outcome (failed jobs are left out: their attempt is recorded).
        When element changes were accepted, the page is evaluated again and the global issues
        routed afresh (with ``min_severity`` and ``element``) before the global job starts."""
        element_jobs = [self.submit(t, report, instruction) for t in targets if t.element]
        await self._wait(element_jobs)
        page = [t for t in targets if t.element is None]
        if page and any(_accepted(j) for j in element_jobs):
            report = await self.evaluate()
            page = route(
                report, min_severity=min_severity, level="global", element=element, model=self.model
            )
        page_jobs = [self.submit(t, report, instruction) for t in page]
        await self._wait(page_jobs)
        return [o for j in element_jobs + page_jobs if j.state == "done" for o in j.result]

    async def _wait(self, jobs: list[Job]) -> None:
        """Wait for ``jobs``. When the caller is cancelled meanwhile (a cancelled reflection or
        generation), cancel them too and wait until they have stopped — a write under way runs
        to its end — so nothing keeps changing the project after its caller has gone."""
        try:
            for job in jobs:
                await self.jobs.wait(job.id)
        except asyncio.CancelledError:
            for job in jobs:
                self.jobs.cancel(job.id)
            waits = [asyncio.ensure_future(self.jobs.wait(j.id)) for j in jobs]
            if waits:
                await asyncio.wait(waits)
            raise

    async def refine(
        self,
        level: Level,
        element: str | None = None,
        instruction: str = "",
        min_severity: Severity = "minor",
    ) -> list[Outcome]:
        """Refine ``element`` (or every element with issues at ``level``) once; returns the
        attempts' outcomes. Raises InputError (a ValueError) for an unknown element."""
        report = await self.current_report(commit=False)
        known = {e.id for e in report.elements} | {i.element for i in report.issues}
        if element is not None and element not in known:
            raise InputError(f"no element {element!r} in the report of {self.project.root}")
        targets = route(
            report, min_severity=min_severity, level=level, element=element, model=self.model
        )
        if not targets and instruction.strip():
            targets = self._asked(level, element, report)
        if not targets:
            return []  # nothing to do: no version, nothing written
        await self._commit_current()
        outcomes = await self.run_targets(
            targets, report, instruction, min_severity=min_severity, element=element
        )
        await self._settle(outcomes, f"Re-evaluated after {level} refinement")
        return outcomes

    def _asked(self, level: Level, element: str | None, report: Report) -> list[Target]:
        """The refiner call an instruction alone asks for (no reported issue at ``level``):
        the page (global), or ``element`` at ``level``. Raises InputError (one line) when the
        refiners cannot read words (the offline rules) or a local/context instruction names no
        element."""
        if not self.model:
            raise InputError(
                "the offline refiners fix reported issues and read no instructions: refine "
                "with --provider openai, or say it as a turn (mmstudio feedback PROJECT --text …)"
            )
        if level == "global":
            return [Target("global", None, [])]
        if element is None:
            ids = [e.id for e in report.elements][:6]
            known = f" (e.g. {', '.join(ids)})" if ids else ""
            raise InputError(
                f"a {level} instruction is about one element: name it with --element ID{known}"
            )
        return [Target(level, element, [])]

    async def _settle(self, outcomes: list[Outcome], summary: str) -> Report:
        """The report of the site as it now is. Each accepted change wrote the report of its own
        trial; when several element changes were installed side by side, no trial saw them all,
        so the page is evaluated again and that report committed. A global change runs alone
        on the latest page, so its trial report is exact."""
        accepted = [o for o in outcomes if o.outcome == "accepted"]
        if len(accepted) <= 1 or accepted[-1].level == "global":
            return self.project.read_report() or await self.evaluate()
        report = await self.evaluate()
        await self.workspace.commit_current(summary, level="round")
        return report

    async def reflect(self, rounds: int = ROUNDS, min_severity: Severity = "minor") -> Reflection:
        """The reflection loop (see :mod:`mmstudio.refine.loop`); returns what it did."""
        report = await self.current_report()
        result = Reflection(report.scores.overall, measured_issues(report))
        best, best_version = report, self.project.manifest.head
        for number in range(1, max(0, rounds) + 1):
            targets = route(report, min_severity=min_severity, model=self.model)
            if not targets:
                result.stopped = "no issue above the threshold"
                break
            outcomes = await self.run_targets(targets, report, min_severity=min_severity)
            result.outcomes += outcomes
            result.rounds = number
            if not any(o.outcome == "accepted" for o in outcomes):
                result.stopped = "a round gained nothing"
                break
            report = await self._settle(outcomes, f"Reflection round {number}")
            result.history.append(_round_entry(number, report))
            if not better(report, best):
                result.stopped = "a round gained nothing"
                break
            best, best_version = report, self.project.manifest.head
        else:
            result.stopped = result.stopped or f"{rounds} rounds"
        return await self._finish(result, best, best_version)

    async def _finish(
        self, result: Reflection, best: Report, best_version: str | None
    ) -> Reflection:
        if best_version and best_version != self.project.manifest.head:
            current = self.project.read_report()
            if better(best, current):
                await self.workspace.restore(best_version)
        final = self.project.read_report() or best
        result.after, result.issues_after = final.scores.overall, measured_issues(final)
        result.kept = self.project.manifest.head
        return result


def _accepted(job: Job) -> bool:
    return job.state == "done" and any(o.outcome == "accepted" for o in job.result)


def _round_entry(number: int, report: Report) -> dict:
    return {"round": number, "overall": report.scores.overall, "issues": measured_issues(report)}


async def refine_project(
    root: Path,
    level: Level,
    element: str | None = None,
    instruction: str = "",
    *,
    provider: str = "offline",
    settings: Settings | None = None,
    models: Models | None = None,
) -> list[Outcome]:
    """Open the project at ``root`` and refine it once (the ``mmstudio refine`` command) with
    ``models`` (a bundle: model refiners, trials judged like their baseline), else with the
    bundle of ``provider`` (none offline: the rules; ``openai`` over ``settings``), opened and
    closed here."""
    if models is None:
        from mmstudio.studio.bundle import using_models

        async with using_models(provider, settings) as owned:
            return await RefineService(Project.open(root), models=owned).refine(
                level, element, instruction
            )
    return await RefineService(Project.open(root), models=models).refine(
        level, element, instruction
    )
