"""Display sizes and generated sizes of planned images and videos (offline planner helper).

The prompt's own words decide: aspect words ("square", "16:9", "banner", "portrait-oriented")
set the slot's aspect ratio, and with it the generated size (MM-WebAgent's allowed sets: images
1536x1024 wide, 1024x1536 tall, 1024x1024 square; videos 1280x720 or 720x1280); size words
("small", "thumbnail", "large", "full-width") in the element's mention set the display width in
px. Without them the role decides (a portrait is tall, an icon square, a hero background spans
the content width).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab

if TYPE_CHECKING:
    from mmstudio.providers.offline.planner_elements import ElementDraft

_ROLE_ASPECT = {"portrait": "2:3", "icon/accent": "1:1", "hero background": "16:9"}
_ROLE_WIDTH = {"hero background": 0, "thumbnail": 240, "icon/accent": 160, "portrait": 360}
_CLASS_WIDTH = {"thumbnail": 200, "small": 280, "large": 720}
_PIXELS = re.compile(r"\b(\d{2,4})\s*(?:px)?\s*[x×]\s*(\d{2,4})\s*px\b", re.I)


def pixels(element: ElementDraft) -> tuple[int, int] | None:
    """An explicit slot size in the element's first sentence ("a small 80x80px square"), px."""
    found = _PIXELS.search(element.lead[:200])
    if not found:
        return None
    w, h = int(found.group(1)), int(found.group(2))
    return (w, h) if 16 <= w <= 4096 and 16 <= h <= 4096 else None


def ratio(text: str) -> tuple[int, int]:
    """``"16:9"`` → (16, 9)."""
    w, h = text.split(":")
    return int(w), int(h)


def aspect(element: ElementDraft, role: str = "") -> str:
    """The slot's aspect ``"w:h"``: an explicit word in the element's first sentence, else a
    weak one near its mention ("a tall photo"), else the role's default, else 3:2."""
    lead = element.lead
    found = pt.first_key(lead[:200], vocab.ASPECT_STRONG)
    found = found or pt.first_key(lead[:80], vocab.ASPECT_WEAK)
    return found or _ROLE_ASPECT.get(role, "3:2")


def image_size(shape: str) -> str:
    """The generated image size for an aspect: wide, tall or square."""
    w, h = ratio(shape)
    if w > 1.2 * h:
        return "1536x1024"
    return "1024x1536" if h > 1.2 * w else "1024x1024"


def size_class(element: ElementDraft) -> str | None:
    """full | thumbnail | small | large from the element's mention ("a small square portrait
    illustration"), else None."""
    return pt.first_key(element.mention, vocab.SIZE_WORDS)


def image_display(
    element: ElementDraft, role: str, section_kind: str, max_width_px: int
) -> tuple[int, int, str]:
    """``(width_px, height_px, generated size)`` of an image slot."""
    explicit = pixels(element)
    if explicit:
        w, h = explicit
        width = min(w, max_width_px)
        return width, max(16, round(width * h / w)), image_size(f"{w}:{h}")
    shape = aspect(element, role)
    base = _ROLE_WIDTH.get(role, 560 if section_kind == "hero" else 480) or max_width_px
    width = _width(size_class(element), base, max_width_px)
    w, h = ratio(shape)
    return width, max(16, round(width * h / w)), image_size(shape)


def video_display(
    element: ElementDraft, section_kind: str, max_width_px: int
) -> tuple[int, int, str]:
    """``(width_px, height_px, size)`` of a video slot: 16:9 unless the prompt says tall."""
    w, h = ratio(aspect(element))
    vertical = h > w
    base = 360 if vertical else (960 if section_kind == "hero" else 640)
    width = _width(size_class(element), base, max_width_px)
    if vertical:
        return min(width, 480), min(width, 480) * 16 // 9, "720x1280"
    return width, width * 9 // 16, "1280x720"


def _width(size: str | None, base: int, max_width_px: int) -> int:
    """A display width (px) for a size class, never wider than the content column."""
    if size == "full":
        return max_width_px
    if size == "large":
        return min(max(base, _CLASS_WIDTH["large"]), max_width_px)
    if size in ("small", "thumbnail"):
        return min(base, _CLASS_WIDTH[size])
    return min(base, max_width_px)
