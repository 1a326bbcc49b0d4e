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
from dataclasses import dataclass
from pathlib import Path

from mmstudio.plan import DesignPlan
from mmstudio.providers import transcode
from mmstudio.providers.llm.judge import Judge, PageEvidence
from mmstudio.providers.llm.merge import merge_judgement
from mmstudio.providers.openai_compat import OpenAIProvider
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


def _frames(plan: DesignPlan, site_dir: Path, count: int) -> dict[str, list[bytes]]:
    frames: dict[str, list[bytes]] = {}
    for video in plan.videos:
        source = site_dir / video.save_path
        if not source.is_file():
            continue
        try:
            frames[video.id] = transcode.sample_frames(source, count)
        except RuntimeError as exc:  # an unreadable video is the measured checks' finding
            log.warning("judge: no frames from %s: %s", video.save_path, exc)
    return frames


def render_crops(plan: DesignPlan, folder: Path) -> dict[str, str]:
    """{element id: crop path} for the planned elements whose crop exists in ``folder``."""
    paths = {e.id: folder / f"{e.id}.png" for e in plan.elements()}
    return {key: str(path) for key, path in paths.items() if path.is_file()}


async def gather_evidence(
    plan: DesignPlan,
    site_dir: Path,
    *,
    screenshot: Path | str | None = None,
    crops: dict[str, str] | None = None,
    frames_per_video: int = 4,
) -> PageEvidence:
    """The judge's evidence from files: ``site_dir/index.html``, the ``screenshot`` PNG, the
    ``crops`` {element id: PNG path} of :func:`mmstudio.render.crops.save_crops`, and
    ``frames_per_video`` frames of each video."""
    html = (site_dir / "index.html").read_text(encoding="utf-8", errors="replace")
    crop_bytes = {key: data for key, path in (crops or {}).items() if (data := _read(path))}
    frames = await asyncio.to_thread(_frames, plan, site_dir, frames_per_video)
    return PageEvidence(html, _read(screenshot), crop_bytes, frames)


async def judge_site(
    report: Report,
    plan: DesignPlan,
    site_dir: Path,
    settings: Settings,
    *,
    screenshot: Path | str | None = None,
    crops: dict[str, str] | None = None,
    chat: ChatModel | None = None,
) -> Review:
    """Judge the site and merge with the measured ``report``. ``screenshot`` defaults to
    ``report.render.screenshot`` and ``crops`` to the renderer's ``crops/<id>.png`` beside it.
    Never raises for a judge failure: see the notices."""
    screenshot = screenshot or report.render.screenshot
    if crops is None and screenshot:
        crops = render_crops(plan, Path(screenshot).parent / "crops")
    evidence = await gather_evidence(plan, Path(site_dir), screenshot=screenshot, crops=crops)
    provider = OpenAIProvider(settings) if chat is None else None
    started = time.perf_counter()
    try:
        judgement = await Judge(settings, chat or provider).judge(plan, evidence)  # type: ignore[arg-type]
    finally:
        if provider is not None:
            await provider.aclose()
    merged = merge_judgement(report, judgement, seconds=time.perf_counter() - started)
    usage = provider.usage if provider is not None else getattr(chat, "usage", UsageLog())
    return Review(merged, judgement.notices, usage)
