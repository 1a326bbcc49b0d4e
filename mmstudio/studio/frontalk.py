"""``mmstudio bench --frontalk``: replay FronTalk dialogues (arXiv 2601.04203) turn by turn
through a provider and score every test condition with the critic after every turn.

Each dialogue line is ``{id, summary, cases: [{instructions, type: function|design,
test_conditions: [{condition, pass, fail}]}]}``. Turn 1 starts the project (``start``: ``new``
generates it from the first instruction, ``blank`` starts from an empty page and applies the
first instruction as a feedback turn, ``reference`` opens the dialogue's reference site from
``sites/<id>/``; offline, the first instruction's own requirements are then applied to the
generated page too, so the features the planner left out are built); every case, the first
included, is then one
:class:`~mmstudio.feedback.FeedbackTurn` whose requirements are the instruction's own split
plus the case's test conditions as judged requirements (``op`` free, ``check_only``: the critic
checks them, nothing applies them — they are the hidden tests; ``aspect`` "behaviour" for a
``function`` case, so the judge proves it by driving the page). With a model the instruction's
own requirements are applied by the model refiners (:mod:`mmstudio.feedback.refiners`). The
critic re-checks every condition so far after every turn (AceCoder), so the project's ledger holds
each condition's verdict at every turn. The judge is the condition rules
(:mod:`mmstudio.feedback.condition_judge`): they read each condition (named text, controls,
sections, widgets, fields, colours, fonts, layout, navigation, form submission) and check it on
the rendered pages; with a model its judge is asked first and the rules decide what it left
unchecked. A condition nothing reads stays unchecked and never counts as a pass; the rates are
also given over the checked conditions only (``checked_rates`` of
:mod:`mmstudio.studio.frontalk_report`).

Layout of ``DIR``: ``projects/<id>/`` (each dialogue's project), ``records/<id>.json`` (its turns,
each test's status per turn, its rates), ``summary.json`` and ``summary.md``. Resuming: a dialogue
whose record says ok for the same provider and start is skipped; any other is replayed from
scratch. Dialogues run one after the other (they share the one warm browser).

Rates (FronTalk): pass rate = mean over turns of the share of that turn's conditions passing at
that turn; forgetting rate = 1 − Σ passes at the final turn / Σ passes at introduction, over the
conditions introduced before the final turn.
"""

from __future__ import annotations

import json
import logging
import shutil
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mmstudio.feedback import FeedbackTurn, Ledger, Requirement
from mmstudio.feedback.critic import Judge
from mmstudio.feedback.requirements import split_offline
from mmstudio.feedback.turn import Splitter, offline_splitter
from mmstudio.pipeline.generate import ProgressCallback, no_progress
from mmstudio.project import Project, atomic
from mmstudio.project.errors import InputError, MissingInput, output_folder, read_input
from mmstudio.providers.base import DesignerError
from mmstudio.providers.settings import Settings
from mmstudio.studio.bench import slug
from mmstudio.studio.frontalk_report import (
    ConditionRow,
    DialogueRecord,
    FrontalkKey,
    FrontalkRates,
    FrontalkSummary,
    TurnLog,
    checked_rates,
)

log = logging.getLogger(__name__)

Start = Literal["new", "blank", "reference"]
BLANK_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>New site</title>
<style>body{margin:0;font:18px/1.5 'DejaVu Sans',sans-serif;color:#222;background:#fff}
main{padding:40px 80px}</style></head>
<body><main data-mm-section="main"><h1>New site</h1></main></body></html>
"""


class Condition(BaseModel):
    """One FronTalk test condition: what must hold, and what passing / failing looks like."""

    model_config = ConfigDict(populate_by_name=True)

    condition: str = Field(min_length=1)
    pass_: str = Field(default="", alias="pass")
    fail: str = ""


class Case(BaseModel):
    """One turn of a dialogue: the user's instruction and its test conditions."""

    instructions: str = Field(min_length=1)
    type: Literal["function", "design"] = "design"
    test_conditions: list[Condition] = Field(default_factory=list)


class Dialogue(BaseModel):
    """One FronTalk dialogue (``id`` is the reference page's file name, e.g. ``<hash>.html``)."""

    id: str = Field(min_length=1)
    summary: dict = Field(default_factory=dict)
    cases: list[Case] = Field(min_length=1)

    @property
    def name(self) -> str:
        """The folder name of the dialogue (its id without ``.html``)."""
        return slug(self.id.removesuffix(".html"))


@dataclass(frozen=True)
class FrontalkOptions:
    """How dialogues replay: ``provider`` (offline | openai; it makes the first page with
    ``start`` "new", splits turns and judges), ``start`` (see the module doc), ``settings`` of
    the model endpoint (default: config file and environment)."""

    provider: str = "offline"
    start: Start = "new"
    settings: Settings | None = None

    def key(self) -> FrontalkKey:
        """What makes two replays comparable: ``{provider, start}``."""
        return {"provider": self.provider, "start": self.start}


def read_dialogues(path: Path, limit: int | None = None) -> list[Dialogue]:
    """The dialogues of a JSONL file (the first ``limit``). Raises ValueError naming a bad line
    or a repeated id (InputError), MissingInput (a FileNotFoundError) for a missing file."""
    found: list[Dialogue] = []
    seen: set[str] = set()
    text = read_input(Path(path), "the dialogue file")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            dialogue = Dialogue.model_validate_json(line)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise InputError(f"{path}:{number} is not a FronTalk dialogue: {where}: "
                             f"{first['msg']}") from None  # fmt: skip
        if dialogue.name in seen:
            raise InputError(f"{path}:{number} repeats the dialogue {dialogue.id!r}")
        seen.add(dialogue.name)
        found.append(dialogue)
    return found[:limit] if limit else found


def condition_requirement(condition: Condition, kind: str) -> Requirement:
    """A test condition as a judged ledger requirement (``kind``: function | design)."""
    text = " ".join(condition.condition.split())
    if condition.pass_:
        text += f" Passes when: {' '.join(condition.pass_.split())}"
    if condition.fail:
        text += f" Fails when: {' '.join(condition.fail.split())}"
    aspect: Literal["behaviour", "design"] = "behaviour" if kind == "function" else "design"
    return Requirement(
        text=text, op="free", target=None, target_kind="page", aspect=aspect, check_only=True
    )


def with_conditions(base: Splitter | None, conditions: list[Requirement]) -> Splitter:
    """A splitter giving ``base``'s requirements (none when None; the offline rules' when it
    fails) followed by ``conditions`` (the same objects, so their ids are known once the turn
    has numbered them)."""

    async def split(text, marks, elements, words) -> list[Requirement]:
        try:
            found = await base(text, marks, elements, words) if base is not None else []
        except (DesignerError, ValueError) as exc:  # a failed model split loses no condition
            log.warning("the model's split failed (%s); the offline rules split it", exc)
            found = split_offline(text, marks, elements)
        return [*found, *conditions]

    return split


def frontalk_rates(tests: list[ConditionRow], final_turn: int) -> FrontalkRates:
    """FronTalk's rates over ``tests`` ({turn, statuses: [status at turn 1, 2, …]}; a status is
    pass | fail | unchecked, None before the test exists): ``pass_rate`` (0–1, None without
    tests), ``forgetting_rate`` (None when nothing passed at introduction), the pass counts
    behind it, ``at_intro`` {pass, fail, unchecked}: every test's status at its own turn (see the
    module doc), and the same rates over the checked tests only (``checked_*``, see
    :func:`~mmstudio.studio.frontalk_report.checked_rates`)."""
    per_turn: dict[int, list[bool]] = defaultdict(list)
    for test in tests:
        per_turn[test["turn"]].append(_at(test, test["turn"]) == "pass")
    shares = [sum(passed) / len(passed) for passed in per_turn.values() if passed]
    earlier = [t for t in tests if t["turn"] < final_turn]
    intro = sum(_at(t, t["turn"]) == "pass" for t in earlier)
    final = sum(_at(t, final_turn) == "pass" for t in earlier)
    return {
        "pass_rate": round(statistics.fmean(shares), 4) if shares else None,
        "forgetting_rate": round(1 - final / intro, 4) if intro else None,
        "passes_at_intro": intro,
        "passes_at_final": final,
        "at_intro": {"pass": sum(_at(t, t["turn"]) == "pass" for t in tests),
                     "fail": sum(_at(t, t["turn"]) == "fail" for t in tests),
                     "unchecked": sum(_at(t, t["turn"]) == "unchecked" for t in tests)},
        **checked_rates(tests, final_turn),
    }  # fmt: skip


def _at(test: ConditionRow, turn: int) -> str | None:
    statuses = test["statuses"]
    return statuses[turn - 1] if 0 < turn <= len(statuses) else None


def _status(verdict) -> str:
    if verdict is None or verdict.passed is None:
        return "unchecked"
    return "pass" if verdict.passed else "fail"


def condition_rows(
    ledger: Ledger, conditions: list[tuple[Requirement, str, int]], turns: int
) -> list[ConditionRow]:
    """One row per test condition ``(requirement, kind, turn)``: id, turn, type, condition, its
    status at every turn 1…``turns`` (None before it was introduced) and its last detail."""
    table = ledger.verdicts_by_turn()
    rows: list[ConditionRow] = []
    for req, kind, turn in conditions:
        seen = table.get(req.id, {})
        statuses: list[str | None] = [
            None if t < turn else _status(seen.get(t)) for t in range(1, turns + 1)
        ]
        last = seen[max(seen)].detail if seen else ""
        rows.append({"id": req.id, "turn": turn, "type": kind, "condition": req.text,
                     "statuses": statuses, "detail": last})  # fmt: skip
    return rows


async def start_project(dialogue: Dialogue, root: Path, options: FrontalkOptions,
                        sites: Path, *, models: Any = None) -> Project:  # fmt: skip
    """Turn 1's project at ``root`` (see ``start`` in the module doc); ``models``: the replay's
    model bundle (None: ``options.provider`` makes its own designer)."""
    if options.start == "new":
        from mmstudio.studio.create import new_project

        made = await new_project(
            root, dialogue.cases[0].instructions, provider=options.provider, evaluate=False,
            rounds=0, settings=options.settings, models=models,
        )  # fmt: skip
        return made.project
    title = (dialogue.summary.get("purpose") or dialogue.name)[:80]
    project = Project.create(root, prompt=dialogue.cases[0].instructions,
                             provider=options.provider, title=title)  # fmt: skip
    site = project.staging_dir() / "site"
    if options.start == "reference":
        source = sites / dialogue.name
        if not (source / "index.html").is_file():
            raise MissingInput(f"no reference site {source}/index.html")
        shutil.copytree(source, site)
        for path in site.rglob("*"):  # the shared copies are read-only; ours must be writable
            path.chmod(0o755 if path.is_dir() else 0o644)
    else:
        site.mkdir(parents=True)
        (site / "index.html").write_text(BLANK_PAGE, encoding="utf-8")
    project.install_site(site)
    project.commit(f"FronTalk start ({options.start})")
    return project


@dataclass
class _Models:
    """The splitter, judge and refiners of a replay (offline: rules, the condition rules as the
    judge, no refiners)."""

    splitter: Splitter = offline_splitter
    judge: Judge | None = None
    chat: Any = None  # the bundle's client behind both
    refiners: Any = None  # the model refiners applying each turn
    bundle: Any = None  # the model bundle (turn 1's designer too), closed by :meth:`close`

    @classmethod
    def of(cls, options: FrontalkOptions) -> _Models:
        from mmstudio.feedback.condition_judge import condition_judge
        from mmstudio.studio.bundle import open_models

        bundle = open_models(options.provider, options.settings)
        if bundle is None:
            return cls(judge=condition_judge())
        from mmstudio.feedback.provider import model_judge, model_splitter
        from mmstudio.refine.registry import refiners_of

        chat = bundle.provider
        judge = model_judge(chat, vision=bundle["judge"].can("vision"))
        return cls(model_splitter(chat), condition_judge(judge), chat, refiners_of(bundle),
                   bundle)  # fmt: skip

    async def close(self) -> None:
        if self.bundle is not None:
            await self.bundle.aclose()


async def replay(dialogue: Dialogue, root: Path, options: FrontalkOptions, models: _Models,
                 sites: Path, progress: ProgressCallback = no_progress
                 ) -> DialogueRecord:  # fmt: skip
    """Replay one dialogue into a new project at ``root``; returns its record (turns, tests,
    rates). Raises whatever stops a turn (the caller records it)."""
    started = time.perf_counter()
    project = await start_project(dialogue, root, options, sites, models=models.bundle)
    start_s = round(time.perf_counter() - started, 3)
    conditions: list[tuple[Requirement, str, int]] = []
    turns: list[TurnLog] = []
    for number, case in enumerate(dialogue.cases, start=1):
        reqs = [condition_requirement(c, case.type) for c in case.test_conditions]
        # offline, turn 1's own words are applied to the generated page as well: the planner
        # lays out a site from a brief, the feature builder adds the named features it left out
        applied = number > 1 or options.start == "blank" or models.refiners is None
        # the last version is evaluated (its report and scores committed with it), so the
        # replayed project opens in the app with its badges and score plot; earlier turns are
        # judged by the critic only (the evaluation costs seconds a turn)
        last = number == len(dialogue.cases)
        turn = FeedbackTurn(
            project, splitter=with_conditions(models.splitter if applied else None, reqs),
            judge=models.judge, refiners=models.refiners, rescore=last,
        )  # fmt: skip
        result = await turn.run(case.instructions)
        conditions += [(r, case.type, number) for r in reqs]
        turns.append({
            "turn": number, "type": case.type, "version": result.version,
            "conditions": [r.id for r in reqs], "requirements": len(result.requirements),
            "not_applied": len(result.not_applied), "forgetting": len(result.forgetting),
            "seconds": result.timings.get("total_s"),
        })  # fmt: skip
        progress("frontalk", number, len(dialogue.cases), f"{dialogue.name} turn {number}")
    tests = condition_rows(Ledger(project.root / "history.sqlite"), conditions, len(dialogue.cases))
    return {
        "id": dialogue.id, "name": dialogue.name, "ok": True, "error": None,
        "run": options.key(), "start_seconds": start_s, "turns": turns, "tests": tests,
        **frontalk_rates(tests, len(dialogue.cases)),
        "seconds": round(time.perf_counter() - started, 3),
    }  # fmt: skip


def _record_path(out_dir: Path, dialogue: Dialogue) -> Path:
    return out_dir / "records" / f"{dialogue.name}.json"


def _finished(out_dir: Path, dialogue: Dialogue, options: FrontalkOptions) -> DialogueRecord | None:
    try:
        record: DialogueRecord = json.loads(
            _record_path(out_dir, dialogue).read_text(encoding="utf-8")
        )
    except (OSError, ValueError):
        return None
    ok = record.get("ok") and record.get("run") == options.key()
    return record if ok and (out_dir / "projects" / dialogue.name).is_dir() else None


async def run_frontalk(
    path: Path,
    out_dir: Path,
    *,
    limit: int | None = None,
    options: FrontalkOptions | None = None,
    progress: ProgressCallback = no_progress,
) -> FrontalkSummary:
    """Replay the dialogues of ``path`` into ``out_dir``; writes ``summary.json`` and
    ``summary.md`` and returns the summary
    (:class:`~mmstudio.studio.frontalk_report.FrontalkSummary`). Raises ValueError /
    FileNotFoundError for a bad dialogue file; a failing dialogue is recorded, not raised."""
    from mmstudio.studio.frontalk_report import markdown, summarise

    options = options or FrontalkOptions()
    dialogues = read_dialogues(Path(path), limit)
    if not dialogues:
        raise InputError(f"{path} holds no dialogues")
    out_dir = output_folder(Path(out_dir))
    sites = Path(path).parent / "sites"
    records: list[DialogueRecord] = []
    started, ran = time.perf_counter(), 0
    models = _Models.of(options)
    try:
        for n, dialogue in enumerate(dialogues, start=1):
            record = _finished(out_dir, dialogue, options)
            if record is None:
                record = await _run_one(dialogue, out_dir, options, models, sites, progress)
                ran += 1
            records.append(record)
            state = "ok" if record["ok"] else f"FAILED ({record['error']})"
            progress("bench", n, len(dialogues), f"{dialogue.name} {state}")
    finally:
        spent = models.bundle.usage.summary() if models.bundle is not None else None
        await models.close()
    summary = summarise(records, options, source=str(path))
    summary["usage"] = spent["total"] if spent and spent["calls"] else None  # all dialogues
    summary["ran_now"], summary["resumed"] = ran, len(dialogues) - ran
    summary["wall_seconds"] = round(time.perf_counter() - started, 3)
    summary["files"] = {"json": str(out_dir / "summary.json"), "md": str(out_dir / "summary.md")}
    atomic.write_text(out_dir / "summary.md", markdown(summary))
    atomic.write_json(out_dir / "summary.json", {"summary": summary, "dialogues": records})
    return summary


async def _run_one(dialogue, out_dir, options, models, sites, progress) -> DialogueRecord:
    """Replay one dialogue from scratch and store its record; a failure becomes a record."""
    root = out_dir / "projects" / dialogue.name
    shutil.rmtree(root, ignore_errors=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        record = await replay(dialogue, root, options, models, sites, progress)
    except Exception as exc:  # one failing dialogue is a result, not the end of the bench
        log.warning("dialogue %s failed: %s", dialogue.id, exc,
                    exc_info=log.isEnabledFor(logging.DEBUG))  # fmt: skip
        lines = str(exc).strip().splitlines()
        record = {"id": dialogue.id, "name": dialogue.name, "ok": False, "run": options.key(),
                  "error": (lines[0] if lines else type(exc).__name__)[:300],
                  "seconds": round(time.perf_counter() - started, 3)}  # fmt: skip
    atomic.write_json(_record_path(out_dir, dialogue), record)
    return record
