"""Buttons in the prompt's colours, not the planner's blue (issue 14, defect class 6)."""

from __future__ import annotations

from mmstudio.plan import DesignPlan
from mmstudio.providers.offline import vocabulary
from mmstudio.providers.offline.planner import plan_from_prompt

DEFAULT_BLUES = {"#2f6fed", "#4f8cff"}  # the light and dark schemes' primary


def _role(plan: DesignPlan, role: str) -> str | None:
    return plan.layout.color(role)


def test_an_accent_hex_lends_itself_to_the_buttons() -> None:
    plan = plan_from_prompt(  # dev prompt 060, abridged
        "Design a playful, two-column dashboard homepage called “ColorBloom Studio”. The page "
        "sits on a soft cream background (#FFF8F0). Headings are in deep charcoal (#333333). "
        "Accents use a bright playful coral (#FF6F61) for highlights and calls to action."
    )
    assert _role(plan, "accent") == "#ff6f61"
    assert _role(plan, "primary") == "#ff6f61"


def test_a_button_colour_named_in_words_becomes_primary() -> None:
    plan = plan_from_prompt(  # dev prompt 101, abridged: colours in words only
        "Imagine a whimsical dashboard-style homepage called “Cloud Lagoon” on a pale lavender "
        "background. Beneath the text is a row of two buttons. The left button is a large "
        "rounded pill, filled with coral, with white text “Start Quick Session”."
    )
    assert _role(plan, "primary") == vocabulary.NAMED_COLORS["coral"]


def test_the_prompts_own_hex_wins_over_the_colour_word() -> None:
    plan = plan_from_prompt(  # dev prompt 001, abridged
        "Design a playful event landing page titled “Pixel Pop Creative Camp 2025”. Highlights "
        "use a bubblegum pink (#FF66A3). The hero has a pink button “Get Early-Bird Tickets”."
    )
    primary = next(c for c in plan.layout.palette if c.role == "primary")
    assert (primary.hex, primary.name) == ("#ff66a3", "bubblegum pink")


def test_no_colour_at_all_keeps_the_scheme() -> None:
    plan = plan_from_prompt("A landing page for a bakery with a hero photo and a menu.")
    assert _role(plan, "primary") in DEFAULT_BLUES
