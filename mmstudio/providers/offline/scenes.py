"""Subject scenes for offline images and videos: the element's motifs composed by role.

:func:`compose` lays out a :class:`Scene` for one element at (w, h) px: a background painted with
the signed-distance canvas (:mod:`.canvas`, half resolution, then upscaled) in the page palette,
and motif layers (:mod:`.motifs` rasters, full resolution) placed by the slot's role and aspect:

- hero / photo: sky, a light, a ground band; the main motif large on the ground, two to four
  supporting motifs smaller beside it, faint silhouettes in the sky;
- illustration: a palette blob behind the main motif, supporting motifs around it, a dot grid;
- product: a studio sweep and a plinth; one motif on it with a contact shadow;
- portrait: a halo; a person motif (skin tones and people vary per slot) large, cropped at the
  shoulders, a supporting motif as a badge;
- thumbnail / card: one motif on a tinted field; icon: one motif on a rounded badge;
- pattern / texture: a tiled field of palette-coloured silhouettes;
- background: a soft colour mesh with large faint silhouettes (quiet enough for text).

``variant`` (the slot's rank among same-kind slots of its page) moves the main motif, mirrors the
supporting ones and rotates which accent leads, so repeated roles differ in framing and colour
weight. :meth:`Scene.flatten` gives the still; :mod:`.motion` moves the layers for videos.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageFilter

from mmstudio.plan import DesignPlan, ImagePlan, VideoPlan
from mmstudio.providers.offline import art, motifs
from mmstudio.providers.offline.canvas import (
    RGB,
    Canvas,
    box,
    circle,
    ellipse,
    fill,
    mix,
    ridge,
    shade,
)

KINDS = (
    "hero",
    "illustration",
    "product",
    "portrait",
    "thumbnail",
    "icon",
    "pattern",
    "background",
)
_THUMB_WORDS = ("thumbnail", "card", "spot", "tile", "preview", "teaser")


@dataclass
class Layer:
    """One motif raster (RGBA) centred at (x, y) px; ``depth`` 0 (far) … 1 (near) drives
    parallax in videos; ``role`` is main | support | deco | traveller."""

    image: Image.Image
    x: float
    y: float
    depth: float
    role: str
    shadow: float = 0.0


@dataclass
class Scene:
    """A background (RGB, w x h px) and the motif layers drawn over it, back to front."""

    kind: str
    background: Image.Image
    layers: list[Layer] = field(default_factory=list)
    _shadows: dict[int, Image.Image] = field(default_factory=dict, repr=False)
    _base: Image.Image | None = field(default=None, repr=False)

    def flatten(
        self,
        offsets: list[tuple[float, float]] | None = None,
        background: Image.Image | None = None,
    ) -> Image.Image:
        """The scene as one RGB image; ``offsets`` (dx, dy) px per layer move them and
        ``background`` (RGBA, same size) replaces the painted one (videos do both)."""
        if background is None:
            if self._base is None:
                self._base = self.background.convert("RGBA")
            background = self._base
        frame = background.copy()
        for i, layer in enumerate(self.layers):
            dx, dy = offsets[i] if offsets else (0.0, 0.0)
            left = int(layer.x + dx - layer.image.width / 2)
            top = int(layer.y + dy - layer.image.height / 2)
            if layer.shadow:
                if i not in self._shadows:
                    self._shadows[i] = drop_shadow(layer.image, layer.shadow)
                paste(frame, self._shadows[i], left, top + layer.image.height // 40)
            paste(frame, layer.image, left, top)
        return frame.convert("RGB")


def paste(frame: Image.Image, sprite: Image.Image, left: int, top: int) -> None:
    """Alpha-composite ``sprite`` onto ``frame`` at (left, top) px, clipped to the frame."""
    x0, y0 = max(left, 0), max(top, 0)
    x1, y1 = min(left + sprite.width, frame.width), min(top + sprite.height, frame.height)
    if x1 > x0 and y1 > y0:
        frame.alpha_composite(sprite, (x0, y0), (x0 - left, y0 - top, x1 - left, y1 - top))


def drop_shadow(image: Image.Image, strength: float) -> Image.Image:
    """A soft dark copy of ``image``'s alpha (blur ≈ 3 % of its size) at ``strength`` 0–1."""
    alpha = (
        image.getchannel("A").reduce(4).filter(ImageFilter.GaussianBlur(max(1, image.width / 120)))
    )
    alpha = alpha.resize(image.size, Image.Resampling.BILINEAR).point(lambda v: int(v * strength))
    shadow = Image.new("RGBA", image.size, (12, 14, 26, 0))
    shadow.putalpha(alpha)
    return shadow


def kind_of(element: ImagePlan | VideoPlan, plan: DesignPlan) -> str:
    """The scene kind for ``element`` (one of :data:`KINDS`), from its role like :mod:`.art`."""
    role = element.context.role.lower()
    if any(w in role for w in _THUMB_WORDS):
        return "thumbnail"
    scene = art.pick_scene(element, plan)
    kinds: dict[art.Scene, str] = {
        art.scene_portrait: "portrait",
        art.scene_product: "product",
        art.scene_pattern: "pattern",
        art.scene_icon: "icon",
        art.scene_shapes: "illustration",
        art.scene_landscape: "hero",
        art.scene_mesh: "background",
    }
    return kinds[scene]


def hex_of(color: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(int(max(0, min(255, round(v)))) for v in color))


def motif_image(motif: motifs.Motif, px: float, color: RGB, flip: bool = False) -> Image.Image:
    """``motif`` rasterised to fit ``px`` px (mono motifs in ``color``), optionally mirrored."""
    image = motifs.raster(motif, int(px), hex_of(color))
    bbox = image.getchannel("A").getbbox()
    if bbox:
        image = image.crop(bbox)
    return image.transpose(Image.Transpose.FLIP_LEFT_RIGHT) if flip else image


def _half(w: int, h: int) -> Canvas:
    return Canvas(max(w // 2, 8), max(h // 2, 8))


def _upscale(c: Canvas, size: tuple[int, int]) -> Image.Image:
    img = Image.fromarray(np.clip(c.rgb, 0, 255).astype(np.uint8), "RGB")
    return img.resize(size, Image.Resampling.BICUBIC)


def _sky(
    c: Canvas, col: art.Colors, a: tuple[RGB, ...], rnd: random.Random, ground: float, dusk: bool
) -> None:
    """Sky, sun and a two-band ground from ``ground`` (fraction of the height) down; a ``dusk``
    sky is darker at the top (repeated heroes alternate)."""
    top = shade(mix(a[0], col.background, 0.45), 0.08, 0.8)
    low = shade(mix(a[1], (255, 255, 255), 0.55), 0.05, 0.8)
    if col.dark_page:
        top = shade(mix(col.background, a[0], 0.25), -0.02)
        low = shade(mix(a[0], col.background, 0.55), 0.06, 0.9)
    if dusk:
        top, low = shade(mix(a[0], col.text, 0.35), -0.12), shade(low, 0.08)
    c.gradient([top, mix(top, low, 0.6), low], 90)
    sx, sy = c.w * rnd.uniform(0.15, 0.85), c.h * rnd.uniform(0.12, 0.3)
    c.glow(sx, sy, c.m * 0.5, shade(a[2], 0.3), 0.4)
    c.shape(circle(c, sx, sy, c.m * 0.07), shade(mix(a[2], (255, 240, 210), 0.5), 0.15), soft=2.0)
    for i in range(2):
        base = c.h * ground + c.m * 0.05 * i
        tint = shade(mix(low, a[(i + 1) % len(a)], 0.45 + 0.25 * i), -0.05 - 0.08 * i, 0.8)
        c.shape(ridge(c, base, c.m * (0.03 - 0.01 * i), rnd), tint, soft=1.5)
    c.vignette(0.18)


def _field(c: Canvas, col: art.Colors, tint: RGB, weight: float, rnd: random.Random) -> None:
    """A tinted field: a gradient at a random angle and a soft light at a random spot."""
    low = shade(mix(col.surface, tint, weight + 0.1), -0.05)
    c.gradient([mix(col.surface, tint, weight), low], rnd.uniform(0, 360))
    light = shade(mix(col.surface, tint, weight), 0.12)
    c.glow(c.w * rnd.uniform(0.2, 0.8), c.h * rnd.uniform(0.15, 0.6), c.m * 0.7, light, 0.5)


def compose(
    element: ImagePlan | VideoPlan,
    plan: DesignPlan,
    choice: motifs.Choice,
    size: tuple[int, int],
    variant: int = 0,
) -> Scene:
    """The element's :class:`Scene` at ``size`` (w, h) px with ``choice``'s motifs, colour-graded
    by the element's tone words (:func:`art.tone_words`; greyscale included).

    Raises ValueError when ``choice`` has no main motif."""
    if choice.main is None:
        raise ValueError(f"no motif chosen for {element.id}")
    w, h = size
    m = float(min(w, h))
    rnd = random.Random(art.seed_for(element.id) ^ 0x5CE7E)
    col = art.art_colors(element, plan)
    shift = variant % len(col.accents)
    a = col.accents[shift:] + col.accents[:shift]
    kind = kind_of(element, plan)
    c = _half(w, h)
    layers: list[Layer] = []
    flip = bool(variant % 2)
    support = list(choice.support)
    deco_color = shade(a[1], 0.25, 0.7) if not col.dark_page else shade(a[1], -0.1, 0.7)
    landscape = w >= h * 1.15

    if kind in ("hero", "illustration"):
        # framing cycles with periods 5, 4 and 3 so repeats of one role differ for 60 slots
        ground = (0.74, 0.64, 0.8, 0.69)[variant % 4] + rnd.uniform(-0.02, 0.02)
        slots = (0.5, 0.3, 0.7, 0.4, 0.6)
        mx = w * (slots[variant % 5] + rnd.uniform(-0.03, 0.03))
        cy = h * 0.47
        if not landscape:  # narrower slots move the subject less sideways, more up and down
            mx = w * (0.5 + (slots[variant % 5] - 0.5) * 0.5 + rnd.uniform(-0.03, 0.03))
            cy = h * (0.42, 0.5, 0.36)[(variant // 3) % 3]
        main_px = m * (0.62 if kind == "hero" else 0.56) * (1.0, 0.82, 1.1)[variant % 3]
        # repeated illustrations alternate: a blob (circle, rounded square, arch) or a ground
        grounded = kind == "hero" or variant % 3 == 2
        if grounded:
            _sky(c, col, a, rnd, ground, dusk=variant % 4 == 2)
            # repeated heroes also differ in what stands behind the subject (periods 3 and 5
            # with the position keep any two of 15 apart): open sky, a disc of light behind
            # it, or a tall panel on the far side
            backdrop = (variant + variant // 5) % 3
            if backdrop == 1:
                c.shape(
                    circle(c, mx / 2, c.h * ground * 0.55, c.m * 0.34),
                    shade(mix(a[1], col.surface, 0.35), 0.18, 0.7),
                    soft=3.0,
                )
            elif backdrop == 2:
                px = c.w * (0.18 if mx > w / 2 else 0.82)
                c.shape(
                    box(c, px, c.h * ground * 0.5, c.w * 0.11, c.h * ground * 0.5, c.m * 0.04),
                    shade(mix(a[2], col.text, 0.35), -0.1, 0.75),
                    soft=2.0,
                )
        else:
            _field(c, col, a[0], (0.16, 0.42, 0.08, 0.3)[variant % 4], rnd)
            bx, by, r = mx / 2, cy / 2, m * rnd.uniform(0.18, 0.24)
            form = (variant // 3 + art.seed_for(element.id)) % 3
            if form == 0:
                blob = circle(c, bx, by, r)
            elif form == 1:
                blob = box(c, bx, by, r * 0.95, r * 0.95, r * 0.35, rnd.uniform(-0.2, 0.2))
            else:
                blob = np.minimum(
                    circle(c, bx, by - r * 0.25, r), box(c, bx, by + r * 0.4, r, r * 0.65)
                )
            light = (0.18, -0.14)[(variant // 2) % 2] if not col.dark_page else 0.18
            c.shape(blob, shade(a[0], light, 0.8), soft=2.0)
            step = c.m * 0.045
            gx, gy = c.w * (0.8 if mx < w / 2 else 0.08), c.h * 0.12
            dots = (
                np.hypot((c.x - gx) % step - step / 2, (c.y - gy) % step - step / 2) - step * 0.14
            )
            region = box(c, gx + step * 2.5, gy + step * 2.5, step * 2.5, step * 2.5)
            c.shape(np.maximum(dots, region), shade(a[1], -0.1))
        for motif in [*support, choice.main][:3]:  # faint silhouettes far back
            if motif.colour:
                plain = motifs.library().named(motif.name, ("game-icons", "tabler"))
                if plain is None:
                    continue
                motif = plain
            img = motif_image(motif, m * rnd.uniform(0.12, 0.18), deco_color)
            img.putalpha(img.getchannel("A").point(lambda v: int(v * 0.45)))
            layers.append(
                Layer(img, w * rnd.uniform(0.08, 0.92), h * rnd.uniform(0.1, 0.35), 0.1, "deco")
            )
        main = motif_image(choice.main, main_px, a[0], flip and not choice.main.colour)
        my = h * ground - main.height / 2 + m * 0.04 if grounded else cy
        if not landscape:
            my = h * ground - main.height / 2 if grounded else cy
        others = support[:4] if landscape else support[:3]
        for j, motif in enumerate(others):
            side = (-1 if j % 2 == 0 else 1) * (-1 if flip else 1)
            px = m * rnd.uniform(0.2, 0.28) * (1 - 0.1 * (j // 2))
            img = motif_image(motif, px, a[(j + 1) % len(a)])
            if landscape:
                gap = main.width / 2 + img.width * (0.7 + 0.9 * (j // 2))
                x = min(max(mx + side * gap, img.width * 0.55), w - img.width * 0.55)
                y = (
                    (h * ground - img.height / 2 + m * 0.03)
                    if grounded
                    else h * rnd.uniform(0.3, 0.7)
                )
            else:
                x = w * (0.25 + 0.5 * (j % 2)) if j < 2 else w * 0.5
                y = min(
                    my + main.height / 2 + img.height * (0.55 + 0.9 * (j // 2)),
                    h - img.height * 0.5,
                )
            layers.append(Layer(img, x, y, 0.5 + 0.1 * j, "support", 0.35))
        layers.append(Layer(main, mx, my, 0.9, "main", 0.45))
        if grounded:  # contact shadow on the ground under the main motif
            c.blend(
                (20, 20, 30),
                fill(
                    ellipse(c, mx / 2, h * ground / 2 + c.m * 0.04, main.width * 0.3, c.m * 0.03),
                    c.m * 0.04,
                ),
                0.3,
            )
    elif kind == "product":
        wall = shade(mix(col.surface, a[1], 0.2), 0.03)
        floor_y = c.h * 0.72
        c.gradient([shade(wall, 0.06), wall, shade(wall, -0.12)], 90)
        c.glow(c.w / 2, c.h * 0.35, c.m * 0.6, shade(wall, 0.2), 0.5)
        c.blend(shade(wall, -0.08), fill(c.y - floor_y + 0 * c.x, c.m * 0.08), 0.6)
        cx, r = c.w * (0.5 + (0.08 if flip else -0.08) * landscape), c.m * 0.3
        top = floor_y - c.m * 0.1
        c.blend(
            (20, 20, 30),
            fill(ellipse(c, cx, floor_y + c.m * 0.02, r * 1.25, r * 0.2), c.m * 0.05),
            0.3,
        )
        plinth = np.minimum(
            box(c, cx, (top + floor_y) / 2, r, (floor_y - top) / 2),
            ellipse(c, cx, floor_y, r, r * 0.16),
        )
        c.shape(plinth, shade(a[0], -0.05, 0.8), soft=1.5)
        c.shape(ellipse(c, cx, top, r, r * 0.16), shade(a[0], 0.12, 0.8), soft=1.5)
        main = motif_image(choice.main, m * 0.5, a[2], flip and not choice.main.colour)
        c.blend(
            (20, 20, 30), fill(ellipse(c, cx, top, main.width * 0.2, c.m * 0.025), c.m * 0.02), 0.45
        )
        layers.append(Layer(main, cx * 2, top * 2 - main.height / 2 + m * 0.02, 0.9, "main", 0.25))
        if support and landscape:
            img = motif_image(support[0], m * 0.2, a[1])
            sx = w * (0.2 if cx * 2 > w / 2 else 0.8)
            layers.append(
                Layer(img, sx, floor_y * 2 - img.height / 2 + m * 0.05, 0.5, "support", 0.3)
            )
    elif kind == "portrait":
        c.gradient(
            [
                shade(mix(col.background, a[1], 0.4), 0.06),
                shade(mix(a[1], col.background, 0.2), -0.12),
            ],
            100,
        )
        c.shape(
            circle(c, c.w * (0.5 + (0.06 if flip else -0.06)), c.h * 0.42, c.m * 0.36),
            shade(a[2], 0.15, 0.75),
            soft=3.0,
        )
        c.glow(c.w * 0.4, c.h * 0.25, c.m * 0.5, shade(a[2], 0.35), 0.3)
        people = choice.people or motifs.people(art.seed_for(element.id), 3) or [choice.main]
        person = (
            people[variant % len(people)]
            if not motifs._person_like(choice.main) or variant
            else choice.main
        )
        main = motif_image(person, m * 0.92, a[0])
        layers.append(Layer(main, w / 2, h - main.height / 2 + m * 0.06, 0.9, "main", 0.3))
        badge = next(
            (x for x in [choice.main, *support] if x != person and not motifs._person_like(x)), None
        )
        if badge is not None:
            img = motif_image(badge, m * 0.2, a[2])
            bx = w * (0.2 if flip else 0.8)
            layers.append(Layer(img, bx, h * 0.2, 0.6, "support", 0.35))
    elif kind in ("thumbnail", "icon"):
        tint = a[(variant + (kind == "icon")) % 3]  # an icon and a thumbnail of a page differ
        _field(c, col, tint, 0.3 if kind == "thumbnail" else 0.12, rnd)
        main_px = m * (0.62 if kind == "thumbnail" else 0.42)
        if kind == "icon":
            badge = box(c, c.w / 2, c.h / 2, c.m * 0.32, c.m * 0.32, c.m * 0.1)
            c.blend((20, 20, 30), fill(badge + c.m * 0.0 - 0 * c.x, c.m * 0.07), 0.25)
            c.shape(badge, shade(tint, 0.05), soft=1.5)
        # repeated thumbnails change framing: centred on a disc, off-centre beside a band,
        # or close-up and cropped by the corner
        frame = variant % 3 if kind == "thumbnail" else 0
        cx, cy = (
            (w / 2, h / 2)
            if frame == 0
            else (w * 0.36, h * 0.54)
            if frame == 1
            else (w * 0.62, h * 0.6)
        )
        if kind == "thumbnail":
            main_px = m * (0.62, 0.5, 0.9)[frame]
            if frame == 0:
                field = circle(c, cx / 2, cy / 2, c.m * 0.38)
            elif frame == 1:
                field = box(c, c.w * 0.78, c.h / 2, c.w * 0.14, c.h * 0.6)
            else:
                field = circle(c, c.w * 0.15, c.h * 0.2, c.m * 0.22)
            c.shape(field, shade(mix(col.surface, tint, 0.5), 0.08), soft=3.0)
        color = (250, 250, 252) if kind == "icon" else shade(tint, -0.2)
        main = motif_image(choice.main, main_px, color, flip and not choice.main.colour)
        layers.append(Layer(main, cx, cy, 0.9, "main", 0.3 if kind == "thumbnail" else 0.0))
        if kind == "thumbnail" and support:
            img = motif_image(support[0], m * 0.2, shade(tint, -0.1))
            sx, sy = (
                (cx + main.width * 0.5, cy + main.height * 0.38)
                if frame != 1
                else (w * 0.78, h * 0.5)
            )
            layers.append(Layer(img, sx, sy, 1.0, "support", 0.3))
    else:  # pattern, background
        if kind == "background":
            art.scene_mesh(c, col, rnd)
        else:
            c.gradient([mix(col.background, a[0], 0.12), mix(col.surface, a[1], 0.18)], 45)
        pool = [choice.main, *support]
        mono = [motifs.library().named(x.name, ("game-icons", "tabler")) or x for x in pool]
        step = m * (0.2 if kind == "pattern" else 0.42)
        cols, rows = int(w / step) + 2, int(h / step) + 2
        for r in range(rows):
            for q in range(cols):
                motif = mono[(r + q + variant) % len(mono)]
                tint = a[(r * 2 + q) % len(a)]
                px = step * (0.5 if kind == "pattern" else 0.8)
                color = shade(tint, 0.1, 0.8) if kind == "pattern" else shade(tint, 0.3, 0.5)
                img = motif_image(motif, px, color, (r + q) % 2 == 1)
                if kind == "background" or motif.colour:
                    img.putalpha(
                        img.getchannel("A").point(
                            lambda v: int(v * (0.28 if kind == "background" else 0.75))
                        )
                    )
                x = (q + 0.5 * (r % 2)) * step
                layers.append(Layer(img, x, r * step + step * 0.3, 0.3, "deco"))
            if kind == "background" and r > 2:
                break
    if kind != "pattern":
        c.vignette(0.12)
    tones = art.tone_words(element)
    if tones:  # graded here: the background at half size, each motif once (videos reuse it)
        c.rgb = _graded_rgb(c.rgb, tones)
        layers = [Layer(_graded(x.image, tones), x.x, x.y, x.depth, x.role, x.shadow)
                  for x in layers]  # fmt: skip
    return Scene(kind, _upscale(c, (w, h)), layers)


def _graded_rgb(rgb: np.ndarray, tones: set[str]) -> np.ndarray:
    rgb = art.apply_tone(rgb, tones)
    if "greyscale" in tones:
        rgb = np.repeat(rgb @ np.array([[0.299], [0.587], [0.114]], np.float32), 3, axis=2)
    return rgb


def _graded(image: Image.Image, tones: set[str]) -> Image.Image:
    """A motif graded half-way (full for greyscale) so the subject stays readable on a pastel or
    washed-out page."""
    original = np.asarray(image.convert("RGB"), np.float32)
    rgb = _graded_rgb(original, tones)
    if "greyscale" not in tones:
        rgb = (rgb + original) / 2
    out = Image.fromarray(rgb.clip(0, 255).astype(np.uint8), "RGB")
    if image.mode == "RGBA":
        out.putalpha(image.getchannel("A"))
    return out


def variants(plan: DesignPlan) -> dict[str, int]:
    """Each image's and video's rank among the page's slots of the same scene kind (0, 1, …)."""
    counts: dict[str, int] = {}
    out: dict[str, int] = {}
    for element in plan.pictures():
        kind = kind_of(element, plan)
        out[element.id] = counts.get(kind, 0)
        counts[kind] = out[element.id] + 1
    return out


def travel(layer: Layer, phase: float, width: int) -> float:
    """Horizontal offset (px) of a motif moving through a ``width`` px frame once per loop."""
    span = width + layer.image.width * 2
    x = -layer.image.width + span * (phase / (2 * math.pi))
    return x - layer.x
