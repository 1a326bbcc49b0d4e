#!/usr/bin/env python3
"""Warm evaluation of a multi-page site (target: median ≤ 4 s for a 5-page site, issue 16),
beside a one-page site of the same look for scale.

Both sites are generated offline from a short brief into a temp folder; the browser starts
once (timed as the cold start); each site is evaluated ``--runs`` + 1 times against its brief in
the same process, the first (page caches warming) not counted, and the median wall time is
printed with the per-page figures of the last run.

Usage: python benchmarks/pages_speed.py [--runs N] [--brief TEXT]
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
from mmstudio.pipeline.generate import build_site  # noqa: E402
from mmstudio.providers.offline.designer import OfflineDesigner  # noqa: E402
from mmstudio.render import find_browser, get_renderer  # noqa: E402

TARGET_S = 4.0
FIVE_PAGES = (
    "A multi-page site for Nove, a cafe in Porto, with Home, Menu, About, Events and Contact "
    "pages: a hero photo on the home page, a menu of coffees with prices, the founder's story, "
    "a list of tasting events and a contact form."
)
ONE_PAGE = (
    "A landing page for Nove, a cafe in Porto, with a hero photo, a menu of coffees with "
    "prices, the founder's story and a contact form."
)


async def _site(brief: str, folder: Path):
    designer = OfflineDesigner()
    plan = await designer.plan(brief)
    site = folder / "site"
    site.mkdir(parents=True)
    await build_site(plan, designer, site)
    return plan, site


async def _time(plan, site: Path, brief: str, runs: int, tmp: Path) -> tuple[list[float], object]:
    times, report = [], None
    for run in range(runs + 1):
        t0 = time.perf_counter()
        report = await evaluate(site, plan=plan, brief=brief, out_dir=tmp / f"out-{run}")
        if run:
            times.append(time.perf_counter() - t0)
    return times, report


async def bench(runs: int, brief: str) -> float:
    started = time.perf_counter()
    await get_renderer().start()
    print(f"browser cold start: {time.perf_counter() - started:.2f} s ({find_browser().version})")
    results = {}
    with tempfile.TemporaryDirectory(prefix="mmstudio-pages-") as tmp:
        for name, text in (("one page", ONE_PAGE), ("site", brief)):
            folder = Path(tmp) / name.replace(" ", "-")
            plan, site = await _site(text, folder)
            times, report = await _time(plan, site, text, runs, folder)
            median = statistics.median(times)
            results[name] = median
            pages = len(plan.site_pages())
            print(
                f"{name} ({pages} page{'s' if pages > 1 else ''}, {len(report.requirements)} "
                f"requirements): median {median:.2f} s, min {min(times):.2f}, max "
                f"{max(times):.2f} over {runs} runs; {len(report.issues)} issues, overall "
                f"{report.scores.overall}"
            )
            for row in report.pages:
                print(f"  {row.path}: {row.issues} issues, layout {row.scores.layout}")
            if report.pages:
                print(f"  render of every page: {report.timings.get('render_pages_s')} s")
    await get_renderer().close()
    print(f"site / one page: {results['site'] / results['one page']:.2f}×")
    return results["site"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--brief", default=FIVE_PAGES, help="the multi-page brief")
    args = parser.parse_args()
    median = asyncio.run(bench(args.runs, args.brief))
    ok = median <= TARGET_S
    print(f"median {median:.2f} s (target ≤ {TARGET_S} s): {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
