"""Budget 2: the offline main job over the 40 dev prompts, reflection included.

    .venv/bin/python benchmarks/offline_bench.py [PROMPTS.jsonl] [-o OUT] [--limit N]
        [--rounds 3] [--results benchmarks/results]

Goal: median ≤ 20 s per prompt on a 2-core machine (plan, layout ∥ assets, render + evaluate,
up to ``--rounds`` rounds of reflection — what ``mmstudio new`` does).

Runs ``mmstudio bench`` (``run_bench``: one prompt at a time, resumable — a rerun with the same OUT
only summarises) and prints the median and max seconds per prompt, the slowest prompts and the
median seconds per stage. With ``--results DIR`` it copies ``summary.md``, ``summary.json`` and
the figures into DIR (the committed ``benchmarks/results/``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mmstudio.render import get_renderer  # noqa: E402
from mmstudio.studio.bench import BenchOptions, run_bench  # noqa: E402

DEFAULT_PROMPTS = ROOT.parent / "shared" / "data" / "bench" / "mm_webgen_dev.jsonl"
GOAL_S = 20.0


def progress(stage: str, done: int, total: int, detail: str) -> None:
    print(f"[{stage} {done}/{total}] {detail}", file=sys.stderr, flush=True)


async def run(args) -> dict:
    try:
        options = BenchOptions(rounds=args.rounds)
        return await run_bench(
            Path(args.prompts), Path(args.output), limit=args.limit, options=options,
            progress=progress,
        )  # fmt: skip
    finally:
        await get_renderer().close()


def copy_results(out: Path, dest: Path) -> None:
    """summary.md, summary.json and figures/ of ``out`` into ``dest`` (replacing old figures)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("summary.md", "summary.json"):
        shutil.copyfile(out / name, dest / name)
    shutil.rmtree(dest / "figures", ignore_errors=True)
    shutil.copytree(out / "figures", dest / "figures")
    print(f"copied the summary and figures to {dest}")


def report(summary: dict, records: list[dict]) -> bool:
    """Print the budget's figures; True when the goal is met."""
    sec = summary["seconds"]
    ok = [r for r in records if r.get("ok")]
    slowest = sorted(ok, key=lambda r: -r["seconds"])[:5]
    print("slowest prompts: " + ", ".join(f"{r['id']} {r['seconds']:.1f} s" for r in slowest))
    print("median seconds per stage: " + ", ".join(
        f"{k} {v['median']:.2f}" for k, v in summary["stages"].items() if v["n"]
    ))  # fmt: skip
    met = summary["failed"] == 0 and sec["median"] is not None and sec["median"] <= GOAL_S
    print(f"budget 2: {summary['finished']}/{summary['prompts']} prompts, median "
          f"{sec['median']:.2f} s, max {sec['max']:.2f} s per prompt (goal median ≤ {GOAL_S} s, "
          f"reflection ≤ {summary['rounds']} rounds): {'MET' if met else 'MISSED'}")  # fmt: skip
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prompts", nargs="?", default=str(DEFAULT_PROMPTS))
    parser.add_argument("-o", "--output", default="bench-out")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", type=Path, help="copy summary and figures here")
    args = parser.parse_args()
    summary = asyncio.run(run(args))
    records = json.loads(Path(summary["files"]["json"]).read_text(encoding="utf-8"))["prompts"]
    met = report(summary, records)
    if args.results:
        copy_results(Path(args.output), args.results)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
