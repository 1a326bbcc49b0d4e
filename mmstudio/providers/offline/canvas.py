"""A tiny signed-distance painter on numpy arrays, shared by offline images and videos.

Colours are (r, g, b) floats 0–255. A :class:`Canvas` holds an (h, w, 3) float32 image and
broadcastable pixel grids; shape functions return signed distances in px (< 0 inside) so one field
gives both an anti-aliased fill and a soft shadow (:func:`fill` with a wide edge).
"""

from __future__ import annotations

import colorsys
import random

import numpy as np

RGB = tuple[float, float, float]


def hex_rgb(value: str) -> RGB:
    """``#rrggbb`` or ``#rgb`` → (r, g, b) floats 0–255."""
    value = value.lstrip("#")
    if len(value) == 3:
        value = "".join(ch * 2 for ch in value)
    return (float(int(value[0:2], 16)), float(int(value[2:4], 16)), float(int(value[4:6], 16)))


def luminance(color: RGB) -> float:
    """Approximate relative luminance 0–1 (Rec. 709 weights on gamma-encoded values)."""
    return (0.2126 * color[0] + 0.7152 * color[1] + 0.0722 * color[2]) / 255.0


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """Linear blend from ``a`` (t=0) to ``b`` (t=1)."""
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def shade(color: RGB, light: float = 0.0, sat: float = 1.0, hue: float = 0.0) -> RGB:
    """Shift HLS lightness by ``light`` (−1…1), scale saturation by ``sat``, rotate ``hue``."""
    h, lig, s = colorsys.rgb_to_hls(*(c / 255.0 for c in color))
    lig = min(1.0, max(0.0, lig + light))
    s = min(1.0, max(0.0, s * sat))
    r, g, b = colorsys.hls_to_rgb((h + hue) % 1.0, lig, s)
    return (r * 255.0, g * 255.0, b * 255.0)


class Canvas:
    """An RGB float32 canvas (h, w, 3) in 0–255 with broadcastable pixel grids ``x`` (1, w) and
    ``y`` (h, 1). ``m`` is the shorter side in px, the unit that keeps shapes aspect-independent."""

    def __init__(self, width: int, height: int) -> None:
        self.w, self.h, self.m = width, height, float(min(width, height))
        self.x = np.arange(width, dtype=np.float32)[None, :] + 0.5
        self.y = np.arange(height, dtype=np.float32)[:, None] + 0.5
        self.rgb = np.zeros((height, width, 3), np.float32)

    def gradient(self, stops: list[RGB], angle: float = 90.0) -> None:
        """Fill with a linear gradient through ``stops``; ``angle`` in degrees (90 = top→bottom)."""
        rad = np.deg2rad(angle)
        t = self.x / self.w * np.cos(rad) + self.y / self.h * np.sin(rad)
        t = (t - t.min()) / max(float(t.max() - t.min()), 1e-6)
        self.rgb[:] = ramp(t, stops)

    def blend(self, color: RGB | np.ndarray, alpha: np.ndarray, opacity: float = 1.0) -> None:
        """Composite ``color`` (RGB or an (h, w, 3) array) over the canvas with ``alpha`` 0–1."""
        a = np.asarray(alpha, np.float32) * opacity
        a = a[..., None] if a.ndim == 2 else a
        self.rgb += (np.asarray(color, np.float32) - self.rgb) * a

    def shape(self, sdf: np.ndarray, color: RGB, soft: float = 1.2, shadow: float = 0.0) -> None:
        """Fill a signed distance field (px, < 0 inside) with a soft drop shadow first."""
        if shadow:
            dy = shift(sdf, int(self.m * 0.025), 0)
            self.blend((10, 12, 24), fill(dy, self.m * 0.06), shadow)
        self.blend(lit(self, color), fill(sdf, soft))

    def glow(self, cx: float, cy: float, radius: float, color: RGB, strength: float = 1.0) -> None:
        """A gaussian light at (cx, cy) px with ``radius`` px."""
        d2 = ((self.x - cx) ** 2 + (self.y - cy) ** 2) / (radius * radius)
        self.blend(color, np.exp(-d2), strength)

    def vignette(self, strength: float = 0.22) -> None:
        """Darken the corners (multiplicative, ``strength`` 0–1)."""
        r2 = ((self.x / self.w - 0.5) ** 2 + (self.y / self.h - 0.5) ** 2) * 2.0
        self.rgb *= (1.0 - strength * r2)[..., None]


def shift(field: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """``field`` moved down ``dy`` and right ``dx`` px, edges repeated (no wrap-around)."""
    h, w = field.shape[:2]
    ys = np.clip(np.arange(h) - dy, 0, h - 1)
    xs = np.clip(np.arange(w) - dx, 0, w - 1)
    return field[ys][:, xs]


def ramp(t: np.ndarray, stops: list[RGB]) -> np.ndarray:
    """Map ``t`` (any shape, 0–1) through evenly spaced colour ``stops`` → shape + (3,)."""
    pos = np.linspace(0.0, 1.0, len(stops))
    cols = np.asarray(stops, np.float32)
    t = np.clip(t, 0.0, 1.0)
    return np.stack([np.interp(t, pos, cols[:, i]) for i in range(3)], axis=-1).astype(np.float32)


def lit(c: Canvas, color: RGB) -> np.ndarray:
    """``color`` lit from the top-left: a gentle diagonal gradient (h, w, 3) around it."""
    t = (c.x / c.w * 0.6 + c.y / c.h * 0.4).astype(np.float32)
    return ramp(t, [shade(color, 0.09), color, shade(color, -0.07)])


def fill(sdf: np.ndarray, soft: float) -> np.ndarray:
    """Coverage 0–1 from a signed distance (px) with an edge ``soft`` px wide."""
    return np.clip(0.5 - sdf / max(soft, 1e-3), 0.0, 1.0)


def smooth_min(a: np.ndarray, b: np.ndarray, k: float) -> np.ndarray:
    """Union of two distance fields with a rounded join ``k`` px wide (polynomial smooth min)."""
    h = np.clip(0.5 + 0.5 * (b - a) / k, 0.0, 1.0)
    return b + (a - b) * h - k * h * (1.0 - h)


def circle(c: Canvas, cx: float, cy: float, r: float) -> np.ndarray:
    """Signed distance (px) to a circle."""
    return np.sqrt((c.x - cx) ** 2 + (c.y - cy) ** 2) - r


def ellipse(c: Canvas, cx: float, cy: float, rx: float, ry: float) -> np.ndarray:
    """Approximate signed distance (px) to an axis-aligned ellipse."""
    k = np.sqrt(((c.x - cx) / rx) ** 2 + ((c.y - cy) / ry) ** 2)
    return (k - 1.0) * min(rx, ry)


def box(c: Canvas, cx: float, cy: float, hw: float, hh: float, r: float = 0.0, turn: float = 0.0):
    """Signed distance (px) to a rounded rectangle (half sizes ``hw``/``hh``, corner ``r``),
    rotated by ``turn`` radians around its centre."""
    dx, dy = c.x - cx, c.y - cy
    if turn:
        dx, dy = dx * np.cos(turn) + dy * np.sin(turn), dy * np.cos(turn) - dx * np.sin(turn)
    qx, qy = np.abs(dx) - hw + r, np.abs(dy) - hh + r
    outside = np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2)
    return outside + np.minimum(np.maximum(qx, qy), 0) - r


def ridge(c: Canvas, base: float, amp: float, rnd: random.Random, phase: float = 0.0):
    """Signed distance-like field (px) below a rolling ridge line ``base`` ± ``amp`` px high.

    Frequencies are whole cycles per canvas width, so the ridge tiles horizontally."""
    line = np.full_like(c.x, base)
    for k, weight in ((1, 1.0), (2, 0.5), (3, 0.3), (5, 0.15)):
        shift = rnd.uniform(0, 2 * np.pi) + phase * k
        line = line + amp * weight * np.sin(2 * np.pi * k * c.x / c.w + shift)
    return line - c.y
