"""One feedback turn, end to end: annotations → targets → requirements → ledger → apply → the
critic over ALL turns so far → one repair pass → a committed version (AceCoder; FronTalk).

Invariants:
- A turn is ONE edit transaction of the project (:meth:`~mmstudio.project.workspace.Workspace.
  edit`): it opens a draft (a hard-linked copy of ``site/`` in ``.staging-turn-*``) before it
  reads the page, every candidate is rendered in a throwaway copy of that draft
  (``.staging-feedback-*``), the final candidate is written into the draft, scored there
  (``draft.verify``) and committed with the turn's ledger rows in one step. The live ``site/``
  is never written here, so a turn that is cancelled or fails at any stage — before its trial,
  while the critic or the scoring runs, or before its commit's decision point — leaves no
  file, version or ledger row behind, and nothing of it can surface in a later version.
- No lock is held while rendering; the transaction's edit lock is held only while the draft is
  opened and while it is committed.
- Every turn that completes ends in exactly one version (possibly equal to the previous one when
  nothing applied) and one ``feedback_turns`` row naming it; verdicts of the trial and of the
  final page are both recorded (at the commit), so a forgetting event (passed before, fails
  now) stays visible even when the repair restored it.
- A turn works on a :class:`~mmstudio.feedback.assets.Draft` (page, new asset files, plan); the
  trial copy gets the draft's files, and the commit writes them into the transaction's draft.
  The trial copy of a candidate lives until the critic has returned, so a behaviour check can
  drive the rendered page (:mod:`mmstudio.feedback.functional`).
- Applying: the offline operations first; with model ``refiners`` the requirements no offline
  operation applies go to the local / context / global refiners
  (:mod:`mmstudio.feedback.refiners`), and the repair pass sends the failures the offline
  operations cannot repair to them with the critic's finding. Without ``refiners`` a turn is
  exactly the offline turn. A model that fails leaves its requirements not applied (listed in
  ``not_applied``); the critic still checks them, and the turn still commits.
- File work (trial copies, the commit, the ledger rows) runs in worker threads, each to its end
  (:func:`~mmstudio.threads.run_to_end`), so the event loop — the GUI's in the app — never
  waits on the disk and a cancelled turn leaves no half-written file.
- A requirement that still fails after the one repair pass does NOT stop the commit (nothing the
  designer asked for is lost, and the next turn's critic checks it again): the result lists it
  in ``failing`` and its ``status`` is "failing" (``mmstudio feedback`` exits 3). A clause the
  offline rules did not understand is kept as an unchecked free requirement and listed in
  ``not_understood`` — never dropped silently.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import shutil
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from mmstudio.project import Project, atomic
from mmstudio.project.errors import InputError, first_line
from mmstudio.project.workspace import Draft as Edit
from mmstudio.project.workspace import Workspace
from mmstudio.providers.base import DesignerError
from mmstudio.refine import guardrails
from mmstudio.refine.registry import Refiners
from mmstudio.render.model import Render
from mmstudio.threads import run_to_end

from . import assets, operations
from . import refiners as model_apply
from .annotation import Annotation
from .assets import REMOVED, Draft
from .compose import compose, mark_line
from .critic import Judge, Measured, baseline, critique
from .elements import PageElement
from .ledger import Ledger, TurnRecord, Verdict, annotation_json
from .refiners import Scene
from .requirements import Requirement, number, split_offline, supersede
from .resolve import Mark, resolve
from .result import TurnResult

log = logging.getLogger(__name__)

#: ``await splitter(text, marks, elements, words) -> requirements`` (offline: rule-based)
Splitter = Callable[[str, list[Mark], list[PageElement], str], Awaitable[list[Requirement]]]
#: ``await render(site_dir, width, out_dir) -> Render``
RenderFn = Callable[[Path, int, Path], Awaitable[object]]
Progress = Callable[[float, str], None]


async def offline_splitter(text, marks, elements, words) -> list[Requirement]:
    return split_offline(text, marks, elements)


async def default_render(site_dir: Path, width: int, out_dir: Path) -> Render:
    """Render in the shared browser without the accessibility pass (the critic does not use it)."""
    from mmstudio.render import get_renderer

    return await get_renderer().render(site_dir, "index.html", width, out_dir, accessibility=False)


class FeedbackError(InputError):
    """A turn could not run (bad input, a page that does not render); one line for the user
    (a UserError, and a ValueError as before)."""


def check_input(text: str, annotation: Annotation | None) -> None:
    """Raise FeedbackError when there is nothing to do (no text, no shapes)."""
    if not text.strip() and not (annotation and annotation.shapes):
        raise FeedbackError("a feedback turn needs an instruction or annotations")


@dataclass
class FeedbackTurn:
    """Runs turns on one project (see the module docstring)."""

    project: Project
    splitter: Splitter = offline_splitter
    judge: Judge | None = None
    render: RenderFn = default_render
    progress: Progress = lambda fraction, message: None
    rescore: bool = True  # evaluate the final page so the version carries fresh scores
    refiners: Refiners | None = None  # model refiners (None: only the offline operations)
    _base: Path | None = field(default=None, init=False, repr=False)  # the open edit's site

    @property
    def ledger(self) -> Ledger:
        return Ledger(self.project.root / "history.sqlite")

    async def run(
        self, text: str, annotation: Annotation | None = None, png: Path | None = None, job=None
    ) -> TurnResult:
        """Run one turn as one edit transaction (module docstring). Raises ValueError when there
        is nothing to do (no text, no marks), FeedbackError when the page does not render or the
        final page cannot be scored, ProjectError when another process is changing the project
        (or it changed under the turn) — in every such case nothing was saved."""
        check_input(text, annotation)
        workspace = Workspace.of(self.project)
        job_id = getattr(job, "id", None)
        async with workspace.edit(job_id, kind="turn", what="mmstudio feedback") as edit:
            self._base = edit.site
            try:
                return await self._run(edit, text, annotation, png)
            finally:
                self._base = None

    async def _run(
        self, edit: Edit, text: str, annotation: Annotation | None, png: Path | None
    ) -> TurnResult:
        started, ledger = time.perf_counter(), self.ledger
        number_ = ledger.next_turn()
        width = annotation.device_width if annotation else 1280
        page = edit.read_text("index.html")
        plan = edit.plan.model_copy(deep=True) if edit.plan is not None else None
        self.progress(0.05, "rendering the current page")
        before = Measured.of(await self._page_render(page, width, f"t{number_}-before"))
        marks = resolve(annotation, before.elements) if annotation else []
        words = compose(text, marks, before.elements, width)
        split, notes = await self._split(text, marks, before.elements, words)
        reqs = [baseline(r, before) for r in number(split, number_)]
        earlier = ledger.requirements()
        retired = supersede(earlier, reqs)
        result = TurnResult(
            number_, words, [mark_line(m, before.elements) for m in marks], reqs, [], notes=notes
        )
        result.route = "targeted" if marks or any(r.target for r in reqs) else "global"
        draft = Draft(page, plan, edit.site)
        scene = Scene.of(before.render, before.elements, marks, plan)
        candidate = await self._apply(draft, reqs, f"fb-t{number_}", result, scene)
        self.progress(0.4, "checking every requirement so far")
        ledger_all = [*earlier, *reqs]
        checked, verdicts = await self._critique(candidate, ledger_all, width, f"t{number_}-trial")
        trial_verdicts = verdicts
        forgotten = self._forgotten(verdicts, earlier, ledger.ever_passed())
        failing = [v for v in verdicts if v.passed is False]
        if failing:
            self.progress(0.6, f"repairing {len(failing)} failed requirement(s)")
            candidate = await self._repair(candidate, ledger_all, failing, result, scene)
            checked, verdicts = await self._critique(
                candidate, ledger_all, width, f"t{number_}-repair"
            )
        result.verdicts = verdicts
        final = {v.requirement: v for v in verdicts}
        result.not_understood = [
            f"{r.id}: {r.text}"
            for r in reqs
            if not r.structural and getattr(final.get(r.id), "passed", None) is None
        ]
        forgetting = []
        for req_id, detail in forgotten:
            repaired = final.get(req_id) is not None and final[req_id].passed is True
            forgetting.append((req_id, number_, detail, repaired))
            result.forgetting.append(
                {"requirement": req_id, "detail": detail, "repaired": repaired}
            )

        def record(version) -> None:
            """The turn's ledger rows, written with its version (in the commit's thread)."""
            result.version = version.id
            ledger.add_verdicts(trial_verdicts, number_, None, "trial")
            for row in forgetting:
                ledger.add_forgetting(*row)
            self._remember(candidate.page, width, checked.render)
            ledger.add_verdicts(verdicts, number_, result.version, "final")
            ledger.retire(retired)
            ledger.add_turn(self._record(result, text, annotation, png, earlier), reqs)

        self.progress(0.85, "committing the version")
        await self._commit(edit, candidate, text, reqs, record)
        result.timings["total_s"] = round(time.perf_counter() - started, 2)
        return result

    async def _split(self, text, marks, elements, words) -> tuple[list[Requirement], list[str]]:
        """The turn's requirements; a model split that fails falls back to the offline rules
        (with a note saying so) rather than losing the turn."""
        try:
            return await self.splitter(text, marks, elements, words), []
        except (DesignerError, ValueError) as exc:
            if self.splitter is offline_splitter:
                raise
            note = f"the model's split failed ({first_line(exc)}); the offline rules split it"
            log.warning("%s", note)
            return split_offline(text, marks, elements), [note]

    async def _apply(
        self, draft: Draft, reqs: list[Requirement], key: str, result, scene: Scene
    ) -> Draft:
        """``draft`` with every requirement's offline operation applied (guardrails per step;
        asset makers run in a worker thread), then the rest through the model refiners."""
        offline_failed: dict[str, int] = {}
        rest: list[Requirement] = []
        for req in reqs:
            if req.check_only:
                continue
            if req.structural:
                before = len(result.not_applied)
                applied = await self._step(draft, req, key, result, repair=False)
                if applied is not None:
                    draft = applied
                    continue
                offline_failed[req.id] = before
            rest.append(req)
        if self.refiners is None or not rest:
            return draft
        self.progress(0.25, f"applying {len(rest)} requirement(s) with the model")
        calls = model_apply.plan_calls(rest, scene)
        return (await self._model(draft, calls, scene, result, offline_failed)).draft

    async def _model(self, draft: Draft, calls, scene: Scene, result, offline_failed, suffix=""):
        """Run model ``calls`` on ``draft``; records what applied and what did not, and drops
        the offline failure line (at ``offline_failed[id]`` in ``not_applied``) of a
        requirement the model applied."""
        applied = await model_apply.apply_calls(self.refiners, calls, draft, scene)
        undone = sorted(offline_failed[i] for i in applied.done if i in offline_failed)
        for at in reversed(undone):
            del result.not_applied[at]
        result.by_model += [f"{i}{suffix}: {line}" for i, line in applied.done.items()]
        result.not_applied += [f"{i}{suffix}: {why}" for i, why in applied.failed.items()]
        return applied

    async def _step(self, draft: Draft, req: Requirement, key: str, result, repair: bool):
        """One operation on a copy of ``draft``; the copy, or None when it could not apply."""
        trial = Draft(draft.page, draft.plan, draft.site_dir, dict(draft.files), draft.plan_changed)
        label = f"{req.id} (repair)" if repair else req.id
        try:
            if req.op in assets.ASSET_OPS:
                trial = await asyncio.to_thread(assets.apply, trial, req, key, _font(req), repair)
            else:
                trial = assets.apply(trial, req, key, _font(req), repair)
        except (operations.OperationError, ValueError, RuntimeError, OSError) as exc:
            result.not_applied.append(f"{label}: {first_line(exc)}")
            return None
        problems = _page_problems(draft, trial)
        if problems:
            result.not_applied.append(f"{label}: {problems[0]}")
            return None
        return trial

    async def _repair(
        self, draft: Draft, reqs, failing: list[Verdict], result, scene: Scene
    ) -> Draft:
        """The one repair pass: re-apply each failed requirement's operation, boosted, last;
        with model refiners, the failures no operation repairs go to them with the critique."""
        by_id = {r.id: r for r in reqs}
        rest: list[Requirement] = []
        offline_failed: dict[str, int] = {}
        for verdict in failing:
            req = by_id.get(verdict.requirement)
            if req is None or req.check_only:
                continue
            if req.structural:
                at = len(result.not_applied)
                repaired = await self._step(draft, req, operations.REPAIR_KEY, result, repair=True)
                if repaired is not None:
                    draft = repaired
                    result.repaired.append(req.id)
                    continue
                offline_failed[req.id] = at
            rest.append(req)
        draft.page = operations.move_block_last(draft.page, operations.REPAIR_KEY)
        if self.refiners is None or not rest:
            return draft
        findings = {v.requirement: v.detail for v in failing}
        calls = model_apply.plan_calls(rest, scene, findings)
        applied = await self._model(draft, calls, scene, result, offline_failed, " (repair)")
        result.repaired += [r.id for r in rest if r.id in applied.done]
        return applied.draft

    def _forgotten(self, verdicts, earlier, ever_passed) -> list[tuple[str, str]]:
        """(id, detail) of earlier requirements that passed before and fail now."""
        earlier_ids = {r.id for r in earlier if not r.superseded_by}
        return [
            (v.requirement, v.detail)
            for v in verdicts
            if v.passed is False and v.requirement in earlier_ids and v.requirement in ever_passed
        ]

    async def _critique(self, draft: Draft, reqs, width: int, name: str):
        """The critic's verdicts on ``draft``, its trial copy kept until they are in (the judge
        may drive the page)."""
        async with self._trial(draft.page, width, name, draft.files) as render:
            measured = Measured.of(render, draft.reader())
            # the screenshot is decoded in a worker, not by a check on the app's event loop
            # (a full page: 50–200 ms)
            await asyncio.to_thread(measured.image)
            return measured, await critique(reqs, measured, self.judge)

    async def _page_render(self, page: str, width: int, name: str):
        """The render of ``page``: the last turn's final render when the version, the page and
        the width are unchanged since (its screenshot still on disk), else a fresh render."""
        cache = self.project.renders_dir / "feedback" / "last.json"
        key = self._cache_key(page, width)
        with contextlib.suppress(OSError, ValueError):
            saved = json.loads(cache.read_text(encoding="utf-8"))
            render = Render.model_validate(saved["render"])
            if saved["key"] == key and Path(render.screenshot).is_file():
                return render
        async with self._trial(page, width, name) as render:
            return render

    def _cache_key(self, page: str, width: int) -> str:
        """Same version, same page bytes, same width → same render (assets included)."""
        digest = hashlib.sha256(page.encode()).hexdigest()
        return f"{self.project.manifest.head}:{width}:{digest}"

    def _remember(self, page: str, width: int, render) -> None:
        cache = self.project.renders_dir / "feedback" / "last.json"
        key = self._cache_key(page, width)
        data = {"key": key, "render": render.model_dump(mode="json")}
        try:  # only a cache: a turn never fails because it cannot be written
            atomic.write_text(cache, json.dumps(data))
        except OSError as exc:
            log.info("render cache %s not written: %s", cache, exc)

    @contextlib.asynccontextmanager
    async def _trial(self, page: str, width: int, name: str, files=None):
        """Render ``page`` (with ``files``: site-relative path → bytes) in a hard-linked trial
        copy of the site, which lives until the block ends (files replace links, never write
        through them). Raises FeedbackError when the page does not render."""
        trial = self.project.root / f".staging-feedback-{os.getpid()}-{name}"
        try:
            base = self._base or self.project.site_dir  # the turn's draft (read only)
            await run_to_end(_build_trial, base, trial, page, files or {})
            out = self.project.renders_dir / "feedback" / name
            render = await self.render(trial, width, out)
            if getattr(render, "failure", None):
                raise FeedbackError(f"the page did not render: {render.failure}")
            yield render
        finally:
            await run_to_end(shutil.rmtree, trial, ignore_errors=True)

    async def _commit(self, edit: Edit, draft: Draft, text: str, reqs: list[Requirement], record):
        """Write the draft (files, plan, page) into the transaction's draft, score it there,
        commit it with the turn's ledger rows (``record``). A report that failed raises
        FeedbackError: nothing is committed (the live site was never written)."""

        def write() -> None:
            for path, data in draft.files.items():
                if data == REMOVED:  # a page the turn drops
                    if not edit.outside(path):
                        (edit.site / path).unlink(missing_ok=True)
                    continue
                edit.write_bytes(path, data)
            if draft.plan_changed and draft.plan is not None:
                edit.write_plan(draft.plan)
            edit.write_text("index.html", draft.page)

        await run_to_end(write)
        if self.rescore:
            # rendered beside the draft; its screenshots become the head's only on commit
            report = await edit.verify(self._score)
            if report is not None and report.failed:
                raise FeedbackError(f"nothing was committed: {report.failed}")
        targets = list(dict.fromkeys(r.target for r in reqs if r.target))
        element = targets[0] if len(targets) == 1 else None
        summary = f"Feedback: {' '.join(text.split())[:80] or 'annotations'}"
        await edit.commit(summary, element=element, level="feedback", record=record)

    @staticmethod
    async def _score(page: Path, plan, out_dir: Path):
        from mmstudio.refine import render_and_score

        return await render_and_score(page, plan, out_dir)

    def _record(self, result, text, annotation, png, earlier) -> TurnRecord:
        digest = None
        if png is not None and Path(png).is_file():
            digest = self.project.objects.put(Path(png).read_bytes())
        base = self.project.history.get(result.version).parent if result.version else None
        return TurnRecord(
            result.turn, text, result.words, annotation_json(annotation), digest,
            base, result.version, result.route, result.summary(),
        )  # fmt: skip


def _page_problems(draft: Draft, trial: Draft) -> list[str]:
    """The guardrails' problems with ``trial``'s pages against ``draft``'s (the homepage and
    every other page the operation changed); the links a dropped page leaves behind are
    expected (the page file goes too)."""
    removed = {path for path, data in trial.files.items() if data == REMOVED}
    pairs = [(draft.page, trial.page)]
    for path, data in trial.files.items():
        top = "/" not in path and path.endswith(".html")  # a page of the site, not an asset
        if top and data != REMOVED and draft.files.get(path) != data:
            old = draft.read(path)
            if old is not None:
                pairs.append((old.decode("utf-8", "replace"), data.decode("utf-8", "replace")))
    problems = [p for before, after in pairs for p in guardrails.page_problems(before, after)]
    return [p for p in problems if p.removeprefix("the patch drops the asset path ") not in removed]


def _font(req: Requirement) -> float:
    return req.baseline[2] if req.op == "resize" and len(req.baseline) >= 3 else 16.0


def _build_trial(site: Path, trial: Path, page: str, files: dict[str, bytes]) -> None:
    """``trial``: a fresh hard-linked copy of ``site`` with ``files`` (site-relative path →
    bytes) written in and ``page`` as its ``index.html``."""
    shutil.rmtree(trial, ignore_errors=True)
    atomic.link_tree(site, trial)
    for path, data in files.items():
        if data == REMOVED:
            (trial / path).unlink(missing_ok=True)
        else:
            atomic.write_bytes(trial / path, data)
    atomic.write_text(trial / "index.html", page)
