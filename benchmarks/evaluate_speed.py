#!/usr/bin/env python3
"""Warm render + full evaluation time of one page (target: median ≤ 2 s; MM Studio issue 3).

The browser starts once (timed separately as the cold start); then the page is evaluated
``--runs`` times in the same process and the median wall time is printed.

Usage: python benchmarks/evaluate_speed.py [PAGE_OR_SITE ...] [--runs N] [--viewport W]
(default pages: tests/cases/good and, when present, the first FronTalk reference site).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mmstudio.evaluate import evaluate  # noqa: E402
from mmstudio.render import find_browser, get_renderer  # noqa: E402

FRONTALK = ROOT.parent / "shared" / "data" / "frontalk" / "sites"


def default_pages() -> list[Path]:
    pages = [ROOT / "tests" / "cases" / "good"]
    if FRONTALK.is_dir():
        pages += sorted(p for p in FRONTALK.iterdir() if p.is_dir())[:1]
    return pages


async def bench(pages: list[Path], runs: int, viewport: int) -> float:
    started = time.perf_counter()
    await get_renderer().start()
    print(f"browser cold start: {time.perf_counter() - started:.2f} s ({find_browser().version})")
    medians = []
    with tempfile.TemporaryDirectory(prefix="mmstudio-bench-") as tmp:
        for page in pages:
            times = []
            for run in range(runs + 1):
                t0 = time.perf_counter()
                report = await evaluate(page, viewport_width=viewport, out_dir=Path(tmp) / str(run))
                if run:  # the first evaluation warms the page caches; not counted
                    times.append(time.perf_counter() - t0)
            median = statistics.median(times)
            medians.append(median)
            print(
                f"{page.name}: median {median:.2f} s, min {min(times):.2f}, max {max(times):.2f} "
                f"over {runs} runs; {len(report.issues)} issues, overall {report.scores.overall}"
            )
    await get_renderer().close()
    return statistics.median(medians)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--viewport", type=int, default=1280)
    args = parser.parse_args()
    if find_browser().executable is None:
        print(find_browser().problem)
        return 2
    median = asyncio.run(bench(args.pages or default_pages(), args.runs, args.viewport))
    verdict = "OK" if median <= 2.0 else "SLOW"
    print(f"warm render + evaluate median: {median:.2f} s (target ≤ 2 s) {verdict}")
    return 0 if median <= 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
