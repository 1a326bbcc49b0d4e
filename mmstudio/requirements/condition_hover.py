"""Hover effects of FronTalk conditions, read from the site's style sheets: "hovering over a card
slightly elevates it and changes its border colour", "menu items have subtle hover effects",
"the thumbnail enlarges on hover".

:func:`hover_part` reads the claim into one part (``checker`` ``cond.hover``; ``label`` the kind
of element hovered — card, image, link, button, avatar, icon, "" for any; ``values`` the effects
asked: scale, lift, shadow, colour, border, brightness, underline, rotate, glow, reveal, smooth).
:func:`check_hover` decides it on the page's CSS (its ``<style>`` blocks and the site's own CSS
files): it passes when some ``:hover`` rule whose selector names that kind of element declares
every asked effect (a ``transition`` on the element itself for "smooth"), and fails when none
does — a page that only describes a hover effect in words never passes. What a rule does to
the pixels is not measured: a rule that sets an effect to its current value would pass.
"""

from __future__ import annotations

import re

from .condition_rules import _req
from .model import Requirement, RequirementResult

_HOVER = re.compile(r"\bhover\w*|\bmouse\s*over\b|\bon mouse\b", re.I)
_EFFECTS = (
    (r"enlarg\w*|scal\w*|zoom\w*|grow\w*|bigger|increas\w* (?:its |the )?size", "scale"),
    (r"elevat\w*|lift\w*|rais\w*|float\w*", "lift"),
    (r"shadows?", "shadow"),
    (r"glow\w*", "glow"),
    (r"bright\w*", "brightness"),
    (r"underlin\w*", "underline"),
    (r"rotat\w*|tilt\w*|spin\w*", "rotate"),
    (r"border colou?r|border", "border"),
    (r"colou?r(?: change| shift)?|darken\w*|lighten\w*|highlight\w*", "colour"),
    (r"reveal\w*|appear\w*|shows?|display\w*", "reveal"),
    (r"smooth\w*|transition\w*|gradual\w*", "smooth"),
)
_SUBJECTS = (
    (r"menu items?|nav\w* (?:links?|items?)|links?|nav\w*|menu", "link",
     r"\ba\b|\ba:|nav|menu|link"),
    (r"cards?|tiles?|items?|entr(?:y|ies)|projects?|products?|posts?|articles?|listings?", "card",
     r"card|item|tile|entry|project|product|post|article|listing|\bli\b"),
    (r"images?|photos?|pictures?|thumbnails?|posters?|covers?", "image",
     r"img|image|photo|picture|thumb|figure|svg|poster|cover|gallery"),
    (r"buttons?|cta|call-to-action", "button", r"button|btn|cta|\[type=.?submit"),
    (r"avatars?", "avatar", r"avatar|img|profile"),
    (r"icons?", "icon", r"icon|svg|social|\bi\b"),
)  # fmt: skip
#: condition words the hover part reads (see :data:`~.condition_words.READ_BY`)
READS = (
    r"hover\w*|enlarg\w*|scal\w*|zoom\w*|elevat\w*|lift\w*|shadows?|glow\w*|bright\w*"
    r"|underlin\w*|rotat\w*|borders?|highlight\w*|reveal\w*|smooth\w*|transitions?|upon|results"
    r"|interactive|dynamic\w*|visual|effects?"
)
_PROPS = {
    "scale": r"transform\s*:[^;]*scale|zoom\s*:|scale\s*:",
    "lift": r"transform\s*:[^;]*translate|translate\s*:|box-shadow\s*:",
    "shadow": r"box-shadow\s*:|filter\s*:[^;]*drop-shadow|text-shadow\s*:",
    "glow": r"box-shadow\s*:|text-shadow\s*:|filter\s*:",
    "brightness": r"filter\s*:[^;]*bright|opacity\s*:|background",
    "underline": r"text-decoration\s*:[^;]*underline|border-bottom|box-shadow\s*:[^;]*inset",
    "rotate": r"transform\s*:[^;]*rotate|rotate\s*:",
    "border": r"border[\w-]*\s*:|outline\s*:",
    "colour": r"(?<![\w-])colou?r\s*:|background(?:-color)?\s*:|border-color\s*:|filter\s*:"
    r"|fill\s*:",
    "reveal": r"opacity\s*:|visibility\s*:|display\s*:|max-height\s*:|transform\s*:",
}


def hover_part(text: str, plain: str) -> list[Requirement]:
    """The hover part of a condition that claims a hover effect ([] when it claims none)."""
    m = _HOVER.search(plain)
    if m is None:
        return []
    effects = [name for words, name in _EFFECTS if re.search(rf"\b(?:{words})\b", plain, re.I)]
    subject = next((kind for words, kind, _sel in _SUBJECTS
                    if re.search(rf"\b(?:{words})\b", plain, re.I)), "")  # fmt: skip
    asked = ", ".join(effects) or "some change"
    return [
        _req("layout", "hover", subject or "any", f"Hovering {subject or 'it'} shows {asked}",
             (m.start(), m.end()), label=subject, values=effects, source=text)
    ]  # fmt: skip


_MOTION = re.compile(
    r"\banimat\w*|\btransitions?\b|\bfad(?:e|es|ing)\s+(?:in|out)\b"
    r"|\bslid(?:e|es|ing)\s+(?:in|into|down|from)\b",
    re.I,
)


def motion_part(text: str, plain: str) -> list[Requirement]:
    """An animation / transition claim without a hover ("the banner slides in from the top when
    the page loads", "a fading text effect"): the element must declare an animation or a
    transition ([] when the condition claims none, or a hover part reads it)."""
    m = _MOTION.search(plain)
    if m is None or _HOVER.search(plain):
        return []
    subject = next((kind for words, kind, _sel in _SUBJECTS
                    if re.search(rf"\b(?:{words})\b", plain, re.I)), "")  # fmt: skip
    return [
        _req("layout", "motion", subject or "any", f"{subject or 'Something'} is animated",
             (m.start(), m.end()), label=subject, source=text)
    ]  # fmt: skip


def check_motion(part: Requirement, css: str) -> RequirementResult:
    """Some rule (for the part's kind of element when it names one) declares an animation with
    its ``@keyframes``, or a transition."""
    from .condition_view import result

    pattern = next((sel for _w, kind, sel in _SUBJECTS if kind == part.label), r".")
    frames = set(re.findall(r"@keyframes\s+([\w-]+)", css))
    for sel, body in _rules(css):
        if not re.search(pattern, sel, re.I):
            continue
        named = re.search(r"animation(?:-name)?\s*:\s*([\w-]+)", body)
        if named and named.group(1) in frames:
            return result(part, "pass", f"“{sel[:60]}” runs the animation {named.group(1)}")
        if re.search(r"transition\s*:\s*(?!none)", body):
            return result(part, "pass", f"“{sel[:60]}” declares a transition")
    what = part.label or "any element"
    return result(part, "fail", f"no animation or transition for {what} in the style sheets")


def _rules(css: str) -> list[tuple[str, str]]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    flat = re.sub(r"@media[^{]*\{((?:[^{}]*\{[^{}]*\})*)\s*\}", r"\1", css)
    return [(m.group(1).strip(), m.group(2)) for m in re.finditer(r"([^{}@]+)\{([^{}]*)\}", flat)]


def check_hover(part: Requirement, css: str) -> RequirementResult:
    """The result of a hover part on the page's style sheets ``css`` (see the module doc)."""
    from .condition_view import result

    pattern = next((sel for _w, kind, sel in _SUBJECTS if kind == part.label), r".")
    rules = _rules(css)
    hovers = [
        (sel, body) for sel, body in rules
        if ":hover" in sel and re.search(pattern, sel.split(":hover")[0] + " " + sel, re.I)
    ]  # fmt: skip
    what = part.label or "any element"
    if not hovers:
        return result(part, "fail", f"no :hover rule for {what} in the style sheets")
    wanted = [v for v in part.values if v != "smooth"]
    for sel, body in hovers:
        missing = [v for v in wanted if not re.search(_PROPS[v], body, re.I)]
        if missing:
            continue
        if "smooth" in part.values:
            base = sel.split(":hover")[0].strip()
            if not re.search(r"transition|animation", body, re.I) and not any(
                base and base in s and re.search(r"transition|animation", b, re.I) for s, b in rules
            ):
                continue
        effects = ", ".join(part.values) or "a change"
        return result(part, "pass", f"“{sel[:60]}” declares {effects}")
    first = hovers[0][0]
    return result(
        part,
        "fail",
        f"{len(hovers)} :hover rule(s) for {what} (e.g. “{first[:50]}”), none with "
        f"{', '.join(part.values)}",
    )
