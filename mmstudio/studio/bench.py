"""``mmstudio bench``: run the main job over a JSONL file of prompts and summarise the runs.

Layout of the output folder ``DIR``::

    DIR/projects/<id>/      the project made from each prompt
    DIR/records/<id>.json   what that run made and cost (:mod:`.bench_record`)
    DIR/summary.json        the aggregate (:mod:`.bench_summary`)
    DIR/summary.md          the same as a readable page, with figures/*.png (:mod:`.bench_report`)

Resuming: a prompt whose record says ``ok`` for the same provider, rounds and evaluation is
skipped; a failed prompt, one run with other options, or one whose project exists without a
record (an interrupted run), is run again from scratch.

Concurrency: with ``jobs`` > 1 up to that many prompts run at once as tasks of one
``asyncio.TaskGroup`` (bounded by a semaphore); they share the process's one warm browser, whose
own semaphore caps concurrent renders. Each record is written by its own task to its own file;
the summary is built only after every task has ended. Times per prompt are comparable only with
``jobs`` = 1 (the default), since parallel prompts compete for the same cores.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from mmstudio.pipeline.generate import ProgressCallback, no_progress
from mmstudio.project import atomic
from mmstudio.project.errors import InputError, output_folder, read_input
from mmstudio.project.runs import UsageSummary
from mmstudio.providers.settings import Settings
from mmstudio.studio.bench_record import (
    BenchRecord,
    PromptRow,
    RunKey,
    failure_record,
    success_record,
    usage_totals,
)
from mmstudio.studio.bundle import using_models
from mmstudio.studio.create import new_project

if TYPE_CHECKING:
    from mmstudio.studio.bench_summary import BenchSummary

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BenchOptions:
    """How each prompt is run: ``provider`` (offline|openai), ``rounds`` of reflection, whether to
    ``evaluate`` (render + score), prompts at once (``jobs``) and assets at once per prompt."""

    provider: str = "offline"
    rounds: int = 3
    evaluate: bool = True
    jobs: int = 1
    concurrency: int = 2
    settings: Settings | None = None


def read_prompts(path: Path, limit: int | None = None) -> list[PromptRow]:
    """The ``{id, prompt}`` rows (:class:`~mmstudio.studio.bench_record.PromptRow`) of a JSONL
    file (the first ``limit``); raises ValueError naming a
    bad line or a repeated id (InputError), MissingInput (a FileNotFoundError) for a missing
    file."""
    rows: list[PromptRow] = []
    seen: set[str] = set()
    text = read_input(Path(path), "the prompts file")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            row = PromptRow(id=str(data["id"]), prompt=str(data["prompt"]))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"{path}:{number} is not a {{id, prompt}} JSON line: {exc}") from None
        if row["id"] in seen:
            raise InputError(f"{path}:{number} repeats the id {row['id']!r}")
        seen.add(row["id"])
        rows.append(row)
    return rows[:limit] if limit else rows


def slug(prompt_id: str) -> str:
    """A file-system-safe name for a prompt id."""
    return re.sub(r"[^\w.-]+", "_", prompt_id).strip("._") or "prompt"


def record_path(out_dir: Path, prompt_id: str) -> Path:
    return out_dir / "records" / f"{slug(prompt_id)}.json"


def project_path(out_dir: Path, prompt_id: str) -> Path:
    return out_dir / "projects" / slug(prompt_id)


def read_record(out_dir: Path, prompt_id: str) -> BenchRecord | None:
    """The stored record of a prompt, or None when there is none (or it is unreadable)."""
    path = record_path(out_dir, prompt_id)
    try:
        record: BenchRecord = json.loads(path.read_text(encoding="utf-8"))  # as written
    except (OSError, ValueError):
        return None
    return record


def run_key(options: BenchOptions) -> RunKey:
    """What makes two runs of a prompt comparable: provider, reflection rounds, evaluation."""
    return {"provider": options.provider, "rounds": options.rounds, "evaluate": options.evaluate}


def finished(out_dir: Path, prompt_id: str, options: BenchOptions) -> bool:
    """Whether a previous run with the same :func:`run_key` finished this prompt (its record
    says ok and its project exists)."""
    record = read_record(out_dir, prompt_id)
    if not record or not record.get("ok") or record.get("run") != run_key(options):
        return False
    return project_path(out_dir, prompt_id).is_dir()


async def run_prompt(row: PromptRow, out_dir: Path, options: BenchOptions) -> BenchRecord:
    """Run the main job on one prompt and store its record; a failure becomes a record (with
    its reason), never an exception. Cancellation propagates."""
    root = project_path(out_dir, row["id"])
    if root.exists():  # left by an interrupted or failed run
        shutil.rmtree(root)
    started = time.perf_counter()
    try:
        # one bundle per prompt: its usage log is this prompt's alone, even with --jobs > 1
        async with using_models(options.provider, options.settings) as models:
            made = await new_project(
                root, row["prompt"], provider=options.provider, concurrency=options.concurrency,
                evaluate=options.evaluate, rounds=options.rounds, settings=options.settings,
                models=models,
            )  # fmt: skip
        record = success_record(row, made, time.perf_counter() - started)
    except Exception as exc:  # one failing prompt is a result, not the end of the bench
        log.warning(
            "prompt %s failed: %s", row["id"], exc, exc_info=log.isEnabledFor(logging.DEBUG)
        )
        record = failure_record(row, exc, time.perf_counter() - started)
        spent = getattr(exc, "usage", None)
        if isinstance(spent, dict) and spent.get("calls"):  # what it cost before it failed
            record["usage"] = usage_totals(cast(UsageSummary, spent))
    record["run"] = run_key(options)
    atomic.write_json(record_path(out_dir, row["id"]), record)
    return record


class _Tally:
    """Progress over the prompts: ``[bench n/N] id ok 7.1 s · ▇▇▇░░ · ~3 min left``."""

    def __init__(self, total: int, skipped: int, progress: ProgressCallback) -> None:
        self.total, self.done, self.progress = total, skipped, progress
        self.started = time.perf_counter()
        self.ran = 0
        if skipped:
            progress("bench", skipped, total, f"{skipped} prompt(s) already finished, skipped")

    def __call__(self, record: BenchRecord) -> None:
        self.done += 1
        self.ran += 1
        left = self.total - self.done
        eta = (time.perf_counter() - self.started) / self.ran * left
        state = "ok" if record["ok"] else f"FAILED ({record['error']})"
        bar = "▇" * round(20 * self.done / self.total)
        detail = f"{record['id']} {state} {record['seconds']:.1f} s · {bar:░<20} · "
        detail += f"~{eta / 60:.1f} min left" if left else "done"
        self.progress("bench", self.done, self.total, detail)


async def run_prompts(
    rows: list[PromptRow], out_dir: Path, options: BenchOptions, progress: ProgressCallback
) -> tuple[list[BenchRecord], int]:
    """Run every unfinished prompt (``options.jobs`` at once); returns the records of all rows
    in file order, old and new, and how many prompts ran now."""
    todo = [r for r in rows if not finished(out_dir, r["id"], options)]
    tally = _Tally(len(rows), len(rows) - len(todo), progress)
    limit = asyncio.Semaphore(max(1, options.jobs))

    async def one(row: PromptRow) -> None:
        async with limit:
            tally(await run_prompt(row, out_dir, options))

    async with asyncio.TaskGroup() as group:
        for row in todo:
            group.create_task(one(row))
    return [read_record(out_dir, r["id"]) or _lost(r) for r in rows], len(todo)


def _lost(row: PromptRow) -> BenchRecord:
    return {"id": row["id"], "ok": False, "seconds": 0.0, "error": "no record was written"}


async def run_bench(
    prompts: Path,
    out_dir: Path,
    *,
    limit: int | None = None,
    options: BenchOptions | None = None,
    progress: ProgressCallback = no_progress,
    figures: bool = True,
) -> BenchSummary:
    """Run the prompts of ``prompts`` (JSONL) into ``out_dir`` and write ``summary.json`` and
    ``summary.md`` (with PNG figures unless ``figures`` is false); returns the summary
    (:class:`~mmstudio.studio.bench_summary.BenchSummary`, a persisted JSON document; see
    :func:`mmstudio.studio.bench_summary.summarise`). Raises ValueError/FileNotFoundError
    for a bad prompt file; failing prompts are recorded, not raised."""
    from mmstudio.studio.bench_report import write_report
    from mmstudio.studio.bench_summary import summarise

    options = options or BenchOptions()
    rows = read_prompts(prompts, limit)
    if not rows:
        raise InputError(f"{prompts} holds no prompts")
    out_dir = output_folder(Path(out_dir))
    started = time.perf_counter()
    records, ran = await run_prompts(rows, out_dir, options, progress)
    summary = summarise(records, options, source=str(prompts))
    summary["ran_now"], summary["resumed"] = ran, len(rows) - ran
    summary["wall_seconds"] = round(time.perf_counter() - started, 3)
    write_report(summary, records, out_dir, figures=figures)
    atomic.write_json(out_dir / "summary.json", {"summary": summary, "prompts": records})
    summary["files"] = {"json": str(out_dir / "summary.json"), "md": str(out_dir / "summary.md")}
    return summary
