"""Palette checks: does the colour the brief gives play its role on the rendered page?

Colours are compared in CIE Lab (ΔE76): ≤ :data:`CLOSE` is the same colour to a designer's eye
at a glance (a JPEG-free render: the only drift is the page's own tints).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from mmstudio.render.facts import PageFacts

from .model import Requirement, RequirementResult

CLOSE = 6.0
_RGB = re.compile(r"rgba?\((\d+(?:\.\d+)?)[, ]+(\d+(?:\.\d+)?)[, ]+(\d+(?:\.\d+)?)")


def rgb(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))


def lab(c) -> tuple[float, float, float]:
    """sRGB 0–255 → CIE Lab (D65)."""
    return _lab(tuple(round(float(v), 1) for v in c[:3]))


@lru_cache(maxsize=4096)
def _lab(c: tuple[float, ...]) -> tuple[float, float, float]:
    def lin(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(float(v)) for v in c[:3])
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def delta_e(a, b) -> float:
    """ΔE76 between two RGB colours (0–255)."""
    la, lb = lab(a), lab(b)
    return sum((p - q) ** 2 for p, q in zip(la, lb, strict=True)) ** 0.5


def _hex(c) -> str:
    return "#" + "".join(f"{round(v):02x}" for v in c[:3])


def _candidates(role: str, facts: PageFacts) -> list[tuple[list[float], str]]:
    """(colour, where) pairs that may play ``role`` on the page."""
    out: list[tuple[list[float], str]] = []
    if role in ("background", "any"):
        if facts.page_background:
            out.append((facts.page_background, "page background"))
        out += [(c.rgb, "background") for c in facts.colours if c.role == "bg" and c.weight >= 0.02]
    if role in ("text", "any"):
        out += [(c.rgb, "text") for c in facts.colours if c.role == "text"]
    if role in ("cta", "any", "accent"):
        for b in facts.blocks:
            if b.button or b.link:
                if b.background and b.background[3] > 0.3:
                    out.append((b.background, f"button “{b.text[:30]}”"))
                if b.color:
                    out.append((b.color, f"link “{b.text[:30]}”"))
    if role in ("accent", "any"):
        out += [(c.rgb, c.role) for c in facts.colours]
    if role in ("any", "accent", "background", "cta"):
        for g in facts.styles.gradients:
            for m in _RGB.finditer(str(g.get("value", ""))):
                out.append(([float(v) for v in m.groups()], "gradient"))
    return out


#: ΔE from every brief colour past which a chromatic colour reads as "not from the palette"
OFF_PALETTE = 20.0
#: Lab chroma below which a colour is a neutral (white, greys, near-black), always allowed
NEUTRAL_CHROMA = 12.0


def chroma(c) -> float:
    _, a, b = lab(c)
    return (a * a + b * b) ** 0.5


def tint_of(colour, base) -> bool:
    """Whether ``colour`` is a tint of ``base``: its hue (within 30°), no darker (5 L) and no
    more saturated (5 chroma) — a pale lavender band from a lavender palette."""
    lc, ac, bc = lab(colour)
    lb, ab, bb = lab(base)
    hue = abs(math.degrees(math.atan2(bc, ac)) - math.degrees(math.atan2(bb, ab))) % 360
    hue = min(hue, 360 - hue)
    return hue <= 30 and lc >= lb - 5 and chroma(colour) <= chroma(base) + 5


def palette_only(req: Requirement, facts: PageFacts) -> RequirementResult:
    """Buttons and backgrounds covering ≥ 3 % of the page use the brief's colours (ΔE ≤
    :data:`OFF_PALETTE` from one of them, tints included) or neutrals — no default blue."""
    palette = [rgb(h) for h in req.values]
    used: list[tuple[list[float], str]] = []
    for b in facts.blocks:
        if b.button and b.background and b.background[3] > 0.5:
            used.append((b.background, f"button “{b.text[:30]}”"))
    used += [(c.rgb, "background") for c in facts.colours if c.role == "bg" and c.weight >= 0.03]
    off = {}
    for colour, where in used:
        if chroma(colour) < NEUTRAL_CHROMA:
            continue
        if not any(delta_e(colour, p) <= OFF_PALETTE or tint_of(colour, p) for p in palette):
            off.setdefault(_hex(colour), where)
    if not off:
        return RequirementResult.of(req, "pass", "in the palette", checked=len(used))
    shown = ", ".join(f"{c} ({w})" for c, w in list(off.items())[:3])
    suggest = req.values[0] if req.values else None  # the brief's button colour comes first
    msg = f"colours outside the palette: {shown}"
    return RequirementResult.of(req, "fail", msg, off=off, suggest=suggest)


def colour_check(req: Requirement, facts: PageFacts) -> RequirementResult:
    """Pass when some element that plays the role has the colour (ΔE ≤ :data:`CLOSE`)."""
    if req.role == "only":
        return palette_only(req, facts)
    if req.role.startswith("element-"):
        from .element_colours import check_element_colour

        return check_element_colour(req, facts)
    want = rgb(req.label)
    candidates = _candidates(req.role or "any", facts)
    if not candidates:
        return RequirementResult.of(req, "fail", f"nothing on the page plays {req.role}")
    scored = sorted((delta_e(want, c), c, where) for c, where in candidates)
    best, colour, where = scored[0]
    name = req.values[0] if req.values and req.values[0] else None
    if best <= CLOSE:
        msg = f"{where} {_hex(colour)}"
        return RequirementResult.of(req, "pass", msg, delta_e=round(best, 1), name=name)
    role = {"cta": "buttons", "any": "the page"}.get(req.role, f"the {req.role}")
    msg = f"{req.label} is not used for {role}; the nearest is {_hex(colour)} ({where})"
    return RequirementResult.of(
        req, "fail", msg, nearest=_hex(colour), delta_e=round(best, 1), name=name
    )
