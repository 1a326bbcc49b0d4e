"""The design plan: MM-WebAgent's global plan plus one local plan per image, video and chart.

A :class:`DesignPlan` is what the planner writes (``plan.json``) and what every later stage reads:
the layout agent builds the page from ``layout`` and ``sections``; the asset agents fill each
element plan's slot; evaluators and refiners address elements by ``id`` (the page carries
``data-mm-id="<id>"`` on each planned element and ``data-mm-section="<id>"`` on each section).

Source: MM-WebAgent (arXiv 2604.15309) §3 — hierarchical planning: a global plan (sections, layout,
palette, typography, mood, a sized slot per asset) and local element plans (``save_path``,
``context {section, role, page_style}``, modality attributes, prompt, size; charts carry
``source_data``).

Validation is strict because plans also come from models (untrusted input): ids are unique, every
``save_path`` is a relative path inside ``assets/`` with the modality's extension, and a traversal
attempt (``..``, absolute, ``~``, a drive letter, a URL or percent-encoding) is an error, never a
silent fix. Validation errors are :class:`pydantic.ValidationError` (a ``ValueError``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from html.parser import HTMLParser
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

FORMAT_VERSION = 1

ImageSize = Literal["1024x1024", "1024x1536", "1536x1024"]
VideoSize = Literal["1280x720", "720x1280"]
VideoSeconds = Literal[4, 8, 12]
HexColor = Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")]
ElementId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")]
# every string inside a list is bounded too: a model's runaway output fails validation, it does
# not become a 60 MB page
Short = Annotated[str, Field(max_length=200)]
Line = Annotated[str, Field(max_length=1000)]
Prose = Annotated[str, Field(max_length=8000)]

PAGE_KINDS = (
    "landing",
    "dashboard",
    "portfolio",
    "editorial",
    "ecommerce",
    "event",
    "docs",
    "other",
)
SECTION_KINDS = (
    "header",
    "hero",
    "content",
    "features",
    "gallery",
    "stats",
    "charts",
    "table",
    "testimonials",
    "pricing",
    "timeline",
    "team",
    "form",
    "cta",
    "sidebar",
    "footer",
)
_EXTENSIONS = {"image": (".png", ".webp"), "video": (".webm",), "chart": (".html",)}
_UNSAFE_PATH_CHAR = re.compile(r"[\x00-\x1f\x7f\"'<>?#%*|:`\\]")
_TRAVERSAL = re.compile(r"(^[/\\~])|(^[a-zA-Z]:)|(\\)|(%[0-9a-fA-F]{2})|(^[a-z][a-z0-9+.-]*:)")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class PaletteColor(_Model):
    """One colour of the page palette with the role it plays (background, surface, text, muted,
    primary, accent, border, …) and, where the prompt gave one, its name ("bubblegum pink")."""

    role: str = Field(min_length=1, max_length=40)
    hex: HexColor
    name: str | None = Field(default=None, max_length=80)


class Typography(_Model):
    """Font stacks (CSS ``font-family`` values of fonts installed or web-safe) and the prompt's
    hints ("serif", "mono", "display", "Courier New", …)."""

    heading: str = Field(min_length=1, max_length=300)
    body: str = Field(min_length=1, max_length=300)
    mono: str = Field(default="'DejaVu Sans Mono', 'Courier New', monospace", max_length=300)
    hints: list[Short] = Field(default_factory=list, max_length=20)


class TextColour(_Model):
    """The colour the prompt gives one piece of copy ("“Beginner” in white", "a coral pill
    “Advanced”"): ``text`` as the page shows it, ``hex`` its colour, ``fill`` True when the
    colour fills the element (a pill, badge, button) rather than setting its text."""

    text: Short = Field(min_length=1)
    hex: HexColor
    fill: bool = False


#: page-wide prohibitions a layout honours (``GlobalLayout.avoid``)
AVOIDABLE = ("shadow", "gradient", "rounded", "motion")


class GlobalLayout(_Model):
    """The page-level plan: structure, width, palette, typography and mood.

    ``structure`` is one of single-column | two-column | grid | sidebar-dashboard;
    ``column_ratio`` gives relative widths for two-column layouts (e.g. ``[60, 40]``);
    ``max_width_px`` is the content column width in px; ``avoid`` lists what the prompt forbids
    page-wide (of :data:`AVOIDABLE`: "no shadows", "no rounded corners"); ``text_colours`` the
    colours it gives single pieces of copy."""

    structure: Literal["single-column", "two-column", "grid", "sidebar-dashboard"] = "single-column"
    column_ratio: list[int] = Field(default_factory=list, max_length=4)
    max_width_px: int = Field(default=1200, ge=320, le=2560)
    palette: list[PaletteColor] = Field(min_length=1, max_length=40)
    typography: Typography
    mood: list[Short] = Field(default_factory=list, max_length=12)
    description: str = Field(default="", max_length=4000)
    avoid: list[Literal["shadow", "gradient", "rounded", "motion"]] = Field(
        default_factory=list, max_length=4
    )
    text_colours: list[TextColour] = Field(default_factory=list, max_length=200)

    def color(self, role: str, default: str | None = None) -> str | None:
        """The hex of the first palette colour with ``role``, else ``default``."""
        return next((c.hex for c in self.palette if c.role == role), default)


class SectionItem(_Model):
    """A card, list row, KPI tile, step or testimonial inside a section; ``points`` are its
    bullet points (a pricing plan's features), shown as a list inside the card."""

    title: str = Field(default="", max_length=400)
    text: str = Field(default="", max_length=4000)
    value: str = Field(default="", max_length=120)
    label: str = Field(default="", max_length=200)
    meta: str = Field(default="", max_length=400)
    points: list[Line] = Field(default_factory=list, max_length=30)


class DataTable(_Model):
    """A table of data: ``columns`` names, ``rows`` of cells (numbers or text).

    ``synthesized`` is True when the planner made the numbers up because the prompt gave none."""

    columns: list[Short] = Field(min_length=1, max_length=50)
    rows: list[list[float | int | Line | None]] = Field(default_factory=list, max_length=5000)
    synthesized: bool = False
    source: str = Field(default="", max_length=400)

    @model_validator(mode="after")
    def _rows_match_columns(self) -> DataTable:
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"row {i} has {len(row)} cells, expected {len(self.columns)}")
        return self


class Section(_Model):
    """One section of the page, in page order, with the copy the prompt gives for it.

    ``layout`` is a hint for the layout agent: stack | split | grid | row | sidebar (sticky: a
    header that stays at the top while the page scrolls); ``ratio`` gives split widths (e.g.
    ``[60, 40]``); ``element_ids`` lists the planned elements whose slot is in this section, in
    order; ``description`` holds the prompt's own sentences about the section.

    ``page`` is the id of the :class:`PagePlan` the section belongs to in a multi-page plan;
    None puts a body section on the home page and a ``header`` / ``footer`` section on every
    page (the site's shared frame)."""

    id: ElementId
    kind: str = Field(min_length=1, max_length=40)
    title: str = Field(default="", max_length=400)
    subtitle: str = Field(default="", max_length=1000)
    eyebrow: str = Field(default="", max_length=200)
    headings: list[Line] = Field(default_factory=list, max_length=60)
    paragraphs: list[Prose] = Field(default_factory=list, max_length=60)
    buttons: list[Short] = Field(default_factory=list, max_length=20)
    nav_items: list[Short] = Field(default_factory=list, max_length=30)
    tags: list[Short] = Field(default_factory=list, max_length=60)
    items: list[SectionItem] = Field(default_factory=list, max_length=80)
    table: DataTable | None = None
    layout: str = Field(default="stack", max_length=40)
    ratio: list[int] = Field(default_factory=list, max_length=4)
    background: str | None = Field(default=None, max_length=40)
    element_ids: list[Short] = Field(default_factory=list, max_length=40)
    description: str = Field(default="", max_length=8000)
    page: ElementId | None = None


class ElementContext(_Model):
    """Where an element lives and what it does there (MM-WebAgent local plan ``context``)."""

    section: Short
    role: str = Field(min_length=1, max_length=80)
    page_style: str = Field(default="", max_length=400)


class _ElementPlan(_Model):
    """Fields every element plan shares. ``alt`` is the short accessible description;
    ``caption`` is visible text the prompt puts under the asset (empty: no caption)."""

    id: ElementId
    save_path: str = Field(min_length=1, max_length=200)
    context: ElementContext
    prompt: str = Field(min_length=1, max_length=8000)
    display_width_px: int = Field(ge=16, le=4096)
    display_height_px: int = Field(ge=16, le=4096)
    alt: str = Field(default="", max_length=400)
    caption: str = Field(default="", max_length=600)

    @field_validator("save_path")
    @classmethod
    def _inside_assets(cls, value: str) -> str:
        if _TRAVERSAL.search(value) or ".." in value.split("/"):
            raise ValueError(f"save_path {value!r} escapes the site folder")
        if not value.startswith("assets/") or value.endswith("/"):
            raise ValueError(f"save_path {value!r} must be a file inside assets/")
        # The path is written into the page's HTML and used as a URL and a file name: one
        # spelling per file (no "." or empty segments, which would dodge the clash check), no
        # character that ends an attribute, starts a query or fragment, or cannot be a file name.
        for segment in value.split("/"):
            if not segment or segment.startswith(".") or segment != segment.strip():
                raise ValueError(f"save_path {value!r} has an empty, hidden or padded part")
            if _UNSAFE_PATH_CHAR.search(segment):
                raise ValueError(f"save_path {value!r} has a character unsafe in a URL or file")
        return value

    @model_validator(mode="after")
    def _extension(self) -> _ElementPlan:
        allowed = _EXTENSIONS[self.kind]  # type: ignore[attr-defined]
        if not self.save_path.lower().endswith(allowed):
            raise ValueError(f"{self.kind} save_path {self.save_path!r} must end in {allowed}")  # type: ignore[attr-defined]
        return self


class ImageAttributes(_Model):
    visual_style: str = Field(default="", max_length=200)
    color_tone: str = Field(default="", max_length=200)
    composition: str = Field(default="", max_length=200)
    lighting: str = Field(default="", max_length=200)


class MotifRecord(_Model):
    """What an offline picture shows: ``motifs`` (``set:name`` icon refs, main motif first), the
    subject ``words`` they matched, and a ``note`` when the subject matched none ("no motif for
    'sourdough crumb'; drew a generic bakery scene"). Absent in plans made before it existed."""

    motifs: list[Short] = Field(default_factory=list, max_length=12)
    words: list[Short] = Field(default_factory=list, max_length=12)
    note: str = Field(default="", max_length=400)


class ImagePlan(_ElementPlan):
    """An image slot. ``size`` is the generated size (px); ``display_*_px`` the slot on the page.
    ``motifs`` records what the offline painter drew (None: not recorded)."""

    kind: Literal["image"] = "image"
    attributes: ImageAttributes = Field(default_factory=ImageAttributes)
    size: ImageSize = "1536x1024"
    motifs: MotifRecord | None = None


class VideoAttributes(_Model):
    visual_style: str = Field(default="", max_length=200)
    motion_intensity: Literal["low", "medium"] = "low"
    camera_behavior: Literal["static", "slow pan", "subtle zoom"] = "static"
    loopable: bool = True


class VideoPlan(_ElementPlan):
    """A video slot: ``seconds`` long (s), ``size`` in px; ``poster_path`` is a still frame
    (.png/.webp) shown before playback; an optional ``mp4_path`` is offered as a second source.
    ``motifs`` records what the offline loop shows (None: not recorded)."""

    kind: Literal["video"] = "video"
    attributes: VideoAttributes = Field(default_factory=VideoAttributes)
    seconds: VideoSeconds = 4
    size: VideoSize = "1280x720"
    poster_path: str | None = Field(default=None, max_length=200)
    mp4_path: str | None = Field(default=None, max_length=200)
    motifs: MotifRecord | None = None

    @field_validator("poster_path")
    @classmethod
    def _poster_inside_assets(cls, value: str | None) -> str | None:
        if value is None:
            return value
        _ElementPlan._inside_assets(value)
        if not value.lower().endswith((".png", ".webp", ".jpg")):
            raise ValueError(f"poster_path {value!r} must be an image")
        return value

    @field_validator("mp4_path")
    @classmethod
    def _mp4_inside_assets(cls, value: str | None) -> str | None:
        if value is None:
            return value
        _ElementPlan._inside_assets(value)
        if not value.lower().endswith(".mp4"):
            raise ValueError(f"mp4_path {value!r} must end in .mp4")
        return value


class ChartAttributes(_Model):
    chart_type: str = Field(default="bar", max_length=60)
    chart_style: str = Field(default="", max_length=200)
    color_palette: list[HexColor] = Field(default_factory=list, max_length=20)
    visual_emphasis: str = Field(default="", max_length=200)


class ChartPlan(_ElementPlan):
    """A chart slot: an ECharts page at ``save_path`` whose option JSON sits beside it (same stem,
    ``.json``), drawn from ``source_data``. ``title`` is the chart's heading on the page."""

    kind: Literal["chart"] = "chart"
    title: str = Field(default="", max_length=300)
    attributes: ChartAttributes = Field(default_factory=ChartAttributes)
    source_data: DataTable

    @property
    def option_path(self) -> str:
        """``assets/…/name.json``: the ECharts option beside the chart page."""
        return self.save_path[: -len(".html")] + ".json"


ElementPlan = ImagePlan | VideoPlan | ChartPlan


#: the file of a page: a lower-case name and ``.html``, in the site folder itself (no folder)
PAGE_PATH = r"^[a-z0-9][a-z0-9_-]{0,60}\.html$"
HOME_PATH = "index.html"
#: sections of these kinds with no ``page`` are the shared frame of a multi-page site
FRAME_KINDS = ("header", "footer")


class PagePlan(_Model):
    """One page of a multi-page site: ``id`` (a slug, the sections' ``page``), ``path`` (its
    file in the site folder: ``index.html`` for the home page, ``about.html`` …), ``title`` (its
    ``<title>`` and heading), ``nav_label`` (its link text in the shared navigation; empty: the
    title) and ``in_nav`` (False: a page reached by links only, not listed in the navigation)."""

    id: ElementId
    path: str = Field(pattern=PAGE_PATH, max_length=70)
    title: str = Field(min_length=1, max_length=200)
    nav_label: str = Field(default="", max_length=80)
    in_nav: bool = True

    @property
    def label(self) -> str:
        """The text of the page's navigation link."""
        return self.nav_label or self.title


class DesignPlan(_Model):
    """The whole plan of one site (``plan.json``): one page, or several.

    ``pages`` is empty for a one-page plan (and for every plan written before pages existed):
    the site is then ``index.html`` holding every section. A multi-page plan lists its pages,
    home (``index.html``) first; each section names its page (``Section.page``; None: the home
    page, or every page for the shared header / footer). :meth:`site_pages` always gives at
    least the home page; :meth:`page_view` is the one-page plan of one page (what a layout agent
    renders); :func:`add_page` and :func:`remove_page` change the pages.

    Raises :class:`pydantic.ValidationError` on duplicate ids, a section or element reference
    that does not resolve, an element placed in no section or in two, an unsafe ``save_path``,
    a section on an unknown page, or pages whose first is not ``index.html`` or that share a
    file or an id.
    """

    format_version: int = FORMAT_VERSION
    title: str = Field(min_length=1, max_length=300)
    page_kind: str = Field(default="landing", max_length=40)
    language: str = Field(default="en", max_length=16)
    layout: GlobalLayout
    sections: list[Section] = Field(min_length=1, max_length=60)
    images: list[ImagePlan] = Field(default_factory=list, max_length=60)
    videos: list[VideoPlan] = Field(default_factory=list, max_length=20)
    charts: list[ChartPlan] = Field(default_factory=list, max_length=40)
    pages: list[PagePlan] = Field(default_factory=list, max_length=40)
    # set on the plans :meth:`page_view` returns (never serialised): the page shown, the site
    _page_id: str | None = PrivateAttr(default=None)
    _site: DesignPlan | None = PrivateAttr(default=None)

    @property
    def multi_page(self) -> bool:
        """True when the plan has more than one page."""
        return len(self.pages) > 1

    def site_pages(self) -> list[PagePlan]:
        """The pages, home first; a one-page plan gives its one implicit home page."""
        if self.pages:
            return list(self.pages)
        return [PagePlan(id="home", path=HOME_PATH, title=self.title[:200], nav_label="Home")]

    def page(self, page_id: str) -> PagePlan:
        """The page with ``page_id`` (``"home"`` also names a one-page plan's page); KeyError."""
        for page in self.site_pages():
            if page.id == page_id:
                return page
        raise KeyError(page_id)

    def page_at(self, path: str) -> PagePlan:
        """The page whose file is ``path`` (``"about.html"``); raises KeyError."""
        for page in self.site_pages():
            if page.path == path:
                return page
        raise KeyError(path)

    def is_shared(self, section: Section) -> bool:
        """True for a section of the shared frame: a header / footer with no page."""
        return section.page is None and section.kind in FRAME_KINDS and self.multi_page

    def page_sections(self, page_id: str) -> list[Section]:
        """The sections page ``page_id`` shows, in plan order: its own and the shared frame
        (the home page also holds the body sections that name no page). KeyError: no page."""
        home = self.site_pages()[0].id
        if page_id != home:
            self.page(page_id)
        return [
            s
            for s in self.sections
            if s.page == page_id or (s.page is None and (page_id == home or self.is_shared(s)))
        ]

    def page_of(self, item_id: str) -> PagePlan:
        """The page a section or element lives on (the home page for the shared frame).
        Raises KeyError for an unknown id."""
        try:
            section = self.section(item_id)
        except KeyError:
            section = self.section(self.element(item_id).context.section)
        return self.page(section.page) if section.page else self.site_pages()[0]

    def page_view(self, page_id: str) -> DesignPlan:
        """The plan of page ``page_id`` alone: its sections (:meth:`page_sections`) and their
        elements, ``title`` the site's; ``pages`` kept so that a layout can draw the site's
        navigation. The view knows its page (:attr:`current_page`) and its site (:attr:`site`).
        Raises KeyError for an unknown page."""
        sections = self.page_sections(page_id)
        ids = {s.id for s in sections}
        view = self.model_copy(
            update={
                "sections": sections,
                "images": [e for e in self.images if e.context.section in ids],
                "videos": [e for e in self.videos if e.context.section in ids],
                "charts": [e for e in self.charts if e.context.section in ids],
            }
        )
        view._page_id = page_id
        view._site = self._site or self
        return view

    @property
    def current_page(self) -> PagePlan | None:
        """The page a :meth:`page_view` shows; None for a whole plan."""
        return self.page(self._page_id) if self._page_id else None

    @property
    def site(self) -> DesignPlan:
        """The whole plan a :meth:`page_view` was taken from (the plan itself otherwise)."""
        return self._site or self

    def elements(self) -> Iterator[ElementPlan]:
        """Every element plan: images, then videos, then charts."""
        yield from self.images
        yield from self.videos
        yield from self.charts

    def pictures(self) -> list[ImagePlan | VideoPlan]:
        """The element plans drawn as pictures: images, then videos."""
        return [*self.images, *self.videos]

    def element(self, element_id: str) -> ElementPlan:
        """The element plan with ``element_id``; raises KeyError."""
        for element in self.elements():
            if element.id == element_id:
                return element
        raise KeyError(element_id)

    def section(self, section_id: str) -> Section:
        """The section with ``section_id``; raises KeyError."""
        for section in self.sections:
            if section.id == section_id:
                return section
        raise KeyError(section_id)

    def asset_paths(self) -> list[str]:
        """Every site-relative file the elements need (asset, chart option, poster)."""
        paths: list[str] = []
        for element in self.elements():
            paths.append(element.save_path)
            if isinstance(element, ChartPlan):
                paths.append(element.option_path)
            if isinstance(element, VideoPlan):
                paths += [p for p in (element.poster_path, element.mp4_path) if p]
        return paths

    @model_validator(mode="after")
    def _consistent(self) -> DesignPlan:
        ids = [s.id for s in self.sections] + [e.id for e in self.elements()]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate ids: {', '.join(duplicates)}")
        paths = self.asset_paths()
        clashes = sorted({p for p in paths if paths.count(p) > 1})
        if clashes:
            raise ValueError(f"two elements share a file: {', '.join(clashes)}")
        section_ids = {s.id for s in self.sections}
        placed: dict[str, str] = {}
        for section in self.sections:
            for element_id in section.element_ids:
                if element_id in placed:
                    raise ValueError(f"element {element_id!r} is placed in two sections")
                placed[element_id] = section.id
        for element in self.elements():
            if element.context.section not in section_ids:
                raise ValueError(f"element {element.id!r} names unknown section")
            if placed.get(element.id) != element.context.section:
                raise ValueError(
                    f"element {element.id!r} must be listed in section "
                    f"{element.context.section!r} element_ids"
                )
        unknown = set(placed) - {e.id for e in self.elements()}
        if unknown:
            raise ValueError(f"sections list unknown elements: {', '.join(sorted(unknown))}")
        self._check_pages()
        return self

    def _check_pages(self) -> None:
        page_ids = [p.id for p in self.pages]
        paths = [p.path for p in self.pages]
        for kind, values in (("page ids", page_ids), ("page files", paths)):
            twice = sorted({v for v in values if values.count(v) > 1})
            if twice:
                raise ValueError(f"duplicate {kind}: {', '.join(twice)}")
        if self.pages and self.pages[0].path != HOME_PATH:
            raise ValueError(f"the first page must be {HOME_PATH}, not {self.pages[0].path!r}")
        if HOME_PATH in paths[1:]:
            raise ValueError(f"only the first page may be {HOME_PATH}")
        for section in self.sections:
            if section.page is not None and section.page not in page_ids:
                raise ValueError(f"section {section.id!r} is on unknown page {section.page!r}")


def page_slug(text: str, taken: Collection[str] = ()) -> str:
    """A page id / file stem for ``text`` ("About us" → ``about-us``), unique among ``taken``."""
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40].strip("-") or "page"
    if not base[0].isalpha():
        base = f"page-{base}"
    slug, n = base, 2
    while slug in taken or slug in ("index", "home"):
        slug, n = f"{base}-{n}", n + 1
    return slug


def add_page(
    plan: DesignPlan,
    title: str,
    *,
    nav_label: str = "",
    sections: Sequence[Section] = (),
    elements: Sequence[ElementPlan] = (),
    in_nav: bool = True,
) -> tuple[DesignPlan, PagePlan]:
    """A copy of ``plan`` with a new page titled ``title`` (file ``<slug>.html``), holding
    ``sections`` (their ``page`` is set to it; placed before the trailing footers) and their
    ``elements``; the label joins the nav of the shared header when ``in_nav``. A one-page plan
    first gets its explicit home page. Returns (new plan, new page); raises
    :class:`pydantic.ValidationError` when the result is not a valid plan (an id taken…)."""
    pages = plan.site_pages()
    slug = page_slug(title, {p.id for p in pages} | {p.path[:-5] for p in pages})
    page = PagePlan(id=slug, path=f"{slug}.html", title=title.strip()[:200] or slug,
                    nav_label=nav_label.strip()[:80], in_nav=in_nav)  # fmt: skip
    body = [s.model_copy(update={"page": page.id}) for s in sections]
    existing = list(plan.sections)
    cut = len(existing)
    while cut and existing[cut - 1].kind == "footer" and existing[cut - 1].page is None:
        cut -= 1
    new_sections = [*existing[:cut], *body, *existing[cut:]]
    if in_nav:
        new_sections = _with_nav_label(new_sections, page.label)
    data = plan.model_dump()
    data["sections"] = [s.model_dump() for s in new_sections]
    data["pages"] = [p.model_dump() for p in (*pages, page)]
    for element in elements:
        data[element.kind + "s"].append(element.model_dump())
    return DesignPlan.model_validate(data), page


def remove_page(plan: DesignPlan, page_id: str) -> DesignPlan:
    """A copy of ``plan`` without page ``page_id``, its sections and their elements, and
    without any nav item or button naming it (no link can dangle). Raises KeyError for an
    unknown page and ValueError for the home page."""
    page = plan.page(page_id)
    if page.path == HOME_PATH:
        raise ValueError("the home page cannot be removed")
    gone = {s.id for s in plan.sections if s.page == page_id}
    label = _label_key(page.label)

    def keep(text: str) -> bool:
        return _label_key(text) != label

    sections = [
        s.model_copy(
            update={
                "nav_items": [t for t in s.nav_items if keep(t)],
                "buttons": [t for t in s.buttons if keep(t)],
            }
        ).model_dump()
        for s in plan.sections
        if s.id not in gone
    ]
    data = plan.model_dump()
    data["sections"] = sections
    data["pages"] = [p.model_dump() for p in plan.pages if p.id != page_id]
    for kind in ("images", "videos", "charts"):
        data[kind] = [e for e in data[kind] if e["context"]["section"] not in gone]
    return DesignPlan.model_validate(data)


def _label_key(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _with_nav_label(sections: list[Section], label: str) -> list[Section]:
    """``sections`` with ``label`` added to the first shared header's nav (if not there)."""
    for i, section in enumerate(sections):
        if section.kind == "header" and section.page is None:
            if _label_key(label) not in {_label_key(t) for t in section.nav_items}:
                nav = [*section.nav_items, label][-30:]
                sections[i] = section.model_copy(update={"nav_items": nav})
            break
    return sections


class _Slots(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.element_ids: list[str] = []
        self.section_ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("data-mm-id"):
            self.element_ids.append(values["data-mm-id"] or "")
        if values.get("data-mm-section"):
            self.section_ids.append(values["data-mm-section"] or "")


def slot_problems(plan: DesignPlan, html: str) -> list[str]:
    """Why ``html`` does not hold exactly one slot per planned element and one block per section.

    Returns a list of one-line problems (empty when the page matches the plan)."""
    parser = _Slots()
    parser.feed(html)
    problems: list[str] = []
    for kind, planned, found in (
        ("element", [e.id for e in plan.elements()], parser.element_ids),
        ("section", [s.id for s in plan.sections], parser.section_ids),
    ):
        for planned_id in planned:
            count = found.count(planned_id)
            if count != 1:
                problems.append(f"{kind} {planned_id!r} has {count} slots in the page, expected 1")
        for extra in sorted(set(found) - set(planned)):
            problems.append(f"page has {kind} {extra!r}, which is not in the plan")
    return problems
