"""Paint the copy the prompt gives a colour (offline layout pass over the rendered page).

``GlobalLayout.text_colours`` says "“Beginner” in white", "a coral pill “Advanced”": after the
page is rendered, every element whose whole text is such a label gets that colour — its text
colour, or for a fill its background with a readable text colour on it. Painted copy must read
(WCAG AA on the section's background and on a card: :data:`MIN_CONTRAST`, headings
:data:`LARGE_CONTRAST`), the way a designer keeps a named colour readable: a hue that is too
light or too dark there takes the nearest shade of itself that reads (teal text on white a
deeper teal); white, black or a pale tint that no shade keeps sets the copy on a chip of the
palette colour it reads on (white text implies a coloured ground: “Beginner” in white on the
primary colour); copy that neither makes readable is left in the layout's ink — invisible copy
is worse than a missed colour, and a low-contrast paint job makes the contrast refiner repaint
the copy's siblings too.

Public API: :func:`paint`.
"""

from __future__ import annotations

import colorsys
import re

from markupsafe import escape

from mmstudio.plan import DesignPlan, TextColour
from mmstudio.providers.offline import page_css

#: lowest contrast ratio (WCAG formula) at which a prompt's text colour is applied (AA text)
MIN_CONTRAST = 4.5
#: the same for a heading (large text, AA)
LARGE_CONTRAST = 3.0
#: the same on a button's own fill (button text is small and must read)
BUTTON_CONTRAST = 4.5
#: how far (HLS lightness, 0–1) a named colour may move to read
MAX_SHADE = 0.6
#: the HLS lightness a shade stays within (darker or lighter, the hue is no longer seen)
SHADE_RANGE = (0.2, 0.85)
#: copy longer than this never gets a chip behind it (a paragraph on a coloured pill)
CHIP_CHARS = 48
_LARGE_TAGS = ("h1", "h2")
_SECTION = re.compile(r'data-mm-section="([^"]+)"')
_TAGS = "h1|h2|h3|h4|h5|h6|p|span|a|button|li|strong|em|small|dt|dd|td|th|figcaption|div|b|label"


def paint(html: str, plan: DesignPlan) -> str:
    """``html`` with a ``style`` colour on every element whose whole text is a label of
    ``plan.layout.text_colours``; ``html`` unchanged when there is none."""
    colours = plan.layout.text_colours
    if not colours:
        return html
    backgrounds = _backgrounds(plan)
    grounds = tuple(c.hex for c in plan.layout.palette if c.role in ("primary", "accent", "text"))
    starts = [(m.start(), m.group(1)) for m in _SECTION.finditer(html)]
    for colour in colours:
        html = _paint_one(html, colour, backgrounds, starts, grounds)
    return html


def _paint_one(
    html: str,
    colour: TextColour,
    backgrounds: dict[str, tuple[str, str, str]],
    starts: list[tuple[int, str]],
    grounds: tuple[str, ...] = (),
) -> str:
    """``html`` with every element showing ``colour.text`` painted."""
    shown = str(escape(colour.text)).replace("/", "&#47;")
    pattern = re.compile(
        rf"<(?P<tag>{_TAGS})(?P<attrs>\s[^<>]*)?>"
        rf"(?P<body>\s*{re.escape(shown)}[.,;:!?]?\s*</(?P=tag)>)",  # a heading's full stop
        re.I,
    )

    def styled(match: re.Match) -> str:
        section = next((sid for at, sid in reversed(starts) if at < match.start()), "")
        bg, surface, primary = backgrounds.get(section, backgrounds[""])
        attrs = match.group("attrs") or ""
        # a text colour is read on the element's own fill: a primary button's, else the section's
        on_button = "button-primary" in attrs
        surfaces = (primary,) if on_button else (bg, surface)
        large = match.group("tag").lower() in _LARGE_TAGS
        minimum = BUTTON_CONTRAST if on_button else LARGE_CONTRAST if large else MIN_CONTRAST
        chips = () if on_button or len(colour.text) > CHIP_CHARS else (primary, *grounds)
        declaration = _declaration(colour, surfaces, minimum, chips, shade=not on_button)
        if not declaration and on_button and not colour.fill:
            declaration = _button_for(colour.hex, primary)
        if not declaration:
            return match.group()
        if 'style="' in attrs:
            attrs = attrs.replace('style="', f'style="{declaration} ', 1)
        else:
            attrs += f' style="{declaration}"'
        return f"<{match.group('tag')}{attrs}>{match.group('body')}"

    return pattern.sub(styled, html)


def _declaration(
    colour: TextColour,
    surfaces: tuple[str, ...],
    minimum: float,
    chips: tuple[str, ...] = (),
    *,
    shade: bool = True,
) -> str:
    """The CSS declarations for one painted element: its fill with a readable ink, else its
    text colour — the colour itself, or its nearest shade, reaching ``minimum`` contrast on
    every one of ``surfaces`` (no shade when ``shade`` is False: a button's own fill) — else
    the colour on a chip of the first of ``chips`` it reads on (never a grey's); "" when none
    of these reads."""
    if colour.fill:
        ink = page_css.readable(colour.hex, ["#ffffff", "#111111"])
        return f"background: {colour.hex}; color: {ink}; border-color: {colour.hex};"
    shown = readable_shade(colour.hex, surfaces, minimum, MAX_SHADE if shade else 0.0)
    if shown:
        return f"color: {shown};"
    channels = page_css.rgb(colour.hex)
    grey = max(channels) - min(channels) < 24 and 0.03 < page_css.luminance(colour.hex) < 0.8
    ground = next((c for c in chips if page_css.contrast(colour.hex, c) >= MIN_CONTRAST), None)
    if ground is None or grey:  # a grey is a quiet shade, not a colour to set on a chip
        return ""
    return (
        f"color: {colour.hex}; background: {ground}; padding: 0.1em 0.45em; "
        "border-radius: var(--radius-small, 4px); display: inline-block;"
    )


def _button_for(ink: str, fill: str) -> str:
    """A primary button whose text the prompt colours (“Get Tickets” in white) but whose fill
    does not carry it: the fill's nearest shade that reads under that ink (a deeper pink under
    white), with the ink; "" when no shade of the fill reads, or when the ink is a hue (“Start
    trial” in forest green on a forest green button: the fill the prompt gives stays)."""
    channels = page_css.rgb(ink)
    if max(channels) - min(channels) >= 24:
        return ""
    shade = readable_shade(fill, (ink,), BUTTON_CONTRAST)
    if not shade:
        return ""
    return f"background: {shade}; border-color: {shade}; color: {ink};"


def readable_shade(
    hex_colour: str, surfaces: tuple[str, ...], minimum: float, most: float = MAX_SHADE
) -> str:
    """``hex_colour``, or the first of its shades — the same hue and saturation, lightness down
    (up on a dark ground) in steps of 0.05, at most ``most`` and within :data:`SHADE_RANGE` —
    with at least ``minimum``
    contrast (WCAG, 1–21) on every one of ``surfaces``; "" when none reaches it. A white,
    black or grey colour is no hue to shade: only the colour itself counts."""
    if not surfaces:
        return hex_colour

    def reads(c: str) -> bool:
        return min(page_css.contrast(c, s) for s in surfaces) >= minimum

    if reads(hex_colour):
        return hex_colour
    channels = page_css.rgb(hex_colour)
    if max(channels) - min(channels) < 24:
        return ""
    dark = sum(page_css.luminance(s) for s in surfaces) / len(surfaces) < 0.18
    hue, lightness, saturation = colorsys.rgb_to_hls(*(c / 255 for c in channels))
    for step in range(1, round(most * 20) + 1):  # the same hue and saturation, deeper
        moved = lightness + step / 20 if dark else lightness - step / 20
        if not SHADE_RANGE[0] <= moved <= SHADE_RANGE[1]:
            break  # near black or white a hue is no longer seen
        r, g, b = colorsys.hls_to_rgb(hue, moved, saturation)
        shade = page_css.to_hex((r * 255, g * 255, b * 255))
        if reads(shade):
            return shade
    return ""


def _backgrounds(plan: DesignPlan) -> dict[str, tuple[str, str, str]]:
    """``{section id: (section background, card surface, primary button fill)}``; ``""`` is
    the page's."""
    layout = plan.layout
    moods = page_css.detect_moods(layout)
    page_bg = page_css.page_background(layout, moods)
    page_tone = page_css.tone_for(layout, page_bg, moods)
    found = {"": (page_bg, page_tone.surface, page_tone.primary)}
    for section in plan.sections:
        bg = page_css.section_background(layout, section) or page_bg
        tone = page_css.tone_for(layout, bg, moods)
        found[section.id] = (bg, tone.surface, tone.primary)
    return found
