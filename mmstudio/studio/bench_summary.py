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
"""

from __future__ import annotations

import statistics
from typing import Any

from mmstudio.studio.bench_record import SCORE_KEYS, STAGES

QUOTE_TARGET, HEX_TARGET = 0.9, 0.8  # issue 2's bar per prompt (quoted strings, hex colours)
_USAGE_KEYS = ("calls", "input_tokens", "output_tokens", "images", "video_seconds", "cost_usd")


def stats(values: list[float | None]) -> dict[str, Any]:
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


def score_table(records: list[dict]) -> dict[str, dict]:
    """Per dimension and overall: stats of the scores before and after reflection."""
    return {
        key: {
            "before": stats([r["scores_before"].get(key) for r in records]),
            "after": stats([r["scores_after"].get(key) for r in records]),
        }
        for key in SCORE_KEYS
    }


def issue_table(records: list[dict]) -> dict[str, dict[str, int]]:
    """Per issue code: measured issues before/after over all pages and pages that had it."""
    table: dict[str, dict[str, int]] = {}
    for record in records:
        for side in ("before", "after"):
            for code, count in record[f"issues_{side}"].items():
                row = table.setdefault(code, dict.fromkeys(_ISSUE_COLUMNS, 0))
                row[side] += count
                row[f"pages_{side}"] += 1
    return dict(sorted(table.items(), key=lambda kv: (-kv[1]["before"], kv[0])))


_ISSUE_COLUMNS = ("before", "after", "pages_before", "pages_after")


def reflection_table(records: list[dict]) -> dict[str, Any] | None:
    """How reflection moved the overall score: pages improved / worse / unchanged, attempts."""
    reflected = [r for r in records if r.get("reflection")]
    if not reflected:
        return None
    deltas = [_delta(r) for r in reflected]
    return {
        "pages": len(reflected),
        "improved": sum(d > 1e-9 for d in deltas),
        "worse": sum(d < -1e-9 for d in deltas),
        "unchanged": sum(abs(d) <= 1e-9 for d in deltas),
        "accepted": sum(r["reflection"]["accepted"] for r in reflected),
        "reverted": sum(r["reflection"]["reverted"] for r in reflected),
        "rounds_median": statistics.median(r["reflection"]["rounds"] for r in reflected),
        "stopped": _count(r["reflection"]["stopped"] for r in reflected),
    }


def _delta(record: dict) -> float:
    before = record["scores_before"].get("overall") or 0.0
    return (record["scores_after"].get("overall") or 0.0) - before


def _count(values) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def fidelity_table(records: list[dict]) -> dict[str, Any]:
    """Stats of quoted-string and hex-colour shares, and the prompts below the targets."""
    below = [
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


def requirement_table(records: list[dict]) -> dict[str, Any] | None:
    """The brief's requirements over the pages: pass share per page (before and after
    reflection), per kind (after), and the share left unchecked; None when no page had any."""
    rows = [r for r in records if r.get("requirements_after")]
    if not rows:
        return None
    by_kind: dict[str, dict[str, Any]] = {}
    for record in rows:
        for kind, (passed, checked) in record["requirements_after"]["by_kind"].items():
            row = by_kind.setdefault(kind, {"passed": 0, "checked": 0})
            row["passed"] += passed
            row["checked"] += checked
    for row in by_kind.values():
        row["share"] = round(row["passed"] / row["checked"], 4) if row["checked"] else None
    checked = sum(r["requirements_after"]["checked"] for r in rows)
    unchecked = sum(r["requirements_after"]["unchecked"] for r in rows)
    return {
        "share": {
            "before": stats([(r.get("requirements_before") or {}).get("share") for r in rows]),
            "after": stats([r["requirements_after"]["share"] for r in rows]),
        },
        "unchecked_share": round(unchecked / (checked + unchecked), 4) if checked else None,
        "by_kind": dict(sorted(by_kind.items())),
        "pages": [
            {
                "id": r["id"],
                "before": (r.get("requirements_before") or {}).get("share"),
                "after": r["requirements_after"]["share"],
                "checked": r["requirements_after"]["checked"],
                "unchecked": r["requirements_after"]["unchecked"],
            }
            for r in rows
        ],
    }


def stage_table(records: list[dict]) -> dict[str, dict]:
    """Per stage (and ``total``): median and max seconds over the prompts that had it."""
    table = {}
    for stage in (*STAGES, "total"):
        row = stats([r["stages"].get(stage) for r in records])
        table[stage] = {"median": row["median"], "max": row["max"], "n": row["n"]}
    return table


def usage_table(records: list[dict]) -> dict[str, Any] | None:
    """Summed provider usage (tokens, images, video seconds, USD) and the median cost per prompt;
    None when no prompt used a model (the offline designer)."""
    used = [r["usage"] for r in records if r.get("usage")]
    if not used:
        return None
    total: dict[str, Any] = {key: 0 for key in (*_USAGE_KEYS, "unpriced")}
    for row in used:
        for key in total:
            total[key] += row.get(key) or 0
    total["cost_usd"] = round(total["cost_usd"], 6)
    total["cost_median_usd"] = round(statistics.median(r.get("cost_usd") or 0 for r in used), 6)
    return total


def summarise(records: list[dict], options: Any, source: str = "") -> dict[str, Any]:
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
            side: sum(sum(r[f"issues_{side}"].values()) for r in ok) for side in ("before", "after")
        },
        "reflection": reflection_table(ok),
        "fidelity": fidelity_table(ok),
        "requirements": requirement_table(ok),
        "stages": stage_table(ok),
        "usage": usage_table(ok),
    }
