"""The local refiner: fix the asset itself (MM-WebAgent §3.4 "local" level).

Offline rules:
- chart (planned): rebuild the ECharts option for a small frame — 100 % height page, compact grid,
  fonts one step smaller, no title inside the frame (the page shows it), palette from the page —
  and rewrite the chart page and its option JSON (`pipeline.charts`).
- chart (not planned, e.g. a hand-written canvas page): a labelled style block in the chart page
  that lays it out as a column filling the frame (100 % height, the drawing area takes the rest).
- image (planned): regenerate the procedural art with the page palette (palette drift), at the
  planned size closest to the slot's aspect (cover-crop / stretch when asked locally), or because
  the file is missing or broken; a missing or broken image no plan describes (a site opened from
  disk) gets a stand-in painted at its own path.
- video (planned): regenerate the VP9 loop and poster; an mp4-only ``<video>`` gets the webm as its
  first ``<source>``.
Generation is CPU-bound and runs in a worker thread.
"""

from __future__ import annotations

import json
import logging
import re
import tempfile
from pathlib import Path
from typing import Any

from mmstudio.pipeline import charts
from mmstudio.plan import (
    ChartPlan,
    DesignPlan,
    ElementContext,
    ImageAttributes,
    ImagePlan,
    VideoPlan,
)
from mmstudio.providers.offline import art, motion
from mmstudio.resources import vendor_file
from mmstudio.threads import run_cpu

from . import html_edit
from .model import Change, RefineInput

log = logging.getLogger(__name__)

CHART_CODES = (
    "chart-overflow",
    "chart-empty",
    "chart-undersized",
    "missing-asset",
    "palette-drift",
)
IMAGE_CODES = ("palette-drift", "missing-asset", "broken-asset", "cover-crop", "stretched")
VIDEO_CODES = ("video-unplayable", "video-format", "missing-asset", "missing-poster")
CODES = tuple(dict.fromkeys((*CHART_CODES, *IMAGE_CODES, *VIDEO_CODES, "chart-script-hang")))
IMAGE_SIZES = ("1024x1024", "1024x1536", "1536x1024")
FIT_CSS = (
    "html,body{height:100%!important;margin:0!important;overflow:hidden!important}"
    "body{display:flex!important;flex-direction:column!important}"
    "body>*{flex:0 0 auto}"
    "body>:has(canvas,svg),body>canvas,body>svg{flex:1 1 0!important;min-height:0!important;"
    "height:auto!important}"
)


def compact_option(option: dict[str, Any]) -> dict[str, Any]:
    """``option`` fitted to a small frame: compact grid, fonts ≤ 11 px, no title (JSON dict)."""
    option = json.loads(json.dumps(option))
    title = option.get("title")
    if isinstance(title, dict) and title.get("text") != "No data":
        option.pop("title")
    grid = option.get("grid")
    if isinstance(grid, dict):
        grid.update({"left": 4, "right": 8, "bottom": 4, "containLabel": True})
        grid["top"] = min(int(grid.get("top", 14)), 30)
    _shrink_fonts(option)
    return option


def _shrink_fonts(value: Any) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "fontSize" and isinstance(item, int | float):
                value[key] = min(item, 11)
            else:
                _shrink_fonts(item)
    elif isinstance(value, list):
        for item in value:
            _shrink_fonts(item)


def _chart_files(spec: ChartPlan, plan: DesignPlan, site_dir: Path) -> dict[str, bytes]:
    option = compact_option(charts.build_option(spec, plan))
    files = {
        spec.save_path: charts.chart_page(option, spec).encode(),
        spec.option_path: (json.dumps(option, ensure_ascii=False, indent=1) + "\n").encode(),
    }
    vendor = "vendor/echarts.min.js"
    if not (site_dir / vendor).is_file():
        files[vendor] = vendor_file("echarts.min.js").read_bytes()
    return files


def fit_chart_page(html: str, key: str) -> str:
    """A hand-written chart page made to fill its frame (see :data:`FIT_CSS`)."""
    return html_edit.set_patch_block(html, key, FIT_CSS)


def closest_size(slot: list[float]) -> str:
    """The generable image size (``WxH``) whose aspect is closest to ``slot`` (w, h px)."""
    aspect = slot[0] / max(1.0, slot[1])
    return min(IMAGE_SIZES, key=lambda s: abs(_aspect(s) - aspect) / aspect)


def _aspect(size: str) -> float:
    w, h = (int(v) for v in size.split("x"))
    return w / h


def _image_change(spec: ImagePlan, inp: RefineInput) -> tuple[ImagePlan, DesignPlan | None]:
    codes = {i.code for i in inp.issues}
    update: dict[str, Any] = {}
    if "palette-drift" in codes:
        update["attributes"] = spec.attributes.model_copy(update={"color_tone": ""})
    slot = next((i.evidence["slot_px"] for i in inp.issues if "slot_px" in i.evidence), None)
    if slot and codes & {"cover-crop", "stretched"}:
        update["size"] = closest_size(slot)
    new = spec.model_copy(update=update)
    if not update or inp.plan is None:
        return new, None
    plan = inp.plan.model_copy(deep=True)
    plan.images = [new if e.id == spec.id else e for e in plan.images]
    return new, plan


def _image_files(spec: ImagePlan, plan: DesignPlan) -> dict[str, bytes]:
    return {spec.save_path: art.encode_image(art.paint_image(spec, plan), spec.save_path)}


def _video_files(spec: VideoPlan, plan: DesignPlan) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory(prefix="mmstudio-video-") as tmp:
        written = motion.make_video(spec, plan, Path(tmp))
        return {p.relative_to(tmp).as_posix(): p.read_bytes() for p in written}


def webm_source(element_id: str, path: str, save_path: str):
    """A page edit giving the video element a webm ``<source>`` first (an mp4-only video)."""

    def edit(html: str) -> str:
        node = html_edit.element_node(html, element_id, path)
        if node is None or save_path in html[node.start : node.end]:
            return html
        return html_edit.insert_after_open(
            html, node, f'<source src="{save_path}" type="video/webm">'
        )

    return edit


async def propose(inp: RefineInput) -> Change | None:
    """One Change regenerating the element's asset (None when no rule applies)."""
    spec, codes = inp.element_plan(), [i.code for i in inp.issues]
    if isinstance(spec, ChartPlan) and set(codes) & {*CHART_CODES, "chart-script-hang"}:
        files = await run_cpu(_chart_files, spec, inp.plan, inp.site_dir)
        return Change(
            "local", spec.id, codes, f"Rebuilt chart {spec.id} for its frame", files=files
        )
    if spec is None and set(codes) & {"chart-overflow", "chart-undersized"}:
        return _fit_unplanned_chart(inp, codes)
    if isinstance(spec, ImagePlan) and set(codes) & set(IMAGE_CODES):
        new, plan = _image_change(spec, inp)
        files = await run_cpu(_image_files, new, plan or inp.plan)
        return Change(
            "local", spec.id, codes, f"Regenerated image {spec.id}", files=files, plan=plan
        )
    if spec is None and set(codes) & {"missing-asset", "broken-asset"}:
        return await _paint_discovered(inp, codes)
    if isinstance(spec, VideoPlan) and set(codes) & set(VIDEO_CODES):
        files = await run_cpu(_video_files, spec, inp.plan)
        edit = webm_source(spec.id, inp.element_path(), spec.save_path)
        page = edit if "video-format" in codes else None
        return Change(
            "local", spec.id, codes, f"Regenerated video {spec.id}", page=page, files=files
        )
    return None


def _fit_unplanned_chart(inp: RefineInput, codes: list[str]) -> Change | None:
    path = inp.element_path()
    page = inp.site_dir / path if path else None
    if page is None or page.suffix.lower() not in (".html", ".htm") or not page.is_file():
        return None
    html = page.read_text(encoding="utf-8", errors="replace")
    key = re.sub(r"[^a-z0-9_-]", "-", (inp.element or "chart").lower())
    fitted = fit_chart_page(html, key)
    if fitted == html:
        return None
    summary = f"Fitted chart page {path} to its frame"
    return Change("local", inp.element, codes, summary, files={path: fitted.encode()})


_RASTER = (".png", ".webp", ".jpg", ".jpeg")
_DEFAULT_PALETTE = [
    {"role": "background", "hex": "#f4f1ea"},
    {"role": "text", "hex": "#1d232b"},
    {"role": "primary", "hex": "#2c5282"},
    {"role": "accent", "hex": "#e6a03c"},
]


def stand_in(inp: RefineInput, path: str) -> tuple[ImagePlan, DesignPlan]:
    """An image plan (and a one-section page plan) for a discovered image at ``path``: the
    page's plan palette when there is one, the slot's aspect from its width/height attributes."""
    node = html_edit.element_node(inp.html, inp.element or "", path)
    attrs = node.attrs if node is not None else {}
    words = " ".join([Path(path).stem.replace("-", " ").replace("_", " "), attrs.get("alt", "")])
    size = "1536x1024"
    if attrs.get("width", "").isdigit() and attrs.get("height", "").isdigit():
        size = closest_size([float(attrs["width"]), float(attrs["height"])])
    plan = inp.plan or DesignPlan.model_validate(
        {
            "title": "page",
            "layout": {
                "palette": _DEFAULT_PALETTE,
                "typography": {"heading": "serif", "body": "sans"},
            },
            "sections": [{"id": "page", "kind": "content"}],
        }
    )
    spec = ImagePlan.model_construct(
        id=re.sub(r"[^a-z0-9_-]", "-", path.lower())[:60] or "image",
        save_path=path,
        context=ElementContext(section=plan.sections[0].id, role="photo"),
        prompt=words.strip() or "image",
        size=size,
        attributes=ImageAttributes(),
        display_width_px=1024,
        display_height_px=1024,
        alt=attrs.get("alt", ""),
        caption="",
    )
    return spec, plan


async def _paint_discovered(inp: RefineInput, codes: list[str]) -> Change | None:
    """A missing or broken image that no plan describes: paint a stand-in at its own path."""
    path = inp.element_path()
    if not path or not path.lower().endswith(_RASTER) or ".." in path.split("/"):
        return None
    spec, plan = stand_in(inp, path)
    files = await run_cpu(_image_files, spec, plan)
    return Change("local", inp.element, codes, f"Painted a stand-in for {path}", files=files)
