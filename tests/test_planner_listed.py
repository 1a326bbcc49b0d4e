"""Items a short brief lists in quotes become the part's items with their fields: a price card
per dish, an input per named field, the form's own button (issue 14, planner_listed)."""

from __future__ import annotations

from mmstudio.plan import DesignPlan
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_listed import (
    PricedItem,
    form_fields,
    priced_items,
    submit_label,
)

BAKERY = (
    "A one-page site for “Crumb & Co”, a small neighbourhood bakery in Leeds. Four sections. A "
    "warm hero with the headline “Baked before sunrise” and a “Order ahead” button. A menu "
    "section listing “Sourdough” £4, “Rye loaf” £3.50 and “Cinnamon bun” £2.20. An opening hours "
    "section. A contact form with fields “Name”, “Email” and “Message”, and a “Send” button."
)
YOGA = (
    "Make a calm homepage for “Still Point Yoga”, a studio in Bristol, with a dark theme. Three "
    "sections: a hero saying “Breathe in the city”, a pricing section with plans “Drop-in” £12, "
    "“Ten classes” £100 and “Unlimited” £85 per month, and a booking form with fields “Full "
    "name”, “Email” and “Preferred class”, submitted with a “Book a class” button."
)
BIKE = (
    "A simple website for “Spoke Doctor”, a bike repair shop in Manchester. Five sections: a hero "
    "with “Fixed by Friday” as the heading, a services price list with “Puncture repair” £10, "
    "“Full service” £65 and “Brake tune-up” £20, a schedule of workshop hours, a map of the "
    "shop's location, and a contact form with fields “Your name”, “Phone” and “Bike model”. Use "
    "three photos of the workshop in the hero."
)


def _section(plan: DesignPlan, kind: str):
    return next(s for s in plan.sections if s.kind == kind)


def _all_strings(plan: DesignPlan, but: str) -> list[str]:
    out: list[str] = []
    for s in plan.sections:
        if s.kind != but:
            out += s.buttons + s.nav_items + s.tags + s.headings
            out += [t for i in s.items for t in (i.title, i.label)]
    return out


def test_priced_items_read_a_run_of_quoted_names_with_prices() -> None:
    assert priced_items(BAKERY) == [
        PricedItem("Sourdough", "£4"),
        PricedItem("Rye loaf", "£3.50"),
        PricedItem("Cinnamon bun", "£2.20"),
    ]
    plans = priced_items(
        'plans "Basic" ($9 / month), "Pro" – $19/month or "Team" at $1,049 per seat.'
    )
    assert [(p.name, p.price, p.shown) for p in plans] == [
        ("Basic", "$9", "$9 / month"),
        ("Pro", "$19", "$19 / month"),
        ("Team", "$1,049", "$1,049 / seat"),
    ]
    assert priced_items("A menu of breads with prices.") == []
    # a run ends at the first quote that is not priced
    assert [p.name for p in priced_items("“Tea” £1, “Cake” £2 and a “Go” button, “Pie” £3")] == [
        "Tea",
        "Cake",
    ]


def test_form_fields_and_submit_label() -> None:
    assert form_fields(BAKERY) == ["Name", "Email", "Message"]
    assert submit_label(BAKERY[BAKERY.index("contact form") :]) == "Send"
    assert form_fields(YOGA) == ["Full name", "Email", "Preferred class"]
    assert submit_label(YOGA[YOGA.index("booking form") :]) == "Book a class"
    assert submit_label('a form and a button labelled "Join us."') == "Join us"
    assert form_fields("A contact form with a “Send” button.") == []
    assert form_fields("fields “Name” and a “Send” button") == ["Name"]


def test_bakery_menu_and_form_hold_the_brief_items_not_samples_or_hero_chips() -> None:
    plan = plan_from_prompt(BAKERY)
    menu = _section(plan, "pricing")
    assert [(i.title, i.value) for i in menu.items] == [
        ("Sourdough", "£4"), ("Rye loaf", "£3.50"), ("Cinnamon bun", "£2.20")
    ]  # fmt: skip
    assert menu.title == "Menu" and not menu.paragraphs  # no "Sample prices" note
    form = _section(plan, "form")
    assert [i.label for i in form.items] == ["Name", "Email", "Message"]
    assert form.buttons == ["Send"]
    elsewhere = _all_strings(plan, but="pricing")
    for name in ("Sourdough", "Rye loaf", "Cinnamon bun"):
        assert name not in elsewhere
    assert "Send" not in _section(plan, "hero").buttons
    hero = _section(plan, "hero")
    assert hero.buttons == ["Order ahead"] and not hero.headings


def test_yoga_plans_keep_their_unit_and_booking_form_its_fields() -> None:
    plan = plan_from_prompt(YOGA)
    pricing = _section(plan, "pricing")
    assert [(i.title, i.value) for i in pricing.items] == [
        ("Drop-in", "£12"), ("Ten classes", "£100"), ("Unlimited", "£85 / month")
    ]  # fmt: skip
    form = _section(plan, "form")
    assert [i.label for i in form.items] == ["Full name", "Email", "Preferred class"]
    assert form.buttons == ["Book a class"]
    assert not _section(plan, "hero").headings
    bg = next(c.hex for c in plan.layout.palette if c.role == "background")
    assert int(bg[1:3], 16) < 0x40  # the dark theme the brief asks for


def test_bike_photos_go_in_the_hero_and_the_map_gets_a_section() -> None:
    plan = plan_from_prompt(BIKE)
    hero = _section(plan, "hero")
    images = [plan.element(i) for i in hero.element_ids]
    assert len(images) == 3 and all(e.kind == "image" for e in images)
    assert not any(s.kind == "gallery" for s in plan.sections)
    maps = [s for s in plan.sections if s.title == "Find us"]
    assert len(maps) == 1 and "map" in plan.element(maps[0].element_ids[0]).alt.lower()
    assert [i.label for i in _section(plan, "form").items] == ["Your name", "Phone", "Bike model"]
    assert "bike repair shop" in images[0].prompt and "“" not in images[0].prompt
