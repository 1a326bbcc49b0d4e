"""Chart assets: the ECharts option of a :class:`~mmstudio.plan.ChartPlan` and its chart page.

:func:`build_option` turns ``element.source_data`` (first column = categories or names, the other
numeric columns = series; text numbers like ``"1,234"``, ``"58%"``, ``"$1.2k"`` are parsed) and
``attributes.chart_type`` into an ECharts 6 option dict, coloured from ``attributes.color_palette``
or the page palette's accents. Rules from MM-WebAgent §3.3 (charts are made for a full viewport
and must be adapted to their container): transparent background, compact grid with
``containLabel``, 11–12 px fonts, legend only for more than one series, no title inside the frame
(the page shows ``element.title`` above it), visible without interaction (the entry animation
ends at full opacity).

:func:`chart_page` renders ``resources/templates/chart.html.j2``: the option inlined as JSON (a page
opened from disk cannot fetch() a file:// JSON), the local vendored ``echarts.min.js`` loaded by a
path relative to ``save_path``, ``html, body, #chart {height: 100%}`` (never 100vh), a resize hook
and a text fallback (title and data table) so the chart's labels exist as text. :func:`write_chart`
writes the page and the option JSON beside it, atomically. Used by the offline designer and, later,
by LLM designers that only pick the type and palette.
"""

from __future__ import annotations

import json
import logging
import math
import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from mmstudio.pipeline.chart_types import FONT_SIZE, SMALL_FONT, Ink, Series, type_option
from mmstudio.plan import ChartPlan, DataTable, DesignPlan
from mmstudio.project import atomic
from mmstudio.resources import resource

log = logging.getLogger(__name__)

CHART_TYPES = (
    "bar", "grouped-bar", "stacked-bar", "horizontal-bar", "line", "area", "pie", "donut",
    "scatter", "radar", "gauge", "funnel",
)  # fmt: skip
_ALIASES = {
    "column": "bar", "columns": "bar", "histogram": "bar", "vertical-bar": "bar",
    "clustered-bar": "grouped-bar", "multi-bar": "grouped-bar", "grouped-column": "grouped-bar",
    "stacked": "stacked-bar", "stacked-column": "stacked-bar", "horizontal": "horizontal-bar",
    "barh": "horizontal-bar", "bar-horizontal": "horizontal-bar", "spline": "line",
    "multi-line": "line", "trend": "line", "time-series": "line", "sparkline": "line",
    "stacked-area": "area", "area-line": "area", "doughnut": "donut", "ring": "donut",
    "pie-donut": "donut", "bubble": "scatter", "spider": "radar", "polar": "radar",
    "meter": "gauge", "progress": "gauge", "kpi": "gauge", "dial": "gauge", "pipeline": "funnel",
}  # fmt: skip
_NON_ACCENT_ROLES = {"background", "surface", "text", "muted", "border", "foreground", "subtle"}
# Shades and tints that extend a short palette: (blend towards, fraction 0–1), in cycle order.
_SHADE_STEPS = (("text", 0.35), ("background", 0.45), ("text", 0.6), ("background", 0.7))
_FALLBACK_COLORS = ("#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452")


# --- data ------------------------------------------------------------------------------------


def chart_kind(raw: str) -> str:
    """Normalise a planned chart type ("Stacked bar chart", "doughnut") to one of CHART_TYPES;
    unknown types become "bar"."""
    key = re.sub(r"[\s_]+", "-", raw.strip().lower())
    key = re.sub(r"-?(chart|graph|plot)s?$", "", key).strip("-")
    key = _ALIASES.get(key, key)
    if key in CHART_TYPES:
        return key
    for word in key.split("-"):
        if word in CHART_TYPES or word in _ALIASES:
            return _ALIASES.get(word, word)
    return "bar"


def parse_number(cell: float | int | str | None) -> float | None:
    """A cell as a number: ``1,234`` → 1234, ``58%`` → 58, ``$1.2k`` → 1200, ``(12)`` → −12,
    ``−5`` → −5; None when the cell is blank or not a number."""
    if isinstance(cell, bool) or cell is None:
        return None
    if isinstance(cell, int | float):
        return float(cell) if math.isfinite(cell) else None
    text = cell.strip().replace("\u2212", "-").replace(",", "").replace(" ", "")
    negative = text.startswith("(") and text.endswith(")")
    match = re.fullmatch(r"[^\d.+-]*([+-]?\d*\.?\d+)\s*([kmb]?)[^\d]*", text.strip("()"), re.I)
    if not match:
        return None
    value = float(match.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "b": 1e9}[match.group(2).lower()]
    return -value if negative else value


def category_label(cell: float | int | str | None) -> str:
    """A category cell as text (2019.0 → "2019", None → "")."""
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return "" if cell is None else str(cell)


def table_series(table: DataTable) -> tuple[list[str], list[Series]]:
    """Split a table into category labels (first column) and numeric series (other columns a
    majority of whose non-blank cells parse as numbers). A one-column table is one series over
    row numbers."""
    if len(table.columns) == 1:
        values = [parse_number(row[0]) for row in table.rows]
        return [str(i + 1) for i in range(len(values))], [Series(table.columns[0], values)]
    categories = [category_label(row[0]) for row in table.rows]
    series = []
    for index, name in enumerate(table.columns[1:], start=1):
        cells = [row[index] for row in table.rows]
        values = [parse_number(cell) for cell in cells]
        filled = [c for c in cells if c not in (None, "")]
        if filled and sum(v is not None for v in values) * 2 >= len(filled):
            percent = any(isinstance(c, str) and "%" in c for c in cells)
            series.append(Series(name, values, percent))
    return categories, series


# --- colours ---------------------------------------------------------------------------------


def _channel(value: int) -> float:
    c = value / 255.0
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(hex_color: str) -> float:
    """WCAG relative luminance 0–1 of ``#rrggbb``."""
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio 1–21 between two hex colours."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def blend_hex(a: str, b: str, t: float) -> str:
    """``a`` moved a fraction ``t`` (0–1) towards ``b``, as hex."""
    pa = [int(a[i : i + 2], 16) for i in (1, 3, 5)]
    pb = [int(b[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(pa, pb, strict=True))


def page_ink(plan: DesignPlan) -> Ink:
    """Readable text colours on the page background: the palette's text/muted roles where they
    reach 4.5:1 / 3:1 contrast, else near-black or near-white."""
    layout = plan.layout
    background = layout.color("background") or layout.color("surface") or "#ffffff"
    fallback = "#1f2430" if relative_luminance(background) > 0.18 else "#eef0f5"
    text = layout.color("text") or fallback
    text = text if contrast(text, background) >= 4.5 else fallback
    muted = layout.color("muted") or blend_hex(text, background, 0.3)
    muted = muted if contrast(muted, background) >= 3.0 else blend_hex(text, background, 0.25)
    font = layout.typography.body or "sans-serif"
    return Ink(text, muted, blend_hex(text, background, 0.82), font)


def series_colors(element: ChartPlan, plan: DesignPlan) -> list[str]:
    """The colour cycle, ≥ 7 distinct hex colours: ``attributes.color_palette``, else the page's
    accent colours; then shades and tints of those (each blended towards the page's text and
    background colours), so a third series stays in the palette's hues; ECharts-like defaults only
    when the plan names no colour at all."""
    colors = [c.lower() for c in element.attributes.color_palette]
    if not colors:
        colors = [
            c.hex.lower() for c in plan.layout.palette if c.role.lower() not in _NON_ACCENT_ROLES
        ]
    if colors:
        text = plan.layout.color("text") or "#1f2430"
        background = plan.layout.color("background") or "#ffffff"
        base = list(dict.fromkeys(colors))
        for towards, t in _SHADE_STEPS:
            colors += [blend_hex(c, text if towards == "text" else background, t) for c in base]
    colors += [c for c in _FALLBACK_COLORS if c not in colors]
    return list(dict.fromkeys(colors))


def _frame(kind: str, series: list[Series], ink: Ink, colors: list[str]) -> dict:
    """The type-independent part: colours, text style, tooltip, legend, grid, animation."""
    axis_tooltip = kind not in ("pie", "donut", "funnel", "scatter", "radar", "gauge")
    pointer = "shadow" if kind.endswith("bar") else "line"
    option: dict[str, Any] = {
        "backgroundColor": "transparent",
        "color": colors,
        "textStyle": {"fontFamily": ink.font, "fontSize": FONT_SIZE, "color": ink.text},
        "tooltip": {"trigger": "axis", "axisPointer": {"type": pointer}}
        if axis_tooltip
        else {"trigger": "item"},
        "animationDuration": 700,
        "animationEasing": "cubicOut",
    }
    legend = len(series) > 1 and kind not in ("pie", "donut", "funnel", "gauge", "scatter")
    if legend:
        option["legend"] = {
            "top": 0, "type": "scroll", "itemWidth": 12, "itemHeight": 8, "icon": "roundRect",
            "textStyle": {"color": ink.muted, "fontSize": SMALL_FONT},
        }  # fmt: skip
    if axis_tooltip or kind == "scatter":
        scatter_xy = kind == "scatter" and len(series) > 1
        bottom = 28 if scatter_xy else 8
        top = 34 if legend or scatter_xy else 14
        option["grid"] = {
            "left": 8,
            "right": 16,
            "top": top,
            "bottom": bottom,
            "containLabel": True,
        }
    return option


def build_option(element: ChartPlan, plan: DesignPlan, *, show_title: bool = False) -> dict:
    """The ECharts option (a JSON-ready dict) for ``element``.

    ``show_title`` puts ``element.title`` inside the chart; off by default because the page shows
    the title above the chart frame. A table with no numeric column gives a "No data" chart."""
    kind = chart_kind(element.attributes.chart_type)
    categories, series = table_series(element.source_data)
    ink = page_ink(plan)
    background = plan.layout.color("background") or "#ffffff"
    colors = series_colors(element, plan)
    colors = [c for c in colors if contrast(c, background) >= 1.35] or colors
    if not series or all(v is None for s in series for v in s.values):
        log.warning("chart %s: no numeric data in %s", element.id, element.source_data.columns)
        option = _frame(kind, [], ink, colors)
        option["title"] = {"text": "No data", "left": "center", "top": "middle",
                           "textStyle": {"color": ink.muted, "fontSize": FONT_SIZE}}  # fmt: skip
        return option
    option = _frame(kind, series, ink, colors) | type_option(kind, categories, series, ink)
    if show_title and element.title:
        style = {"color": ink.text, "fontSize": 13, "fontWeight": 600}
        option["title"] = {"text": element.title, "left": 0, "top": 0, "textStyle": style}
        if "grid" in option:
            option["grid"]["top"] += 22
    return option


# --- the chart page --------------------------------------------------------------------------


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` are
    written as ``\\u003c`` etc., so neither ``</script>`` nor ``<!--`` can occur, and U+2028/9
    are escaped for old JavaScript parsers."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(raw, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def vendor_src(save_path: str) -> str:
    """The relative URL of ``vendor/echarts.min.js`` from a page at ``save_path`` (site-relative):
    ``assets/chart.html`` → ``../vendor/echarts.min.js``."""
    depth = save_path.count("/")
    return "../" * depth + "vendor/echarts.min.js"


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource("templates"))),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    return env.get_template("chart.html.j2")


def chart_page(option: dict, element: ChartPlan) -> str:
    """The chart's standalone HTML page (str), to be saved at ``element.save_path``."""
    table = element.source_data
    rows = [[category_label(cell) for cell in row] for row in table.rows[:200]]
    return _template().render(
        title=element.title or element.alt or element.id,
        element_id=element.id,
        echarts_src=vendor_src(element.save_path),
        option_json=Markup(script_json(option)),
        columns=table.columns,
        rows=rows,
        synthesized=table.synthesized,
        source=table.source,
    )


def write_chart(element: ChartPlan, plan: DesignPlan, site_dir: Path) -> list[Path]:
    """Write the chart page at ``site_dir/save_path`` and its option at ``site_dir/option_path``;
    returns both paths (page first). The page needs ``site_dir/vendor/echarts.min.js``."""
    option = build_option(element, plan)
    page = Path(site_dir) / element.save_path
    option_file = Path(site_dir) / element.option_path
    atomic.write_text(option_file, json.dumps(option, ensure_ascii=False, indent=1) + "\n")
    atomic.write_text(page, chart_page(option, element))
    log.debug("chart %s: %s", element.id, chart_kind(element.attributes.chart_type))
    return [page, option_file]


def chart_files(element: ChartPlan, plan: DesignPlan) -> dict[str, str]:
    """The chart page and its option JSON as text by site-relative path (page first), without
    writing them (a caller that stages files before it commits them writes them itself)."""
    option = build_option(element, plan)
    return {
        element.save_path: chart_page(option, element),
        element.option_path: json.dumps(option, ensure_ascii=False, indent=1) + "\n",
    }
