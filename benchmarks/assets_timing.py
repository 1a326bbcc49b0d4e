"""Median seconds per offline asset: image (paint + encode), video (frames + VP9), chart (page).

    .venv/bin/python benchmarks/assets_timing.py [--runs N] [--compare]

Each image role, each camera move and each chart type is timed ``--runs`` times (default 3) in a
temporary site folder; prints the median per kind and the slowest case. Images and videos are
subject scenes of icon motifs when the sets are installed (else abstract art). ``--compare``
times every image and video both ways, interleaved (so a busy machine slows both alike), and
prints the two medians and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from mmstudio.pipeline import charts
from mmstudio.plan import (
    ChartAttributes,
    ChartPlan,
    DataTable,
    DesignPlan,
    ElementContext,
    GlobalLayout,
    ImageAttributes,
    ImagePlan,
    PaletteColor,
    Section,
    Typography,
    VideoAttributes,
    VideoPlan,
)
from mmstudio.providers.offline import art, motifs, motion

ROLES = ("hero banner", "background", "illustration", "portrait", "product shot", "texture", "icon")
CAMERAS = ("static", "slow pan", "subtle zoom")
DATA = DataTable(
    columns=["Month", "Visits", "Signups"],
    rows=[[m, 1000 + 90 * i, 300 + 40 * i] for i, m in enumerate(("Jan", "Feb", "Mar", "Apr"))],
)


SUBJECTS = ("a bicycle in a city park", "a cup of coffee", "a potted plant", "a mountain lake")


def context(role: str, i: int = 0) -> dict:
    return {
        "context": ElementContext(section="main", role=role),
        "prompt": SUBJECTS[i % len(SUBJECTS)],
        "display_width_px": 640,
        "display_height_px": 400,
    }


def build_plan() -> DesignPlan:
    images = [
        ImagePlan(id=f"img{i}", save_path=f"assets/img{i}.webp", size="1536x1024",
                  attributes=ImageAttributes(color_tone="warm"), **context(role, i))
        for i, role in enumerate(ROLES)
    ]  # fmt: skip
    videos = [
        VideoPlan(id=f"vid{i}", save_path=f"assets/vid{i}.webm", poster_path=f"assets/vid{i}.webp",
                  attributes=VideoAttributes(camera_behavior=cam), **context("hero loop", i))
        for i, cam in enumerate(CAMERAS)
    ]  # fmt: skip
    chart_plans = [
        ChartPlan(id=f"chart{i}", save_path=f"assets/chart{i}.html", source_data=DATA,
                  attributes=ChartAttributes(chart_type=kind), **context("chart"))
        for i, kind in enumerate(charts.CHART_TYPES)
    ]  # fmt: skip
    palette = [("background", "#faf7f2"), ("text", "#1f2430"), ("primary", "#2f6fde"),
               ("accent", "#f2994a")]  # fmt: skip
    ids = [e.id for e in (*images, *videos, *chart_plans)]
    return DesignPlan(
        title="Benchmark",
        layout=GlobalLayout(
            palette=[PaletteColor(role=r, hex=h) for r, h in palette],
            typography=Typography(heading="serif", body="sans-serif"),
        ),
        sections=[Section(id="main", kind="hero", element_ids=ids)],
        images=images,
        videos=videos,
        charts=chart_plans,
    )


def timed(job: Callable[[], object], runs: int) -> float:
    """Median wall seconds of ``runs`` calls of ``job``."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        job()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def compare(plan: DesignPlan, runs: int) -> None:
    """Median seconds per image and per video, motif scenes vs abstract art, interleaved."""
    real = motifs.available
    samples: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        jobs = [("image", e, lambda e=e: art.encode_image(art.paint_image(e, plan), e.save_path))
                for e in plan.images]  # fmt: skip
        jobs += [("video", e, lambda e=e: motion.make_video(e, plan, site)) for e in plan.videos]
        for _ in range(runs):
            for kind, _element, job in jobs:
                for mode in ("motifs", "abstract"):
                    motifs.available = real if mode == "motifs" else (lambda: False)
                    started = time.perf_counter()
                    job()
                    samples.setdefault((kind, mode), []).append(time.perf_counter() - started)
    motifs.available = real
    for kind in ("image", "video"):
        new = statistics.median(samples[(kind, "motifs")])
        old = statistics.median(samples[(kind, "abstract")])
        print(f"{kind:6s} median: motif scenes {new:.3f} s, abstract art {old:.3f} s "
              f"(x{new / old:.2f}) over {len(samples[(kind, 'motifs')])} samples")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--compare", action="store_true")
    args = parser.parse_args()
    plan = build_plan()
    if args.compare:
        if not motifs.available():
            raise SystemExit(f"nothing to compare: {motifs.missing_reason()}")
        compare(plan, args.runs)
        return
    results: dict[str, dict[str, float]] = {"image": {}, "video": {}, "chart": {}}
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        for e in plan.images:
            job = lambda e=e: art.encode_image(art.paint_image(e, plan), e.save_path)  # noqa: E731
            results["image"][e.context.role] = timed(job, args.runs)
        for e in plan.videos:
            job = lambda e=e: motion.make_video(e, plan, site)  # noqa: E731
            results["video"][e.attributes.camera_behavior] = timed(job, args.runs)
        for e in plan.charts:
            job = lambda e=e: charts.write_chart(e, plan, site)  # noqa: E731
            results["chart"][e.attributes.chart_type] = timed(job, args.runs)
    for kind, cases in results.items():
        slowest = max(cases, key=cases.__getitem__)
        median = statistics.median(cases.values())
        print(
            f"{kind:6s} median {median:.3f} s over {len(cases)} cases x {args.runs} runs; "
            f"slowest {slowest!r} {cases[slowest]:.3f} s"
        )


if __name__ == "__main__":
    main()
