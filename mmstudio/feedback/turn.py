"""One feedback turn, end to end: annotations → targets → requirements → ledger → apply → the
critic over ALL turns so far → one repair pass → a committed version (AceCoder; FronTalk).

Invariants:
- The real site is untouched until the turn's last render: every candidate page is rendered in a
  trial copy (hard links of ``site/`` in a ``.staging-feedback-*`` folder inside the project,
  which opening the project removes after a crash).
- ``lock`` (the project's SiteEditor lock when the app shares one) is held only while the page is
  read and while the final page is written and committed — never while rendering.
- Every turn ends in exactly one version (possibly equal to the previous one when nothing
  applied) and one ``feedback_turns`` row naming it; verdicts of the trial and of the final page
  are both recorded, so a forgetting event (passed before, fails now) stays visible even when the
  repair restored it.
- A turn works on a :class:`~mmstudio.feedback.assets.Draft` (page, new asset files, plan); the
  trial copy gets the draft's files, and the commit writes files, then plan.json, then the page.
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

from mmstudio.project import Project, ProjectError, atomic
from mmstudio.refine import guardrails
from mmstudio.render.model import Render

from . import assets, operations
from .annotation import Annotation
from .assets import Draft
from .compose import compose, mark_line
from .critic import Judge, Measured, baseline, critique
from .elements import PageElement
from .ledger import Ledger, TurnRecord, Verdict, annotation_json
from .requirements import Requirement, number, split_offline, supersede
from .resolve import Mark, resolve

log = logging.getLogger(__name__)

#: ``await splitter(text, marks, elements, words) -> requirements`` (offline: rule-based)
Splitter = Callable[[str, list[Mark], list[PageElement], str], Awaitable[list[Requirement]]]
#: ``await render(site_dir, width, out_dir) -> Render``
RenderFn = Callable[[Path, int, Path], Awaitable[object]]
Progress = Callable[[float, str], None]


async def offline_splitter(text, marks, elements, words) -> list[Requirement]:
    return split_offline(text, marks, elements)


async def default_render(site_dir: Path, width: int, out_dir: Path):
    """Render in the shared browser without the accessibility pass (the critic does not use it)."""
    from mmstudio.render import get_renderer

    return await get_renderer().render(site_dir, "index.html", width, out_dir, accessibility=False)


class FeedbackError(ValueError):
    """A turn could not run (bad input, a page that does not render); one line for the user."""


def check_input(text: str, annotation: Annotation | None) -> None:
    """Raise FeedbackError when there is nothing to do (no text, no shapes)."""
    if not text.strip() and not (annotation and annotation.shapes):
        raise FeedbackError("a feedback turn needs an instruction or annotations")


@dataclass
class TurnResult:
    """What a turn did: its number, the words sent with the image, the marks (one line each),
    its requirements, the final verdicts on every active requirement, forgetting events
    ({requirement, detail, repaired}), the operations that could not be applied, the clauses no
    rule understood ("t3.r2: xyzzy the footer"; unchecked without a judge), the version."""

    turn: int
    words: str
    marks: list[str]
    requirements: list[Requirement]
    verdicts: list[Verdict]
    forgetting: list[dict] = field(default_factory=list)
    not_applied: list[str] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    route: str = "global"
    version: str | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def failing(self) -> list[Verdict]:
        """Verdicts that still fail after the repair pass (the version is committed anyway)."""
        return [v for v in self.verdicts if v.passed is False]

    @property
    def status(self) -> str:
        """ "ok" (every checked requirement passes) or "failing" (some still fail)."""
        return "failing" if self.failing else "ok"

    def as_dict(self) -> dict:
        return {
            "turn": self.turn,
            "status": self.status,
            "route": self.route,
            "version": self.version,
            "words": self.words,
            "marks": self.marks,
            "requirements": [r.model_dump(exclude_defaults=True) for r in self.requirements],
            "verdicts": [v.__dict__ for v in self.verdicts],
            "passed": sum(v.passed is True for v in self.verdicts),
            "failed": sum(v.passed is False for v in self.verdicts),
            "failing": [v.__dict__ for v in self.failing],
            "forgetting": self.forgetting,
            "repaired": self.repaired,
            "not_applied": self.not_applied,
            "not_understood": self.not_understood,
            "timings": self.timings,
        }


@dataclass
class FeedbackTurn:
    """Runs turns on one project (see the module docstring)."""

    project: Project
    splitter: Splitter = offline_splitter
    judge: Judge | None = None
    render: RenderFn = default_render
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    progress: Progress = lambda fraction, message: None
    rescore: bool = True  # evaluate the final page so the version carries fresh scores

    @property
    def ledger(self) -> Ledger:
        return Ledger(self.project.root / "history.sqlite")

    async def run(
        self, text: str, annotation: Annotation | None = None, png: Path | None = None, job=None
    ) -> TurnResult:
        """Run one turn. Raises ValueError when there is nothing to do (no text, no marks)."""
        check_input(text, annotation)
        started, ledger = time.perf_counter(), self.ledger
        number_ = ledger.next_turn()
        width = annotation.device_width if annotation else 1280
        async with self.lock:
            page = self.project.site_dir.joinpath("index.html").read_text(encoding="utf-8")
            plan = self._plan()
        self.progress(0.05, "rendering the current page")
        before = Measured.of(await self._page_render(page, width, f"t{number_}-before"))
        marks = resolve(annotation, before.elements) if annotation else []
        words = compose(text, marks, before.elements, width)
        reqs = number(await self.splitter(text, marks, before.elements, words), number_)
        reqs = [baseline(r, before) for r in reqs]
        earlier = ledger.requirements()
        retired = supersede(earlier, reqs)
        result = TurnResult(
            number_, words, [mark_line(m, before.elements) for m in marks], reqs, []
        )
        result.route = "targeted" if marks or any(r.target for r in reqs) else "global"
        draft = Draft(page, plan, self.project.site_dir)
        candidate = await self._apply(draft, reqs, f"fb-t{number_}", result)
        self.progress(0.4, "checking every requirement so far")
        ledger_all = [*earlier, *reqs]
        checked, verdicts = await self._critique(candidate, ledger_all, width, f"t{number_}-trial")
        ledger.add_verdicts(verdicts, number_, None, "trial")
        forgotten = self._forgotten(verdicts, earlier, ledger.ever_passed())
        failing = [v for v in verdicts if v.passed is False]
        if failing:
            self.progress(0.6, f"repairing {len(failing)} failed requirement(s)")
            candidate = await self._repair(candidate, ledger_all, failing, result)
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
        for req_id, detail in forgotten:
            repaired = final.get(req_id) is not None and final[req_id].passed is True
            ledger.add_forgetting(req_id, number_, detail, repaired)
            result.forgetting.append(
                {"requirement": req_id, "detail": detail, "repaired": repaired}
            )
        self.progress(0.85, "committing the version")
        result.version = await self._commit(candidate, text, reqs, job)
        self._remember(candidate.page, width, checked.render)
        ledger.add_verdicts(verdicts, number_, result.version, "final")
        ledger.retire(retired)
        ledger.add_turn(self._record(result, text, annotation, png, earlier), reqs)
        result.timings["total_s"] = round(time.perf_counter() - started, 2)
        return result

    async def _apply(self, draft: Draft, reqs: list[Requirement], key: str, result) -> Draft:
        """``draft`` with every requirement's offline operation applied (guardrails per step;
        asset makers run in a worker thread)."""
        for req in reqs:
            if not req.structural:
                continue
            draft = await self._step(draft, req, key, result, repair=False) or draft
        return draft

    def _plan(self):
        """The project's plan, or None (no plan.json, or one that does not validate: then the
        operations that need it say so, and page operations still run)."""
        if not self.project.plan_path.exists():
            return None
        try:
            return self.project.read_plan()
        except ProjectError as exc:
            log.warning("feedback without the plan: %s", exc)
            return None

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
            result.not_applied.append(f"{label}: {_first_line(exc)}")
            return None
        problems = guardrails.page_problems(draft.page, trial.page)
        if problems:
            result.not_applied.append(f"{label}: {problems[0]}")
            return None
        return trial

    async def _repair(self, draft: Draft, reqs, failing: list[Verdict], result) -> Draft:
        """The one repair pass: re-apply each failed requirement's operation, boosted, last."""
        by_id = {r.id: r for r in reqs}
        for verdict in failing:
            req = by_id.get(verdict.requirement)
            if req is None or not req.structural:
                continue
            repaired = await self._step(draft, req, operations.REPAIR_KEY, result, repair=True)
            if repaired is not None:
                draft = repaired
                result.repaired.append(req.id)
        draft.page = operations.move_block_last(draft.page, operations.REPAIR_KEY)
        return draft

    def _forgotten(self, verdicts, earlier, ever_passed) -> list[tuple[str, str]]:
        """(id, detail) of earlier requirements that passed before and fail now."""
        earlier_ids = {r.id for r in earlier if not r.superseded_by}
        return [
            (v.requirement, v.detail)
            for v in verdicts
            if v.passed is False and v.requirement in earlier_ids and v.requirement in ever_passed
        ]

    async def _critique(self, draft: Draft, reqs, width: int, name: str):
        render = await self._render_trial(draft.page, width, name, draft.files)
        measured = Measured.of(render, draft.reader())
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
        return await self._render_trial(page, width, name)

    def _cache_key(self, page: str, width: int) -> str:
        """Same version, same page bytes, same width → same render (assets included)."""
        digest = hashlib.sha256(page.encode()).hexdigest()
        return f"{self.project.manifest.head}:{width}:{digest}"

    def _remember(self, page: str, width: int, render) -> None:
        cache = self.project.renders_dir / "feedback" / "last.json"
        key = self._cache_key(page, width)
        data = {"key": key, "render": render.model_dump(mode="json")}
        with contextlib.suppress(OSError, TypeError, AttributeError):
            atomic.write_text(cache, json.dumps(data))

    async def _render_trial(self, page: str, width: int, name: str, files=None):
        """Render ``page`` (with ``files``: site-relative path → bytes) in a hard-linked trial
        copy of the site (removed afterwards; files replace links, never write through them)."""
        trial = self.project.root / f".staging-feedback-{os.getpid()}-{name}"
        shutil.rmtree(trial, ignore_errors=True)
        try:
            await asyncio.to_thread(_link_tree, self.project.site_dir, trial)
            for path, data in (files or {}).items():
                atomic.write_bytes(trial / path, data)
            atomic.write_text(trial / "index.html", page)
            out = self.project.renders_dir / "feedback" / name
            render = await self.render(trial, width, out)
        finally:
            shutil.rmtree(trial, ignore_errors=True)
        if getattr(render, "failure", None):
            raise FeedbackError(f"the page did not render: {render.failure}")
        return render

    async def _commit(self, draft: Draft, text: str, reqs: list[Requirement], job) -> str | None:
        """Write the draft (files, plan, page), score it, commit a version. A report that failed
        puts every written file back and raises FeedbackError."""
        path = self.project.site_dir / "index.html"
        async with self.lock:
            saved = assets.write(draft, self.project.site_dir, self.project.plan_path)
        report = await self._score(path) if self.rescore else None
        if report is not None and report.failed:
            async with self.lock:
                assets.restore(saved)
            raise FeedbackError(f"nothing was committed: {report.failed}")
        async with self.lock:
            if report is not None:
                self.project.write_report(report)
            targets = list(dict.fromkeys(r.target for r in reqs if r.target))
            element = targets[0] if len(targets) == 1 else None
            version = self.project.commit(
                f"Feedback: {' '.join(text.split())[:80] or 'annotations'}",
                job=getattr(job, "id", None), element=element, level="feedback",
            )  # fmt: skip
        return version.id

    async def _score(self, path: Path):
        from mmstudio.refine import render_and_score

        plan = self.project.read_plan() if self.project.plan_path.exists() else None
        report = await render_and_score(path, plan, self.project.renders_dir)
        report.target = str(path)
        return report

    def _record(self, result, text, annotation, png, earlier) -> TurnRecord:
        digest = None
        if png is not None and Path(png).is_file():
            digest = self.project.objects.put(Path(png).read_bytes())
        base = self.project.history.get(result.version).parent if result.version else None
        return TurnRecord(
            result.turn, text, result.words, annotation_json(annotation), digest,
            base, result.version, result.route, _summary(result),
        )  # fmt: skip


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _font(req: Requirement) -> float:
    return req.baseline[2] if req.op == "resize" and len(req.baseline) >= 3 else 16.0


def _summary(result: TurnResult) -> str:
    passed = sum(v.passed is True for v in result.verdicts)
    summary = (
        f"{len(result.requirements)} requirement(s); {passed}/{len(result.verdicts)} pass; "
        f"{len(result.forgetting)} forgetting event(s)"
    )
    if result.not_understood:
        summary += f"; {len(result.not_understood)} not understood"
    return summary


def _link_tree(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` with hard links (plain copies where links are refused)."""

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(target)
    shutil.copytree(source, target, copy_function=link)
