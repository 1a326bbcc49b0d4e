"""Median time per bench prompt of the offline main job (``mmstudio new``, offline designer).

    .venv/bin/python benchmarks/offline_bench.py [PROMPTS.jsonl] [-o OUT] [--limit N]

Generates one project per prompt, one after another, and prints medians (s per prompt; quoted
string and hex colour shares 0–1) and the slowest stages. Results stay in OUT/bench.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from collections import defaultdict
from pathlib import Path

from mmstudio.studio.bench import run_bench

DEFAULT_PROMPTS = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "bench" / "mm_webgen_dev.jsonl"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prompts", nargs="?", default=str(DEFAULT_PROMPTS))
    parser.add_argument("-o", "--output", default="bench-out")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    summary = asyncio.run(run_bench(Path(args.prompts), Path(args.output), limit=args.limit))
    print(json.dumps(summary, indent=2))
    rows = json.loads(Path(summary["results"]).read_text())["prompts"]
    stages: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for name, seconds in row.get("timings", {}).items():
            stages[name.split(":")[0]].append(seconds)
    print("median seconds per stage (per asset for 'asset'):")
    for name, values in sorted(stages.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"  {name:14} {statistics.median(values):7.3f}  (n={len(values)})")
    for row in rows:
        if not row["ok"] or row["quoted"] < 0.9 or row["hex"] < 0.8:
            print(f"below target: {row['id']} {row.get('error') or (row['quoted'], row['hex'])}")


if __name__ == "__main__":
    main()
