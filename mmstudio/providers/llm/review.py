"""The evaluate hook: judge a rendered site with the model and merge into its measured Report.

:func:`judge_site` gathers the evidence (``index.html``, the full-page screenshot, per-element
crops from the render, frames sampled from each video file), runs the :class:`.judge.Judge` and
returns the merged report (:func:`.merge.merge_judgement`), the judge's notices and its usage.
The provider's HTTP client is closed before it returns.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from mmstudio.plan import DesignPlan
from mmstudio.providers import transcode
from mmstudio.providers.llm.judge import Judge, PageEvidence, briefs
from mmstudio.providers.llm.merge import merge_judgement
from mmstudio.providers.models import Models
from mmstudio.providers.protocols import ChatModel
from mmstudio.providers.settings import Settings
from mmstudio.providers.usage import UsageLog
from mmstudio.report import Report

log = logging.getLogger(__name__)


@dataclass
class Review:
    """The merged ``report``, the judge's ``notices`` (what it could not judge) and ``usage``."""

    report: Report
    notices: list[str]
    usage: UsageLog


def _read(path: Path | str | None) -> bytes | None:
    if not path:
        return None
    path = Path(path)
    return path.read_bytes() if path.is_file() else None


def _frames(videos: dict[str, Path], count: int) -> dict[str, list[bytes]]:
    frames: dict[str, list[bytes]] = {}
    for element_id, source in videos.items():
        if not source.is_file():
            continue
        try:
            frames[element_id] = transcode.sample_frames(source, count)
        except RuntimeError as exc:  # an unreadable video is the measured checks' finding
            log.warning("judge: no frames from %s: %s", source.name, exc)
    return frames


def _video_files(plan: DesignPlan | None, report: Report, site_dir: Path) -> dict[str, Path]:
    """{id: file} of every video: planned ``save_path``s, then videos the report discovered."""
    files = {v.id: site_dir / v.save_path for v in plan.videos} if plan else {}
    for element in report.elements:
        if element.kind == "video" and element.id not in files and element.path:
            local = element.path.split("?")[0].split("#")[0]
            if "://" not in local:
                files[element.id] = site_dir / local
    return files


def render_crops(element_ids: list[str], folder: Path) -> dict[str, str]:
    """{element id: crop path} for the elements whose ``<id>.png`` crop exists in ``folder``."""
    paths = {key: folder / f"{key}.png" for key in element_ids}
    return {key: str(path) for key, path in paths.items() if path.is_file()}


async def gather_evidence(
    site_dir: Path,
    *,
    screenshot: Path | str | None = None,
    crops: dict[str, str] | None = None,
    videos: dict[str, Path] | None = None,
    frames_per_video: int = 4,
) -> PageEvidence:
    """The judge's evidence from files: ``site_dir/index.html``, the ``screenshot`` PNG, the
    ``crops`` {element id: PNG path} of :func:`mmstudio.render.crops.save_crops`, and
    ``frames_per_video`` frames of each of the ``videos`` {element id: file}."""
    html = (site_dir / "index.html").read_text(encoding="utf-8", errors="replace")
    crop_bytes = {key: data for key, path in (crops or {}).items() if (data := _read(path))}
    frames = await asyncio.to_thread(_frames, videos or {}, frames_per_video)
    return PageEvidence(html, _read(screenshot), crop_bytes, frames)


async def judge_site(
    report: Report,
    plan: DesignPlan | None,
    site_dir: Path,
    settings: Settings,
    *,
    screenshot: Path | str | None = None,
    crops: dict[str, str] | None = None,
    chat: ChatModel | None = None,
    models: Models | None = None,
) -> Review:
    """Judge the site and merge with the measured ``report``. ``plan`` may be None (a site
    without one: elements come from the report). ``screenshot`` defaults to
    ``report.render.screenshot`` and ``crops`` to the renderer's ``crops/<id>.png`` beside it.
    ``models``: a :class:`~..models.Models` bundle to judge with (its client stays open); without
    one (and without ``chat``) a bundle is made from ``settings`` and closed before returning.
    Never raises for a judge failure: see the notices."""
    site_dir = Path(site_dir)
    discovered = {e.id: e.kind for e in report.elements}
    screenshot = screenshot or report.render.screenshot
    if crops is None and screenshot:
        ids = [b.id for b in briefs(plan, discovered)]
        crops = render_crops(ids, Path(screenshot).parent / "crops")
    evidence = await gather_evidence(
        site_dir, screenshot=screenshot, crops=crops,
        videos=_video_files(plan, report, site_dir),
    )  # fmt: skip
    owned = Models(settings) if chat is None and models is None else None
    bundle = models or owned
    started = time.perf_counter()
    try:
        judge = Judge(settings, chat or bundle.provider, models=bundle)  # type: ignore[union-attr]
        judgement = await judge.judge(plan, evidence, discovered)
    finally:
        if owned is not None:
            await owned.aclose()
    merged = merge_judgement(report, judgement, seconds=time.perf_counter() - started)
    usage = bundle.usage if chat is None and bundle else getattr(chat, "usage", UsageLog())
    return Review(merged, judgement.notices, usage)


#: ``await measure(page_html_path, plan, out_dir) -> Report`` (the refine layer's Evaluator)
Measure = Callable[[Path, DesignPlan | None, Path], Awaitable[Report]]


def judged_evaluator(models: Models, measure: Measure) -> Measure:
    """An evaluator that scores like ``measure`` (render + measured checks) and then judges the
    page with ``models``' judge (:func:`judge_site`, merged): what a reflection trial needs to
    be judged by the same evaluator as its baseline. A failed render is returned unjudged. The
    bundle's client stays open (its owner closes it); every judge call's usage lands in
    ``models.usage``."""

    async def evaluate(page: Path, plan: DesignPlan | None, out: Path) -> Report:
        report = await measure(page, plan, out)
        if report.failed:
            return report
        review = await judge_site(report, plan, Path(page).parent, models.settings, models=models)
        return review.report

    return evaluate
