"""Offline operations that change assets and the plan as well as the page (no model needed):

- ``chart_type``: the chart's ``attributes.chart_type`` in the plan is set to the asked type, its
  ECharts option is rebuilt (:func:`mmstudio.pipeline.charts.build_option`) and the chart page and
  option JSON are written again;
- ``insert``: a sketched box with a label in free space becomes a new image, chart, video (made by
  the offline asset makers) or text block in the section under the box, placed in page order
  before the first element below the box; a new medium carries ``data-mm-id`` and joins the plan
  (its section's ``element_ids`` at the same position), a text block carries an HTML id and
  joins its section's paragraphs.

Nothing here writes to the project: every change goes into a :class:`Draft` (the page, files by
site-relative path, the plan), which the turn renders in a trial copy and commits at its end.
New assets live under ``assets/feedback/``; display sizes are the sketch box's, in CSS px.
"""

from __future__ import annotations

import hashlib
import html as htmllib
import random
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mmstudio.pipeline import charts
from mmstudio.plan import (
    ChartAttributes,
    ChartPlan,
    DataTable,
    DesignPlan,
    ElementContext,
    ImagePlan,
    Section,
    VideoPlan,
)
from mmstudio.refine import html_edit

from . import operations
from .operations import OperationError
from .placement import place
from .requirements import Requirement

ASSET_OPS = ("chart_type", "insert")
FOLDER = "assets/feedback"
ECHARTS = "vendor/echarts.min.js"
MIN_BOX = (160, 90)  # smallest new element, w × h px
MAX_BOX = (1400, 1000)
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_WEEK = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


#: the bytes a draft's ``files`` holds for a site file the turn removes (a page it drops)
REMOVED = b"\0mm-removed\0"


@dataclass
class Draft:
    """A candidate result of a turn: ``page`` (the HTML of index.html), ``files`` to write into
    the site (site-relative path → bytes; new or replaced assets and other pages of the site;
    :data:`REMOVED` for a file the turn removes), the ``plan`` (None: the project has none),
    whether the plan changed, and the real ``site_dir`` it builds on."""

    page: str
    plan: DesignPlan | None = None
    site_dir: Path | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    plan_changed: bool = False

    def read(self, path: str) -> bytes | None:
        """A site file as this draft would leave it (None when there is none)."""
        if path == "index.html":
            return self.page.encode("utf-8")
        if path in self.files:
            return None if self.files[path] == REMOVED else self.files[path]
        if self.site_dir is None:
            return None
        try:
            return (self.site_dir / path).read_bytes()
        except OSError:
            return None

    def reader(self) -> Callable[[str], bytes | None]:
        """A frozen copy of :meth:`read` (later edits of the draft do not show through)."""
        frozen = Draft(self.page, self.plan, self.site_dir, dict(self.files), self.plan_changed)
        return frozen.read


def apply(draft: Draft, req: Requirement, key: str, font_px: float = 16.0, repair=False) -> Draft:
    """``draft`` with ``req`` applied (page operations go through
    :func:`mmstudio.feedback.operations.apply`). Raises OperationError (one line)."""
    if req.op == "chart_type":
        return change_chart_type(draft, req)
    if req.op == "insert":
        return insert(draft, req, repair)
    if req.op == "feature":
        return build_feature(draft, req)
    draft.page = operations.apply(draft.page, req, key, font_px, repair)
    return draft


# --- a feature from the behaviour kit ---------------------------------------------------------


def build_feature(draft: Draft, req: Requirement) -> Draft:
    """The feature ``req`` asks for built into the site (:func:`mmstudio.feedback.features.
    build`), with the kit scripts and stylesheets it loads added to the draft's files. Where:
    the page that holds the feature already (the homepage or another page of the site: a turn
    can change any page); else a new page of its own when the words ask for one
    (``spec.page``: its file ``<name>.html`` made from the homepage's frame, linked from the
    navigation of every page and added to the plan's pages); else the homepage.
    ``spec.drop`` removes the page the words name instead (:func:`drop_site_page`). A feature
    already built (a repair, a retry) is left as it is. Raises OperationError (one line)."""

    from . import features

    try:
        spec = features.FeatureSpec.loads(req.content)
    except (ValueError, TypeError) as exc:
        raise OperationError(f"no feature to build: {exc}") from None
    if spec.drop:
        return drop_site_page(draft, spec.name)
    key = req.id.replace(".", "-")
    pages = site_pages(draft)
    if any(html_edit.find(h, "data-mm-feature", req.id) for h in pages.values()):
        return draft
    path = "index.html"
    if spec.name and features.find_feature(draft.page, spec.name) is None:
        path = next((p for p, h in pages.items()
                     if p != "index.html" and features.find_feature(h, spec.name)),
                    "index.html")  # fmt: skip
        if path == "index.html" and spec.page:
            return _new_page(draft, spec, req, key, pages)
    try:
        page, names = features.build(pages[path], spec, key)
    except (ValueError, KeyError) as exc:
        raise OperationError(f"cannot build the feature: {exc}") from None
    _write_page(draft, path, _mark_feature(page, req.id))
    _kit_files(draft, names)
    return draft


def site_pages(draft: Draft) -> dict[str, str]:
    """The draft's pages: site-relative file → HTML (``index.html`` first, then the site
    folder's other top-level ``*.html`` and the pages the turn made, minus those it removed)."""
    found = {"index.html": draft.page}
    names = set()
    if draft.site_dir is not None and draft.site_dir.is_dir():
        names |= {p.name for p in draft.site_dir.glob("*.html")}
    names |= {p for p in draft.files if "/" not in p and p.endswith(".html")}
    for name in sorted(names - {"index.html"}):
        data = draft.read(name)
        if data is not None:
            found[name] = data.decode("utf-8", errors="replace")
    return found


def _write_page(draft: Draft, path: str, html: str) -> None:
    if path == "index.html":
        draft.page = html
    else:
        draft.files[path] = html.encode("utf-8")


def _kit_files(draft: Draft, names: list[str]) -> None:
    from mmstudio.pipeline import behaviours as kit

    from . import features

    draft.files.update(kit.files(names) if names else {})
    draft.files[features.FEATURE_CSS] = features.stylesheet()
    if names:
        draft.files[kit.CSS_PATH] = (kit.kit_dir() / "behaviours.css").read_bytes()


def _new_page(draft: Draft, spec, req: Requirement, key: str, pages: dict[str, str]) -> Draft:
    """A page of its own for the feature ``spec`` (see :func:`build_feature`)."""
    from . import features

    title = spec.name
    stem = features.slug(title)
    taken = set(pages) | set(draft.files)
    path, n = f"{stem}.html", 2
    while path in taken or stem in ("index", "home"):
        stem, n = f"{features.slug(title)}-{n}", n + 1
        path = f"{stem}.html"
    body_spec = features.FeatureSpec.loads(spec.dumps())
    body_spec.page, body_spec.menu, body_spec.place = False, False, "start"
    body_spec.controls = [c for c in body_spec.controls if not c.menu]
    try:
        html, names = features.build(features.page_frame(draft.page, title), body_spec, key)
    except (ValueError, KeyError) as exc:
        raise OperationError(f"cannot build the page: {exc}") from None
    label = next((c.label for c in spec.controls if c.menu), "") or title
    pages = {**pages, path: _mark_feature(html, req.id)}
    for file, page in pages.items():  # every page's navigation links to the new one
        _write_page(draft, file, features.nav_link(page, label, path, current=file == path))
    _kit_files(draft, names)
    if draft.plan is not None:
        from pydantic import ValidationError

        from mmstudio.plan import add_page

        taken_ids = {x.id for x in draft.plan.sections}
        frame = features.page_frame(draft.page, title)
        body = [x for x in feature_sections(html, frame) if x.id not in taken_ids]
        try:
            plan, made = add_page(draft.plan, title, nav_label=label, sections=body)
        except ValidationError:
            plan = None  # the site still has the page; the plan keeps its pages as they were
        if plan is not None and made.path == path:
            draft.plan, draft.plan_changed = plan, True
    return draft


def feature_sections(page: str, frame: str) -> list[Section]:
    """The plan's sections for the body of ``page`` that a feature built into ``frame`` (the
    page it started from): each outermost ``data-mm-section`` of ``page`` that ``frame``
    lacks, outside the header, footer and navigation, as a section of kind ``feature`` titled by its
    ``aria-label`` (else its first heading), in page order. Ids that are no valid plan id are
    left out (the page keeps them; the plan tree does not show them)."""
    from pydantic import ValidationError

    framed = {n.attrs.get("data-mm-section") for n in html_edit.parse(frame)}
    nodes = html_edit.parse(page)
    found: list[Section] = []
    outer: list[html_edit.Node] = []
    for n in nodes:
        sid = n.attrs.get("data-mm-section")
        if not sid or sid in framed or n.tag in ("header", "footer", "nav"):
            continue
        if any(o.start <= n.start < o.end for o in outer):  # a part of a section found
            continue
        outer.append(n)
        heads = [html_edit.text_of(page, c) for c in nodes
                 if c.tag in ("h1", "h2", "h3") and n.start <= c.start < n.end][:1]  # fmt: skip
        title = n.attrs.get("aria-label", "").strip() or (heads[0].strip() if heads else "")
        try:
            found.append(Section(id=sid, kind="feature", title=title[:400]))
        except ValidationError:
            continue
    return found


def drop_site_page(draft: Draft, name: str) -> Draft:
    """``draft`` without the page ``name`` names (by its title, first heading or file name):
    its file is removed and every other page loses its links to it (a navigation entry goes,
    a link in text becomes its words: :func:`mmstudio.pipeline.pages.unlink_page`); the plan
    loses the page too. Raises OperationError when no page other than the homepage is named."""
    from mmstudio.pipeline.pages import unlink_page

    from . import features

    pages = site_pages(draft)
    best, score = "", 0.0
    for path, html in pages.items():
        if path == "index.html":
            continue
        title = re.search(r"<title>(.*?)</title>", html, re.S)
        heads = re.findall(r"<h[12]\b[^>]*>(.*?)</h[12]>", html, re.S)[:1]
        label = " ".join([path[:-5].replace("-", " "), title.group(1) if title else "", *heads])
        found = features.overlap(name, re.sub(r"<[^>]+>", " ", label))
        if found > score:
            best, score = path, found
    if score < 0.6:
        raise OperationError(f"no page of the site is “{name}” (the homepage stays)")
    draft.files[best] = REMOVED
    for path, html in pages.items():
        if path != best:
            changed = unlink_page(html, best)
            if changed != html:
                _write_page(draft, path, changed)
    if draft.plan is not None:
        from mmstudio.plan import remove_page

        page = next((p for p in draft.plan.pages if p.path == best), None)
        if page is not None:
            draft.plan, draft.plan_changed = remove_page(draft.plan, page.id), True
    return draft


def _mark_feature(page: str, req_id: str) -> str:
    """``page`` with a ``<meta name="mm-feature" data-mm-feature=ID>`` saying the feature of
    requirement ``req_id`` was built (so a repair or retry does not build it twice)."""
    tag = f'<meta name="mm-feature" data-mm-feature="{htmllib.escape(req_id)}">'
    at = page.lower().find("</head>")
    return page if at < 0 else page[:at] + tag + "\n" + page[at:]


# --- chart type ------------------------------------------------------------------------------


def change_chart_type(draft: Draft, req: Requirement) -> Draft:
    """The chart ``req.target`` redrawn as ``req.value`` (plan, option JSON and chart page)."""
    plan = _need_plan(draft, f"changing the chart {req.target}")
    try:
        element = plan.element(req.target or "")
    except KeyError:
        raise OperationError(f"the chart {req.target} is not in the plan") from None
    if not isinstance(element, ChartPlan):
        raise OperationError(f"{req.target} is a {element.kind}, not a chart")
    kind = charts.chart_kind(req.value)
    attributes = element.attributes.model_copy(update={"chart_type": kind})
    chart = element.model_copy(update={"attributes": attributes})
    charts_ = [chart if c.id == chart.id else c for c in plan.charts]
    draft.plan = plan.model_copy(update={"charts": charts_})
    draft.plan_changed = True
    draft.files.update({p: t.encode() for p, t in charts.chart_files(chart, draft.plan).items()})
    return draft


# --- insert from a sketch --------------------------------------------------------------------


def inserted_id(req: Requirement) -> str:
    """The id of the element an insert requirement makes: ``fb_image_t3_r1`` (``data-mm-id``)
    for a medium, ``fb-text-t3-r1`` (HTML id) for a text block."""
    if req.value == "text":
        return f"fb-text-{req.id.replace('.', '-')}"
    return f"fb_{req.value}_{req.id.replace('.', '_')}"


def _exists(page: str, req: Requirement) -> bool:
    new_id = inserted_id(req)
    if req.value == "text":
        return html_edit.find(page, "id", new_id) is not None
    return html_edit.element_node(page, new_id) is not None


def insert(draft: Draft, req: Requirement, repair: bool = False) -> Draft:
    """``draft`` with the new element of ``req`` made and placed (once: a second application —
    a repair — only makes an element that is there but not visible show, boosted)."""
    if _exists(draft.page, req):
        if repair:
            kind = "text" if req.value == "text" else req.value
            show = Requirement(text="", op="show", target=inserted_id(req), target_kind=kind)
            draft.page = operations.apply(draft.page, show, operations.REPAIR_KEY, repair=True)
        return draft
    if req.value == "text":
        markup = _text_markup(req)
        draft.page = place(draft.page, req, markup)
        _plan_paragraph(draft, req)
        return draft
    plan = _need_plan(draft, f"inserting a {req.value}")
    section = _plan_section(plan, req)
    element, files = MAKERS[req.value](req, plan, section)
    draft.files.update(files)
    if req.value == "chart" and draft.read(ECHARTS) is None:
        from mmstudio.resources import vendor_file

        draft.files[ECHARTS] = vendor_file("echarts.min.js").read_bytes()
    draft.page = place(draft.page, req, _media_markup(element))
    draft.plan = _plan_with(plan, element, section, draft.page)
    draft.plan_changed = True
    return draft


def _need_plan(draft: Draft, doing: str) -> DesignPlan:
    if draft.plan is None:
        raise OperationError(f"{doing} needs the project's plan.json")
    return draft.plan


def _plan_section(plan: DesignPlan, req: Requirement) -> str:
    ids = [s.id for s in plan.sections]
    if req.target in ids:
        return req.target
    raise OperationError(f"the section {req.target} is not in the plan")


def _size(req: Requirement) -> tuple[int, int]:
    """The new element's display size (w, h px): the sketch box, clamped; a box flatter or
    taller than 3:1 (a rough sketch marks a place, not a shape) gets a 3:2 height; 640 × 400
    without a box."""
    w, h = (req.box[2], req.box[3]) if len(req.box) == 4 else (640, 400)
    w = min(max(w, MIN_BOX[0]), MAX_BOX[0])
    if not 1 / 3 <= h / max(w, 1) <= 3:
        h = w * 2 / 3
    return int(w), int(min(max(h, MIN_BOX[1]), MAX_BOX[1]))


def _context(section: str, role: str) -> ElementContext:
    return ElementContext(section=section, role=role, page_style="added from a feedback sketch")


def make_image(req: Requirement, plan: DesignPlan, section: str):
    """An offline-painted image for ``req.content`` (webp at the generated size nearest the box's
    aspect); returns (ImagePlan, {path: bytes})."""
    from mmstudio.providers.offline import art

    new_id, (w, h) = inserted_id(req), _size(req)
    size = "1536x1024" if w / h > 1.2 else "1024x1536" if w / h < 0.83 else "1024x1024"
    element = ImagePlan(
        id=new_id, save_path=f"{FOLDER}/{new_id}.webp", context=_context(section, "photo"),
        prompt=req.content or "an image", display_width_px=w, display_height_px=h,
        alt=req.content[:400], size=size,
    )  # fmt: skip
    data = art.encode_image(art.paint_image(element, plan), element.save_path)
    return element, {element.save_path: data}


def make_video(req: Requirement, plan: DesignPlan, section: str):
    """A 4 s offline loop (VP9 webm + webp poster) for ``req.content``; (VideoPlan, files)."""
    from mmstudio.providers.offline import motion

    new_id, (w, h) = inserted_id(req), _size(req)
    element = VideoPlan(
        id=new_id, save_path=f"{FOLDER}/{new_id}.webm", context=_context(section, "ambient loop"),
        prompt=req.content or "a calm loop", display_width_px=w, display_height_px=h,
        alt=req.content[:400], size="720x1280" if h > w else "1280x720",
        poster_path=f"{FOLDER}/{new_id}-poster.webp",
    )  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="mm-insert-") as tmp:
        written = motion.make_video(element, plan, Path(tmp))
        files = {p.relative_to(tmp).as_posix(): p.read_bytes() for p in written}
    return element, files


def make_chart(req: Requirement, plan: DesignPlan, section: str):
    """A chart of data made up for the label ("sales by month": a line over the months), its
    page and option JSON; (ChartPlan, files)."""
    new_id, (w, h) = inserted_id(req), _size(req)
    table = label_table(req.content, new_id)
    words = re.findall(r"[a-z]+", req.content.lower())
    named = next((w for w in words if charts.chart_kind(w) == w or w in ("column", "doughnut")),
                 None)  # fmt: skip
    timeline = table.rows and str(table.rows[0][0]) in (_MONTHS[0], _WEEK[0], "2019", "08:00")
    kind = charts.chart_kind(named) if named else "line" if timeline else "bar"
    title = req.content[:1].upper() + req.content[1:300] if req.content else "New chart"
    element = ChartPlan(
        id=new_id, save_path=f"{FOLDER}/{new_id}.html", context=_context(section, "data"),
        prompt=req.content or "a chart", display_width_px=w, display_height_px=max(h, 200),
        alt=title, title=title, attributes=ChartAttributes(chart_type=kind), source_data=table,
    )  # fmt: skip
    return element, {p: t.encode() for p, t in charts.chart_files(element, plan).items()}


MAKERS = {"image": make_image, "video": make_video, "chart": make_chart}


def label_table(label: str, seed: str) -> DataTable:
    """Plausible made-up data for a chart label: categories from its words (months, weekdays,
    quarters, years, hours, regions), one series named by the words before "by"/"per", values
    20–100 in a seeded random walk (marked synthesized)."""
    low = label.lower()
    if "month" in low:
        categories = _MONTHS
    elif re.search(r"\b(week|weekday|day|daily)\b", low):
        categories = _WEEK
    elif "year" in low:
        categories = [str(y) for y in range(2019, 2026)]
    elif "hour" in low:
        categories = [f"{h:02d}:00" for h in range(8, 21, 2)]
    elif "region" in low:
        categories = ["North", "South", "East", "West"]
    else:
        categories = ["Q1", "Q2", "Q3", "Q4"]
    head = re.split(r"\b(?:by|per|over|across)\b", label, maxsplit=1)[0].strip(" :-")
    name = head[:1].upper() + head[1:60] if head else "Value"
    rng = random.Random(int(hashlib.sha256(seed.encode()).hexdigest()[:12], 16))
    value, rows = rng.uniform(35, 60), []
    for category in categories:
        value = min(100.0, max(20.0, value + rng.uniform(-9, 14)))
        rows.append([category, round(value)])
    return DataTable(columns=["Category", name], rows=rows, synthesized=True,
                     source="made up offline for a sketched chart")  # fmt: skip


def _media_markup(element: ImagePlan | VideoPlan | ChartPlan) -> str:
    """The new element's markup: a figure sized like the sketch box (max 100 % of its column)."""
    w, h = element.display_width_px, element.display_height_px
    esc = lambda text: htmllib.escape(text, quote=True)  # noqa: E731
    figure = f'style="margin:24px auto;width:{w}px;max-width:100%"'
    fill = f"display:block;width:100%;height:auto;aspect-ratio:{w}/{h};object-fit:cover"
    if isinstance(element, ImagePlan):
        inner = (
            f'<img data-mm-id="{element.id}" src="{element.save_path}" alt="{esc(element.alt)}" '
            f'width="{w}" height="{h}" loading="eager" style="{fill}">'
        )
        return f'<figure class="mm-inserted media-figure media-image" {figure}>{inner}</figure>'
    if isinstance(element, VideoPlan):
        inner = (
            f'<video data-mm-id="{element.id}" autoplay muted loop playsinline preload="auto" '
            f'poster="{element.poster_path}" width="{w}" height="{h}" '
            f'aria-label="{esc(element.alt)}" style="{fill}">'
            f'<source src="{element.save_path}" type="video/webm"></video>'
        )
        return f'<figure class="mm-inserted media-figure media-video" {figure}>{inner}</figure>'
    title = esc(element.title)
    return (
        f'<figure class="mm-inserted chart-panel" {figure}><h3 class="chart-title">{title}</h3>'
        f'<div class="chart-frame" style="height:{h}px"><iframe data-mm-id="{element.id}" '
        f'src="{element.save_path}" title="{title}" loading="eager" '
        f'style="display:block;width:100%;height:100%;border:0"></iframe></div></figure>'
    )


def _text_markup(req: Requirement) -> str:
    text = htmllib.escape(req.content or req.text, quote=False)
    return f'<p id="{inserted_id(req)}" class="mm-note mm-inserted">{text}</p>'


def _plan_with(plan: DesignPlan, element, section: str, page: str) -> DesignPlan:
    """``plan`` with ``element`` listed in its kind's list and in ``section``'s element ids, in
    the order the page shows them; raises OperationError when the result is not a valid plan."""
    data = plan.model_dump(mode="json")
    data[f"{element.kind}s"].append(element.model_dump(mode="json"))
    order = {
        n.attrs["data-mm-id"]: n.start for n in html_edit.parse(page) if n.attrs.get("data-mm-id")
    }
    for sec in data["sections"]:
        if sec["id"] == section:
            ids = [*sec["element_ids"], element.id]
            sec["element_ids"] = sorted(ids, key=lambda i: order.get(i, len(page)))
    try:
        return DesignPlan.model_validate(data)
    except ValueError as exc:
        first = (str(exc).splitlines() or ["invalid"])[0]
        raise OperationError(f"the plan cannot hold the new {element.kind}: {first}") from None


def _plan_paragraph(draft: Draft, req: Requirement) -> None:
    """A new text block joins its section's paragraphs (a page without a plan: page only)."""
    if draft.plan is None or not req.target:
        return
    sections = [
        s.model_copy(update={"paragraphs": [*s.paragraphs, (req.content or req.text)[:4000]]})
        if s.id == req.target else s
        for s in draft.plan.sections
    ]  # fmt: skip
    if sections != list(draft.plan.sections):
        draft.plan = draft.plan.model_copy(update={"sections": sections})
        draft.plan_changed = True
