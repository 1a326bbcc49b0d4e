"""What a designer (a provider of plans, pages and assets) must offer to the pipeline.

Every pipeline stage calls the designer through this protocol, so the stages run unchanged with the
built-in offline designer or with a model-backed one (MM-WebAgent §3: planner, layout agent, image /
video / chart agents).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from mmstudio.plan import ChartPlan, DesignPlan, ImagePlan, VideoPlan
from mmstudio.project.errors import UserError


class DesignerError(UserError):
    """A designer could not produce what was asked; the message is one line for the user."""


class Designer(Protocol):
    """The five jobs of MM-WebAgent's agents. Implementations must be safe to call concurrently
    for different elements."""

    name: str

    async def plan(self, prompt: str) -> DesignPlan:
        """The global plan and element plans for ``prompt``; raises ValueError for an unusable
        prompt and DesignerError when the designer fails."""
        ...

    async def layout(self, plan: DesignPlan) -> str:
        """The page's ``index.html`` with one ``data-mm-id`` slot per planned element."""
        ...

    async def image(self, element: ImagePlan, plan: DesignPlan) -> bytes:
        """The encoded image (format from ``element.save_path``) at ``element.size`` px."""
        ...

    async def video(self, element: VideoPlan, plan: DesignPlan, site_dir: Path) -> list[Path]:
        """Write the video (and its poster) under ``site_dir``; returns the written paths."""
        ...

    async def chart_option(self, element: ChartPlan, plan: DesignPlan) -> dict[str, Any]:
        """The ECharts option drawing ``element.source_data``."""
        ...
