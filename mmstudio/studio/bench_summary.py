"""The aggregate of a bench run: medians (never means alone: these machines are noisy) of scores,
issues, fidelity, time per stage and usage over the prompt records of :mod:`.bench_record`.

Shape of :func:`summarise` (seconds, 0–1 scores and shares)::

    {source, provider, rounds, evaluate, jobs, prompts, finished, failed,
     failures: [{id, error_type, error}], render_failures: [id],
     seconds: {median, max, min, sum},
     scores: {dimension|overall: {before: stats, after: stats}},      # stats: median, mean, n
     issues: {code: {before, after, pages_before, pages_after}}, issues_total: {before, after},
     reflection: {improved, worse, unchanged, accepted, reverted, rounds_median} | None,
     fidelity: {quoted: stats, hex: stats, below: [{id, quoted, hex}]},
     requirements: {share: {before: stats, after: stats}, unchecked_share: float | None,
                    by_kind: {kind: {passed, checked, share}},
                    pages: [{id, before, after, checked, unchecked}]} | None,
     stages: {stage: {median, max, n}},
     usage: {calls, input_tokens, output_tokens, images, video_seconds, cost_usd, unpriced,
             cost_median_usd} | None}

``summary.json`` is a persisted JSON document (read back by the report, the benchmarks and
older runs' readers): :class:`BenchSummary` and the tables in it are ``TypedDict``
classes that describe it.
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, TypedDict

from mmstudio.studio.bench_record import SCORE_KEYS, STAGES, BenchRecord

if TYPE_CHECKING:
    from mmstudio.studio.bench import BenchOptions

QUOTE_TARGET, HEX_TARGET = 0.9, 0.8  # issue 2's bar per prompt (quoted strings, hex colours)


class Stats(TypedDict):
    """Median, mean, min, max and sum of the values present (rounded to 4 places), ``n``."""

    median: float | None
    mean: float | None
    min: float | None
    max: float | None
    sum: float
    n: int


class BeforeAfter(TypedDict):
    """Stats before and after reflection."""

    before: Stats
    after: Stats


class IssueRow(TypedDict):
    """Measured issues of one code over all pages, and how many pages had it."""

    before: int
    after: int
    pages_before: int
    pages_after: int


class ReflectionTable(TypedDict):
    """How reflection moved the overall score (:func:`reflection_table`)."""

    pages: int
    improved: int
    worse: int
    unchanged: int
    accepted: int
    reverted: int
    rounds_median: float
    stopped: dict[str, int]


class BelowTarget(TypedDict):
    """A prompt whose site carries too few of its quoted strings or hex colours."""

    id: str
    quoted: float
    hex: float


class FidelityTable(TypedDict):
    """Quoted-string and hex-colour shares over the prompts (:func:`fidelity_table`)."""

    quoted: Stats
    hex: Stats
    targets: dict[str, float]
    below: list[BelowTarget]


class KindShare(TypedDict):
    """Requirements of one kind: passed of checked, and the share (None: none checked)."""

    passed: int
    checked: int
    share: float | None


class RequirementPage(TypedDict):
    """One page's requirement pass shares before and after reflection."""

    id: str
    before: float | None
    after: float | None
    checked: int
    unchecked: int


class RequirementTable(TypedDict):
    """The brief's requirements over the pages (:func:`requirement_table`)."""

    share: BeforeAfter
    unchecked_share: float | None
    by_kind: dict[str, KindShare]
    pages: list[RequirementPage]


class StageRow(TypedDict):
    """Median and max seconds of one stage over the prompts that had it (``n``)."""

    median: float | None
    max: float | None
    n: int


class UsageTable(TypedDict):
    """Summed model usage over the prompts and the median cost per prompt (USD)."""

    calls: int
    input_tokens: int
    output_tokens: int
    images: int
    video_seconds: float
    cost_usd: float
    unpriced: int
    cost_median_usd: float


class Failure(TypedDict):
    """A prompt that failed: its id, the error's type and first line."""

    id: str
    error_type: str
    error: str


class IssuesTotal(TypedDict):
    """Measured issues over all pages before and after reflection."""

    before: int
    after: int


class BenchSummary(TypedDict, total=False):
    """``summary.json``'s ``summary`` (the module docstring gives the shape); :func:`summarise`
    makes the aggregate, :func:`~mmstudio.studio.bench.run_bench` adds ``ran_now``,
    ``resumed``, ``wall_seconds`` and ``files``, the report ``figures``."""

    source: str
    provider: str
    rounds: int
    evaluate: bool
    jobs: int
    prompts: int
    finished: int
    failed: int
    failures: list[Failure]
    render_failures: list[str]
    seconds: Stats
    scores: dict[str, BeforeAfter]
    issues: dict[str, IssueRow]
    issues_total: IssuesTotal
    reflection: ReflectionTable | None
    fidelity: FidelityTable
    requirements: RequirementTable | None
    stages: dict[str, StageRow]
    usage: UsageTable | None
    ran_now: int
    resumed: int
    wall_seconds: float
    files: dict[str, str]
    figures: dict[str, str]


def stats(values: list[float | None]) -> Stats:
    """Median, mean, min, max and sum of the values present (None left out), rounded; n."""
    present = [v for v in values if v is not None]
    if not present:
        return {"median": None, "mean": None, "min": None, "max": None, "sum": 0, "n": 0}
    return {
        "median": round(statistics.median(present), 4),
        "mean": round(statistics.fmean(present), 4),
        "min": round(min(present), 4),
        "max": round(max(present), 4),
        "sum": round(sum(present), 4),
        "n": len(present),
    }


def score_table(records: list[BenchRecord]) -> dict[str, BeforeAfter]:
    """Per dimension and overall: stats of the scores before and after reflection."""
    return {
        key: {
            "before": stats([r["scores_before"].get(key) for r in records]),
            "after": stats([r["scores_after"].get(key) for r in records]),
        }
        for key in SCORE_KEYS
    }


def issue_table(records: list[BenchRecord]) -> dict[str, IssueRow]:
    """Per issue code: measured issues before/after over all pages and pages that had it."""
    table: dict[str, IssueRow] = {}

    def row(code: str) -> IssueRow:
        return table.setdefault(code, IssueRow(before=0, after=0, pages_before=0, pages_after=0))

    for record in records:
        for code, count in record["issues_before"].items():
            row(code)["before"] += count
            row(code)["pages_before"] += 1
        for code, count in record["issues_after"].items():
            row(code)["after"] += count
            row(code)["pages_after"] += 1
    return dict(sorted(table.items(), key=lambda kv: (-kv[1]["before"], kv[0])))


def reflection_table(records: list[BenchRecord]) -> ReflectionTable | None:
    """How reflection moved the overall score: pages improved / worse / unchanged, attempts."""
    reflected = [r for r in records if r.get("reflection")]
    if not reflected:
        return None
    deltas = [_delta(r) for r in reflected]
    briefs = [r["reflection"] for r in reflected]
    return {
        "pages": len(reflected),
        "improved": sum(d > 1e-9 for d in deltas),
        "worse": sum(d < -1e-9 for d in deltas),
        "unchanged": sum(abs(d) <= 1e-9 for d in deltas),
        "accepted": sum(b["accepted"] for b in briefs if b),
        "reverted": sum(b["reverted"] for b in briefs if b),
        "rounds_median": statistics.median(b["rounds"] for b in briefs if b),
        "stopped": _count(b["stopped"] for b in briefs if b),
    }


def _delta(record: BenchRecord) -> float:
    before = record["scores_before"].get("overall") or 0.0
    return (record["scores_after"].get("overall") or 0.0) - before


def _count(values) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def fidelity_table(records: list[BenchRecord]) -> FidelityTable:
    """Stats of quoted-string and hex-colour shares, and the prompts below the targets."""
    below: list[BelowTarget] = [
        {"id": r["id"], "quoted": r["fidelity"]["quoted"], "hex": r["fidelity"]["hex"]}
        for r in records
        if r["fidelity"]["quoted"] < QUOTE_TARGET or r["fidelity"]["hex"] < HEX_TARGET
    ]
    return {
        "quoted": stats([r["fidelity"]["quoted"] for r in records]),
        "hex": stats([r["fidelity"]["hex"] for r in records]),
        "targets": {"quoted": QUOTE_TARGET, "hex": HEX_TARGET},
        "below": below,
    }


def requirement_table(records: list[BenchRecord]) -> RequirementTable | None:
    """The brief's requirements over the pages: pass share per page (before and after
    reflection), per kind (after), and the share left unchecked; None when no page had any."""
    rows = [(r, after) for r in records if (after := r.get("requirements_after"))]
    if not rows:
        return None
    by_kind: dict[str, KindShare] = {}
    for _, after in rows:
        for kind, (passed, checked) in after["by_kind"].items():
            row = by_kind.setdefault(kind, KindShare(passed=0, checked=0, share=None))
            row["passed"] += passed
            row["checked"] += checked
    for row in by_kind.values():
        row["share"] = round(row["passed"] / row["checked"], 4) if row["checked"] else None
    checked = sum(after["checked"] for _, after in rows)
    unchecked = sum(after["unchecked"] for _, after in rows)
    return {
        "share": {
            "before": stats([_share_before(r) for r, _ in rows]),
            "after": stats([after["share"] for _, after in rows]),
        },
        "unchecked_share": round(unchecked / (checked + unchecked), 4) if checked else None,
        "by_kind": dict(sorted(by_kind.items())),
        "pages": [
            {
                "id": r["id"],
                "before": _share_before(r),
                "after": after["share"],
                "checked": after["checked"],
                "unchecked": after["unchecked"],
            }
            for r, after in rows
        ],
    }


def _share_before(record: BenchRecord) -> float | None:
    before = record.get("requirements_before")
    return before["share"] if before else None


def stage_table(records: list[BenchRecord]) -> dict[str, StageRow]:
    """Per stage (and ``total``): median and max seconds over the prompts that had it."""
    table: dict[str, StageRow] = {}
    for stage in (*STAGES, "total"):
        row = stats([r["stages"].get(stage) for r in records])
        table[stage] = {"median": row["median"], "max": row["max"], "n": row["n"]}
    return table


def usage_table(records: list[BenchRecord]) -> UsageTable | None:
    """Summed provider usage (tokens, images, video seconds, USD) and the median cost per prompt;
    None when no prompt used a model (the offline designer)."""
    used = [usage for r in records if (usage := r.get("usage"))]
    if not used:
        return None

    return {  # .get: a record written before a counter existed lacks it
        "calls": sum(u.get("calls") or 0 for u in used),
        "input_tokens": sum(u.get("input_tokens") or 0 for u in used),
        "output_tokens": sum(u.get("output_tokens") or 0 for u in used),
        "images": sum(u.get("images") or 0 for u in used),
        "video_seconds": sum(u.get("video_seconds") or 0 for u in used),
        "cost_usd": round(sum(u.get("cost_usd") or 0 for u in used), 6),
        "unpriced": sum(u.get("unpriced") or 0 for u in used),
        "cost_median_usd": round(statistics.median(r.get("cost_usd") or 0 for r in used), 6),
    }


def summarise(records: list[BenchRecord], options: BenchOptions, source: str = "") -> BenchSummary:
    """The aggregate of ``records`` (see the module docstring); ``options`` is the run's
    :class:`~mmstudio.studio.bench.BenchOptions`."""
    ok = [r for r in records if r.get("ok")]
    failed = [r for r in records if not r.get("ok")]
    return {
        "source": source,
        "provider": options.provider,
        "rounds": options.rounds,
        "evaluate": options.evaluate,
        "jobs": options.jobs,
        "prompts": len(records),
        "finished": len(ok),
        "failed": len(failed),
        "failures": [
            {"id": r["id"], "error_type": r.get("error_type", ""), "error": r.get("error", "")}
            for r in failed
        ],
        "render_failures": [r["id"] for r in ok if r.get("render_failed")],
        "seconds": stats([r["seconds"] for r in ok]),
        "scores": score_table(ok),
        "issues": issue_table(ok),
        "issues_total": {
            "before": sum(sum(r["issues_before"].values()) for r in ok),
            "after": sum(sum(r["issues_after"].values()) for r in ok),
        },
        "reflection": reflection_table(ok),
        "fidelity": fidelity_table(ok),
        "requirements": requirement_table(ok),
        "stages": stage_table(ok),
        "usage": usage_table(ok),
    }
