"""What one render of a page gives: boxes, styles, frame and video state, requests, screenshots.

Every coordinate is in CSS px in page space (the page's top-left is 0,0; the device scale factor is
1, so screenshot pixels equal CSS px). The probe models mirror the JavaScript in ``probe.js``
(camelCase keys there, snake_case here).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .base import Box, _Probe
from .facts import PageFacts


class Hidden(_Probe):
    """Why an element cannot be seen: ``cause`` is display | visibility | opacity | zero-size |
    off-screen; ``on`` is the selector of the element carrying the cause."""

    cause: str
    on: str = ""
    value: Any = None


class Covered(_Probe):
    """Share (0–1) of sample points where an opaque element sits on top, and the first cover."""

    fraction: float = 0
    by: str | None = None


class Graphic(_Probe):
    """A canvas or svg: its size and its right/bottom edges in its document's viewport (px), and
    whether anything is drawn (None: unreadable)."""

    tag: str
    w: float = 0
    h: float = 0
    right: float = 0
    bottom: float = 0
    drawn: bool | None = None


class FrameState(_Probe):
    """The inner state of a same-origin iframe: document size vs frame size (px), graphics,
    ``loaded_at`` (ms since the epoch when its load event fired) and whether its CSS uses vh."""

    accessible: bool = False
    url: str = ""
    ready_state: str = ""
    loaded_at: float | None = None
    client_w: float = 0
    client_h: float = 0
    scroll_w: float = 0
    scroll_h: float = 0
    graphics: list[Graphic] = Field(default_factory=list)
    uses_vh: bool = False
    text: str = ""


class VideoSource(_Probe):
    src: str = ""
    type: str = ""
    can_play: str = ""


class VideoState(_Probe):
    """HTMLMediaElement state: ready_state 0–4, network_state 0–3, error code or None."""

    ready_state: int = 0
    network_state: int = 0
    error: int | None = None
    current_src: str = ""
    poster: str = ""
    video_w: int = 0
    video_h: int = 0
    autoplay: bool = False
    muted: bool = False
    paused: bool = True
    sources: list[VideoSource] = Field(default_factory=list)
    src: str = ""


class MediaProbe(_Probe):
    """One image, video, chart frame or canvas: planned (``explicit``, id = its ``data-mm-id``) or
    discovered on the page (id given by the renderer, e.g. ``img-hero``)."""

    id: str | None = None
    explicit: bool = False
    tag: str
    selector: str = ""
    section: str | None = None
    rect: Box = Field(default_factory=Box)
    opacity: float = 1
    hidden: Hidden | None = None
    covered: Covered | None = None
    object_fit: str = "fill"
    object_position: str = ""
    src: str = ""
    raw_src: str = ""
    alt: str | None = None
    complete: bool | None = None
    natural_w: int = 0
    natural_h: int = 0
    video: VideoState | None = None
    frame: FrameState | None = None
    drawn: bool | None = None
    graphics: list[Graphic] = Field(default_factory=list)
    path: str = ""


class TextProbe(_Probe):
    """A block with its own text: the glyphs' box ``rect`` and the element's ``box`` (px), colour
    RGBA (0–255, alpha 0–1), font size (px) and overflow state."""

    selector: str
    owner: str | None = None
    section: str | None = None
    tag: str = ""
    rect: Box
    box: Box
    color: list[float] | None = None
    opacity: float = 1
    font_size: float = 16
    font_weight: int = 400
    overflow_x: str = "visible"
    overflow_y: str = "visible"
    display: str = ""
    white_space: str = ""
    text_overflow: str = ""
    line_clamp: str = "none"
    scroll_w: float = 0
    client_w: float = 0
    scroll_h: float = 0
    client_h: float = 0
    snippet: str = ""


class Overlap(_Probe):
    a: int
    b: int
    share: float


class SectionProbe(_Probe):
    id: str
    rect: Box
    ids: list[str] = Field(default_factory=list)


class IdProbe(_Probe):
    id: str
    tag: str = ""
    section: str | None = None
    media: bool = False


class PaletteEntry(_Probe):
    rgb: list[float]
    weight: float


class PageProbe(_Probe):
    viewport_w: int
    viewport_h: int
    scroll_w: int
    scroll_h: int
    title: str = ""
    lang: str = ""
    background: list[float] = Field(default_factory=lambda: [255, 255, 255, 1])
    palette: list[PaletteEntry] = Field(default_factory=list)


class Probe(_Probe):
    """Everything one ``page.evaluate`` of ``probe.js`` returns."""

    page: PageProbe
    sections: list[SectionProbe] = Field(default_factory=list)
    media: list[MediaProbe] = Field(default_factory=list)
    texts: list[TextProbe] = Field(default_factory=list)
    overlaps: list[Overlap] = Field(default_factory=list)
    ids: list[IdProbe] = Field(default_factory=list)


class OverflowCulprit(_Probe):
    selector: str
    owner: str | None = None
    right: float = 0


class OverflowProbe(_Probe):
    """Horizontal overflow at one viewport width (px)."""

    viewport_w: int
    scroll_w: int
    overflow_px: float = 0
    culprits: list[OverflowCulprit] = Field(default_factory=list)
    screenshot: str = ""


class A11yNode(_Probe):
    target: str = ""
    html: str = ""
    owner: str | None = None
    src: str = ""


class A11yViolation(_Probe):
    """One axe-core rule violation (``impact``: minor | moderate | serious | critical)."""

    id: str
    impact: str | None = None
    help: str = ""
    nodes: list[A11yNode] = Field(default_factory=list)


class RequestRecord(BaseModel):
    """A request the sandbox refused or could not serve. ``reason``: network (outside the site's
    origin), outside-site (a path escaping the folder), missing (no such file), navigation (the page
    tried to leave), popup."""

    url: str
    reason: str
    resource_type: str = ""
    frame_url: str = ""
    path: str = ""


class Render(BaseModel):
    """The result of rendering one page at one viewport. ``failure`` is a one-line reason when the
    render could not complete (then ``probe`` may be None); ``script_timeouts`` lists the moments
    (ms since the epoch) a page script was stopped because it ran past its time."""

    site_dir: str
    page: str
    url: str = ""
    viewport: dict[str, int] = Field(default_factory=lambda: {"width": 1280, "height": 800})
    page_size: dict[str, int] = Field(default_factory=dict)
    screenshot: str = ""
    text_free_screenshot: str = ""
    crops: dict[str, str] = Field(default_factory=dict)
    probe: Probe | None = None
    facts: PageFacts | None = None
    overflow: list[OverflowProbe] = Field(default_factory=list)
    a11y: list[A11yViolation] = Field(default_factory=list)
    console_errors: list[str] = Field(default_factory=list)
    blocked: list[RequestRecord] = Field(default_factory=list)
    dialogs: list[str] = Field(default_factory=list)
    script_timeouts: list[dict[str, Any]] = Field(default_factory=list)
    settle: dict[str, Any] = Field(default_factory=dict)
    failure: str | None = None
    timings: dict[str, float] = Field(default_factory=dict)
