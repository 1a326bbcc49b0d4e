"""Stage 2 of generation: one element's asset files (a picture, a video, a chart's option and
its page) written under a site folder.

The pixels and the option come from the designer (``image`` / ``video`` / ``chart_option``:
procedural offline, model-backed otherwise); this stage checks what comes back and writes it,
each write in a worker thread and run to its end before a cancellation goes on.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from mmstudio.pipeline import charts
from mmstudio.plan import ChartPlan, DesignPlan, ElementPlan, ImagePlan, VideoPlan
from mmstudio.project import atomic
from mmstudio.providers.base import Designer, DesignerError
from mmstudio.resources import vendor_file
from mmstudio.threads import run_to_end


async def make(
    element: ElementPlan, plan: DesignPlan, designer: Designer, site_dir: Path
) -> list[str]:
    """Make ``element``'s files under ``site_dir``; returns their site-relative paths. Raises
    DesignerError for an empty picture, and whatever the designer's stage raises."""
    if isinstance(element, ImagePlan):
        data = await designer.image(element, plan)
        if not data:
            raise DesignerError(f"image {element.id} came back empty")
        await run_to_end(atomic.write_bytes, site_dir / element.save_path, data)
        return [element.save_path]
    if isinstance(element, VideoPlan):
        written = await designer.video(element, plan, site_dir)
        return [p.relative_to(site_dir).as_posix() for p in written]
    assert isinstance(element, ChartPlan)
    option = await designer.chart_option(element, plan)
    await run_to_end(_write_chart, site_dir, element, option)
    return [element.option_path, element.save_path]


def _write_chart(site_dir: Path, element: ChartPlan, option: dict) -> None:
    """The chart's option (JSON) and its page under ``site_dir``."""
    atomic.write_text(site_dir / element.option_path, json.dumps(option, indent=2) + "\n")
    atomic.write_text(site_dir / element.save_path, charts.chart_page(option, element))


def vendor(site_dir: Path, name: str) -> str:
    """Copy the bundled library ``name`` (ECharts) to ``site_dir/vendor/``; returns its path."""
    target = site_dir / "vendor" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(vendor_file(name), target)
    return f"vendor/{name}"
