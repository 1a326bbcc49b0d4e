"""Prohibitions and per-copy colours (issue 14, defect classes 5 and 6), on real excerpts."""

from __future__ import annotations

import re

import pytest

from mmstudio.providers.offline import page_css
from mmstudio.providers.offline.layout import render_page
from mmstudio.providers.offline.layout_colours import readable_shade
from mmstudio.providers.offline.page_css import contrast
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_colours import text_colours

FLAT = (  # dev prompt 089, abridged: a page-level closing sentence bans three looks
    "Design a tall, single-column brutalist dashboard homepage called “LinguaGrid”.\n\n"
    "At the top, a header bar with the wordmark and three buttons: “DASHBOARD”, “SESSIONS” "
    "and “ACCOUNT”. The header casts no shadow; it is starkly flat.\n\n"
    "Overall, the page must feel coherent: lots of hard edges, heavy use of monospaced text, no "
    "gradients, no shadows, and absolutely no animation or motion. There are hard, 1px borders "
    "everywhere, with no rounded corners anywhere."
)
LOCAL = (  # dev prompt 079, abridged: only two buttons lose their shadow
    "Design a high-contrast homepage called “Root & Bloom Café”.\n\n"
    "The hero shows two buttons: “START THE COURSE” and “DOWNLOAD FIELD GUIDE (PDF)”. Both "
    "buttons have no drop shadow, only bold outline."
)


def test_page_wide_bans_reach_the_plan_and_the_css() -> None:
    plan = plan_from_prompt(FLAT)
    assert plan.layout.avoid == ["shadow", "gradient", "rounded", "motion"]
    css = page_css.render_css(plan, 1200)
    tail = css[css.rindex("/* the prompt forbids") :]
    assert "box-shadow: none !important" in tail and "border-radius: 0 !important" in tail
    assert "animation: none !important" in tail


def test_an_elements_own_look_is_no_page_ban() -> None:
    plan = plan_from_prompt(LOCAL)
    assert plan.layout.avoid == []
    assert "the prompt forbids" not in page_css.render_css(plan, 1200)


def test_an_exception_keeps_the_look() -> None:
    plan = plan_from_prompt(
        "A portfolio page called “Lina”. Throughout the page there are no shadows except on the "
        "project cards, which float slightly."
    )
    assert "shadow" not in plan.layout.avoid


@pytest.mark.parametrize(
    ("excerpt", "text", "hex_colour", "fill"),
    [  # dev prompts 101, 076, 060
        ("The difficulty tag reads “Intermediate” on a soft amber background.", "Intermediate",
         "#f59e0b", True),
        ("the progress bar shows “25% Completed” in amber, and", "25% Completed", "#f59e0b", False),
        ("Four nav items “Dashboard,” “Projects,” and “Clients” in white.", "Projects", "#ffffff",
         False),
        ("The right button is an outlined pill, text in teal reading “Browse Experiences”.",
         "Browse Experiences", "#14b8a6", False),
        ("a coral pill reading “Advanced” at the top right", "Advanced", "#ff6f61", True),
    ],
)  # fmt: skip
def test_colour_words_of_copy(excerpt: str, text: str, hex_colour: str, fill: bool) -> None:
    found = {c["text"]: (c["hex"], c["fill"]) for c in text_colours(excerpt, [])}
    assert found.get(text) == (hex_colour, fill)


def test_a_border_colour_is_not_the_texts() -> None:
    assert text_colours("The “Sign In” button has a pink border and pink outline.", []) == []
    assert text_colours("“Sign In” with a pink border", []) == []


def test_the_prompts_own_hex_for_a_colour_word() -> None:
    palette = [{"role": "accent", "hex": "#ff66a3", "name": "bubblegum pink"}]
    found = text_colours("the button label “Join the Zine” in pink, bold", palette)
    assert found == [{"text": "Join the Zine", "hex": "#ff66a3", "fill": False}]


def test_the_page_paints_readable_colours_and_skips_invisible_ones() -> None:
    plan = plan_from_prompt(
        "Design a dashboard called “Cloud Lagoon” on a white background (#FFFFFF).\n\n"
        "Below, a panel titled “Today at a Glance” in deep indigo. Next to it a tag “Beginner” "
        "in white, and a tag “Advanced” on a pink background."
    )
    html = render_page(plan)
    assert re.search(r'style="color: #[0-9a-f]{6};"[^>]*>Today at a Glance<', html)
    assert not re.search(r'style="color: #ffffff;"[^>]*>Beginner<', html)  # white on white
    chip = re.search(
        r'style="color: #ffffff; background: (#[0-9a-f]{6});[^"]*"[^>]*>Beginner<', html
    )
    assert chip and contrast("#ffffff", chip.group(1)) >= 4.5  # white copy on a palette chip
    assert re.search(
        r'style="background: #[0-9a-f]{6}; color: #[0-9a-f]{6};[^"]*"[^>]*>Advanced<', html
    )
    plan = plan_from_prompt(
        "Design a dashboard called “Cloud Lagoon” on a white background (#FFFFFF).\n\n"
        "The label “42 min” in teal (#5EEAD4) and the note “Calm” in pale grey (#CCCCCC)."
    )
    html = render_page(plan)
    teal = re.search(r'style="color: (#[0-9a-f]{6});"[^>]*>42 min<', html)
    assert teal and teal.group(1) != "#5eead4"  # a deeper shade of the pale teal reads on white
    assert contrast(teal.group(1), "#ffffff") >= 4.5
    r, g, b = (int(teal.group(1)[i : i + 2], 16) for i in (1, 3, 5))
    assert g > r and b > r  # still a teal
    assert not re.search(r'style="[^"]*"[^>]*>Calm<', html)  # no shade of grey reads: left as is


def test_readable_shade_keeps_a_reading_colour_and_gives_up_on_greys() -> None:
    assert readable_shade("#4338ca", ("#ffffff",), 4.5) == "#4338ca"
    assert readable_shade("#eeeeee", ("#ffffff",), 4.5) == ""
    dark = readable_shade("#3b2a80", ("#0e1117",), 4.5)  # on a dark page: lighter
    assert dark and contrast(dark, "#0e1117") >= 4.5


@pytest.mark.parametrize(
    ("sentence", "sticky"),
    [  # dev prompts 060, 089; a header that only sits at the top is not pinned
        ("At the top, a sticky header bar runs across the entire width, about 80px tall.", True),
        ("At the very top there is a fixed-position header bar at the absolute top edge.", True),
        ("At the very top, a header bar holds the wordmark and three links.", False),
    ],
)
def test_a_pinned_header_stays_at_the_top(sentence: str, sticky: bool) -> None:
    plan = plan_from_prompt(f"Design a dashboard called “Dot Studio”.\n\n{sentence}")
    header = next(s for s in plan.sections if s.kind == "header")
    assert (header.layout == "sticky") is sticky
    html = render_page(plan)
    assert bool(re.search(r'class="site-header[^"]*layout-sticky', html)) is sticky
    assert ".site-header.layout-sticky { position: sticky; top: 0;" in html


def test_nav_links_lead_to_the_sections_they_name() -> None:
    plan = plan_from_prompt(  # dev prompt 115, abridged
        "Design an event landing page called “Tactile Futures 2025”.\n\n"
        "At the top, a header holds the wordmark and nav links: “Overview”, “Speakers”, "
        "“Schedule”, “Tickets”.\n\n"
        "The speakers section shows three speaker cards: “Leena Okafor”, “Marco Ruiz” and "
        "“Ana Lima”, each with a portrait photo.\n\n"
        "The pricing section shows two ticket cards: “Digital Pass” at “€99” and “Full "
        "Experience” at “€249”."
    )
    html = render_page(plan)
    kinds = {s.id: s.kind for s in plan.sections}
    for label, kind in (("Speakers", "team"), ("Tickets", "pricing")):
        href = re.search(rf'<a href="#([\w-]+)"[^>]*>{label}</a>', html)
        assert href is not None and kinds.get(href.group(1)) == kind, (label, href)


@pytest.mark.parametrize(
    ("excerpt", "text", "hex_colour"),
    [  # dev prompt 101: the colour after a clause about the font, or after "is left-aligned"
        ("the text “Cloud Lagoon” in a bold, playful font, in deep indigo. Under it",
         "Cloud Lagoon", "#4338ca"),
        ("The heading “Session Timeline” is left-aligned in indigo, with a small toggle",
         "Session Timeline", "#4338ca"),
    ],
)  # fmt: skip
def test_colour_words_after_a_clause(excerpt: str, text: str, hex_colour: str) -> None:
    found = {c["text"]: c["hex"] for c in text_colours(excerpt, [])}
    assert found.get(text) == hex_colour


BODY_RATIO = (  # dev prompt 060, abridged: the ratio sits in the header's paragraph
    "Design a playful, two-column dashboard homepage for a studio called “ColorBloom Studio”.\n\n"
    "At the top, a sticky header bar runs across the entire width with the logo. Beneath the "
    "header, the page body begins with a main content area split into two columns: the left "
    "column occupies roughly 65% of the width, the right column 35%, with a generous gutter.\n\n"
    "In the left column, a welcome card titled “Welcome back, Luna”. In the right column, a "
    "card titled “Upcoming Reminders”."
)


def test_a_page_body_ratio_sets_the_dashboards_columns() -> None:
    plan = plan_from_prompt(BODY_RATIO)
    assert plan.layout.column_ratio == [65, 35]
    css = page_css.render_css(plan, 1200)
    assert "grid-template-columns: minmax(0, 65fr) minmax(0, 35fr)" in css


def test_a_cards_own_columns_are_no_page_ratio() -> None:
    plan = plan_from_prompt(
        "Design a dashboard called “Dot Studio”.\n\nThe project card is split into two columns: "
        "the left column 70% shows the sketch, the right column 30% its notes."
    )
    assert plan.layout.column_ratio == []


def test_a_text_colour_unreadable_on_its_button_is_left_out() -> None:
    plan = plan_from_prompt(
        "Design a landing page called “Seedline” on white (#FFFFFF). The primary buttons are "
        "filled forest green (#1F5C4D).\n\nThe hero has a slim button that says “Start trial” in "
        "forest green text."
    )
    html = render_page(plan)
    start = re.search(r'<a class="button button-primary"[^>]*>Start trial</a>', html)
    assert start is not None and "style=" not in start.group()
