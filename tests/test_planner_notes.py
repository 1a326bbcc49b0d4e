"""Notes to the designer never become copy (issue 14, defect class 2), on real prompt excerpts."""

from __future__ import annotations

import pytest

from mmstudio.plan import DesignPlan
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_notes import design_notes


def _kinds(text: str) -> dict[str, str]:
    """``{quote text: note kind}`` of the notes in ``text``."""
    notes = design_notes(text, pt.find_all_quotes(text))
    return {n.quote.text: n.kind for n in notes.values()}


@pytest.mark.parametrize(
    ("excerpt", "quote", "kind"),
    [  # dev prompts 065, 047, 076, 073, 016, 053, 034, 115
        ("The logo text is set in a refined serif typeface, like “Cormorant Garamond,” colored "
         "in a pale cream", "Cormorant Garamond,", "typeface"),
        ("Headings use a high-contrast serif similar to “Didot” or “Playfair Display” for "
         "elegance.", "Playfair Display", "typeface"),
        ("The labels are in a clean sans-serif font, like “Inter,” in small uppercase letters",
         "Inter,", "typeface"),
        ("body text uses a clean, rounded sans-serif (“Garden Sans”), dark brown",
         "Garden Sans", "typeface"),
        ("Directly below the title are three stacked “task” rows that look like physical "
         "sliders.", "task", "term"),
        ("a vertical arrangement of three large, tactile progress “dials,” each occupying its "
         "own horizontal strip", "dials,", "term"),
        ("four large, three-dimensional “flavor tiles” are arranged in a 2x2 grid",
         "flavor tiles", "term"),
        ("the main content begins with a brutalist “hero” section consisting of text",
         "hero", "term"),
        ("a creamy off-white base (“#F7F3EC”) for the background, paired with muted terracotta",
         "#F7F3EC", "colour"),
        ("headings are in a bold, slightly condensed sans-serif that feels contemporary and "
         "editorial (think of something like “Neue Display”), while body text", "Neue Display",
         "typeface"),
    ],
)  # fmt: skip
def test_notes_are_found(excerpt: str, quote: str, kind: str) -> None:
    assert _kinds(excerpt).get(quote) == kind


@pytest.mark.parametrize(
    ("excerpt", "quote"),
    [  # copy that looks like a note: dev prompts 105, 020, 001, 016, 065
        ("Three tiny navigation links in lowercase: “event”, “program”, “subscribe”.", "program"),
        ("a clean, lowercase wordmark in bold weight, with “loop” in charcoal", "loop"),
        ("bold colored words like “hands-on”, “portfolio”, and “community” in teal.", "hands-on"),
        ("the time printed in uppercase monospaced black, like “19:00”", "19:00"),
        ("small uppercase gray label: “program”. Then a larger line", "program"),
        ("three navigation buttons: “Dashboard,” “Tutorial Library,” and “My Recipes.”",
         "Tutorial Library,"),
        ("followed by a black monospaced title, such as “GUIDE — Zero-Waste Cafe Blueprint "
         "(v1.2)”", "GUIDE — Zero-Waste Cafe Blueprint (v1.2)"),
    ],
)  # fmt: skip
def test_copy_is_not_a_note(excerpt: str, quote: str) -> None:
    assert quote not in _kinds(excerpt)


HEADER = (
    "Design a single-page dashboard-style homepage called “CocoaCraft Studio.”\n\n"
    "At the very top, a wooden header bar holds the logo, the brand name “CocoaCraft Studio” to "
    "the right in small caps. The logo text is set in a refined serif typeface, like “Cormorant "
    "Garamond,” colored in a pale cream (#F7E5C9). To the right are three navigation buttons: "
    "“Dashboard,” “Tutorial Library,” and “My Recipes.” The secondary button is to its right, "
    "slightly smaller and visually “pressed” inward.\n\n"
    "Below, the “Skill Path” panel shows three large, tactile progress “dials,” each occupying "
    "its own horizontal strip."
)


def _visible(plan: DesignPlan) -> list[str]:
    out: list[str] = []
    for s in plan.sections:
        out += [s.title, s.subtitle, s.eyebrow, *s.headings, *s.paragraphs, *s.buttons]
        out += [*s.nav_items, *s.tags]
        out += [t for i in s.items for t in (i.title, i.text, i.label, i.value, i.meta)]
    return [t for t in out if t]


def test_typeface_and_terms_stay_off_the_page() -> None:
    shown = _visible(plan_from_prompt(HEADER))
    assert "CocoaCraft Studio" in shown and "Tutorial Library" in shown
    leaked = [t for t in shown if t.strip(" ,.") in ("Cormorant Garamond", "pressed", "dials")]
    assert not leaked, leaked
