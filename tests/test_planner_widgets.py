"""Asked widgets reach the page (issue 14, requested widgets), on real prompt excerpts."""

from __future__ import annotations

import re

from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline.layout import render_page
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_items import item_fields


def test_a_placeholder_is_no_items_text() -> None:
    excerpt = (  # dev prompt 001
        "“Stay in the Loop” with a simple email input field that has rounded corners and "
        "placeholder text “you@example.com” in light gray, followed by a small button labeled "
        "“Join the Zine”"
    )
    assert item_fields(excerpt, pt.find_all_quotes(excerpt)) == {}


def test_an_email_box_in_the_footer_is_an_input() -> None:
    plan = plan_from_prompt(  # dev prompt 086
        "Design a reading club page called “Nebula Stack”.\n\nThe footer has three columns. The "
        "right column has a tiny label “Stay in orbit” and a simple email input box with "
        "placeholder text “Enter your email for cosmic dispatches” in light gray, followed by a "
        "small rectangular button labeled “Subscribe”."
    )
    html = render_page(plan)
    assert 'placeholder="Enter your email for cosmic dispatches"' in html


def test_form_fields_inside_a_reviews_section_stay_inputs() -> None:
    plan = plan_from_prompt(  # dev prompt 050
        "Design a studio page called “Brute Craft”.\n\nA reviews section shows testimonials: "
        "“This site is ugly on purpose. That’s why I trust it.” — SAMIR P. Below this review "
        "block is a stark white subscription form. Underneath are three form fields stacked "
        "vertically: the first has a faint placeholder text “Email address”, the second "
        "“Choose username”."
    )
    html = render_page(plan)
    assert 'placeholder="Email address"' in html and 'placeholder="Choose username"' in html


def test_a_chart_named_before_its_noun_is_planned() -> None:
    plan = plan_from_prompt(  # dev prompt 139
        "Design a travel dashboard called “Skyline Ops”.\n\nOn the left side of the central "
        "module, add a compact vertical mini-gauge labeled “Search-to-Booking Conversion” with a "
        "circular dial; symmetrically on the right, mirror this with a “Instant vs Flexible "
        "Pricing Share” mini-gauge using the same style."
    )
    assert [c.attributes.chart_type for c in plan.charts] == ["gauge", "gauge"]


def test_copy_beside_a_picture_is_page_copy_unless_it_is_lettering() -> None:
    from mmstudio.providers.offline.planner_elements import in_picture

    assert not in_picture(  # dev prompt 031: card titles beside their icons
        "a small oval icon area containing a flat illustration: for example, “Track 01 – "
        "Questions” has an icon of a big, stylized question mark, "
    )
    assert in_picture("with a speech bubble containing the Japanese characters ")  # 089
    assert in_picture("a neon sign on the wall that reads ")
    assert in_picture("zones labelled with the words “BAR”, ")  # a listed quote keeps the cue


def test_a_speakers_name_beside_the_portrait_is_shown() -> None:
    plan = plan_from_prompt(  # dev prompt 105
        "Design a festival page called “Summit Stories”.\n\nThe speakers section has two cards. "
        "The second portrait shows a gear maker, “Jae Ortega”, standing in a workshop with "
        "shelves of climbing hardware blurred behind them."
    )
    assert re.search(r">\s*Jae Ortega\s*<", render_page(plan))  # an element's text, not alt


def test_field_labels_are_inputs_not_chips() -> None:
    plan = plan_from_prompt(  # dev prompt 008
        "Design a research page called “Alpine Ecologies Lab”.\n\nNear the lower portion of the "
        "page, a “Join Our Research Community” section acts as a recruitment panel. Further down, "
        "a simple, minimalist form is presented in two columns. Each field label is in uppercase "
        "11px gray, like “Name”, “Email”, “Affiliation”, “How would you like to contribute?”."
    )
    fields = [i.label for s in plan.sections for i in s.items if i.meta == "field"]
    assert fields == ["Name", "Email", "Affiliation", "How would you like to contribute?"]
    assert 'placeholder="How would you like to contribute?"' in render_page(plan)
