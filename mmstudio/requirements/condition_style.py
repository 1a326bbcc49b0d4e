"""Looks: colour words, contrast and type checks of condition parts on a :class:`PageView`.

Thresholds: text contrast ≥ :data:`TEXT_CONTRAST` (WCAG ratio, the large-text level); a control
or panel "contrasts" when its colour is ΔE ≥ :data:`AREA_CONTRAST` from its surroundings; "bold"
is weight ≥ 600 for ≥ 60 % of the subject's text; "large" type is ≥ :data:`LARGE_PX` px and
≥ 1.25 × the body text.
"""

from __future__ import annotations

import colorsys
import re
import statistics

from .colour import chroma, delta_e, lab
from .condition_view import CONTAINERS, PageView, background, dominant, result
from .model import Requirement, RequirementResult

TEXT_CONTRAST = 3.0
AREA_CONTRAST = 25.0
LARGE_PX = 24.0
_SERIF = re.compile(
    r"georgia|times|garamond|playfair|merriweather|lora|baskerville|pt serif|noto serif|source"
    r" serif|crimson|cormorant|dejavu serif|liberation serif|bitter|slab|serif display|^serif$"
    r"|cambria|palatino|book antiqua|didot|bodoni|libre caslon|eb garamond|spectral|abril",
    re.I,
)


def luminance(rgb) -> float:
    def lin(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(float(c)) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def colour_names(rgb) -> set[str]:
    """The words a designer would use for a colour: a hue (blue, green …, gray, white, black),
    and dark / light / pale / deep / navy / beige where they apply."""
    lightness, c = lab(rgb)[0], chroma(rgb)
    h, _, v = colorsys.rgb_to_hsv(*(x / 255 for x in rgb[:3]))
    hue = h * 360
    names = {"dark"} if lightness < 40 else {"light", "pale"} if lightness > 75 else set()
    if lightness < 45 and c >= 12:
        names.add("deep")
    if c < 10:
        names.add("white" if lightness > 94 else "black" if lightness < 15 else "gray")
        if c < 4 or lightness < 85:
            return names  # a pale tint (#e0f7fa) still has its hue
    for name, lo, hi in (
        ("red", 345, 360),
        ("red", 0, 15),
        ("orange", 15, 42),
        ("yellow", 42, 70),
        ("green", 70, 165),
        ("teal", 165, 195),
        ("blue", 185, 255),
        ("purple", 255, 295),
        ("pink", 295, 345),
    ):
        if lo <= hue < hi:
            names.add(name)
    if "blue" in names and v < 0.5:
        names.add("navy")
    if names & {"orange", "red"} and v < 0.65 and c < 60:
        names.add("brown")
    if names & {"orange", "yellow"} and lightness > 80 and c < 30:
        names |= {"beige", "cream"}
    if names & {"orange", "yellow"} and 55 < lightness < 80:
        names.add("gold")
    if "teal" in names:
        names |= {"green", "blue"}
    return names


def colour_check(part: Requirement, view: PageView) -> RequirementResult:
    """The subject's colour has the asked names: its fill (backgrounds, buttons) or its text
    colour (text; a button's words may carry the colour too)."""
    element = part.role.partition("@")[0]
    tries: list[tuple[list[float], str]] = []
    if part.label != "text" or element == "button" or element.startswith("control:"):
        measured, where = background(view, part.role)
        if measured is not None:
            tries.append((measured, where))
    if part.label == "text":
        got = [b.color for b in view.blocks(part.role) if b.color]
        if got:
            tries.append((statistics.median_low(got), "its text"))
    if not tries:
        return result(part, "unchecked", f"no colour measured for {part.role}")
    said = []
    for measured, where in tries:
        names = colour_names(measured)
        shown = "#" + "".join(f"{round(float(v)):02x}" for v in measured[:3])
        said.append(f"{where} is {shown} ({', '.join(sorted(names))})")
        if set(part.values) <= names:
            return result(part, "pass", said[-1])
    return result(part, "fail", f"{'; '.join(said)}, not {' '.join(reversed(part.values))}")


def contrast_check(part: Requirement, view: PageView) -> RequirementResult:
    element = part.role.partition("@")[0]
    if element in ("button",) or element.startswith("control:"):
        blocks = view.blocks(part.role)
        if not blocks and view.blocks(element):  # one outside the box the container measured
            return result(part, "unchecked", f"the {element} is outside the measured container")
        if not blocks:
            return result(part, "fail", f"no {element} to compare")
        b = blocks[0]
        own = b.background if b.background and b.background[3] > 0.3 else None
        container = part.role.partition("@")[2] or "page"
        around = background(view, container)[0]
        if own is None or around is None:
            return result(part, "unchecked", "the button has no fill of its own to compare")
        gap = delta_e(own, around)
        status = "pass" if gap >= AREA_CONTRAST else "fail"
        return result(part, status, f"the button differs from its surroundings by ΔE {gap:.0f}")
    if element in ("", "page") or element in CONTAINERS or element.startswith("section:"):
        box_colour = background(view, element or "page")[0]
        page = view.facts.page_background
        if element in ("", "page") or box_colour is None or page is None:
            return result(part, "unchecked", "nothing to contrast the area with")
        gap = delta_e(box_colour, page)
        status = "pass" if gap >= AREA_CONTRAST else "fail"
        return result(part, status, f"the {element} differs from the page by ΔE {gap:.0f}")
    blocks = view.blocks(part.role)
    ratios = []
    for b in blocks[:12]:
        bg = b.background if b.background and b.background[3] > 0.9 else dominant(view, b.rect)
        if b.color and bg:
            ratios.append(contrast_ratio(b.color, bg))
    if not ratios:
        return result(part, "unchecked", f"no {element} text to measure")
    worst = min(ratios)
    status = "pass" if worst >= TEXT_CONTRAST else "fail"
    return result(part, status, f"lowest text contrast {worst:.1f}:1 over {len(ratios)} element(s)")


def font_class(stack: str) -> str:
    """``serif`` or ``sans-serif`` for a CSS font stack (its first family; the generic family
    at its end when the first is unknown)."""
    families = [f.strip().strip("\"'") for f in stack.split(",") if f.strip()]
    if not families:
        return "sans-serif"
    first = families[0]
    if _SERIF.search(first) and "sans" not in first.lower():
        return "serif"
    if re.search(
        r"sans|arial|helvet|verdana|roboto|lato|inter|poppins|segoe|system|montserrat"
        r"|nunito|raleway|ubuntu|tahoma|trebuchet|futura|gill",
        first,
        re.I,
    ):
        return "sans-serif"
    return "serif" if families[-1].lower() == "serif" else "sans-serif"


def type_check(part: Requirement, view: PageView) -> RequirementResult:
    blocks = view.blocks(part.role)
    if not blocks:
        return result(part, "unchecked", f"no text found for {part.role}")
    kind = part.checker.removeprefix("cond.")
    if kind == "font":
        got = [font_class(b.font) for b in blocks]
        share = got.count(part.label) / len(got)
        ok, said = share >= 0.6, f"{share:.0%} of {len(got)} element(s) in a {part.label} font"
    elif kind == "weight":
        heavy = [b.font_weight >= 600 for b in blocks]
        share = sum(heavy) / len(heavy) if part.label == "bold" else 1 - sum(heavy) / len(heavy)
        ok, said = share >= 0.6, f"{share:.0%} of {len(heavy)} element(s) {part.label}"
    else:
        body = [b.font_size for b in view.facts.blocks if b.tag == "p"] or [16.0]
        median, size = statistics.median(body), statistics.median(b.font_size for b in blocks)
        if part.label == "large":
            ok = size >= LARGE_PX and size >= 1.25 * median
        else:
            heads = view.blocks(f"headline@{part.role.partition('@')[2]}".rstrip("@"))
            top = max((b.font_size for b in heads), default=0)
            ok = bool(top) and size < top
        said = f"{size:.0f} px type (body text {median:.0f} px)"
    return result(part, "pass" if ok else "fail", said)
