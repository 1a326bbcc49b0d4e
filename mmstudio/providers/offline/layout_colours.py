"""Paint the copy the prompt gives a colour (offline layout pass over the rendered page).

``GlobalLayout.text_colours`` says "“Beginner” in white", "a coral pill “Advanced”": after the
page is rendered, every element whose whole text is such a label gets that colour — its text
colour, or for a fill its background with a readable text colour on it. A text colour that would
be unreadable on the section's background or on a card (contrast below :data:`MIN_CONTRAST`) is
left out: the prompt's word describes a look our layout does not build around it (white text on
a coral card we do not draw), and invisible copy is worse than a missed colour.

Public API: :func:`paint`.
"""

from __future__ import annotations

import re

from markupsafe import escape

from mmstudio.plan import DesignPlan, TextColour
from mmstudio.providers.offline import page_css

#: lowest contrast ratio (WCAG formula) at which a prompt's text colour is applied
MIN_CONTRAST = 1.8
#: the same on a button's own fill (button text is small and must read)
BUTTON_CONTRAST = 3.0
_SECTION = re.compile(r'data-mm-section="([^"]+)"')
_TAGS = "h1|h2|h3|h4|h5|h6|p|span|a|button|li|strong|em|small|dt|dd|td|th|figcaption|div|b|label"


def paint(html: str, plan: DesignPlan) -> str:
    """``html`` with a ``style`` colour on every element whose whole text is a label of
    ``plan.layout.text_colours``; ``html`` unchanged when there is none."""
    colours = plan.layout.text_colours
    if not colours:
        return html
    backgrounds = _backgrounds(plan)
    starts = [(m.start(), m.group(1)) for m in _SECTION.finditer(html)]
    for colour in colours:
        html = _paint_one(html, colour, backgrounds, starts)
    return html


def _paint_one(
    html: str,
    colour: TextColour,
    backgrounds: dict[str, tuple[str, str, str]],
    starts: list[tuple[int, str]],
) -> str:
    """``html`` with every element showing ``colour.text`` painted."""
    shown = str(escape(colour.text)).replace("/", "&#47;")
    pattern = re.compile(
        rf"<(?P<tag>{_TAGS})(?P<attrs>\s[^<>]*)?>(?P<body>\s*{re.escape(shown)}\s*</(?P=tag)>)",
        re.I,
    )

    def styled(match: re.Match) -> str:
        section = next((sid for at, sid in reversed(starts) if at < match.start()), "")
        bg, surface, primary = backgrounds.get(section, backgrounds[""])
        attrs = match.group("attrs") or ""
        # a text colour is read on the element's own fill: a primary button's, else the section's
        on_button = "button-primary" in attrs
        surfaces = (primary,) if on_button else (bg, surface)
        declaration = _declaration(colour, surfaces, BUTTON_CONTRAST if on_button else MIN_CONTRAST)
        if not declaration:
            return match.group()
        if 'style="' in attrs:
            attrs = attrs.replace('style="', f'style="{declaration} ', 1)
        else:
            attrs += f' style="{declaration}"'
        return f"<{match.group('tag')}{attrs}>{match.group('body')}"

    return pattern.sub(styled, html)


def _declaration(colour: TextColour, surfaces: tuple[str, ...], minimum: float) -> str:
    """The CSS declarations for one painted element ("" when a text colour reads below
    ``minimum`` contrast on any of ``surfaces``)."""
    if colour.fill:
        ink = page_css.readable(colour.hex, ["#ffffff", "#111111"])
        return f"background: {colour.hex}; color: {ink}; border-color: {colour.hex};"
    if min(page_css.contrast(colour.hex, s) for s in surfaces) < minimum:
        return ""
    return f"color: {colour.hex};"


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
