"""The built-in offline designer: deterministic planner, layout and procedural assets, no network.

CPU-bound work (the planner, layout, Pillow, ffmpeg) runs in worker threads — in worker
processes in the desktop app (:func:`~mmstudio.threads.run_cpu`), so it never holds the GUI
loop's GIL — and the event loop (CLI or Qt through qasync) stays responsive; the pipeline caps
how many run at once. An asset's worker runs to its end even when its task is cancelled, so no
worker writes into a site folder after the generation that owns it has stopped and cleaned up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mmstudio.pipeline import charts
from mmstudio.plan import ChartPlan, DesignPlan, ImagePlan, VideoPlan
from mmstudio.providers.offline import art, layout, motifs, motion, planner
from mmstudio.threads import run_cpu, run_pure

_MAX_NOTES = 5  # unmatched-subject notices per page; the rest are counted


class OfflineDesigner:
    """Implements :class:`mmstudio.providers.base.Designer` with rules and procedural art.

    ``notices`` holds one line per picture whose subject matched no motif (and one when the
    motif sets are missing); each image's and video's plan records its motifs."""

    name = "offline"

    def __init__(self) -> None:
        self.notices: list[str] = []

    async def plan(self, prompt: str) -> DesignPlan:
        plan = await run_pure(_plan_with_motifs, prompt)
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
        return await run_pure(layout.render_page, plan)

    async def image(self, element: ImagePlan, plan: DesignPlan) -> bytes:
        return await run_cpu(_paint, element, plan)

    async def video(self, element: VideoPlan, plan: DesignPlan, site_dir: Path) -> list[Path]:
        return await run_cpu(motion.make_video, element, plan, site_dir)

    async def chart_option(self, element: ChartPlan, plan: DesignPlan) -> dict[str, Any]:
        return charts.build_option(element, plan)


def _plan_with_motifs(prompt: str) -> DesignPlan:
    """The rule-based plan of ``prompt`` with each picture's motifs."""
    return motifs.annotate(planner.plan_from_prompt(prompt))


def _paint(element: ImagePlan, plan: DesignPlan) -> bytes:
    """The encoded bytes of the procedural picture of ``element``."""
    return art.encode_image(art.paint_image(element, plan), element.save_path)
