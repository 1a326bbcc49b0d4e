"""``mmstudio bench``: generate a project per prompt of a JSONL file and measure each run.

Each prompt runs on its own (one after another) so the per-prompt seconds are comparable; the
summary reports medians, never means, since these machines are noisy.
"""

from __future__ import annotations

import json
import logging
import shutil
import statistics
import time
from pathlib import Path

from mmstudio.pipeline.generate import ProgressCallback, no_progress
from mmstudio.project import atomic
from mmstudio.studio.create import new_project
from mmstudio.studio.fidelity import measure

log = logging.getLogger(__name__)


def read_prompts(path: Path, limit: int | None = None) -> list[dict]:
    """The ``{id, prompt}`` rows of a JSONL file; raises ValueError naming a bad line."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            rows.append({"id": str(row["id"]), "prompt": str(row["prompt"])})
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number} is not a {{id, prompt}} JSON line: {exc}") from None
    return rows[:limit] if limit else rows


async def _run_one(row: dict, out_dir: Path) -> dict:
    root = out_dir / row["id"]
    if (root / "mmstudio.json").exists():
        shutil.rmtree(root)
    started = time.perf_counter()
    try:
        result = await new_project(root, row["prompt"], progress=no_progress)
    except Exception as exc:  # one failing prompt is a result, not the end of the bench
        log.warning("prompt %s failed: %s", row["id"], exc)
        return {"id": row["id"], "ok": False, "error": str(exc).splitlines()[0]}
    seconds = time.perf_counter() - started
    fidelity = measure(row["prompt"], result.project.site_dir)
    return {
        "id": row["id"],
        "ok": True,
        "seconds": round(seconds, 3),
        "timings": result.timings,
        "quoted": round(fidelity.quote_share, 4),
        "hex": round(fidelity.colour_share, 4),
        "missing_quotes": [q for q in fidelity.quotes if q not in fidelity.quotes_found],
        "assets": len(list(result.plan.elements())),
    }


async def run_bench(
    prompts: Path,
    out_dir: Path,
    *,
    limit: int | None = None,
    progress: ProgressCallback = no_progress,
) -> dict:
    """Run every prompt; writes ``out_dir/bench.json`` and returns the summary (medians in s and
    0–1 shares)."""
    rows = read_prompts(prompts, limit)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for number, row in enumerate(rows, start=1):
        results.append(await _run_one(row, out_dir))
        progress("bench", number, len(rows), f"prompt {row['id']}")
    ok = [r for r in results if r["ok"]]
    summary = {
        "count": len(results),
        "failed": len(results) - len(ok),
        "median_seconds": statistics.median(r["seconds"] for r in ok) if ok else 0.0,
        "median_quoted": statistics.median(r["quoted"] for r in ok) if ok else 0.0,
        "min_quoted": min((r["quoted"] for r in ok), default=0.0),
        "median_hex": statistics.median(r["hex"] for r in ok) if ok else 0.0,
        "min_hex": min((r["hex"] for r in ok), default=0.0),
        "results": str(out_dir / "bench.json"),
    }
    atomic.write_json(out_dir / "bench.json", {"summary": summary, "prompts": results})
    return summary
