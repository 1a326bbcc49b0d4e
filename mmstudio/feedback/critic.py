"""The critic (AceCoder): check EVERY active requirement of every turn so far on the rendered
page. Structural requirements are measured on the render — element present / visible / hidden,
text present, colour (probe text colour, or the dominant screenshot colour of the element's box),
order of sections, size, the mean colour shift of a style word, a chart's type (read back from
the option JSON the chart frame's page sits beside, which the chart page must inline), and a new
element's presence, visibility and place in the page order; the others go to the judge when a
model is configured, else they stay unchecked (``passed`` None).

All boxes are page px; colours are RGB 0–255; tolerances are below.
"""

from __future__ import annotations

import colorsys
import html
import json
import logging
import math
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from mmstudio.pipeline.chart_types import option_kind
from mmstudio.pipeline.charts import chart_kind, script_json
from mmstudio.project.errors import one_line
from mmstudio.providers.base import DesignerError
from mmstudio.refine import html_edit
from mmstudio.render.model import Box, Render

from .assets import inserted_id
from .elements import PageElement, by_id, page_elements
from .ledger import Verdict
from .operations import note_id
from .requirements import Requirement

log = logging.getLogger(__name__)

COLOUR_TOLERANCE = 48.0  # Euclidean RGB distance (0–441) still counted as the asked colour
SIZE_GAIN = 0.1  # bigger / smaller: at least 10 % change of width or font size
TONE_SHIFT = {"darker": 8.0, "brighter": 5.0, "warmer": 6.0, "cooler": 4.0}  # 0–255 units
SAT_SHIFT = 0.03  # calmer / bolder: mean saturation change (0–1)

#: ``await judge(requirements, render) -> verdicts`` for requirements measurement cannot decide
Judge = Callable[[list[Requirement], Render], Awaitable[list[Verdict]]]
#: ``read(site-relative path) -> bytes | None``: the rendered site's files
SiteReader = Callable[[str], bytes | None]


@dataclass
class Measured:
    """One render with its elements, (lazily) its full-page screenshot and a reader of the
    rendered site's files (default: the render's own site folder)."""

    render: Render
    elements: list[PageElement] = field(default_factory=list)
    read: SiteReader | None = None
    _image: object = None

    @classmethod
    def of(cls, render: Render, read: SiteReader | None = None) -> Measured:
        return cls(render, page_elements(render), read)

    def text(self, path: str) -> str | None:
        """A site file as text (None when it cannot be read)."""
        if self.read is not None:
            data = self.read(path)
        else:
            try:
                data = (Path(self.render.site_dir) / path).read_bytes()
            except OSError:
                data = None
        return data.decode("utf-8", "replace") if data is not None else None

    def image(self):
        if self._image is None and self.render.screenshot:
            from PIL import Image

            with Image.open(self.render.screenshot) as img:
                self._image = img.convert("RGB")
        return self._image

    def find(self, req: Requirement, element_id: str | None = None) -> PageElement | None:
        return by_id(self.elements, element_id or req.target or "")

    def mean_colour(self, box: Box) -> list[float] | None:
        """Mean RGB of ``box`` in the screenshot (None without one or for an empty box)."""
        crop = self._crop(box)
        if crop is None:
            return None
        from PIL import ImageStat

        return [round(v, 2) for v in ImageStat.Stat(crop).mean[:3]]

    def dominant_colour(self, box: Box) -> list[float] | None:
        crop = self._crop(box)
        if crop is None:
            return None
        colours = crop.resize((48, 48)).getcolors(48 * 48) or []
        return list(max(colours)[1]) if colours else None

    def _crop(self, box: Box):
        image = self.image()
        if image is None or box.w < 1 or box.h < 1:
            return None
        right, bottom = min(image.width, box.x + box.w), min(image.height, box.y + box.h)
        if right <= box.x or bottom <= box.y:
            return None
        return image.crop((int(box.x), int(box.y), int(right), int(bottom)))


def _hex_rgb(value: str) -> list[float]:
    value = value.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    return [int(value[i : i + 2], 16) for i in (0, 2, 4)]


def _saturation(rgb: list[float]) -> float:
    return colorsys.rgb_to_hsv(*(c / 255 for c in rgb[:3]))[1]


def _visible(element: PageElement | None) -> bool:
    return element is not None and element.box.area > 0


def baseline(req: Requirement, m: Measured) -> Requirement:
    """``req`` with what the critic needs from before the turn: size, mean colour, neighbour."""
    element = m.find(req)
    if req.op == "resize" and element:
        req.baseline = [element.box.w, element.box.h, element.font_size]
    elif req.op == "tone":
        box = element.box if element else _page_box(m)
        req.baseline = m.mean_colour(box) or []
    elif req.op == "move" and element:
        req.baseline = [element.box.y, element.box.x]
        if element.kind == "section":
            req.other = _neighbour(m, element, req.value)
    return req


def _page_box(m: Measured) -> Box:
    size = m.render.page_size or {"width": 1280, "height": 800}
    return Box(x=0, y=0, w=size.get("width", 1280), h=size.get("height", 800))


def _neighbour(m: Measured, element: PageElement, direction: str) -> str | None:
    sections = sorted((e for e in m.elements if e.kind == "section" and e.box.area > 0),
                      key=lambda e: e.box.y)  # fmt: skip
    ids = [s.id for s in sections]
    at = ids.index(element.id) if element.id in ids else -1
    other = at - 1 if direction == "up" else at + 1
    return ids[other] if at >= 0 and 0 <= other < len(ids) else None


def check(req: Requirement, m: Measured) -> Verdict:
    """The measured verdict on one structural requirement."""
    try:
        passed, detail = _CHECKS[req.op](req, m)
    except Exception as exc:  # a measurement that cannot be made is a failure, with its reason
        log.debug("check of %s failed", req.id, exc_info=True)
        passed, detail = False, f"cannot measure: {exc}"
    return Verdict(req.id, passed, detail)


def _check_hidden(req, m):
    element = m.find(req)
    return not _visible(element), "hidden" if not _visible(element) else "still visible"


def _check_visible(req, m):
    element = m.find(req)
    return _visible(element), "visible" if _visible(element) else "not visible on the page"


def _check_text(req, m, element_id=None):
    element = m.find(req, element_id)
    if not _visible(element):
        return False, "the text block is not visible"
    want = " ".join(req.value.split())[:50].lower()
    got = " ".join(element.text.split()).lower()
    return got.startswith(want), f"reads “{element.text[:60]}”"


def _check_note(req, m):
    return _check_text(req, m, note_id(req))


def _check_colour(req, m):
    element = m.find(req)
    if req.target is not None and not _visible(element):
        return False, "the element is not visible"
    if element is not None and element.kind == "text":
        got = element.colour[:3] if element.colour else None
    else:
        got = m.dominant_colour(element.box if element else _page_box(m))
    if got is None:
        return False, "no colour measured"
    distance = math.dist(got, _hex_rgb(req.value))
    shown = "#" + "".join(f"{int(c):02x}" for c in got)
    return distance <= COLOUR_TOLERANCE, f"measured {shown} (distance {distance:.0f})"


def _check_resize(req, m):
    element = m.find(req)
    if not _visible(element) or not req.baseline:
        return False, "the element is not visible"
    text = element.kind == "text"
    before, now = (req.baseline[2], element.font_size) if text else (req.baseline[0], element.box.w)
    ratio = now / before if before else 1.0
    ok = ratio >= 1 + SIZE_GAIN if req.value == "bigger" else ratio <= 1 - SIZE_GAIN
    return ok, f"{'font' if text else 'width'} {before:.0f} → {now:.0f} px"


def _check_move(req, m):
    element = m.find(req)
    if not _visible(element):
        return False, "the element is not visible"
    if req.other and m.find(req, req.other):
        other = m.find(req, req.other)
        ok = element.box.y < other.box.y if req.value == "up" else element.box.y > other.box.y
        side = "above" if req.value == "up" else "below"
        return ok, f"{req.target} {'is' if ok else 'is not'} {side} {req.other}"
    y, x = req.baseline[:2] if len(req.baseline) >= 2 else (element.box.y, element.box.x)
    dy, dx = element.box.y - y, element.box.x - x
    shift = dy if abs(dy) >= 1 else dx
    ok = shift < -1 if req.value == "up" else shift > 1
    return ok, f"moved by ({dx:.0f}, {dy:.0f}) px"


def _check_tone(req, m):
    element = m.find(req)
    if req.target is not None and not _visible(element):
        return False, "the element is not visible"
    now = m.mean_colour(element.box if element else _page_box(m))
    if not now or len(req.baseline) < 3:
        return False, "no colour measured"
    before, word = req.baseline, req.value
    if word in ("calmer", "bolder"):
        delta = _saturation(now) - _saturation(before)
        ok = delta <= -SAT_SHIFT if word == "calmer" else delta >= SAT_SHIFT
        return ok, f"saturation {delta:+.2f}"
    lum = lambda c: 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]  # noqa: E731
    delta = {
        "darker": lum(before) - lum(now),
        "brighter": lum(now) - lum(before),
        "warmer": (now[0] - now[2]) - (before[0] - before[2]),
        "cooler": (now[2] - now[0]) - (before[2] - before[0]),
    }[word]
    return delta >= TONE_SHIFT[word], f"{word} by {delta:.1f} (0–255)"


def _check_chart_type(req, m):
    if not _visible(m.find(req)):
        return False, "the chart is not visible"
    page = m.text(m.render.page or "index.html") or ""
    node = html_edit.element_node(page, req.target or "")
    src = html_edit.norm_path(node.attrs.get("src", "")) if node is not None else ""
    if not src.endswith(".html"):
        return False, "the chart frame names no chart page"
    option_path = src[: -len(".html")] + ".json"
    raw = m.text(option_path)
    if raw is None:
        return False, f"no option JSON at {option_path}"
    option = json.loads(raw)
    got, want = option_kind(option), chart_kind(req.value)
    inline = script_json(option) in (m.text(src) or "")
    detail = f"{option_path} draws a {got} chart" + ("" if inline else " (the page differs)")
    return got == want and inline, detail


def _check_insert(req, m):
    new_id = inserted_id(req)
    element = m.find(req, new_id)
    if not _visible(element):
        return False, f"{new_id} is not visible on the page"
    media = next((x for x in getattr(m.render.probe, "media", []) if x.id == new_id), None)
    if media is not None and media.tag == "img" and media.natural_w == 0:
        return False, f"{new_id} did not load"
    if req.value == "text" and not _check_text(req.model_copy(update={"value": req.content}),
                                               m, new_id)[0]:  # fmt: skip
        return False, f"{new_id} reads “{element.text[:60]}”"
    how, _, ref = req.place.partition(":")
    other = m.find(req, ref) if ref else None
    if _visible(other):
        ok = element.box.y <= other.box.y if how == "before" else element.box.y >= other.box.y
        if not ok:
            return False, f"{new_id} is not {'above' if how == 'before' else 'below'} {ref}"
    box = element.box
    return True, f"{new_id} shown at ({box.x:.0f}, {box.y:.0f}), {box.w:.0f}×{box.h:.0f} px"


def _check_feature(req, m):
    """The feature's section is on the rendered page and visible, with every control and
    kit component it asked for in it (a menu link in the header)."""
    from . import features

    spec = features.FeatureSpec.loads(req.content)
    if spec.drop:
        return _check_dropped(spec.name, m)
    shown = m.render.page or "index.html"
    page = m.text(shown) or ""
    if spec.name:
        node = features.find_feature(page, spec.name)
        where = shown
        for other in _other_pages(m, shown) if node is None else []:
            page = m.text(other) or ""
            node, where = features.find_feature(page, spec.name), other
            if node is not None:
                break
        if node is None:
            return False, f"no section “{spec.name}” on the site"
        section = node.attrs.get("data-mm-section", "")
        if where == shown and not _visible(m.find(req, section)):
            return False, f"the section {section} is not visible"
        inside = page[node.start : node.end]
        missing = [k for k in spec.kits if f'data-mm-behaviour="{k}"' not in inside]
        if missing:
            return False, f"{section} has no {missing[0]}"
    labels = [c.label for c in spec.controls if c.role in ("button", "link")]
    absent = [x for x in labels if html.escape(x, quote=False) not in page]
    if absent:
        return False, f"no control “{absent[0]}” on the page"
    if spec.sticky and "fb-sticky" not in page:
        return False, "the header is not pinned"
    if not spec.name and spec.icons and "fb-icon" not in page:
        return False, "no card gained an icon"
    if not spec.name and spec.pictures and "fb-thumb" not in page:
        return False, "no card gained a picture"
    if spec.hover and ":hover{" not in html_edit.patch_css(page, "fb-features").replace(" {", "{"):
        return False, "no hover rule was written"
    return True, f"“{spec.name or 'the feature'}” is built ({', '.join(spec.kits) or 'section'})"


def _other_pages(m, shown: str) -> list[str]:
    """The rendered site's other pages (top-level ``*.html`` of its folder), by file name."""
    try:
        return sorted(p.name for p in Path(m.render.site_dir).glob("*.html") if p.name != shown)
    except (OSError, TypeError):
        return []


def _check_dropped(name: str, m) -> tuple[bool, str]:
    """The page ``name`` named is gone, and no page links to a page file that is not there."""
    from mmstudio.pipeline.pages import page_links

    from . import features

    files = ["index.html", *_other_pages(m, "index.html")]
    for file in files[1:]:
        title = re.search(r"<title>(.*?)</title>", m.text(file) or "", re.S)
        label = f"{file[:-5].replace('-', ' ')} {title.group(1) if title else ''}"
        if features.overlap(name, label) >= 0.6:
            return False, f"the page {file} is still there"
    for file in files:
        missing = [t for t in page_links(m.text(file) or "") if t not in files]
        if missing:
            return False, f"{file} still links to {missing[0]}, which is gone"
    return True, f"no page is “{name}” and no link leads to a missing page"


def _check_free(req, m):
    return None, "needs the judge (no model configured)"


_CHECKS = {
    "hide": _check_hidden,
    "show": _check_visible,
    "text": _check_text,
    "add_text": _check_note,
    "colour": _check_colour,
    "resize": _check_resize,
    "move": _check_move,
    "tone": _check_tone,
    "chart_type": _check_chart_type,
    "insert": _check_insert,
    "feature": _check_feature,
    "free": _check_free,
}


async def critique(
    requirements: list[Requirement], m: Measured, judge: Judge | None = None
) -> list[Verdict]:
    """Verdicts on every active requirement (superseded ones are skipped), in ledger order. A
    judge that fails (a provider error, no valid reply) leaves its requirements unchecked
    (``passed`` None) with the reason."""
    active = [r for r in requirements if not r.superseded_by]
    verdicts = {r.id: check(r, m) for r in active if r.structural}
    free = [r for r in active if not r.structural]
    if free and judge is not None:
        try:
            for verdict in await judge(free, m.render):
                verdicts[verdict.requirement] = verdict
        except (DesignerError, ValueError, OSError) as exc:  # unchecked, never a lost turn
            line = one_line(exc, 200)
            log.warning("the judge failed: %s", line)
            verdicts.update({r.id: Verdict(r.id, None, f"unchecked: the judge failed: {line}")
                             for r in free})  # fmt: skip
    for req in free:
        verdicts.setdefault(req.id, check(req, m))
    return [verdicts[r.id] for r in active]
