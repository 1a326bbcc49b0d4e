"""Turning section and element drafts into a validated DesignPlan (offline planner helper).

Ids are lowercase snake (``hero``, ``hero_illustration``, ``chart_workout_types_by_day``), unique
across sections and elements, at most 64 characters. Sizes follow MM-WebAgent's allowed sets:
images 1536x1024 / 1024x1536 / 1024x1024 by the aspect the prompt implies; videos 4 s at 1280x720
unless the prompt says otherwise. Display sizes are px slots that fit the section's layout.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mmstudio.plan import DataTable, DesignPlan, SectionItem
from mmstudio.providers.offline import planner_data as data
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab

if TYPE_CHECKING:
    from mmstudio.providers.offline.planner import Draft
    from mmstudio.providers.offline.planner_elements import ElementDraft

_CAPS = {"headings": 60, "paragraphs": 60, "buttons": 20, "nav_items": 30, "tags": 60, "items": 80}
_SIZE_PX = {"1536x1024": (3, 2), "1024x1536": (2, 3), "1024x1024": (1, 1)}
_EMPHASIS = ("highlighted", "highlight", "glow", "glowing", "bold", "peaks", "smooth", "subtle",
             "translucent", "gradient", "thick", "thin", "dots", "labels", "legend", "stripes")  # fmt: skip


def slug(text: str, limit: int = 40) -> str:
    """``"Workout Types by Day"`` → ``"workout_types_by_day"`` (≤ ``limit`` chars, may be "")."""
    words = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return words[:limit].rstrip("_")


class _Ids:
    """Unique ids matching plan.ElementId."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, base: str) -> str:
        base = slug(base, 56) or "item"
        base = base if base[0].isalpha() else f"s_{base}"
        name, n = base, 2
        while name in self.used:
            name, n = f"{base}_{n}", n + 1
        self.used.add(name)
        return name


def build_plan(title: str, page_kind: str, layout: dict, drafts: list[Draft],
               tables: list[pt.Table]) -> DesignPlan:  # fmt: skip
    """The validated plan: sections in draft order, each with its elements; dataset tables
    feed charts first, then the section they name (KPI tiles → items, lists → table)."""
    ids = _Ids()
    section_ids = [ids.take(d.kind if d.kind not in ids.used else f"{d.kind}_{_title(d, '')}")
                   for d in drafts]  # fmt: skip
    leftover = data.match_chart_tables(drafts, tables)
    drafts, section_ids = data.attach_tables(drafts, section_ids, leftover, ids)
    page_style = ", ".join(layout["mood"][:5])
    sections, images, videos, charts = [], [], [], []
    for draft, section_id in zip(drafts, section_ids, strict=True):
        element_ids = []
        for element in draft.elements:
            plan = _element(element, draft, section_id, ids, layout, page_style)
            element_ids.append(plan["id"])
            {"image": images, "video": videos, "chart": charts}[element.modality].append(plan)
        sections.append(_section(draft, section_id, element_ids, title))
    return DesignPlan(title=title, page_kind=page_kind, layout=layout, sections=sections,
                      images=images, videos=videos, charts=charts)  # fmt: skip


def _title(draft: Draft, fallback: str) -> str:
    return draft.first("title") or fallback


def _section(draft: Draft, section_id: str, element_ids: list[str], page_title: str) -> dict:
    """The Section fields of one draft, lists capped (overflow spills into paragraphs)."""
    slots = {k: list(v) for k, v in draft.slots.items()}
    titles = slots.pop("title", [])
    subtitles = slots.pop("subtitle", [])
    headings = titles[1:] + slots.get("headings", [])
    title = titles[0] if titles else ""
    if not title and draft.kind in ("header", "hero"):
        title = headings.pop(0) if draft.kind == "hero" and headings else page_title
    fields = {"headings": headings, "paragraphs": subtitles[1:] + slots.get("paragraphs", [])}
    for name in ("buttons", "nav_items", "tags", "items"):
        fields[name] = slots.get(name, [])
    for name, cap in _CAPS.items():
        spill = fields[name][cap:]
        fields[name] = fields[name][:cap]
        fields["paragraphs"] += [s if isinstance(s, str) else s.label or s.title for s in spill]
    fields["paragraphs"] = fields["paragraphs"][:60]
    table = draft.table
    text = draft.text
    return {
        "id": section_id, "kind": draft.kind, "title": title[:400],
        "subtitle": (subtitles[0] if subtitles else "")[:1000], **fields,
        "table": _data_table(table) if table else None,
        "layout": _section_layout(text, draft.kind), "ratio": pt.column_ratio(text),
        "background": _background(text), "element_ids": element_ids,
        "description": text[:8000],
    }  # fmt: skip


def _data_table(table: pt.Table) -> DataTable:
    rows = [[_cell(c) for c in row] for row in table.rows[:5000]]
    return DataTable(columns=[c[:200] for c in table.columns[:50]],
                     rows=[r[:50] for r in rows], source=table.title[:400])  # fmt: skip


def _cell(cell: str) -> float | int | str:
    number = pt.to_number(cell)
    return number if number is not None and re.fullmatch(r"[\d.,\-]+", cell.strip()) else cell


def _section_layout(text: str, kind: str) -> str:
    lowered = text.lower()
    if kind == "sidebar":
        return "sidebar"
    if re.search(r"two-column|two column|split|left column|right column|left half|right half", lowered):
        return "split"
    if re.search(r"\bgrid\b|cards? in a row|\b(?:three|four|five|six) (?:\w+ )?(?:cards|tiles|columns)", lowered):
        return "grid"
    return "row" if re.search(r"\bin (?:a|one) row\b|side[- ]by[- ]side", lowered) else "stack"


def _background(text: str) -> str | None:
    """The section's own background colour (a hex, or a named colour's hex), if it gives one."""
    for match in pt.HEX_RE.finditer(text):
        if pt.color_role(text, match.start(), match.end()) == "background":
            return match.group().lower()
    for start, end, _, hex_color in pt.named_colors(text):
        if pt.color_role(text, start, end) == "background" and "background" in text[end : end + 40]:
            return hex_color
    return None


def _window(element: ElementDraft) -> str:
    return element.lead[:400]


def _alt(element: ElementDraft, title: str = "") -> str:
    """Alt text: a chart's title, or the start of the mention sentence, then the quoted strings
    the prompt puts inside the element (sign text, series names), verbatim."""
    base = re.sub(r"\s+", " ", element.lead).strip()
    base = base[:150].rsplit(" ", 1)[0] if len(base) > 150 else base
    if element.modality == "chart":
        base = f"{element.mention.strip().rstrip(':')}: {title}"
    shows = "; ".join(element.quotes)
    return (f"{base} — {shows}" if shows else base)[:400]


def _element(element: ElementDraft, draft: Draft, section_id: str, ids: _Ids, layout: dict,
             page_style: str) -> dict:  # fmt: skip
    """One element plan dict (image, video or chart) for the plan models."""
    common = {
        "prompt": (element.text or element.mention)[:8000],
        "alt": _alt(element, element.title or draft.first("title")),
        "context": {"section": section_id, "role": "", "page_style": page_style[:400]},
    }
    if element.modality == "chart":
        return _chart(element, draft, ids, layout, common)
    if element.modality == "video":
        return _video(element, draft, section_id, ids, layout, common)
    return _image(element, draft, section_id, ids, layout, common)


def _style_words(text: str) -> dict:
    return {
        "visual_style": ", ".join(pt.words_found(text, vocab.VISUAL_STYLES, 4))[:200],
        "color_tone": ", ".join(pt.words_found(text, vocab.COLOR_TONES, 3))[:200],
        "composition": ", ".join(pt.words_found(text, vocab.COMPOSITIONS, 3))[:200],
        "lighting": ", ".join(pt.words_found(text, vocab.LIGHTINGS, 3))[:200],
    }


def _image(element: ElementDraft, draft: Draft, section_id: str, ids: _Ids, layout: dict,
           common: dict) -> dict:  # fmt: skip
    window = _window(element)
    role = pt.first_key(window[:160], vocab.IMAGE_ROLES) or (
        "illustration" if "illustration" in element.mention.lower() else "photo")  # fmt: skip
    if draft.kind == "hero" and role in ("photo", "illustration", "hero background") and (
        "background" in window[:200].lower()):  # fmt: skip
        role = "hero background"
    size = pt.first_key(window[:200], vocab.ASPECT_WORDS) or {
        "portrait": "1024x1536", "icon/accent": "1024x1024"}.get(role, "1536x1024")  # fmt: skip
    width = {"hero background": layout["max_width_px"], "thumbnail": 360, "icon/accent": 160,
             "portrait": 420}.get(role, 560 if draft.kind == "hero" else 480)  # fmt: skip
    aspect_w, aspect_h = _SIZE_PX[size]
    element_id = ids.take(f"{section_id}_{role.split('/')[0].split()[-1]}")
    common["context"]["role"] = role
    return {**common, "kind": "image", "id": element_id, "save_path": f"assets/{element_id}.webp",
            "attributes": _style_words(element.text), "size": size, "display_width_px": width,
            "display_height_px": max(16, width * aspect_h // aspect_w)}  # fmt: skip


def _video(element: ElementDraft, draft: Draft, section_id: str, ids: _Ids, layout: dict,
           common: dict) -> dict:  # fmt: skip
    text = element.text
    seconds = next((s for s in (12, 8) if re.search(rf"\b{s}[- ]?(?:second|sec|s)\b", text)), 4)
    vertical = pt.has_word(element.lead[:200], ("vertical video", "9:16", "portrait video"))
    element_id = ids.take(f"{section_id}_video")
    width = 960 if draft.kind == "hero" else 640
    common["context"]["role"] = "hero background video" if (
        draft.kind == "hero" and "background" in element.lead[:200].lower()) else "video"  # fmt: skip
    attributes = {
        "visual_style": ", ".join(pt.words_found(text, vocab.VISUAL_STYLES, 4))[:200],
        "motion_intensity": "medium" if pt.has_word(text, vocab.VIDEO_MOTION_MEDIUM) else "low",
        "camera_behavior": pt.first_key(text, vocab.CAMERA_WORDS) or "static",
        "loopable": True,
    }
    return {**common, "kind": "video", "id": element_id, "save_path": f"assets/{element_id}.webm",
            "poster_path": f"assets/{element_id}-poster.webp", "attributes": attributes,
            "seconds": seconds, "size": "720x1280" if vertical else "1280x720",
            "display_width_px": 360 if vertical else width,
            "display_height_px": 640 if vertical else width * 9 // 16}  # fmt: skip


def _chart(element: ElementDraft, draft: Draft, ids: _Ids, layout: dict, common: dict) -> dict:
    title = element.title or draft.first("title") or "Chart"
    element_id = ids.take(f"chart_{slug(title, 48)}")
    chart_type = data.chart_type(element)
    table = element.data or data.synthesize(element_id, chart_type, element)
    colours = [c["hex"] for c in layout["palette"]
               if c["role"] not in ("background", "surface", "text", "muted", "border")]  # fmt: skip
    common["context"]["role"] = f"{chart_type} chart"
    attributes = {
        "chart_type": chart_type,
        "chart_style": ", ".join(pt.words_found(element.text, vocab.VISUAL_STYLES, 4))[:200],
        "color_palette": colours[:8],
        "visual_emphasis": ", ".join(pt.words_found(element.text, _EMPHASIS, 4))[:200],
    }
    wide = layout["structure"] != "grid" or chart_type in ("line", "area", "grouped-bar")
    return {**common, "kind": "chart", "id": element_id, "save_path": f"assets/{element_id}.html",
            "title": title[:300], "attributes": attributes, "source_data": table,
            "display_width_px": 720 if wide else 520, "display_height_px": 360}  # fmt: skip


def merge_items(draft: Draft, table: pt.Table) -> None:
    """Fill a section's items from a label/value table: a row whose label matches an existing
    item (ignoring case and trailing punctuation) sets its value; other rows are appended."""
    items: list[SectionItem] = draft.slots.setdefault("items", [])
    by_key = {_loose(i.label or i.title): i for i in items}
    for row in table.rows:
        value, meta = (row[1] if len(row) > 1 else ""), " · ".join(row[2:])
        item = by_key.get(_loose(row[0]))
        if item is None:
            items.append(SectionItem(label=row[0][:200], value=value[:120], meta=meta[:400]))
        else:
            item.value = item.value or value[:120]
            item.meta = item.meta or meta[:400]


def _loose(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()
