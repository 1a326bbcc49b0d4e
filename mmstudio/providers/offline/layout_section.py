"""One section of the offline layout: what its template needs (MM-WebAgent §3.3 layout agent).

:func:`section_view` turns a plan section into a :class:`SectionView`: nav and button targets,
copy blocks, media groups with sized slots (a testimonial's portrait moves into its quote card),
items and table, and the arrangement of its blocks — a split (text beside media or a few cards)
or a stack, with media, cards and table in the order the prompt describes them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from markupsafe import Markup, escape

from mmstudio.plan import HOME_PATH, ChartPlan, DataTable, DesignPlan, ImagePlan, Section
from mmstudio.providers.offline import page_css
from mmstudio.resources import resource

SIDE_WIDTH_PX = 264
_TEXT_BLOCKS = ("intro", "nav", "copy", "tags", "buttons")


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
    nav: list[dict[str, Any]] = field(default_factory=list)
    home: str = "#top"  # where the brand links: the top of the page, or the home page's file
    buttons: list[dict[str, Any]] = field(default_factory=list)
    copy_blocks: list[dict[str, str]] = field(default_factory=list)
    copy_lead: list[str] = field(default_factory=list)
    copy_rest: list[str] = field(default_factory=list)
    table: dict[str, Any] | None = None
    portraits: dict[int, dict[str, Any]] = field(default_factory=dict)  # quote index → image
    rest_order: tuple[str, ...] = ("media", "items", "table")

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


def _link(text: str, plan: DesignPlan, default: str) -> str:
    """Where a nav item or button named ``text`` goes. On a page of a multi-page site: the file
    of the page it names ("About" → ``about.html``), else a section of this page
    (``#<id>``), else a section of another page (``menu.html#<id>``), else ``default``; on a
    one-page plan :func:`_anchor`."""
    site = plan.site
    current = plan.current_page
    if current is None or not site.multi_page:
        return _anchor(text, plan, default)
    wanted = _norm(text)
    for page in site.site_pages():
        if wanted and wanted in (_norm(page.label), _norm(page.title), _norm(page.id)):
            return page.path
    here = _anchor(text, plan, "")
    if here:
        return here
    there = _anchor(text, site, "")
    if there:
        page = site.page_of(there[1:])
        return there if page.path == current.path else f"{page.path}{there}"
    return default


def _anchor(text: str, plan: DesignPlan, default: str = "#top") -> str:
    """``#<section id>`` of the section a nav item or button names, else ``default``: the
    section whose title, kind or id holds the label (or the label it), then one whose headings
    or card titles hold all the label's words, then the first of the kinds
    ``resources/offline/nav_targets.json`` gives the label's words ("Speakers" → team)."""
    wanted = _norm(text)
    if not wanted:
        return default
    body = [s for s in plan.sections if s.kind not in ("header", "footer", "sidebar")]
    for section in body:
        names = (_norm(section.title), _norm(section.kind), _norm(section.id))
        if any(name and (wanted == name or wanted in name or name in wanted) for name in names):
            return f"#{section.id}"
    words = {w for w in wanted.split() if len(w) > 2 and w not in ("the", "and", "our", "my")}
    for section in body:
        shown = " ".join([*section.headings, *(i.title for i in section.items)])
        if words and words <= set(_norm(shown).split()):
            return f"#{section.id}"
    kinds = [k for word in wanted.split() for k in _nav_kinds().get(word, [])]
    for kind in (k for k in kinds if k != "content"):
        target = next((s for s in plan.sections if s.kind == kind), None)
        if target is not None:
            return f"#{target.id}"
    # "content" names no one section ("FAQ" → the first plain section): the copy that holds
    # the label's words says which, before any plain section will do
    mentioned = _mentioned(words, body)
    if mentioned or "content" not in kinds:
        return mentioned or default
    target = next((s for s in plan.sections if s.kind == "content"), None)
    return f"#{target.id}" if target is not None else default


def _mentioned(words: set[str], body: list[Section]) -> str:
    """``#<id>`` of the first section whose copy — else whose own prompt sentences — holds
    every one of ``words`` (plurals folded: “Curriculum” → the section whose lead reads “a
    structured … curriculum”); "" when none does."""
    wanted = {_stem(w) for w in words}
    if not wanted:
        return ""
    copies = [
        " ".join([s.subtitle, s.eyebrow, *s.paragraphs, *s.tags,
                  *(f"{i.text} {i.label} {i.meta}" for i in s.items)])
        for s in body
    ]  # fmt: skip
    for texts in (copies, [s.description for s in body]):
        for section, text in zip(body, texts, strict=True):
            if wanted <= {_stem(w) for w in _norm(text).split()}:
                return f"#{section.id}"
    return ""


def _stem(word: str) -> str:
    """A word without its plural ending (courses → course, stories → story)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "shes", "ches")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


@cache
def _nav_kinds() -> dict[str, list[str]]:
    """``{word: [section kind, …]}`` of ``resources/offline/nav_targets.json``."""
    data = json.loads(resource("offline", "nav_targets.json").read_text(encoding="utf-8"))
    return data["kinds"]


def _button_target(plan: DesignPlan, section: Section) -> str:
    """Where a button that names no section points: the first other cta / form / pricing."""
    kinds = ("cta", "form", "pricing")
    ids = [c.id for c in plan.sections if c.kind in kinds and c.id != section.id]
    return f"#{ids[0]}" if ids else "#top"


def is_dashboard(plan: DesignPlan) -> bool:
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
    """How a section's items are drawn: tiles (KPIs, prices), plans (items with points),
    quotes, timeline, cards, list
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
    if any(item.points for item in section.items):
        return "plans"  # a pricing plan: name, price, line, features in one card
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
        # a chart named like its section shows no second heading (its frame keeps the title)
        view["repeat"] = view["kind"] == "chart" and _norm(view["label"]) == _norm(section.title)
        kind = "charts" if view["kind"] == "chart" else "visuals"
        if not groups or groups[-1]["kind"] != kind:
            groups.append({"kind": kind, "elements": []})
        groups[-1]["elements"].append(view)
    for group in groups:
        if group["kind"] == "visuals":
            _one_row(group["elements"])
    return groups


#: at most this many like pictures share one row when their spans would leave an orphan
ROW_MAX = 4
_SPAN = re.compile(r"--span: (\d+);")


def _one_row(views: list[dict[str, Any]]) -> None:
    """In place: 2–:data:`ROW_MAX` pictures whose planned spans leave the last one alone on
    its row (three half-width photos: two, then one) share one row instead, each 12 / n of
    the grid and never wider than planned."""
    spans = [int(m.group(1)) for v in views if (m := _SPAN.search(str(v["span"])))]
    n = len(views)
    if not 2 <= n <= ROW_MAX or len(spans) != n or sum(spans) % 12 == 0 or sum(spans) < 12:
        return
    span = 12 // n
    for view in views:
        view["span"] = Markup(
            f"--span: {span}; --span-md: {12 if span >= 6 else 6}; max-width: {view['width']}px;"
        )


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


def _pair_portraits(view: SectionView) -> None:
    """Put a testimonial's portrait beside its quote: the section's images go, in order, to
    its quotes (when there are no more images than quotes) and leave the media block."""
    quotes = [i for i, item in enumerate(view.section.items) if item.text]
    images = [e for g in view.media_groups for e in g["elements"] if e["kind"] == "image"]
    if not images or len(images) > len(quotes):
        return
    for image in images:  # an avatar-sized figure beside the quote, at most its planned width
        image["portrait_style"] = Markup(f"--portrait-w: {min(image['width'], 240)}px;")
    view.portraits = dict(zip(quotes, images, strict=False))
    taken = {e["id"] for e in images}
    for group in view.media_groups:
        group["elements"] = [e for e in group["elements"] if e["id"] not in taken]
    view.media_groups = [g for g in view.media_groups if g["elements"]]


def _rest_order(plan: DesignPlan, section: Section) -> tuple[str, ...]:
    """Media, items and table in the order the prompt describes them (``description`` holds its
    sentences): "Beneath the cards is a short looping video" puts the cards first."""
    text = section.description.lower()
    if not section.items or not section.element_ids or not text:
        return ("media", "items", "table")
    first = section.items[0]
    item_at = text.find((first.title or first.label or first.text)[:40].lower())
    prompt = plan.element(section.element_ids[0]).prompt[:40].lower()
    media_at = text.find(prompt) if prompt else -1
    if 0 <= item_at < media_at:
        return ("items", "media", "table")
    return ("media", "items", "table")


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
        media=bool(view.media_groups),
        items=bool(s.items),
        table=s.table is not None,
    )
    text = [b for b in _TEXT_BLOCKS if present[b]]
    rest = [b for b in view.rest_order if present[b]]
    layout = s.layout.lower()
    wants_split = layout == "split" or (
        structure == "two-column"
        and layout in ("stack", "column")
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


def section_view(plan: DesignPlan, section: Section, role: str, level: int) -> SectionView:
    width = content_width(plan)
    if role == "side":
        width = SIDE_WIDTH_PX
    view = SectionView(section=section, role=role, level=level)
    current = plan.current_page
    view.nav = [
        {"text": t, "href": href, "current": current is not None and href == current.path}
        for t in section.nav_items
        for href in [_link(t, plan, "#top")]
    ]
    if current is not None and plan.site.multi_page and current.path != HOME_PATH:
        view.home = HOME_PATH
    target = _button_target(plan, section)
    view.buttons = [
        {"text": t, "href": _link(t, plan, target), "primary": i == 0}
        for i, t in enumerate(section.buttons)
    ]
    _copy(view)
    view.media_groups = _media_groups(plan, section, width)
    view.item_style = _item_style(section, role)
    if view.item_style == "quotes":
        _pair_portraits(view)
    view.table = _table_view(section.table) if section.table else None
    view.rest_order = _rest_order(plan, section)
    _arrange(view, plan.layout.structure, plan.layout.column_ratio, is_dashboard(plan))
    if "items" in view.blocks_b:
        width //= 2
    view.item_cols = item_columns(view, width)
    view.fit = Markup(page_css.title_fit(section.title, view.level))
    return view


def item_columns(view: SectionView, width_px: int) -> int:
    """Grid columns for the section's items in a ``width_px`` column (tiles ≥ 190 px wide,
    list rows ≥ 240 px, cards ≥ 220 px); 1 for a section whose layout is ``column``."""
    if view.section.layout == "column":
        return 1  # the prompt stacks them: "three entries are stacked vertically"
    min_px = {"tiles": 190, "list": 240}.get(view.item_style, 220)
    return page_css.grid_columns(len(view.section.items), width_px, min_px)


def content_width(plan: DesignPlan) -> int:
    """The main column's content width in px (planned max width less the dashboard sidebar)."""
    width = plan.layout.max_width_px - 64
    if plan.layout.structure == "sidebar-dashboard":
        width -= SIDE_WIDTH_PX
    return max(width, 320)
