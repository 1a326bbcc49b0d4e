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
    label: str = ""  # unique accessible name of the section's landmark
    landmark: str = ""  # "group" for a second top-level header / footer (one banner only)
    half: bool = False
    fit: str = ""
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
        if self.role == "header" or not self.section.title:
            return 2  # a header's brand is only a heading when it is the page's h1
        return min(self.level + 1, 6)

    @property
    def classes(self) -> str:
        s = self.section
        kind = re.sub(r"[^a-z0-9-]", "", s.kind.lower()) or "content"
        layout = re.sub(r"[^a-z0-9-]", "", s.layout.lower()) or "stack"
        base = {"header": "site-header", "footer": "site-footer section"}.get(self.role, "section")
        side = " side" if self.role == "side" else ""
        long = " title-long" if self.level == 1 and len(s.title) > 48 else ""
        half = " half" if self.half else ""
        return f"{base}{side} section-{kind} layout-{layout}{long}{half}"


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
    """Where a button that names no section points: the first other cta / form / pricing."""
    kinds = ("cta", "form", "pricing")
    ids = [c.id for c in plan.sections if c.kind in kinds and c.id != section.id]
    return f"#{ids[0]}" if ids else "#top"


def _is_dashboard(plan: DesignPlan) -> bool:
    return plan.page_kind == "dashboard" or plan.layout.structure == "sidebar-dashboard"


def _format_cell(value: float | int | str | None) -> str:
    """Table cell text: ints as written, floats without a trailing ``.0``, None as an em dash."""
    if value is None:
        return "—"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _table_view(table: DataTable) -> dict[str, Any]:
    """``{columns: [{text, num}], rows: [[{text, num}]], source, synth}`` for the table macro."""
    numeric = page_css.numeric_columns(table)
    columns = [{"text": c, "num": numeric[i]} for i, c in enumerate(table.columns)]
    rows = [
        [{"text": _format_cell(c), "num": numeric[i]} for i, c in enumerate(r)] for r in table.rows
    ]
    return {"columns": columns, "rows": rows, "source": table.source, "synth": table.synthesized}


def _item_style(section: Section, role: str) -> str:
    """How a section's items are drawn: tiles (KPIs, prices), quotes, timeline, cards, list
    (title-only items), inline (title-only items in a header) or rows (sidebars)."""
    title_only = not any(i.text or i.value or i.label or i.meta for i in section.items)
    if role == "header" and title_only:
        return "inline"
    if role in ("side", "header"):
        return "rows"
    if section.kind == "testimonials":
        return "quotes"
    if section.kind == "timeline":
        return "timeline"
    if any(item.value for item in section.items):
        return "tiles"
    return "list" if title_only else "cards"


def _element_view(element: Any, width_px: int) -> dict[str, Any]:
    """One slot: kind, id, src, alt, caption, planned px size, CSS aspect-ratio and grid span
    (of 12)."""
    w, h = element.display_width_px, element.display_height_px
    style, figure = page_css.slot_styles(w, h, width_px)
    view = {
        "kind": element.kind,
        "id": element.id,
        "src": _path(element.save_path),
        "alt": element.alt,
        "caption": element.caption,
        "width": w,
        "height": h,
        "style": Markup(style),
        "span": Markup(figure),
    }
    if isinstance(element, ChartPlan):
        view["title"] = element.title
        view["label"] = element.title or element.alt or re.sub(r"[-_]+", " ", element.id)
        view["frame"] = Markup(f"height: {h}px;")
        view["wide"] = w >= 0.66 * width_px
    elif not isinstance(element, ImagePlan):
        view["poster"] = _path(element.poster_path) if element.poster_path else None
        view["mp4"] = _path(element.mp4_path) if element.mp4_path else None
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


def _split_side(section: Section, present: dict[str, bool], dashboard: bool) -> str | None:
    """The block beside the text in a split: the media, else a few items (≤ 4, not on a
    dashboard, where KPI tiles need the full row); None when nothing fits beside the text."""
    if present["media"]:
        return "media"
    if present["items"] and len(section.items) <= 4 and not dashboard:
        return "items"
    return None


def _arrange(view: SectionView, structure: str, column_ratio: list[int], dashboard: bool) -> None:
    """Decide which blocks go in the split's columns (``blocks_a`` / ``blocks_b``) and which run
    below; a stack puts everything in ``blocks_a``."""
    s = view.section
    present = dict(
        intro=bool(s.title or s.subtitle or s.eyebrow),
        nav=bool(s.nav_items),
        copy=bool(s.headings or s.paragraphs),
        tags=bool(s.tags),
        buttons=bool(s.buttons),
        media=bool(s.element_ids),
        items=bool(s.items),
        table=s.table is not None,
    )
    text = [b for b in _TEXT_BLOCKS if present[b]]
    rest = [b for b in ("media", "items", "table") if present[b]]
    layout = s.layout.lower()
    wants_split = layout == "split" or (
        structure == "two-column"
        and layout == "stack"
        and s.kind in ("hero", "content", "features")
    )
    side = _split_side(s, present, dashboard)
    if view.role == "section" and wants_split and text and side:
        view.blocks_a, view.blocks_b = text, [side]
        view.below = [b for b in rest if b != side]
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
    view.table = _table_view(section.table) if section.table else None
    _arrange(view, plan.layout.structure, plan.layout.column_ratio, _is_dashboard(plan))
    if "items" in view.blocks_b:
        width //= 2
    min_px = {"tiles": 160, "list": 240}.get(view.item_style, 220)
    view.item_cols = page_css.grid_columns(len(section.items), width, min_px)
    view.fit = Markup(page_css.title_fit(section.title, view.level))
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


def _compact(view: SectionView) -> bool:
    """True for a dashboard section small enough to share a row with another (a half panel)."""
    s = view.section
    groups = view.media_groups
    return (
        s.kind not in ("hero", "header", "footer")
        and s.table is None
        and len(s.element_ids) <= 1
        and len(s.items) <= 4
        and len(s.paragraphs) <= 2
        and not (groups and groups[0]["elements"][0].get("wide"))
    )


def _panels(views: list[SectionView]) -> list[SectionView]:
    """Mark consecutive pairs of compact dashboard sections as half panels (a lone one stays
    full width so the grid has no holes)."""
    index = 0
    while index < len(views):
        if index + 1 < len(views) and _compact(views[index]) and _compact(views[index + 1]):
            views[index].half = views[index + 1].half = True
            index += 2
        else:
            index += 1
    return views


def _label_landmarks(views: list[SectionView]) -> None:
    """Give every section a unique accessible name (title, eyebrow, first heading or kind,
    numbered on repeats) and demote repeated top-level headers / footers to regions."""
    seen: dict[str, int] = {}
    roles: set[str] = set()
    for view in views:
        s = view.section
        base = (s.title or s.eyebrow or (s.headings or [""])[0] or s.kind)[:80]
        seen[base] = seen.get(base, 0) + 1
        view.label = base if seen[base] == 1 else f"{base} ({seen[base]})"
        if view.role in ("header", "footer"):
            view.landmark = "group" if view.role in roles else ""
            roles.add(view.role)


def build_view(plan: DesignPlan) -> dict[str, Any]:
    """The template context of ``page.html.j2`` for ``plan``."""
    owner = _h1_owner(plan)
    lead, main, tail = _groups(plan)

    def view(role: str, section: Section) -> SectionView:
        return _section_view(plan, section, role, 1 if section.id == owner else 2)

    leading = [view(role, s) for role, s in lead]
    sides = [v for v in leading if v.role == "side"]
    middle = [view(_role(s), s) for s in main]
    trailing = [view("footer", s) for s in tail]
    _label_landmarks([*leading, *middle, *trailing])
    moods = page_css.detect_moods(plan.layout)
    dashboard = _is_dashboard(plan)
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
        "main": _panels(middle) if dashboard else middle,
        "trailing": trailing,
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
