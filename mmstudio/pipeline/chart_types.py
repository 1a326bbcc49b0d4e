"""ECharts option parts per chart type (bar family, line, area, pie, donut, funnel, scatter,
radar, gauge), used by :mod:`mmstudio.pipeline.charts`.

Every function returns the type-specific keys of an option (axes, radar, series) as JSON-ready
dicts; font sizes are 11–12 px and every colour comes from the :class:`Ink` of the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SLICE_LIMIT = 10  # pie/donut/funnel slices beyond this are summed into "Other"
FONT_SIZE = 12
SMALL_FONT = 11


@dataclass(frozen=True)
class Series:
    """One numeric column: ``name``, ``values`` (None where a cell is blank or not a number) and
    whether its cells were written as percentages."""

    name: str
    values: list[float | None]
    percent: bool = False


@dataclass(frozen=True)
class Ink:
    """Text colours for the page background: ``text``, ``muted`` (axis labels), ``line`` (axes,
    split lines) as hex, and the font family."""

    text: str
    muted: str
    line: str
    font: str


def _axis(ink: Ink, kind: str, data: list[str] | None = None, percent: bool = False) -> dict:
    """A compact category or value axis in the page's muted ink."""
    axis: dict[str, Any] = {
        "type": kind,
        "axisLabel": {"color": ink.muted, "fontSize": SMALL_FONT, "hideOverlap": True},
        "axisLine": {"show": kind == "category", "lineStyle": {"color": ink.line}},
        "axisTick": {"show": False},
        "splitLine": {"show": kind == "value", "lineStyle": {"color": ink.line, "type": "dashed"}},
    }
    if data is not None:
        axis["data"] = data
    if percent:
        axis["axisLabel"]["formatter"] = "{value}%"
    return axis


def _cartesian(kind: str, categories: list[str], series: list[Series], ink: Ink) -> dict:
    """Bar (plain, grouped, stacked, horizontal), line and area charts on a category axis."""
    percent = all(s.percent for s in series)
    horizontal = kind == "horizontal-bar"
    stacked = kind == "stacked-bar" or (kind == "area" and len(series) > 1)
    is_line = kind in ("line", "area")
    out = []
    for s in series:
        item: dict[str, Any] = {
            "name": s.name,
            "type": "line" if is_line else "bar",
            "data": s.values,
        }
        if is_line:
            item.update(smooth=True, symbolSize=6, lineStyle={"width": 2.5})
            if kind == "area":
                item["areaStyle"] = {"opacity": 0.28}
        else:
            item.update(barMaxWidth=36, itemStyle={"borderRadius": 0 if stacked else 4})
        if stacked:
            item["stack"] = "total"
            item["emphasis"] = {"focus": "series"}
        out.append(item)
    cat_axis = _axis(ink, "category", categories)
    cat_axis["boundaryGap"] = not is_line
    val_axis = _axis(ink, "value", percent=percent)
    if horizontal:
        cat_axis["inverse"] = True  # first row on top, as the table reads
        return {"xAxis": val_axis, "yAxis": cat_axis, "series": out}
    return {"xAxis": cat_axis, "yAxis": val_axis, "series": out}


def _slices(categories: list[str], values: list[float | None]) -> list[dict]:
    """name/value pairs, largest first beyond ``SLICE_LIMIT`` (the rest summed as "Other")."""
    known = [(n, v) for n, v in zip(categories, values, strict=False) if v is not None]
    if len(known) > SLICE_LIMIT:
        known.sort(key=lambda pair: -pair[1])
        rest = sum(v for _, v in known[SLICE_LIMIT - 1 :])
        known = [*known[: SLICE_LIMIT - 1], ("Other", rest)]
    return [{"name": n, "value": v} for n, v in known]


def _pie(kind: str, categories: list[str], series: list[Series], ink: Ink) -> dict:
    """Pie or donut of the first series, labelled with names and percentages."""
    data = _slices(categories, series[0].values)
    radius: Any = ["40%", "62%"] if kind == "donut" else "62%"
    item = {
        "name": series[0].name, "type": "pie", "radius": radius, "center": ["50%", "52%"],
        "data": data, "itemStyle": {"borderColor": "rgba(255,255,255,0.6)", "borderWidth": 1},
        "label": {"color": ink.text, "fontSize": SMALL_FONT, "formatter": "{b}\n{d}%",
                  "alignTo": "edge", "edgeDistance": 6, "minMargin": 4, "lineHeight": 14},
        "labelLine": {"length": 10, "length2": 0, "maxSurfaceAngle": 80,
                      "lineStyle": {"color": ink.muted}},
        "avoidLabelOverlap": True,
    }  # fmt: skip
    if kind == "donut":
        item["itemStyle"]["borderRadius"] = 4
    return {"series": [item]}


def _funnel(categories: list[str], series: list[Series], ink: Ink) -> dict:
    """Funnel of the first series, widest stage on top."""
    data = sorted(_slices(categories, series[0].values), key=lambda p: -p["value"])
    top = max((p["value"] for p in data), default=1) or 1
    item = {
        "name": series[0].name, "type": "funnel", "left": "4%", "width": "60%", "top": 8,
        "bottom": 8, "min": 0, "max": top, "sort": "descending", "gap": 2, "data": data,
        "label": {"position": "right", "color": ink.text, "fontSize": SMALL_FONT,
                  "formatter": "{b}: {c}"},
        "labelLine": {"lineStyle": {"color": ink.muted}},
    }  # fmt: skip
    return {"series": [item]}


def _scatter(categories: list[str], series: list[Series], ink: Ink) -> dict:
    """x = first numeric column, y = second (each point named by its row); one numeric column
    plots values against the categories."""
    if len(series) < 2:
        return {
            "xAxis": _axis(ink, "category", categories),
            "yAxis": _axis(ink, "value", percent=series[0].percent),
            "series": [{"name": series[0].name, "type": "scatter", "data": series[0].values,
                        "symbolSize": 12}],
        }  # fmt: skip
    x, y = series[0], series[1]
    points = [
        {"name": n, "value": [a, b]}
        for n, a, b in zip(categories, x.values, y.values, strict=False)
        if a is not None and b is not None
    ]
    x_axis = _axis(ink, "value", percent=x.percent)
    gap = ["8%", "8%"]
    x_axis.update(name=x.name, nameLocation="middle", nameGap=26, scale=True, boundaryGap=gap)
    y_axis = _axis(ink, "value", percent=y.percent)
    y_axis.update(name=y.name, scale=True, boundaryGap=gap)
    y_axis["nameTextStyle"] = {"color": ink.muted, "fontSize": SMALL_FONT, "align": "left"}
    x_axis["nameTextStyle"] = {"color": ink.muted, "fontSize": SMALL_FONT}
    label = {"show": len(points) <= 24, "formatter": "{b}", "position": "right",
             "color": ink.muted, "fontSize": SMALL_FONT}  # fmt: skip
    item = {"name": y.name, "type": "scatter", "data": points, "symbolSize": 14, "label": label}
    return {"xAxis": x_axis, "yAxis": y_axis, "series": [item]}


def _radar(categories: list[str], series: list[Series], ink: Ink) -> dict:
    """One polygon per series over the categories as indicators (shared max, rounded up)."""
    peak = max((v for s in series for v in s.values if v is not None), default=1.0) or 1.0
    top = _nice_ceiling(peak)
    radar = {
        "indicator": [{"name": c, "max": top} for c in categories],
        "radius": "62%", "center": ["50%", "57%"], "splitNumber": 4,
        "axisName": {"color": ink.muted, "fontSize": SMALL_FONT},
        "splitLine": {"lineStyle": {"color": ink.line}},
        "axisLine": {"lineStyle": {"color": ink.line}},
        "splitArea": {"show": False},
    }  # fmt: skip
    data = [
        {"name": s.name, "value": [v or 0 for v in s.values], "areaStyle": {"opacity": 0.18}}
        for s in series
    ]
    return {"radar": radar, "series": [{"type": "radar", "data": data, "symbolSize": 5}]}


def _gauge(categories: list[str], series: list[Series], ink: Ink) -> dict:
    """A gauge of the first value (0–100 for percentages, else 0 to a round ceiling)."""
    first = series[0]
    value = next((v for v in first.values if v is not None), 0.0)
    top = 100.0 if first.percent or 0 <= value <= 100 else _nice_ceiling(value)
    suffix = "%" if first.percent else ""
    item = {
        "name": first.name, "type": "gauge", "min": 0, "max": top, "radius": "88%",
        "center": ["50%", "58%"], "startAngle": 210, "endAngle": -30,
        "progress": {"show": True, "width": 14, "roundCap": True},
        "axisLine": {"lineStyle": {"width": 14, "color": [[1, ink.line]]}},
        "axisTick": {"show": False}, "splitLine": {"show": False},
        "axisLabel": {"show": False},
        "pointer": {"show": False}, "anchor": {"show": False},
        "title": {"color": ink.muted, "fontSize": FONT_SIZE, "offsetCenter": [0, "28%"]},
        "detail": {"valueAnimation": True, "color": ink.text, "fontSize": 26,
                   "offsetCenter": [0, "-4%"], "formatter": "{value}" + suffix},
        "data": [{"value": value, "name": categories[0] if categories else first.name}],
    }  # fmt: skip
    return {"series": [item]}


def _nice_ceiling(value: float) -> float:
    """The next "round" number ≥ ``value`` (1, 2, 2.5, 5 or 10 × a power of ten)."""
    if value <= 0:
        return 1.0
    power = 10 ** (len(str(int(value))) - 1)
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * power:
            return float(step * power)
    return float(10 * power)


def type_option(kind: str, categories: list[str], series: list[Series], ink: Ink) -> dict:
    """The type-specific part of the option (axes and series)."""
    if kind in ("pie", "donut"):
        return _pie(kind, categories, series, ink)
    if kind == "funnel":
        return _funnel(categories, series, ink)
    if kind == "scatter":
        return _scatter(categories, series, ink)
    if kind == "radar":
        return _radar(categories, series, ink)
    if kind == "gauge":
        return _gauge(categories, series, ink)
    return _cartesian(kind, categories, series, ink)


def option_kind(option: dict) -> str:
    """The chart type an ECharts option draws, read back from its series (one of the types of
    :func:`type_option`; "grouped-bar" reads as "bar"); "none" for an option without series."""
    series = option.get("series") or []
    first = series[0] if series and isinstance(series[0], dict) else {}
    kind = first.get("type", "none")
    if kind == "bar":
        y_axis = option.get("yAxis") or {}
        if isinstance(y_axis, dict) and y_axis.get("type") == "category":
            return "horizontal-bar"
        return "stacked-bar" if any(s.get("stack") for s in series) else "bar"
    if kind == "line":
        return "area" if first.get("areaStyle") else "line"
    if kind == "pie":
        return "donut" if isinstance(first.get("radius"), list) else "pie"
    return kind
