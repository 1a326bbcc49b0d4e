"""The feedback service the CLI and the desktop app call: one feedback turn (text + annotations)
as one job, and the ledger's view of every turn so far.

Invariants:
- A turn is a PAGE job (``element=None``) on the project's job locks (the session's JobManager,
  or this service's own bound to the project), so it never overlaps an element refine or
  another turn; inside it nothing else is submitted (a nested element job would
  wait for the page lock the turn holds).
- A turn is one edit transaction of the project's
  :class:`~mmstudio.project.workspace.Workspace` (its locks are the project's, shared by every
  service on it): a cancelled or failed turn leaves nothing behind.
- Model refiners (``refiners``, else the shared RefineService's when they are a model's) apply
  what no offline operation can (:mod:`mmstudio.feedback.refiners`); the offline rules never
  stand in for them (they answer measured issues, not a designer's words).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Required, TypedDict

from mmstudio.feedback import Annotation, FeedbackTurn, Ledger, TurnResult, load
from mmstudio.feedback.annotation import png_path
from mmstudio.feedback.ledger import rates
from mmstudio.feedback.turn import FeedbackError, check_input
from mmstudio.project import Project
from mmstudio.project.workspace import Workspace
from mmstudio.providers.settings import Settings
from mmstudio.refine.registry import Refiners, refiners_of
from mmstudio.studio.jobs import Job, JobContext, JobManager
from mmstudio.studio.turns import ForgettingEvent, forgetting_events

if TYPE_CHECKING:
    from mmstudio.providers.models import Models

log = logging.getLogger(__name__)


class LedgerRequirement(TypedDict):
    """One requirement of a turn as the ledger view shows it: ``status`` pass | fail |
    unchecked | superseded (the latest final verdict), ``detail`` its one line."""

    id: str
    text: str
    op: str
    target: str | None
    status: str
    detail: str


class LedgerTurn(TypedDict):
    """One turn of the ledger view with its requirements."""

    turn: int
    text: str
    version: str | None
    route: str
    summary: str
    requirements: list[LedgerRequirement]


class LedgerView(TypedDict, total=False):
    """:func:`ledger_view`: every turn, the forgetting events and FronTalk's rates (0–1, None
    with nothing to count); the app's state holds ``{turns: [], error}`` when the ledger cannot
    be read. A JSON document (the app's requirement list reads it by key)."""

    turns: Required[list[LedgerTurn]]
    forgetting: list[ForgettingEvent]
    pass_rate: float | None
    forgetting_rate: float | None
    error: str


class FeedbackService:
    """Feedback turns on one open project."""

    def __init__(
        self,
        project: Project,
        jobs: JobManager | None = None,
        refine=None,
        chat=None,
        refiners: Refiners | None = None,
        models: Models | None = None,
    ) -> None:
        """``models``: the model bundle a turn uses — its splitter role's model splits the turn
        and judges free requirements, its refiners apply what no offline operation can (its
        owner closes it). Or piecewise: ``refine``, a shared RefineService (its refiners apply
        turns when they are a model's); ``chat``, a ChatModel that splits turns and judges
        free requirements (None: offline rules); ``refiners``, the refiners that apply what no
        offline operation can (None: the shared RefineService's model refiners, if any)."""
        self.project = project
        if jobs is None:  # its own manager schedules with the project's job locks
            jobs = JobManager()
            jobs.bind(Workspace.of(project).locks)
        self.jobs = jobs
        self.refine = refine
        self.models = models
        self.chat = chat if chat is not None or models is None else models.provider
        if refiners is None and models is not None:
            refiners = refiners_of(models)
        self.refiners = refiners

    @property
    def model_refiners(self) -> Refiners | None:
        """The model refiners a turn applies with (None: offline operations only)."""
        found = self.refiners or getattr(self.refine, "refiners", None)
        return found if found is not None and found.name != "offline" else None

    def _turn(self, ctx: JobContext | None = None) -> FeedbackTurn:
        from mmstudio.feedback.condition_judge import condition_judge

        turn = FeedbackTurn(self.project)
        model = None
        if self.chat is not None:
            from mmstudio.feedback.provider import model_judge, model_splitter

            vision = self.models is None or self.models["judge"].can("vision")
            turn.splitter = model_splitter(self.chat)
            model = model_judge(self.chat, vision=vision)
        # what measurement cannot decide is read by the condition rules (after the model's
        # verdicts, when a model is configured): "a fixed header", "a form with name and
        # email", "three quotes" are checked on the page instead of staying unchecked
        turn.judge = condition_judge(model, turns=True)
        turn.refiners = self.model_refiners
        if ctx is not None:
            turn.progress = ctx.progress
        return turn

    def submit(
        self, text: str, annotation: Annotation | None = None, png: Path | None = None
    ) -> Job:
        """Start one turn as a ``feedback`` job; its result is a :class:`TurnResult`. Raises
        FeedbackError at once when there is nothing to do."""
        check_input(text, annotation)

        async def run(ctx: JobContext) -> TurnResult:
            return await self._turn(ctx).run(text, annotation, png, job=ctx.job)

        return self.jobs.submit("feedback", run)

    async def run(
        self, text: str, annotation: Annotation | None = None, png: Path | None = None
    ) -> TurnResult:
        """Run one turn and wait for it; a failed or cancelled job raises FeedbackError."""
        job = await self.jobs.wait(self.submit(text, annotation, png).id)
        if job.state != "done":
            raise FeedbackError(job.error or f"the feedback turn was {job.state}")
        return job.result

    def turns(self) -> LedgerView:
        """Every turn with its requirements, their latest verdicts and the forgetting events."""
        return ledger_view(Ledger(self.project.root / "history.sqlite"))


def ledger_view(ledger: Ledger) -> LedgerView:
    """A JSON-ready view of the ledger (``mmstudio turns``, the app's requirement list)."""
    verdicts = ledger.latest_verdicts()
    reqs = ledger.requirements()
    turns: list[LedgerTurn] = []
    for record in ledger.turns():
        rows = [_row(r, verdicts.get(r.id)) for r in reqs if r.turn == record.turn]
        turns.append(
            {
                "turn": record.turn,
                "text": record.text,
                "version": record.version,
                "route": record.route,
                "summary": record.summary,
                "requirements": rows,
            }
        )
    found = rates(ledger)
    return {
        "turns": turns,
        "forgetting": forgetting_events(ledger),
        "pass_rate": found["pass_rate"],
        "forgetting_rate": found["forgetting_rate"],
    }


def _row(req, verdict) -> LedgerRequirement:
    status = "superseded" if req.superseded_by else _status(verdict)
    detail = verdict.detail if verdict else ""
    return {"id": req.id, "text": req.text, "op": req.op, "target": req.target,
            "status": status, "detail": detail}  # fmt: skip


def _status(verdict) -> str:
    if verdict is None or verdict.passed is None:
        return "unchecked"
    return "pass" if verdict.passed else "fail"


async def feedback_project(
    root: Path,
    text: str,
    annotations: Path | None = None,
    *,
    provider: str = "offline",
    settings: Settings | None = None,
    models: Models | None = None,
) -> TurnResult:
    """Open the project at ``root`` and run one turn (the ``mmstudio feedback`` command) with
    ``models`` (a bundle: the model splits, applies and judges), else with ``provider``:
    offline (rules) or openai (``settings`` default to the config file and environment).
    Raises ValueError for a bad annotation file or provider, ProjectError for a bad project."""
    project = Project.open(root)
    annotation = load(annotations) if annotations else None
    png = png_path(annotation, annotations) if annotation and annotations else None
    if models is None:
        from mmstudio.studio.bundle import using_models

        async with using_models(provider, settings) as owned:  # ValueError: unknown provider
            return await FeedbackService(project, models=owned).run(text, annotation, png)
    return await FeedbackService(project, models=models).run(text, annotation, png)
