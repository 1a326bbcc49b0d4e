#!/usr/bin/env python3
"""Warm render + full evaluation time of one page (target: median ≤ 1.5 s for a bench page
checked against its brief, issue 13; ≤ 2 s before it, issue 3).

The browser starts once (timed separately as the cold start); then the page is evaluated
``--runs`` times in the same process and the median wall time is printed. A page folder with a
``prompt.txt`` (the calibration pages under ``tests/calibration/pages/``) is checked against
that brief, and also timed without it (``brief=""``) in the same run, so the ratio of the two
says what the requirement checks cost.

Usage: python benchmarks/evaluate_speed.py [PAGE_OR_SITE ...] [--runs N] [--viewport W]
(default pages: tests/cases/good, the calibration page 001 and, when present, the first FronTalk
reference site).
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


TARGET_S = 1.5


def default_pages() -> list[Path]:
    pages = [ROOT / "tests" / "cases" / "good", ROOT / "tests" / "calibration" / "pages" / "001"]
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
            site = _with_vendor(page, Path(tmp))
            brief_file = site / "prompt.txt"
            briefs = (
                [brief_file.read_text(encoding="utf-8"), ""] if brief_file.is_file() else [None]
            )
            per_brief = []
            for brief in briefs:
                times = []
                for run in range(runs + 1):
                    t0 = time.perf_counter()
                    out = Path(tmp) / "out" / str(run)
                    report = await evaluate(site, viewport_width=viewport, out_dir=out, brief=brief)
                    if run:  # the first evaluation warms the page caches; not counted
                        times.append(time.perf_counter() - t0)
                median = statistics.median(times)
                per_brief.append(median)
                what = "no brief" if not brief else f"{len(report.requirements)} requirements"
                print(
                    f"{page.name} ({what}): median {median:.2f} s, min {min(times):.2f}, max "
                    f"{max(times):.2f} over {runs} runs; {len(report.issues)} issues, overall "
                    f"{report.scores.overall}"
                )
            medians.append(per_brief[0])
            if len(per_brief) == 2:
                print(f"{page.name}: with the brief / without: {per_brief[0] / per_brief[1]:.2f}×")
    await get_renderer().close()
    return statistics.median(medians)


def _with_vendor(page: Path, tmp: Path) -> Path:
    """A calibration page (stored without ``vendor/``) copied with the vendored ECharts."""
    if not (page / "prompt.txt").is_file() or (page / "vendor").exists():
        return page
    import shutil

    site = tmp / f"site-{page.name}"
    shutil.copytree(page, site)
    shutil.copytree(ROOT / "resources" / "vendor", site / "vendor")
    return site


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
    verdict = "OK" if median <= TARGET_S else "SLOW"
    print(f"warm render + evaluate median: {median:.2f} s (target ≤ {TARGET_S} s) {verdict}")
    return 0 if median <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
