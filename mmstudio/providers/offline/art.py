"""Procedural images for the offline designer: soft-shaded scenes in the page palette.

:func:`paint_image` draws one :class:`~mmstudio.plan.ImagePlan` at exactly its planned ``size``
(px). The art depends on ``element.context.role`` (hero scene, background mesh, illustration,
portrait silhouette, product on a plinth, texture, icon), on the page palette
(``plan.layout.palette``) plus any colours named in ``attributes.color_tone``, and on tone words
(greyscale, desaturated, warm, cool, dark, pastel, neon, sepia). It is deterministic per element id:
the seed is a SHA-256 of the id, never Python's salted ``hash``.

Shapes are signed-distance fields (:mod:`.canvas`) evaluated with numpy at half resolution
(soft, anti-aliased edges and shadows come from the same field), upscaled with bicubic filtering,
then given a fine film grain at full resolution. A 1536x1024 image takes ≈ 0.1–0.2 s on two cores
(≈ 0.1 s more to encode as WebP). :mod:`.motion` reuses the scenes, palette and tone rules for
video frames.
"""

from __future__ import annotations

import hashlib
import io
import logging
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from mmstudio.plan import DesignPlan, ImagePlan, VideoPlan
from mmstudio.providers.offline.canvas import (
    RGB,
    Canvas,
    box,
    circle,
    ellipse,
    fill,
    hex_rgb,
    luminance,
    mix,
    ramp,
    ridge,
    shade,
    shift,
    smooth_min,
)

log = logging.getLogger(__name__)

_NON_ACCENT_ROLES = {"background", "surface", "text", "muted", "border", "foreground", "subtle"}
_NAMED = {
    "gold": "#d4a73c", "golden": "#d4a73c", "amber": "#e0a030", "orange": "#e8793a",
    "coral": "#f07a6a", "red": "#d0463c", "crimson": "#b0243c", "pink": "#ee8fb4",
    "magenta": "#c83c9c", "purple": "#7a4cc0", "violet": "#8a5cd8", "lavender": "#b8a6e6",
    "indigo": "#4648a8", "navy": "#1f2f5c", "blue": "#3a78d8", "sky": "#7cc0f0",
    "teal": "#23948c", "turquoise": "#35c2b5", "cyan": "#35c8e0", "mint": "#8fdcc0",
    "green": "#3f9a52", "emerald": "#1f9a6a", "olive": "#7d8a3a", "sage": "#9cae8c",
    "forest": "#2c5a3c", "brown": "#7a5234", "terracotta": "#c4663e", "beige": "#e5d6bc",
    "cream": "#f3ead6", "sand": "#dcc49a", "charcoal": "#33363c", "slate": "#5a6678",
}  # fmt: skip
_GREY_WORDS = ("greyscale", "grayscale", "black and white", "black-and-white", "b&w", "monochrome")
_TONE_WORDS = ("desaturated", "muted", "warm", "cool", "dark", "pastel", "neon", "sepia", "vintage")


@dataclass(frozen=True)
class Colors:
    """Art colours (0–255 floats): page ``background``/``surface``/``text`` and ≥ 3 ``accents``."""

    background: RGB
    surface: RGB
    text: RGB
    accents: tuple[RGB, ...]

    @property
    def dark_page(self) -> bool:
        """True when the page background is dark (relative luminance < 0.35)."""
        return luminance(self.background) < 0.35


def seed_for(element_id: str) -> int:
    """A stable 32-bit seed from an element id (SHA-256; the same on every run and machine)."""
    return int.from_bytes(hashlib.sha256(element_id.encode("utf-8")).digest()[:4], "big")


def tone_words(element: ImagePlan | VideoPlan) -> set[str]:
    """Tone words found in the element's attributes (and greyscale phrases in its prompt)."""
    attrs = element.attributes
    text = " ".join(
        getattr(attrs, name, "") for name in ("color_tone", "visual_style", "lighting")
    ).lower()
    words = {w for w in _TONE_WORDS if re.search(rf"\b{re.escape(w)}\b", text)}
    if any(p in text or p in element.prompt.lower() for p in _GREY_WORDS):
        words.add("greyscale")
    if "muted" in words:
        words.discard("muted")
        words.add("desaturated")
    return words


def art_colors(element: ImagePlan | VideoPlan, plan: DesignPlan) -> Colors:
    """The element's colours: page roles, and accents led by hex/named colours in ``color_tone``."""
    layout = plan.layout
    background = hex_rgb(layout.color("background", layout.palette[0].hex) or "#ffffff")
    surface = hex_rgb(layout.color("surface") or layout.color("background") or "#f4f4f4")
    text = hex_rgb(layout.color("text") or ("#f5f5f5" if luminance(background) < 0.4 else "#222"))
    tone = getattr(element.attributes, "color_tone", "").lower()
    named = [hex_rgb(h) for h in re.findall(r"#[0-9a-f]{6}\b|#[0-9a-f]{3}\b", tone)]
    named += [hex_rgb(v) for k, v in _NAMED.items() if re.search(rf"\b{k}\b", tone)]
    page = [hex_rgb(c.hex) for c in layout.palette if c.role.lower() not in _NON_ACCENT_ROLES]
    accents = list(dict.fromkeys(named + page))
    if not accents:
        accents = [shade(text, 0.0, 1.0) if luminance(text) < 0.8 else shade(background, -0.3)]
    while len(accents) < 3:
        accents.append(shade(accents[0], 0.08 * len(accents), 1.1, 0.09 * len(accents)))
    return Colors(background, surface, text, tuple(accents))


# --- scenes: each paints a whole canvas ------------------------------------------------------


def scene_landscape(c: Canvas, col: Colors, rnd: random.Random) -> None:
    """Hero scene: sky gradient, a glowing sun, four hill layers fading into haze (aerial depth)."""
    a0, a1, a2 = col.accents[:3]
    horizon = c.h * rnd.uniform(0.5, 0.62)
    sky_top = shade(mix(a0, col.background, 0.25), -0.18)
    haze = shade(mix(a1, (255, 255, 255), 0.35), 0.1)
    if col.dark_page:  # a night scene that sits on a dark page
        sky_top = shade(mix(col.background, a0, 0.2), -0.02)
        haze = shade(mix(a0, col.background, 0.5), 0.05, 0.9)
    c.gradient([sky_top, mix(sky_top, haze, 0.55), haze], 90)
    sx = c.w * rnd.uniform(0.25, 0.75)
    sy = horizon - c.m * rnd.uniform(0.08, 0.22)
    c.glow(sx, sy, c.m * 0.45, shade(a2, 0.3), 0.45)
    c.shape(circle(c, sx, sy, c.m * 0.085), shade(mix(a2, (255, 240, 210), 0.5), 0.15), soft=2.0)
    for i in range(4):
        depth = i / 3.0
        base = horizon + (c.h - horizon) * (0.05 + 0.3 * depth)
        darker = -0.25 - (0.3 if col.dark_page else 0.15) * depth
        tint = mix(haze, shade(col.accents[i % 3], darker, 0.75), 0.35 + 0.5 * depth)
        c.shape(ridge(c, base, c.m * (0.06 - 0.01 * i), rnd), tint, soft=1.5 + i)
        c.glow(c.w / 2, base - c.m * 0.02, c.w * 0.6, haze, 0.12 * (1 - depth))
    c.vignette(0.25)


def scene_mesh(c: Canvas, col: Colors, rnd: random.Random) -> None:
    """Background: a soft gradient mesh of large blurred colour fields, quiet enough for text."""
    base = col.background
    c.gradient([shade(base, -0.04), mix(base, col.accents[0], 0.18), shade(base, 0.03)], 35)
    for i in range(6):
        color = col.accents[i % len(col.accents)]
        if not col.dark_page:
            color = shade(color, 0.12, 0.9)
        c.glow(c.w * rnd.uniform(0, 1), c.h * rnd.uniform(0, 1), c.m * rnd.uniform(0.35, 0.7),
               color, rnd.uniform(0.35, 0.6))  # fmt: skip
    for i in range(3):
        wave = ridge(c, c.h * (0.45 + 0.15 * i), c.m * 0.05, rnd)
        c.blend(shade(col.accents[i % 3], 0.25), np.exp(-((wave / (c.m * 0.004)) ** 2)), 0.25)
    c.vignette(0.12)


def scene_shapes(c: Canvas, col: Colors, rnd: random.Random) -> None:
    """Illustration: layered geometric shapes (disc, cards, ring, dots) with soft shadows."""
    a = col.accents
    c.gradient([mix(col.surface, a[0], 0.12), mix(col.background, a[1], 0.2)], rnd.uniform(20, 70))
    c.glow(c.w * 0.7, c.h * 0.3, c.m * 0.6, shade(a[2], 0.25), 0.3)
    cx, cy = c.w * rnd.uniform(0.38, 0.62), c.h * rnd.uniform(0.42, 0.58)
    c.shape(circle(c, cx, cy, c.m * 0.3), shade(a[0], 0.05), shadow=0.3)
    for i in range(3):
        turn = rnd.uniform(-0.5, 0.5)
        bx, by = cx + c.m * rnd.uniform(-0.55, 0.55), cy + c.m * rnd.uniform(-0.3, 0.3)
        hw, hh = c.m * rnd.uniform(0.12, 0.22), c.m * rnd.uniform(0.07, 0.14)
        c.shape(box(c, bx, by, hw, hh, c.m * 0.03, turn), a[(i + 1) % 3], shadow=0.35)
    ring = np.abs(circle(c, cx + c.m * 0.35, cy - c.m * 0.25, c.m * 0.12)) - c.m * 0.018
    c.shape(ring, shade(a[2], 0.2), shadow=0.25)
    gx, gy = c.w * rnd.uniform(0.08, 0.2), c.h * rnd.uniform(0.1, 0.3)
    step = c.m * 0.045
    dots = np.hypot((c.x - gx) % step - step / 2, (c.y - gy) % step - step / 2) - step * 0.14
    region = box(c, gx + step * 2.5, gy + step * 2.5, step * 2.5, step * 2.5)
    c.shape(np.maximum(dots, region), shade(a[1], -0.15))
    c.vignette(0.15)


def scene_portrait(c: Canvas, col: Colors, rnd: random.Random) -> None:
    """Portrait: an abstract head-and-shoulders silhouette, rim-lit, before a soft halo."""
    a = col.accents
    c.gradient([shade(mix(col.background, a[1], 0.35), 0.05), shade(a[1], -0.2)], 100)
    cx, cy, m = c.w / 2, c.h * 0.46, c.m
    c.shape(circle(c, cx + m * 0.12, cy - m * 0.05, m * 0.34), shade(a[2], 0.12, 0.8))
    c.glow(cx - m * 0.1, cy - m * 0.2, m * 0.5, shade(a[2], 0.35), 0.35)
    head = ellipse(c, cx, cy - m * 0.08, m * 0.19, m * 0.24)
    neck = box(c, cx, cy + m * 0.19, m * 0.085, m * 0.12, m * 0.04)
    shoulders = ellipse(c, cx, cy + m * 0.7, m * 0.56, m * 0.42)
    body = smooth_min(smooth_min(head, neck, m * 0.03), shoulders, m * 0.05)
    skin = shade(mix(a[0], (40, 32, 40), 0.45), -0.05)
    c.shape(body, skin, soft=2.0, shadow=0.3)
    rim = fill(body, 2.0) * np.clip(1.0 - fill(shift(body, -5, -4), 6.0), 0, 1)
    c.blend(shade(a[2], 0.35), rim, 0.7)
    c.vignette(0.3)


def scene_product(c: Canvas, col: Colors, rnd: random.Random) -> None:
    """Product shot: studio sweep, a cylindrical plinth and one object (sphere, bottle, box)."""
    a = col.accents
    wall = shade(mix(col.surface, a[1], 0.18), 0.02)
    floor_y = c.h * 0.7
    c.gradient([shade(wall, 0.05), wall, shade(wall, -0.1)], 90)
    c.glow(c.w / 2, c.h * 0.35, c.m * 0.6, shade(wall, 0.2), 0.5)
    cx, r = c.w / 2, c.m * 0.26
    top = floor_y - c.m * 0.16
    c.blend(
        (20, 20, 30),
        fill(ellipse(c, cx, floor_y + c.m * 0.03, r * 1.3, r * 0.22), c.m * 0.05),
        0.35,
    )
    across = np.clip((c.x - cx) / r, -1, 1)
    body_col = ramp((across + 1) / 2, [shade(a[0], 0.12), shade(a[0], -0.02), shade(a[0], -0.22)])
    body = np.maximum(box(c, cx, (top + floor_y) / 2, r, (floor_y - top) / 2), -1e6)
    body = np.minimum(body, ellipse(c, cx, floor_y, r, r * 0.18))
    c.blend(body_col, fill(body, 1.5))
    c.shape(ellipse(c, cx, top, r, r * 0.18), shade(a[0], 0.12), soft=1.5)
    kind = rnd.choice(("sphere", "bottle", "box"))
    c.blend((20, 20, 30), fill(ellipse(c, cx, top, r * 0.6, r * 0.1), c.m * 0.03), 0.4)
    if kind == "sphere":
        oy, orad = top - c.m * 0.15, c.m * 0.16
        c.shape(circle(c, cx, oy, orad), shade(a[2], -0.05), soft=1.5)
        c.glow(cx - orad * 0.35, oy - orad * 0.4, orad * 0.35, (255, 255, 255), 0.55)
    elif kind == "bottle":
        jar = box(c, cx, top - c.m * 0.16, c.m * 0.1, c.m * 0.16, c.m * 0.05)
        neck = box(c, cx, top - c.m * 0.36, c.m * 0.035, c.m * 0.06, c.m * 0.012)
        shape = np.minimum(jar, neck)
        c.shape(shape, shade(a[2], -0.1), soft=1.5)
        c.blend((255, 255, 255), fill(box(c, cx - c.m * 0.05, top - c.m * 0.17, c.m * 0.012,
                                          c.m * 0.11, c.m * 0.01), 3.0), 0.35)  # fmt: skip
    else:
        c.shape(box(c, cx, top - c.m * 0.12, c.m * 0.13, c.m * 0.12, c.m * 0.02), a[2], soft=1.5)
        c.blend(shade(a[2], 0.15), fill(box(c, cx, top - c.m * 0.2, c.m * 0.13, c.m * 0.04), 1.5))
    c.vignette(0.2)


def chip(c: Canvas, x: float, y: float, rx: float, ry: float, color: RGB) -> None:
    """A small soft ellipse blended only inside its bounding box (cheap for many stamps)."""
    x0, x1 = max(int(x - rx) - 2, 0), min(int(x + rx) + 3, c.w)
    y0, y1 = max(int(y - ry) - 2, 0), min(int(y + ry) + 3, c.h)
    if x1 <= x0 or y1 <= y0:
        return
    k = np.sqrt(((c.x[:, x0:x1] - x) / rx) ** 2 + ((c.y[y0:y1] - y) / ry) ** 2)
    region = c.rgb[y0:y1, x0:x1]
    region += (np.asarray(color, np.float32) - region) * fill((k - 1.0) * min(rx, ry), 1.2)[
        ..., None
    ]


def scene_pattern(c: Canvas, col: Colors, rnd: random.Random) -> None:
    """Texture: a quiet repeating pattern (waves, dots, terrazzo or arcs) in palette tones."""
    a = col.accents
    c.gradient([mix(col.background, a[0], 0.1), mix(col.surface, a[1], 0.15)], 45)
    kind = rnd.choice(("waves", "dots", "terrazzo", "arcs"))
    s = c.m * 0.08
    if kind == "waves":
        for i in range(3):
            bend = 1.4 * np.sin(c.x / (s * 3.0) + 2.0 * i)
            wave = np.sin(c.y / s * 0.8 + bend + 2.1 * i)
            c.blend(shade(a[i % 3], -0.05), fill(np.abs(wave) - 0.07, 0.05), 0.55)
    elif kind == "dots":
        row = np.floor(c.y / s)
        dx = (c.x + (row % 2) * s / 2) % s - s / 2
        c.shape(np.hypot(dx, c.y % s - s / 2) - s * 0.18, a[0], shadow=0.15)
    elif kind == "terrazzo":
        for _ in range(90):
            x, y, rad = rnd.uniform(0, c.w), rnd.uniform(0, c.h), s * rnd.uniform(0.12, 0.4)
            chip(c, x, y, rad, rad * rnd.uniform(0.5, 1), a[rnd.randrange(3)])
    else:
        arcs = np.hypot((c.x % (2 * s)) - s, (c.y % (2 * s)) - 2 * s) % (s * 0.5) - s * 0.25
        c.blend(a[1], fill(np.abs(arcs) - s * 0.05, 1.5), 0.5)


def scene_icon(c: Canvas, col: Colors, rnd: random.Random) -> None:
    """Icon/accent: a rounded badge with a simple glyph (ring, sparkle or stacked bars)."""
    a = col.accents
    c.gradient([shade(col.surface, 0.03), mix(col.surface, a[0], 0.15)], 90)
    cx, cy, m = c.w / 2, c.h / 2, c.m
    badge = box(c, cx, cy, m * 0.3, m * 0.3, m * 0.09)
    c.blend(np.zeros(3) + 20, fill(shift(badge, int(m * 0.03), 0), m * 0.07), 0.3)
    c.blend(ramp(np.clip((c.y - cy) / m + 0.5, 0, 1), [shade(a[0], 0.1), shade(a[1], -0.05)]),
            fill(badge, 1.5))  # fmt: skip
    glyph = rnd.choice(("ring", "sparkle", "bars"))
    if glyph == "ring":
        mark = np.minimum(
            np.abs(circle(c, cx, cy, m * 0.14)) - m * 0.03, circle(c, cx, cy, m * 0.05)
        )
    elif glyph == "sparkle":
        mark = np.minimum(
            ellipse(c, cx, cy, m * 0.035, m * 0.18), ellipse(c, cx, cy, m * 0.18, m * 0.035)
        )
    else:
        bars = []
        for k in (-1, 0, 1):
            hh = m * (0.06 + 0.035 * (k + 1))
            bars.append(box(c, cx + m * k * 0.09, cy + m * 0.12 - hh, m * 0.03, hh, m * 0.015))
        mark = np.minimum.reduce(bars)
    c.shape(mark, (250, 250, 252), soft=1.5)


# --- role → scene, tones, public API ---------------------------------------------------------

Scene = Callable[[Canvas, Colors, random.Random], None]
_ROLE_SCENES: tuple[tuple[tuple[str, ...], Scene], ...] = (
    (("portrait", "avatar", "headshot", "team", "profile", "person", "author", "testimonial",
      "founder", "speaker", "member"), scene_portrait),
    (("product", "packshot", "merch", "item", "catalog", "bottle", "device", "shop"),
     scene_product),
    (("texture", "pattern", "tile", "wallpaper", "surface", "noise"), scene_pattern),
    (("icon", "logo", "badge", "emblem", "accent", "ornament", "glyph", "favicon"), scene_icon),
    (("illustration", "diagram", "graphic", "spot", "card", "feature", "gallery", "thumbnail",
      "abstract", "editorial", "article"), scene_shapes),
    (("hero", "banner", "cover", "landscape", "scene", "header", "splash", "panorama"),
     scene_landscape),
    (("background", "backdrop", "bg", "ambient", "overlay"), scene_mesh),
)  # fmt: skip


def pick_scene(element: ImagePlan | VideoPlan, plan: DesignPlan) -> Scene:
    """The scene for an element: by its role ("hero background" → landscape, "background" →
    mesh), else words in its prompt, else a landscape for photos and hero sections, else shapes."""
    for text in (element.context.role, element.prompt[:300]):
        words = set(re.findall(r"[a-z]+", text.lower()))
        for keys, scene in _ROLE_SCENES:
            if words & set(keys):
                return scene
    try:
        kind = plan.section(element.context.section).kind
    except KeyError:
        kind = ""
    photo = "photo" in element.context.role.lower()
    return scene_landscape if photo or kind in ("hero", "header") else scene_shapes


def apply_tone(rgb: np.ndarray, tones: set[str]) -> np.ndarray:
    """Colour grade an (h, w, 3) 0–255 array by tone words (greyscale is left to the caller)."""
    grey = (rgb @ np.array([0.299, 0.587, 0.114], np.float32))[..., None]
    if "desaturated" in tones:
        rgb = grey + (rgb - grey) * 0.35
    if "pastel" in tones:
        rgb = (grey + (rgb - grey) * 0.6) * 0.55 + 255 * 0.45
    if "neon" in tones:
        rgb = grey * 0.7 + (rgb - grey) * 1.8
    if "sepia" in tones or "vintage" in tones:
        sepia = np.array([[0.39, 0.35, 0.27], [0.77, 0.69, 0.53], [0.19, 0.17, 0.13]], np.float32)
        rgb = rgb * 0.3 + (rgb @ sepia) * 0.7
    if "warm" in tones:
        rgb = rgb * np.array([1.07, 1.0, 0.86], np.float32) + np.array([10, 4, 0], np.float32)
    if "cool" in tones:
        rgb = rgb * np.array([0.88, 0.98, 1.08], np.float32) + np.array([0, 3, 10], np.float32)
    if "dark" in tones:
        rgb = rgb * 0.58
    return np.clip(rgb, 0, 255)


def render_art(element: ImagePlan | VideoPlan, plan: DesignPlan, width: int, height: int):
    """The graded scene as an (height, width, 3) float32 array, before grain and upscaling."""
    canvas = Canvas(width, height)
    pick_scene(element, plan)(
        canvas, art_colors(element, plan), random.Random(seed_for(element.id))
    )
    return apply_tone(canvas.rgb, tone_words(element))


def finish(rgb: np.ndarray, size: tuple[int, int], seed: int, greyscale: bool) -> Image.Image:
    """Upscale ``rgb`` to ``size`` (w, h) px, add monochrome film grain, convert greyscale last."""
    img = Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB")
    if img.size != size:
        img = img.resize(size, Image.Resampling.BICUBIC)
    noise = np.random.default_rng(seed).integers(-5, 6, (size[1], size[0], 1), dtype=np.int16)
    out = np.clip(np.asarray(img, np.int16) + noise, 0, 255).astype(np.uint8)
    img = Image.fromarray(out, "RGB")
    return img.convert("L").convert("RGB") if greyscale else img


_fallback_noted: list[str] = []  # the one notice given when motif sets are missing


def fallback_notice() -> str:
    """The notice given (once per process) when pictures fell back to abstract art, else ''."""
    return _fallback_noted[0] if _fallback_noted else ""


def subject_scene(element: ImagePlan | VideoPlan, plan: DesignPlan, size: tuple[int, int]):
    """The element's subject :class:`~.scenes.Scene` at ``size`` px, or None when the motif
    sets or the rasteriser are missing (then a notice is logged once) or a motif cannot be drawn.
    """
    from mmstudio.providers.offline import motifs, scenes  # they import this module

    if not motifs.available():
        if not _fallback_noted:
            _fallback_noted.append(f"offline pictures are abstract art: {motifs.missing_reason()}")
            log.warning("%s", _fallback_noted[0])
        return None
    choice = motifs.choice_for(element, plan)
    if choice is None or choice.main is None:
        return None
    try:
        variant = scenes.variants(plan).get(element.id, 0)
        return scenes.compose(element, plan, choice, size, variant)
    except (KeyError, ValueError) as exc:  # an icon resvg cannot draw: abstract art instead
        log.warning("motif scene for %s failed (%s); drew abstract art", element.id, exc)
        return None


def paint_image(element: ImagePlan, plan: DesignPlan) -> Image.Image:
    """Paint ``element`` as an RGB image of exactly ``element.size`` px (e.g. 1536x1024).

    A subject scene of matched motifs (:mod:`.scenes`) when the motif sets are installed, else
    abstract art drawn at half size and upscaled; deterministic per ``element.id``."""
    width, height = (int(v) for v in element.size.split("x"))
    tones = tone_words(element)
    scene = subject_scene(element, plan, (width, height))
    if scene is not None:  # the scene is graded already
        rgb = np.asarray(scene.flatten(), np.float32)
        image = finish(rgb, (width, height), seed_for(element.id), "greyscale" in tones)
        log.debug("painted %s (%s scene, %dx%d)", element.id, scene.kind, width, height)
        return image
    rgb = render_art(element, plan, width // 2, height // 2)
    image = finish(rgb, (width, height), seed_for(element.id), "greyscale" in tone_words(element))
    log.debug(
        "painted %s (%s, %dx%d)", element.id, pick_scene(element, plan).__name__, width, height
    )
    return image


def encode_image(image: Image.Image, save_path: str) -> bytes:
    """Encode by ``save_path``'s extension: .webp (q 82), .jpg/.jpeg (q 85), else PNG bytes."""
    suffix = Path(save_path).suffix.lower()
    buffer = io.BytesIO()
    if suffix == ".webp":
        image.save(buffer, "WEBP", quality=82, method=4)
    elif suffix in (".jpg", ".jpeg"):
        image.convert("RGB").save(buffer, "JPEG", quality=85, optimize=True)
    else:
        image.save(buffer, "PNG", optimize=False, compress_level=6)
    return buffer.getvalue()
