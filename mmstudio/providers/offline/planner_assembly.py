"""Turning section and element drafts into a validated DesignPlan (offline planner helper).

Ids are lowercase snake (``hero``, ``hero_illustration``, ``chart_workout_types_by_day``), unique
across sections and elements, at most 64 characters. Sizes follow MM-WebAgent's allowed sets:
images 1536x1024 / 1024x1536 / 1024x1024 by the aspect the prompt implies; videos 4 s at 1280x720
unless the prompt says otherwise. Display sizes are px slots from the prompt's size and aspect
words (``planner_sizes``).
"""

from __future__ import annotations

import json
import logging
import re
from functools import cache
from typing import TYPE_CHECKING

from mmstudio.plan import DataTable, DesignPlan
from mmstudio.providers.offline import planner_charts as chart_rules
from mmstudio.providers.offline import planner_data as data
from mmstudio.providers.offline import planner_sizes as sizes
from mmstudio.providers.offline import planner_style as style
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab
from mmstudio.resources import resource

if TYPE_CHECKING:
    from mmstudio.providers.offline.planner_elements import ElementDraft
    from mmstudio.providers.offline.planner_sections import Draft

log = logging.getLogger(__name__)

_MAX_SECTIONS = 60
_MAX_ELEMENTS = {"image": 60, "video": 20, "chart": 40}
_MAX_SECTION_ELEMENTS = 40
_CAPS = {"headings": 60, "paragraphs": 60, "buttons": 20, "nav_items": 30, "tags": 60, "items": 80}
_EMPHASIS = (
    "highlighted",
    "highlight",
    "glow",
    "glowing",
    "bold",
    "peaks",
    "smooth",
    "subtle",
    "translucent",
    "gradient",
    "thick",
    "thin",
    "dots",
    "labels",
    "legend",
    "stripes",
)


def slug(text: str, limit: int = 40) -> str:
    """``"Workout Types by Day"`` → ``"workout_types_by_day"`` (≤ ``limit`` chars, may be "")."""
    words = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    if len(words) <= limit:
        return words
    cut = words[: limit + 1].rsplit("_", 1)[0]  # whole words where possible
    return (cut if len(cut) >= limit // 2 else words[:limit]).rstrip("_")


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


def build_plan(
    title: str, page_kind: str, layout: dict, drafts: list[Draft], tables: list[pt.Table]
) -> DesignPlan:
    """The validated plan: sections in draft order, each with its elements; dataset tables
    feed charts first, then the section they name (KPI tiles → items, lists → table)."""
    leftover = data.match_chart_tables(drafts, tables)
    chart_rules.split_gauges(drafts)  # "three gauges: “A”, “B”, “C”" → three gauge charts
    drafts = _fold_overflow(_footer_last(_merge_empty(data.attach_tables(drafts, leftover))))
    data.fill_values(drafts, tables)
    ids = _Ids()
    section_ids = [
        ids.take(d.kind if d.kind not in ids.used else f"{d.kind}_{slug(_title(d, ''), 24)}")
        for d in drafts
    ]
    page_style = ", ".join(layout["mood"][:5])
    background = next((c["hex"] for c in layout["palette"] if c["role"] == "background"), "#fff")
    light_page = style.luminance(background) > 0.5
    sections: list[dict] = []
    images: list[dict] = []
    videos: list[dict] = []
    charts: list[dict] = []
    for draft, section_id in zip(drafts, section_ids, strict=True):
        element_ids: list[str] = []
        lists = {"image": images, "video": videos, "chart": charts}
        for element in draft.elements:
            if len(lists[element.modality]) >= _MAX_ELEMENTS[element.modality] or (
                len(element_ids) >= _MAX_SECTION_ELEMENTS
            ):
                log.warning("plan is full: %s in %s left out", element.modality, section_id)
                continue
            plan = _element(element, draft, section_id, ids, layout, page_style)
            element_ids.append(plan["id"])
            lists[element.modality].append(plan)
        sections.append(_section(draft, section_id, element_ids, title, light_page))
    return DesignPlan.model_validate(
        {
            "title": title,
            "page_kind": page_kind,
            "layout": layout,
            "sections": sections,
            "images": images,
            "videos": videos,
            "charts": charts,
        }
    )


def _fold_overflow(drafts: list[Draft]) -> list[Draft]:
    """At most :data:`_MAX_SECTIONS` drafts: the surplus (but a closing footer) folds into the
    last one kept, so no copy is lost."""
    if len(drafts) <= _MAX_SECTIONS:
        return drafts
    footer = drafts[-1:] if drafts[-1].kind == "footer" else []
    kept = drafts[: _MAX_SECTIONS - 1 - len(footer) + 1]
    for draft in drafts[len(kept) : len(drafts) - len(footer)]:
        kept[-1].units.extend(draft.units)
        kept[-1].elements.extend(draft.elements)
        for name, values in draft.slots.items():
            kept[-1].slots.setdefault(name, []).extend(values)
    return kept + footer


def _footer_last(drafts: list[Draft]) -> list[Draft]:
    """Sections the prompt describes after its footer (closing remarks) go just above it."""
    footers = [d for d in drafts if d.kind == "footer"]
    return [d for d in drafts if d.kind != "footer"] + footers


def _merge_empty(drafts: list[Draft]) -> list[Draft]:
    """Drafts that got no copy, element or table fold their sentences into the one before."""
    kept: list[Draft] = []
    for draft in drafts:
        empty = not any(draft.slots.values()) and not draft.elements and draft.table is None
        if empty and kept:
            kept[-1].units.extend(draft.units)
        else:
            kept.append(draft)
    return kept


def _title(draft: Draft, fallback: str) -> str:
    return draft.first("title") or fallback


def _section(
    draft: Draft, section_id: str, element_ids: list[str], page_title: str, light_page: bool
) -> dict:
    """The Section fields of one draft, lists capped (overflow spills into paragraphs)."""
    slots = {k: list(v) for k, v in draft.slots.items()}
    titles = slots.pop("title", [])
    subtitles = slots.pop("subtitle", [])
    eyebrows = slots.pop("eyebrow", [])  # one head line above the title; more are chips
    slots["tags"] = eyebrows[1:] + slots.get("tags", [])
    headings = titles[1:] + slots.get("headings", [])
    title = titles[0] if titles else ""
    if draft.kind not in ("header", "hero", "footer") and draft.interleaved():
        headings, title = titles + slots.get("headings", []), ""  # headed blocks, in order
    if not title and draft.kind == "header":
        title = page_title
    elif not title and headings and draft.kind not in ("footer", "sidebar"):
        if len(headings) < 2 or len(headings) != len(slots.get("paragraphs", [])):
            title = headings.pop(0)  # the first heading the prompt gives names the section
        # else: as many headings as paragraphs are headed blocks ("Study 01 — …" + its text)
    elif not title and draft.kind == "hero":
        title = page_title
    fields = {"headings": headings, "paragraphs": subtitles[1:] + slots.get("paragraphs", [])}
    for name in ("buttons", "nav_items", "tags", "items"):
        fields[name] = slots.get(name, [])
    for name, cap in _CAPS.items():
        spill = fields[name][cap:]
        fields[name] = fields[name][:cap]
        fields["paragraphs"] += [s if isinstance(s, str) else s.label or s.title for s in spill]
    fields["paragraphs"] = fields["paragraphs"][:60]  # "notes" (prompt prose) are never copy
    if draft.table is not None:  # a heading or chip naming a column the table shows is said
        _drop_column_names(fields, draft.table)
    table = draft.table
    text = draft.text
    return {
        "id": section_id,
        "kind": draft.kind,
        "title": title[:400],
        "subtitle": (subtitles[0] if subtitles else "")[:1000],
        "eyebrow": (eyebrows[0] if eyebrows else "")[:200],
        **fields,
        "table": _data_table(table) if table else None,
        "layout": _section_layout(text, draft.kind),
        "ratio": pt.column_ratio(text),
        "background": style.section_background(text, draft.kind, light_page),
        "element_ids": element_ids,
        "description": text[:8000],
    }


def _drop_column_names(fields: dict, table: pt.Table) -> None:
    """Remove headings and tags that the table's header row already shows verbatim."""
    header = " | ".join(table.columns).lower()
    for name in ("headings", "tags"):
        fields[name] = [t for t in fields[name] if t.strip(" ,.;:").lower() not in header]


def _data_table(table: pt.Table) -> DataTable:
    rows: list[list[data.Cell]] = [[_cell(c) for c in row] for row in table.rows[:5000]]
    return DataTable(
        columns=[pt.column_label(c)[:200] for c in table.columns[:50]],
        rows=[r[:50] for r in rows],
        source=pt.display_title(table.title)[:400],
    )


def _cell(cell: str) -> float | int | str:
    number = pt.to_number(cell)
    return number if number is not None and re.fullmatch(r"[\d.,\-]+", cell.strip()) else cell


_STICKY = re.compile(
    r"\b(?:sticky|fixed|pinned|stays? (?:pinned |fixed )?(?:at|to) the top|remains? visible)\b"
)


def _section_layout(text: str, kind: str) -> str:
    """The section's layout hint (stack | split | column (items one above the other) | grid |
    row | sidebar, or sticky for a header the prompt pins to the top: "a sticky header bar",
    "fixed at the top while scrolling")."""
    lowered = text.lower()
    if kind == "sidebar":
        return "sidebar"
    if kind == "header" and _STICKY.search(pt.blank_quotes(lowered)):
        return "sticky"
    if re.search(
        r"two-column|two column|split|left column|right column|left half|right half", lowered
    ):
        return "split"
    if kind not in ("header", "footer") and _stacked_items().search(pt.blank_quotes(lowered)):
        return "column"  # "three method cards are stacked vertically": one card a row
    if re.search(
        r"\bgrid\b|cards? in a row|\b(?:three|four|five|six) (?:\w+ )?(?:cards|tiles|columns)",
        lowered,
    ):
        return "grid"
    if re.search(r"\bin (?:a|one) row\b|side[- ]by[- ]side", lowered):
        return "row"
    return "stack"


@cache
def _stacked_items() -> re.Pattern[str]:
    """The wordings of ``resources/offline/stacked_items.json``: the items sit one above the
    other ("three entries are stacked vertically") — layout ``column``."""
    data = json.loads(resource("offline", "stacked_items.json").read_text(encoding="utf-8"))
    return re.compile("|".join(f"(?:{p})" for p in data["patterns"]), re.I)


def _window(element: ElementDraft) -> str:
    return element.lead[:400]


def _alt(element: ElementDraft, title: str = "") -> str:
    """Alt text: "Line chart: <title>" for a chart (its title as the prompt wrote it), else the
    start of the mention sentence; then the quoted strings the prompt puts inside the element
    (sign text, series and axis names), verbatim, so the page carries every one of them."""
    base = re.sub(r"\s+", " ", element.lead).strip()
    base = base[:150].rsplit(" ", 1)[0] if len(base) > 150 else base
    if element.modality == "chart":
        kind = data.chart_type(element).replace("-", " ")
        base = f"{kind[:1].upper()}{kind[1:]} chart: {element.title or title}".rstrip(" :")
    shows = join_quotes(element.quotes)
    return (f"{base} — {shows}" if shows else base)[:400]


def _caption(element: ElementDraft) -> str:
    """The visible caption: only text the prompt calls a caption ("a caption reads: …",
    "captioned …"), never the element's description."""
    return join_quotes(element.captions)


def join_quotes(quotes: list[str]) -> str:
    """``["Steps,", "Active Minutes,", "Calories"]`` → ``"Steps, Active Minutes, Calories"``:
    quotes that end in punctuation keep it as their separator, others get ", "."""
    text = ""
    for quote in quotes:
        text += ("" if not text else " " if text[-1] in ",;.:!?" else ", ") + quote
    return text


def _element(
    element: ElementDraft, draft: Draft, section_id: str, ids: _Ids, layout: dict, page_style: str
) -> dict:
    """One element plan dict (image, video or chart) for the plan models."""
    common = {
        "prompt": (element.text or element.mention)[:8000],
        "alt": _alt(element, (element.title or draft.first("title")).rstrip(",;: ")),
        "caption": _caption(element)[:600],
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


def _image(
    element: ElementDraft, draft: Draft, section_id: str, ids: _Ids, layout: dict, common: dict
) -> dict:
    window = _window(element)
    role = pt.first_key(window[:160], vocab.IMAGE_ROLES) or (
        "illustration" if "illustration" in element.mention.lower() else "photo"
    )
    width, height, size = sizes.image_display(element, role, draft.kind, layout["max_width_px"])
    element_id = ids.take(f"{section_id}_{role.split('/')[0].split()[-1]}")
    common["context"]["role"] = role
    return {
        **common,
        "kind": "image",
        "id": element_id,
        "save_path": f"assets/{element_id}.webp",
        "attributes": _style_words(element.text),
        "size": size,
        "display_width_px": width,
        "display_height_px": height,
    }


def _video(
    element: ElementDraft, draft: Draft, section_id: str, ids: _Ids, layout: dict, common: dict
) -> dict:
    text = element.text
    seconds = next((s for s in (12, 8) if re.search(rf"\b{s}[- ]?(?:second|sec|s)\b", text)), 4)
    width, height, size = sizes.video_display(element, draft.kind, layout["max_width_px"])
    element_id = ids.take(f"{section_id}_video")
    common["context"]["role"] = (
        "hero background video"
        if (draft.kind == "hero" and "background" in element.units[0].text[:200].lower())
        else "video"
    )
    attributes = {
        "visual_style": ", ".join(pt.words_found(text, vocab.VISUAL_STYLES, 4))[:200],
        "motion_intensity": "medium" if pt.has_word(text, vocab.VIDEO_MOTION_MEDIUM) else "low",
        "camera_behavior": pt.first_key(text, vocab.CAMERA_WORDS) or "static",
        "loopable": True,
    }
    return {
        **common,
        "kind": "video",
        "id": element_id,
        "save_path": f"assets/{element_id}.webm",
        "poster_path": f"assets/{element_id}-poster.webp",
        "attributes": attributes,
        "seconds": seconds,
        "size": size,
        "display_width_px": width,
        "display_height_px": height,
    }


#: what an untitled chart shows, in the brief's words: "… chart of students per month (Jan 6 …",
#: "a bar chart comparing the sweetness, acidity and body scores (0–10) …" (the whole list)
_SHOWS = re.compile(
    r"\bcharts?\s+(?:of|showing|comparing|tracking)\s+(?:the\s+)?"
    r"([a-z][a-z '’&/-]{2,50}?(?:,\s+(?!(?:with|from|in|over|across|by|for|which|that|where"
    r"|each|its|their|the|a|an|showing|plus|using|colou?red|labell?ed)\b)"
    r"[a-z][a-z '’&/-]{1,40}?)*)"
    r"\s*(?=[(.,;:]|$|\s(?:with|from|in|over|across|by|for)\s)",
    re.I,
)


def _shows(lead: str) -> str:
    """A title from the words saying what a chart shows ("Students per month"), or ""."""
    m = _SHOWS.search(lead)
    if m is None or re.search(r"\d", m.group(1)):
        return ""
    words = m.group(1).strip(" -/")
    return words[:1].upper() + words[1:]


def _chart(element: ElementDraft, draft: Draft, ids: _Ids, layout: dict, common: dict) -> dict:
    source = element.data.source if element.data is not None else ""
    title = element.title or (source if source != "numbers in the prompt" else "")
    title = title or _shows(element.lead)  # "a bar chart of students per month (…)"
    title = (title or draft.first("title") or "Chart").rstrip(",;: ")  # verbatim one is in alt
    element_id = ids.take(f"chart_{slug(title, 48)}")
    chart_type = data.chart_type(element)
    table = element.data or data.synthesize(element_id, chart_type, element)
    colours = [
        c["hex"]
        for c in layout["palette"]
        if c["role"] not in ("background", "surface", "text", "muted", "border")
    ]
    common["context"]["role"] = f"{chart_type} chart"
    attributes = {
        "chart_type": chart_type,
        "chart_style": ", ".join(pt.words_found(element.text, vocab.VISUAL_STYLES, 4))[:200],
        "color_palette": colours[:8],
        "visual_emphasis": ", ".join(pt.words_found(element.text, _EMPHASIS, 4))[:200],
    }
    wide = layout["structure"] != "grid" or chart_type in ("line", "area", "grouped-bar")
    return {
        **common,
        "kind": "chart",
        "id": element_id,
        "save_path": f"assets/{element_id}.html",
        "title": title[:300],
        "attributes": attributes,
        "source_data": table,
        "display_width_px": 720 if wide else 520,
        "display_height_px": 360,
    }
