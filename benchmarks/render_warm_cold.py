"""Budget 3: render + full evaluation in the warm shared browser vs a cold browser per render.

    .venv/bin/python benchmarks/render_warm_cold.py [PAGE_OR_SITE ...] [--runs N] [--cold-runs N]

Goal: warm median ≤ 2 s and cold / warm ≥ 3×.

warm  ``mmstudio.evaluate.evaluate`` in the process's one warm Chromium (started and warmed up
      once, not counted): its settle script loads lazy media, scrolls once and jumps finite
      animations to their end, waiting only as long as the page needs (≤ 1.5 s for media).
cold  the procedure of the MM-WebAgent reference code: launch a fresh Chromium for each render,
      load the page, wait a fixed 2.5 s, then scroll viewport by viewport (a 100 ms pause and a
      viewport screenshot at each stop), then the same probe, screenshots and measured checks,
      and close that Chromium. Launch and close are counted: they are part of each render.

Default pages: ``tests/cases/good`` and the first four FronTalk reference sites (real LLM
output). Prints per page the medians (s) and the ratio, then the medians over pages.
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
from mmstudio.evaluate.core import build_report, resolve_target  # noqa: E402
from mmstudio.render import Timeouts, find_browser, get_renderer, renderer  # noqa: E402
from mmstudio.render.browser import BrowserPool  # noqa: E402

FRONTALK = ROOT.parent / "shared" / "data" / "frontalk" / "sites"
SETTLE_S, SCROLL_PAUSE_S = 2.5, 0.1
WARM_GOAL_S, RATIO_GOAL = 2.0, 3.0


class ReferenceJob(renderer._Job):
    """A render whose settle step is the reference procedure: a fixed wait, then viewport-by-
    viewport scrolling with a screenshot at each stop."""

    async def _settle(self) -> dict:
        await asyncio.sleep(SETTLE_S)
        height = await self.page.evaluate("() => document.documentElement.scrollHeight")
        step = self.result.viewport["height"]
        stops = 0
        for top in range(0, max(1, height), step):
            await self.page.evaluate("y => window.scrollTo(0, y)", top)
            await asyncio.sleep(SCROLL_PAUSE_S)
            await self.page.screenshot(path=self.out / f"viewport-{stops:02d}.png")
            stops += 1
        await self.page.evaluate("() => window.scrollTo(0, 0)")
        return {"stops": stops, "ms": 0, "pending": 0}


def default_pages() -> list[Path]:
    pages = [ROOT / "tests" / "cases" / "good"]
    if FRONTALK.is_dir():
        pages += sorted(p for p in FRONTALK.iterdir() if p.is_dir())[:4]
    return pages


async def warm_once(page: Path, out: Path) -> float:
    t0 = time.perf_counter()
    await evaluate(page, out_dir=out)
    return time.perf_counter() - t0


async def cold_once(page: Path, out: Path) -> float:
    """One render + evaluation with a browser of its own (launched and closed inside)."""
    site_dir, name, plan = resolve_target(page)
    t0 = time.perf_counter()
    cold = renderer.Renderer(BrowserPool(), Timeouts(step_s=60.0, total_s=120.0))
    renderer._Job = ReferenceJob  # only this render: restored before anything else renders
    try:
        async with cold:
            render = await cold.render(site_dir, name, 1280, out, extra_viewports=(390,))
    finally:
        renderer._Job = _WARM_JOB
    await asyncio.to_thread(build_report, render, plan)
    if render.failure:
        print(f"  cold render of {page.name} failed: {render.failure}")
    return time.perf_counter() - t0


_WARM_JOB = renderer._Job


async def bench(pages: list[Path], runs: int, cold_runs: int) -> tuple[list[float], list[float]]:
    await get_renderer().start()
    warm_medians, cold_medians = [], []
    with tempfile.TemporaryDirectory(prefix="mmstudio-b3-") as tmp:
        for n, page in enumerate(pages):
            out = Path(tmp) / str(n)
            await warm_once(page, out / "warmup")  # page caches and fonts warm, not counted
            warm = [await warm_once(page, out / f"w{i}") for i in range(runs)]
            cold = [await cold_once(page, out / f"c{i}") for i in range(cold_runs)]
            w, c = statistics.median(warm), statistics.median(cold)
            warm_medians.append(w)
            cold_medians.append(c)
            print(f"{page.name[:24]:24} warm {w:5.2f} s (max {max(warm):.2f})   "
                  f"cold {c:5.2f} s   ratio {c / w:4.1f}×", flush=True)  # fmt: skip
    await get_renderer().close()
    return warm_medians, cold_medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=5, help="warm evaluations per page")
    parser.add_argument("--cold-runs", type=int, default=2, help="cold evaluations per page")
    args = parser.parse_args()
    if find_browser().executable is None:
        print(find_browser().problem)
        return 2
    pages = args.pages or default_pages()
    warm, cold = asyncio.run(bench(pages, args.runs, args.cold_runs))
    w, c = statistics.median(warm), statistics.median(cold)
    met = w <= WARM_GOAL_S and c / w >= RATIO_GOAL
    print(f"budget 3: warm median {w:.2f} s (goal ≤ {WARM_GOAL_S} s), cold median {c:.2f} s, "
          f"ratio {c / w:.1f}× (goal ≥ {RATIO_GOAL}×) over {len(pages)} pages: "
          f"{'MET' if met else 'MISSED'}")  # fmt: skip
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
