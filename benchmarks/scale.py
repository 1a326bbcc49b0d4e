"""Budget 7: scale — a plan with 40 images, 10 charts and 4 videos through the offline main job.

    .venv/bin/python benchmarks/scale.py [--images 40] [--charts 10] [--videos 4] [--rounds 3]

Runs ``new_project`` (plan → layout ∥ assets → render + evaluate → reflection) with the offline
designer on a generated plan of that size, and reports:
- wall time (s) per stage and in total;
- peak memory (MiB): of this process (``ru_maxrss``) and of its whole process tree (this process,
  Chromium, ffmpeg; proportional set sizes summed over ``/proc`` every 50 ms);
- that the concurrency caps hold: assets being made at once ≤ ``--concurrency`` (counted around the
  designer's calls), ffmpeg processes at once ≤ the same cap, and renders at once ≤ the browser
  pool's cap of 2 (four evaluations of the page started together, counted inside the render slot).
Exit status 1 when a cap is exceeded or the job fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mmstudio.evaluate import evaluate  # noqa: E402
from mmstudio.plan import DesignPlan  # noqa: E402
from mmstudio.providers.offline.designer import OfflineDesigner  # noqa: E402
from mmstudio.render import find_browser, get_renderer, renderer  # noqa: E402
from mmstudio.studio import create  # noqa: E402
from mmstudio.studio.bench_record import first_report, issues_by_code, reflection_brief  # noqa: E402

RENDER_CAP = 2  # BrowserPool's default max_concurrent
PAGE = 4096  # bytes per /proc statm page on Linux x86-64


PALETTE = [("background", "#faf7f2"), ("text", "#1f2430"), ("primary", "#2f6fde"),
           ("accent", "#f2994a")]  # fmt: skip
SLOT = {"display_width_px": 480, "display_height_px": 320}
DATA = {"columns": ["Month", "Visits"], "rows": [["Jan", 10], ["Feb", 14], ["Mar", 19]]}


def _element(kind: str, n: int, section: str, ext: str, **extra) -> dict:
    stem = f"{kind}{n:02d}"
    return {
        "id": stem,
        "save_path": f"assets/{stem}.{ext}",
        "prompt": f"{kind} {n}",
        "context": {"section": section, "role": kind},
        "alt": f"{kind} {n}",
        **SLOT,
        **extra,
    }


def _section(sid: str, kind: str, ids: list[str]) -> dict:
    return {"id": sid, "kind": kind, "title": sid.title(), "layout": "grid", "element_ids": ids}


def scale_plan(images: int, charts: int, videos: int) -> DesignPlan:
    """A page with a hero (first video), galleries of 8 images, a chart grid and a media row."""
    imgs = [_element("img", i, f"gallery{i // 8}", "webp", size="1024x1024") for i in range(images)]
    vids = [
        _element("vid", i, "hero" if i == 0 else "media", "webm",
                 poster_path=f"assets/vid{i:02d}.webp", seconds=4)
        for i in range(videos)
    ]  # fmt: skip
    kinds = ("bar", "line", "pie")
    chs = [
        _element("chart", i, "charts", "html", title=f"Chart {i}", source_data=DATA,
                 attributes={"chart_type": kinds[i % 3]})
        for i in range(charts)
    ]  # fmt: skip
    sections = [_section("hero", "hero", [v["id"] for v in vids[:1]])]
    for g in range((images + 7) // 8):
        ids = [e["id"] for e in imgs if e["context"]["section"] == f"gallery{g}"]
        sections.append(_section(f"gallery{g}", "gallery", ids))
    sections.append(_section("charts", "charts", [c["id"] for c in chs]))
    sections.append(_section("media", "content", [v["id"] for v in vids[1:]]))
    layout = {
        "palette": [{"role": r, "hex": h} for r, h in PALETTE],
        "typography": {"heading": "Georgia, serif", "body": "'DejaVu Sans', sans-serif"},
    }
    return DesignPlan.model_validate(
        {
            "title": "Scale test",
            "layout": layout,
            "images": imgs,
            "videos": vids,
            "charts": chs,
            "sections": [s for s in sections if s["element_ids"] or s["id"] == "hero"],
        }
    )


class Gauge:
    """Counts how many calls are in flight at once (event-loop side, no lock needed)."""

    def __init__(self) -> None:
        self.now = self.peak = 0

    def wrap(self, fn):
        async def counted(*args, **kwargs):
            self.now += 1
            self.peak = max(self.peak, self.now)
            try:
                return await fn(*args, **kwargs)
            finally:
                self.now -= 1

        return counted


class CountingDesigner(OfflineDesigner):
    """The offline designer returning the scale plan, counting assets in flight."""

    def __init__(self, plan: DesignPlan, gauge: Gauge) -> None:
        super().__init__()
        self._plan = plan
        self.image = gauge.wrap(super().image)
        self.video = gauge.wrap(super().video)
        self.chart_option = gauge.wrap(super().chart_option)

    async def plan(self, prompt: str) -> DesignPlan:
        return self._plan


class TreeSampler(threading.Thread):
    """Samples the resident memory (bytes) of this process tree and counts ffmpeg processes."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak_rss = self.peak_ffmpeg = self.phase_peak = 0
        self.stop = threading.Event()

    def phase(self) -> int:
        """The peak (bytes) since the last call, and start a new phase."""
        peak, self.phase_peak = self.phase_peak, 0
        return peak

    def run(self) -> None:
        while not self.stop.wait(0.05):
            rss, ffmpeg = tree_usage(os.getpid())
            self.peak_rss = max(self.peak_rss, rss)
            self.phase_peak = max(self.phase_peak, rss)
            self.peak_ffmpeg = max(self.peak_ffmpeg, ffmpeg)


def pss_bytes(pid: int) -> int:
    """Proportional set size (shared pages split among their users), else the resident set."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


def tree_usage(root: int) -> tuple[int, int]:
    """(resident bytes of ``root`` and its descendants, ffmpeg processes among them)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name_end = stat.rindex(")")
        names[int(entry)] = stat[stat.index("(") + 1 : name_end]
        parents[int(entry)] = int(stat[name_end + 2 :].split()[1])
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        kids = [p for p, parent in parents.items() if parent == pid and p not in tree]
        tree.update(kids)
        frontier += kids
    rss = 0
    for pid in tree:
        with contextlib.suppress(OSError, IndexError, ValueError):
            rss += pss_bytes(pid)
    return rss, sum("ffmpeg" in names.get(pid, "") for pid in tree)


async def renders_at_once(site: Path, out: Path, count: int = 4) -> int:
    """Start ``count`` evaluations of ``site`` together; the most renders seen inside the slot."""
    gauge = Gauge()
    real_run = renderer._Job.run

    async def run(self):
        return await gauge.wrap(real_run)(self)

    renderer._Job.run = run
    try:
        await asyncio.gather(*(evaluate(site, out_dir=out / f"r{i}") for i in range(count)))
    finally:
        renderer._Job.run = real_run
    return gauge.peak


async def bench(args, sampler: TreeSampler) -> dict:
    plan = scale_plan(args.images, args.charts, args.videos)
    gauge = Gauge()
    create.get_designer = lambda name, settings=None: CountingDesigner(plan, gauge)
    with tempfile.TemporaryDirectory(prefix="mmstudio-b7-") as tmp:
        t0 = time.perf_counter()
        made = await create.new_project(
            Path(tmp) / "scale", "scale test", rounds=args.rounds, concurrency=args.concurrency
        )
        wall = time.perf_counter() - t0
        job_peak = sampler.phase()
        renders = await renders_at_once(made.project.site_dir, Path(tmp) / "renders")
        report = made.project.read_report()
        before = issues_by_code(first_report(made.project))
    await get_renderer().close()
    return {
        "wall": wall,
        "job_peak": job_peak,
        "timings": made.timings,
        "assets_peak": gauge.peak,
        "renders_peak": renders,
        "overall": report.scores.overall if report else None,
        "issues": len(report.issues) if report else None,
        "reflection": reflection_brief(made.reflection),
        "issues_before": before,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=40)
    parser.add_argument("--charts", type=int, default=10)
    parser.add_argument("--videos", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    if find_browser().executable is None:
        print(find_browser().problem)
        return 2
    sampler = TreeSampler()
    sampler.start()
    result = asyncio.run(bench(args, sampler))
    sampler.stop.set()
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t = result["timings"]
    stages = ", ".join(f"{k} {v:.1f}" for k, v in t.items() if not k.startswith("asset:"))
    print(
        f"{args.images} images, {args.charts} charts, {args.videos} videos: wall "
        f"{result['wall']:.1f} s ({stages}); overall {result['overall']}, "
        f"{result['issues']} issues after, {result['issues_before']} before reflection; "
        f"reflection: {result['reflection']}"
    )
    print(
        f"peak memory: this process {own:.0f} MiB; process tree during the main job "
        f"{result['job_peak'] / 2**20:.0f} MiB, with 4 renders at once "
        f"{sampler.peak_rss / 2**20:.0f} MiB (proportional set sizes summed)"
    )
    caps = {
        "assets at once": (result["assets_peak"], args.concurrency),
        "ffmpeg at once": (sampler.peak_ffmpeg, args.concurrency),
        "renders at once": (result["renders_peak"], RENDER_CAP),
    }
    held = all(peak <= cap for peak, cap in caps.values())
    print("caps: " + ", ".join(f"{k} {p} (cap {c})" for k, (p, c) in caps.items()))
    print(
        f"budget 7: wall {result['wall']:.1f} s, peak tree memory "
        f"{result['job_peak'] / 2**20:.0f} MiB, caps {'HOLD' if held else 'EXCEEDED'}"
    )
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
