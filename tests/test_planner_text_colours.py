"""The colour a prompt gives one piece of copy reaches the page (issue 14, palette roles), on
real prompt excerpts."""

from __future__ import annotations

import re

import pytest

from mmstudio.providers.offline.layout import render_page
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_colours import text_colours

PALETTE = [{"role": "accent", "hex": "#2f6b4f", "name": "forest green"}]


@pytest.mark.parametrize(
    ("excerpt", "text", "hex_colour"),
    [  # dev prompts 008, 008, 023, 043, 070
        ("a single line of uppercase, spaced-out small text acts like a footer: “READ THE FULL "
         "PROJECT BRIEF →”, set in 11px forest green, aligned right.",
         "READ THE FULL PROJECT BRIEF →", "#2f6b4f"),
        ("with a small label above it: “HOW WE MEASURE AND ANALYZE” in uppercase 10px forest "
         "green.", "HOW WE MEASURE AND ANALYZE", "#2f6b4f"),
        ("a small uppercase label in small red text aligned to the left margin reads "
         "“INTERNATIONAL TYPOGRAPHY & DESIGN EVENT”.", "INTERNATIONAL TYPOGRAPHY & DESIGN EVENT",
         None),
        ("Below, in much smaller uppercase red text, sits a subtitle: “INTERNATIONAL TYPOGRAPHY "
         "CONFERENCE · BASEL”.", "INTERNATIONAL TYPOGRAPHY CONFERENCE · BASEL", None),
        ("A black, full-width bar with white uppercase text reads bluntly: “SUBSCRIBE FOR "
         "UPDATES”.", "SUBSCRIBE FOR UPDATES", None),
    ],
)  # fmt: skip
def test_the_colour_of_one_copy_is_read(excerpt: str, text: str, hex_colour: str | None) -> None:
    found = {c["text"]: c for c in text_colours(excerpt, PALETTE)}
    assert text in found and not found[text]["fill"]
    if hex_colour:
        assert found[text]["hex"] == hex_colour


def test_both_links_of_a_pair_take_the_colour() -> None:
    excerpt = (  # dev prompt 008
        "At the very bottom of each entry there are two inline links: “Read Abstract” and "
        "“Download PDF”, both in 11px forest green with thin underlines."
    )
    assert {c["text"] for c in text_colours(excerpt, PALETTE)} == {"Read Abstract", "Download PDF"}


def test_a_heading_with_its_full_stop_is_painted() -> None:
    plan = plan_from_prompt(  # dev prompt 001
        "Design a camp page called “Pixel Pop”.\n\nNext, a wide band section spans the full "
        "width, with a soft pastel mint background, titled “Pick Your Creative Track.” At the top "
        "center of this band is the section heading in bold uppercase sans-serif: “Pick Your "
        "Creative Track”, in dark teal."
    )
    assert any(c.text == "Pick Your Creative Track" for c in plan.layout.text_colours)
    html = render_page(plan)
    assert re.search(r'<h\d[^>]*style="color: #[0-9a-f]{6};[^>]*>Pick Your Creative Track\.', html)


def test_white_text_on_a_light_primary_button_deepens_the_button() -> None:
    plan = plan_from_prompt(  # dev prompt 001
        "Design a camp page called “Pixel Pop” with bubblegum pink (#FF66A3) buttons.\n\nIn the "
        "hero, a large rounded rectangle button reads “Get Early-Bird Tickets” in white, bold "
        "all-caps."
    )
    html = render_page(plan)
    button = re.search(r'<a class="button button-primary"[^>]*>Get Early-Bird Tickets</a>', html)
    assert button is not None
    style = re.search(r'background: (#[0-9a-f]{6});[^"]*color: (#[0-9a-f]{6})', button.group())
    assert style is not None
    from mmstudio.providers.offline import page_css

    assert page_css.contrast(style.group(1), style.group(2)) >= 4.5
    assert page_css.luminance(style.group(2)) > 0.8  # the text stays white
