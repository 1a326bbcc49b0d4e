"""The built-in offline designer: deterministic planner, layout and procedural assets, no network.

CPU-bound work (Pillow, ffmpeg) runs in worker threads so the event loop (CLI or Qt through
qasync) stays responsive; the pipeline caps how many run at once. An asset's thread runs to its
end even when its task is cancelled (:func:`~mmstudio.threads.run_to_end`), so no thread writes
into a site folder after the generation that owns it has stopped and cleaned up.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mmstudio.pipeline import charts
from mmstudio.plan import ChartPlan, DesignPlan, ImagePlan, VideoPlan
from mmstudio.providers.offline import art, layout, motifs, motion, planner
from mmstudio.threads import run_to_end

_MAX_NOTES = 5  # unmatched-subject notices per page; the rest are counted


class OfflineDesigner:
    """Implements :class:`mmstudio.providers.base.Designer` with rules and procedural art.

    ``notices`` holds one line per picture whose subject matched no motif (and one when the
    motif sets are missing); each image's and video's plan records its motifs."""

    name = "offline"

    def __init__(self) -> None:
        self.notices: list[str] = []

    async def plan(self, prompt: str) -> DesignPlan:
        def plan_with_motifs() -> DesignPlan:
            return motifs.annotate(planner.plan_from_prompt(prompt))

        plan = await asyncio.to_thread(plan_with_motifs)
        notes = [f"{e.id}: {e.motifs.note}" for e in plan.pictures()
                 if e.motifs and e.motifs.note]  # fmt: skip
        if notes and not motifs.available():
            notes = [notes[0].split(": ", 1)[1]]
        elif len(notes) > _MAX_NOTES:
            more = f"{len(notes) - _MAX_NOTES} more pictures drew a generic scene"
            notes = [*notes[:_MAX_NOTES], more]
        self.notices.extend(notes)
        return plan

    async def layout(self, plan: DesignPlan) -> str:
        return await asyncio.to_thread(layout.render_page, plan)

    async def image(self, element: ImagePlan, plan: DesignPlan) -> bytes:
        def paint() -> bytes:
            return art.encode_image(art.paint_image(element, plan), element.save_path)

        return await run_to_end(paint)

    async def video(self, element: VideoPlan, plan: DesignPlan, site_dir: Path) -> list[Path]:
        return await run_to_end(motion.make_video, element, plan, site_dir)

    async def chart_option(self, element: ChartPlan, plan: DesignPlan) -> dict[str, Any]:
        return charts.build_option(element, plan)
