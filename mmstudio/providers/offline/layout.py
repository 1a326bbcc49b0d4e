"""The offline layout agent: a :class:`DesignPlan` → the page's ``index.html`` (MM-WebAgent §3.3).

Deterministic, no network. The page is one file (inline ``<style>``) plus the planned assets:

* every section is one element (``<header>`` / ``<footer>`` / ``<section>``) with
  ``data-mm-section`` and ``id`` equal to the section id, in plan order;
* every planned element has exactly one slot with ``data-mm-id`` (``<img>`` / ``<video>`` /
  chart ``<iframe>``), sized as planned (``aspect-ratio`` from ``display_*_px``);
* every text field of the plan is visible text (titles, copy, buttons, nav, tags, items, tables,
  alt text, chart titles) — quoted-string fidelity depends on it;
* nothing starts hidden or lazy: no opacity 0, no reveal on scroll, ``loading="eager"``.

Plan text is untrusted model output: the Jinja environment autoescapes, and every plain string
additionally has ``/`` written as ``&#47;`` so that text can never form a URL or a machine path in
the raw HTML (the browser shows the same characters).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from mmstudio.plan import ChartPlan, DataTable, DesignPlan, ImagePlan, Section
from mmstudio.providers.offline import page_css
from mmstudio.resources import resource

log = logging.getLogger(__name__)

_LANG = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")
_SIDE_WIDTH_PX = 264
_TEXT_BLOCKS = ("intro", "nav", "copy", "tags", "buttons")


def _finalize(value: Any) -> Any:
    """Escape plain strings and write ``/`` as ``&#47;``; Markup (trusted paths, styles) passes."""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return Markup(str(escape(value)).replace("/", "&#47;"))


@cache
def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(resource("templates"))),
        autoescape=True,
        finalize=_finalize,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _path(value: str) -> Markup:
    """A validated site-relative asset path, escaped for an attribute but keeping its slashes."""
    return Markup(str(escape(value)))


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


@dataclass
class SectionView:
    """What the templates need to draw one section (all text still raw; templates escape)."""

    section: Section
    role: str  # header | footer | side | section
    level: int  # heading level of the section title (1 for the page's h1)
    blocks_a: list[str] = field(default_factory=list)
    blocks_b: list[str] = field(default_factory=list)
    below: list[str] = field(default_factory=list)
    split_style: str = ""
    media_groups: list[dict[str, Any]] = field(default_factory=list)
    item_style: str = "cards"
    item_cols: int = 1
    nav: list[dict[str, str]] = field(default_factory=list)
    buttons: list[dict[str, Any]] = field(default_factory=list)
    copy_blocks: list[dict[str, str]] = field(default_factory=list)
    copy_lead: list[str] = field(default_factory=list)
    copy_rest: list[str] = field(default_factory=list)
    table: dict[str, Any] | None = None

    @property
    def sub(self) -> int:
        """Heading level for headings inside the section (cards, charts, copy headings)."""
        return min(self.level + 1, 6) if self.section.title or self.role == "header" else 2

    @property
    def classes(self) -> str:
        s = self.section
        kind = re.sub(r"[^a-z0-9-]", "", s.kind.lower()) or "content"
        layout = re.sub(r"[^a-z0-9-]", "", s.layout.lower()) or "stack"
        base = {"header": "site-header", "footer": "site-footer section"}.get(self.role, "section")
        side = " side" if self.role == "side" else ""
        long = " title-long" if self.level == 1 and len(s.title) > 48 else ""
        return f"{base}{side} section-{kind} layout-{layout}{long}"


def _anchor(text: str, plan: DesignPlan, default: str = "#top") -> str:
    """``#<section id>`` of the section a nav item or button names, else ``default``."""
    wanted = _norm(text)
    if not wanted:
        return default
    for section in plan.sections:
        if section.kind in ("header", "footer", "sidebar"):
            continue
        names = (_norm(section.title), _norm(section.kind), _norm(section.id))
        if any(name and (wanted == name or wanted in name or name in wanted) for name in names):
            return f"#{section.id}"
    return default


def _button_target(plan: DesignPlan, section: Section) -> str:
    for candidate in plan.sections:
        if candidate.kind in ("cta", "form", "pricing") and candidate.id != section.id:
            return f"#{candidate.id}"
    return "#top"


def _format_cell(value: float | int | str | None) -> str:
    """Table cell text: ints as written, floats without a trailing ``.0``, None as an em dash."""
    if value is None:
        return "—"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _numeric_columns(table: DataTable) -> list[bool]:
    """Per column: True when most of its filled cells are numbers (right-aligned)."""
    flags = []
    for index in range(len(table.columns)):
        cells = [row[index] for row in table.rows if row[index] is not None]
        numbers = sum(isinstance(c, int | float) for c in cells)
        flags.append(bool(cells) and numbers * 2 > len(cells))
    return flags


def _table_view(table: DataTable) -> dict[str, Any]:
    """``{columns: [{text, num}], rows: [[{text, num}]], source, synth}`` for the table macro."""
    numeric = _numeric_columns(table)
    columns = [{"text": c, "num": numeric[i]} for i, c in enumerate(table.columns)]
    rows = [
        [{"text": _format_cell(c), "num": numeric[i]} for i, c in enumerate(r)] for r in table.rows
    ]
    return {"columns": columns, "rows": rows, "source": table.source, "synth": table.synthesized}


def _columns(count: int, width_px: int, min_px: int) -> int:
    """Grid columns for ``count`` items in a ``width_px`` column with cells ≥ ``min_px``."""
    if count <= 4:
        wanted = count
    elif count % 3 == 0:
        wanted = 3
    elif count == 5:
        wanted = 5
    else:
        wanted = 4
    return max(1, min(wanted, width_px // min_px, 6))


def _item_style(section: Section, role: str) -> str:
    if role in ("side", "header"):
        return "rows"
    if section.kind == "testimonials":
        return "quotes"
    if section.kind == "timeline":
        return "timeline"
    if any(item.value for item in section.items):
        return "tiles"
    return "cards"


def _element_view(element: Any, width_px: int) -> dict[str, Any]:
    """One slot: kind, id, src, alt, planned px size, CSS aspect-ratio and grid span (of 12)."""
    w, h = element.display_width_px, element.display_height_px
    span = max(3, min(12, round(12 * w / max(width_px, 1))))
    view = {
        "kind": element.kind,
        "id": element.id,
        "src": _path(element.save_path),
        "alt": element.alt,
        "width": w,
        "height": h,
        "style": Markup(f"aspect-ratio: {w} / {h};"),
        "span": Markup(f"--span: {span}; --span-md: {12 if span >= 6 else 6}; max-width: {w}px;"),
    }
    if isinstance(element, ChartPlan):
        view["title"] = element.title
        view["label"] = element.title or element.alt or element.id.replace("-", " ")
        view["frame"] = Markup(f"height: {h}px;")
        view["wide"] = w >= 0.66 * width_px
    elif not isinstance(element, ImagePlan):
        view["poster"] = _path(element.poster_path) if element.poster_path else None
    return view


def _media_groups(plan: DesignPlan, section: Section, width_px: int) -> list[dict[str, Any]]:
    """Consecutive visuals (images, videos) and charts of a section, as ``[{kind, elements}]``."""
    groups: list[dict[str, Any]] = []
    for element_id in section.element_ids:
        view = _element_view(plan.element(element_id), width_px)
        kind = "charts" if view["kind"] == "chart" else "visuals"
        if not groups or groups[-1]["kind"] != kind:
            groups.append({"kind": kind, "elements": []})
        groups[-1]["elements"].append(view)
    return groups


def _copy(view: SectionView) -> None:
    """Pair headings with paragraphs into blocks when the section has several headings."""
    s = view.section
    if len(s.headings) >= 2:
        pairs = min(len(s.headings), len(s.paragraphs))
        view.copy_blocks = [
            {"heading": h, "text": s.paragraphs[i] if i < pairs else ""}
            for i, h in enumerate(s.headings)
        ]
        view.copy_rest = list(s.paragraphs[pairs:])
    else:
        view.copy_lead = list(s.headings)
        view.copy_rest = list(s.paragraphs)


def _arrange(view: SectionView, structure: str, column_ratio: list[int]) -> None:
    """Decide which blocks go in the split's columns (``blocks_a`` / ``blocks_b``) and which run
    below; a stack puts everything in ``blocks_a``."""
    s = view.section
    present = {
        "intro": bool(s.title or s.subtitle or s.eyebrow),
        "nav": bool(s.nav_items),
        "copy": bool(s.headings or s.paragraphs),
        "tags": bool(s.tags),
        "buttons": bool(s.buttons),
        "media": bool(s.element_ids),
        "items": bool(s.items),
        "table": s.table is not None,
    }
    text = [b for b in _TEXT_BLOCKS if present[b]]
    rest = [b for b in ("media", "items", "table") if present[b]]
    layout = s.layout.lower()
    wants_split = layout == "split" or (
        structure == "two-column"
        and layout == "stack"
        and s.kind in ("hero", "content", "features")
    )
    if view.role == "section" and wants_split and text and rest:
        view.blocks_a, view.blocks_b, view.below = text, rest[:1], rest[1:]
        ratio = [max(1, r) for r in (s.ratio or column_ratio)[:2]]
        if len(ratio) == 2:
            view.split_style = Markup(f"--split-a: {ratio[0]}fr; --split-b: {ratio[1]}fr;")
    elif s.kind == "hero" or not rest:
        view.blocks_a = text + rest
    else:
        # Calls to action close a content section, after its cards, media and tables.
        view.blocks_a = (
            [b for b in text if b != "buttons"] + rest + (["buttons"] if s.buttons else [])
        )


def _section_view(plan: DesignPlan, section: Section, role: str, level: int) -> SectionView:
    width = _content_width(plan)
    if role == "side":
        width = _SIDE_WIDTH_PX
    view = SectionView(section=section, role=role, level=level)
    view.nav = [{"text": t, "href": _anchor(t, plan, "#top")} for t in section.nav_items]
    target = _button_target(plan, section)
    view.buttons = [
        {"text": t, "href": _anchor(t, plan, target), "primary": i == 0}
        for i, t in enumerate(section.buttons)
    ]
    _copy(view)
    view.media_groups = _media_groups(plan, section, width)
    view.item_style = _item_style(section, role)
    min_px = 160 if view.item_style == "tiles" else 220
    view.item_cols = _columns(len(section.items), width, min_px)
    view.table = _table_view(section.table) if section.table else None
    _arrange(view, plan.layout.structure, plan.layout.column_ratio)
    return view


def _content_width(plan: DesignPlan) -> int:
    """The main column's content width in px (planned max width less the dashboard sidebar)."""
    width = plan.layout.max_width_px - 64
    if plan.layout.structure == "sidebar-dashboard":
        width -= _SIDE_WIDTH_PX
    return max(width, 320)


def _h1_owner(plan: DesignPlan) -> str | None:
    """The id of the section whose title is the page's one ``<h1>`` (hero first, then the
    header's brand, then the first titled section); None when no section can hold it."""
    for section in plan.sections:
        if section.kind == "hero" and section.title:
            return section.id
    for section in plan.sections:
        if section.kind == "header":
            return section.id
    return next((s.id for s in plan.sections if s.title), None)


def _is_side(section: Section) -> bool:
    return section.kind == "sidebar" or section.layout.lower() == "sidebar"


def _groups(plan: DesignPlan) -> tuple[list[tuple[str, Section]], list[Section], list[Section]]:
    """Split the sections, in order, into a leading run (headers and sidebars, with their role),
    the ``<main>`` sections and the trailing footers."""
    sections = list(plan.sections)
    lead: list[tuple[str, Section]] = []
    while sections and (sections[0].kind == "header" or _is_side(sections[0])):
        first = sections.pop(0)
        lead.append(("side" if _is_side(first) else "header", first))
    tail: list[Section] = []
    while sections and sections[-1].kind == "footer":
        tail.insert(0, sections.pop())
    dashboard = plan.layout.structure == "sidebar-dashboard"
    if dashboard and lead and all(role == "header" for role, _ in lead):
        lead[0] = ("side", lead[0][1])
    return lead, sections, tail


def _role(section: Section) -> str:
    return {"header": "header", "footer": "footer"}.get(section.kind, "section")


def build_view(plan: DesignPlan) -> dict[str, Any]:
    """The template context of ``page.html.j2`` for ``plan``."""
    owner = _h1_owner(plan)
    lead, main, tail = _groups(plan)

    def view(role: str, section: Section) -> SectionView:
        return _section_view(plan, section, role, 1 if section.id == owner else 2)

    leading = [view(role, s) for role, s in lead]
    sides = [v for v in leading if v.role == "side"]
    moods = page_css.detect_moods(plan.layout)
    dashboard = plan.page_kind == "dashboard" or plan.layout.structure == "sidebar-dashboard"
    body = ["page", f"structure-{plan.layout.structure}", *(f"mood-{m}" for m in sorted(moods))]
    if dashboard:
        body.append("page-dashboard")
    lang = plan.language if _LANG.match(plan.language) else "en"
    return {
        "lang": lang,
        "title": plan.title,
        "brand": plan.title,
        "css": Markup(page_css.render_css(plan, _content_width(plan) + 64)),
        "body_class": " ".join(body),
        "leading": leading,
        "main": [view(_role(s), s) for s in main],
        "trailing": [view("footer", s) for s in tail],
        "shell": bool(sides),
        "side_span": Markup(f"--side-span: {len(leading) - len(sides) + 1 + len(tail)};"),
        "fallback_h1": plan.title if owner is None else None,
    }


def render_page(plan: DesignPlan) -> str:
    """The complete ``index.html`` for ``plan`` (UTF-8 text, inline CSS, relative asset paths).

    The result passes :func:`mmstudio.plan.slot_problems` (one slot per element and section)."""
    html = _environment().get_template("page.html.j2").render(**build_view(plan))
    log.debug("layout: %d sections, %d chars", len(plan.sections), len(html))
    return html
