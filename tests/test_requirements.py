"""Requirements read from a brief, and their checks on page facts (fast: no browser)."""

from __future__ import annotations

import asyncio

import pytest

from mmstudio.evaluate import core
from mmstudio.render.facts import HeaderFact, PageFacts, RowFact, TextBlock
from mmstudio.requirements import check_all, extract, pass_share
from mmstudio.requirements.checks import check_copy, check_label, check_layout, nav_targets
from mmstudio.requirements.model import Requirement

# excerpts of MM-WebGEN-Bench dev prompts (001, 027, 111)
BRIEF_001 = (
    "At the very top is a full-width, sticky header with a slightly arched lower edge: the "
    "header background is a gradient from bubblegum pink (#FF66A3) on the left to bright "
    "tangerine (#FF9E4A) on the right. Inside the badge, in playful, chunky sans-serif white "
    "letters, it says “PIXEL POP” on the first line and in smaller uppercase mint text beneath, "
    "“CREATIVE CAMP.” To the right of the logo is a horizontal navigation menu, right-aligned, "
    "with four items in white, all-caps, small, spaced-out font: “About”, “Workshops”, "
    "“Speakers”, “Tickets”. At the far right of the header is a pill-shaped button with a white "
    "background and thin pink border, containing the text “Sign In” in pink.\n\n"
    "Below the header, the hero section occupies most of the first viewport, structured as an "
    "asymmetrical two-column layout. The left column is about 55% width, with the right at 45%. "
    "Behind them, a wall features pinned posters that say “Color Jam”, “Panel Party”, and "
    "“Pixel Playground” in tiny print. Following this is a speakers section that uses a "
    "creative two-column layout."
)
BRIEF_027 = (
    "Body copy in Inter. The color palette is restrained: primary accent is a muted forest "
    "green (#1F5C4D), secondary accent is a soft sand beige (#E8DCC8). There are no photos of "
    "people; the section stays text-focused and minimal. The primary button on the left says: "
    "“Start a 14-day trial” and is filled with forest green (#1F5C4D), and the same pill shape "
    "with no shadow. Beneath the button, in very small, light gray text, is: “No credit card "
    "required.” The page uses no gradients anywhere. Each block is represented as a minimal "
    "accordion, but shown in “open” state for this static design."
)


def _by_kind(reqs, kind):
    return [r for r in reqs if r.kind == kind]


def test_quoted_copy_gets_roles_and_loses_the_sentence_punctuation():
    reqs = extract(BRIEF_001)
    nav = [r.label for r in _by_kind(reqs, "nav")]
    assert nav == ["About", "Workshops", "Speakers", "Tickets"]
    labels = {r.label: r.role for r in _by_kind(reqs, "label")}
    assert labels["Sign In"] == "button"
    copy = {r.label: r for r in _by_kind(reqs, "copy")}
    assert "CREATIVE CAMP" in copy  # the sentence's full stop is not part of the label
    assert copy["Color Jam"].role == "in-image"  # words on a poster inside a picture
    span = copy["CREATIVE CAMP"].span
    assert BRIEF_001[span.start : span.end] == "“CREATIVE CAMP.”"


def test_palette_layout_and_sections_of_a_brief():
    reqs = extract(BRIEF_001)
    palette = {r.label: r.role for r in _by_kind(reqs, "palette") if r.label.startswith("#")}
    palette = {k: v for k, v in palette.items() if not v.startswith(("only", "element"))}
    assert set(palette) == {"#ff66a3", "#ff9e4a"}
    layout = {r.key for r in _by_kind(reqs, "layout")}
    assert {"fixed header", "55/45 columns", "2 columns"} <= layout
    sections = [r.role for r in _by_kind(reqs, "section")]
    assert sections[:3] == ["header", "hero", "speakers"]


def test_prohibitions_are_page_wide_only_and_static_widgets_are_pictures():
    reqs = extract(BRIEF_027)
    banned = {r.role for r in _by_kind(reqs, "prohibition")}
    assert "gradient" in banned  # "no gradients anywhere"
    assert "shadow" not in banned  # "the same pill shape with no shadow": one button
    assert "photo" not in banned  # "no photos of people; the section stays …": one section
    assert not [r for r in _by_kind(reqs, "widget") if r.role == "accordion"]
    assert "#1f5c4d" in {r.label for r in _by_kind(reqs, "palette")}
    assert [r.label for r in _by_kind(reqs, "font")] == ["Inter"]
    # the quoted sentence stays a sentence (copy), not a button label
    copy = {r.label for r in _by_kind(reqs, "copy")}
    assert "No credit card required" in copy


def test_extraction_never_raises_on_odd_briefs():
    huge = ("Ein Abschnitt mit Text und einer Tabelle. " * 3000)[:100_000]
    for brief in (huge, "没有引号的简短说明：一个咖啡店的网站", "", "“", "#zzz “a”"):
        assert isinstance(extract(brief), list)


def _facts(**kw) -> PageFacts:
    base = {
        "text": "Pixel Pop CREATIVE CAMP. About Workshops Sign In",
        "blocks": [
            TextBlock(tag="a", text="About", link=True, href="#about"),
            TextBlock(tag="a", text="Workshops", link=True, href="#top"),
            TextBlock(tag="li", text="CREATIVE CAMP."),
            TextBlock(tag="a", text="Sign In", link=True, button=True, href="#"),
        ],
        "anchors": ["about", "top"],
    }
    base.update(kw)
    return PageFacts(**base)


def _req(kind, label, role="", **kw) -> Requirement:
    return Requirement(id=f"t-{kind}-{label}", kind=kind, key=label, label=label, role=role,
                       text=label, **kw)  # fmt: skip


def test_labels_must_be_whole_text_and_nav_links_must_lead_somewhere():
    facts = _facts()
    assert check_label(_req("nav", "About", "nav"), facts).status == "pass"
    dead = check_label(_req("nav", "Workshops", "nav"), facts)
    assert dead.status == "pass" and dead.evidence["dead"] is True
    targets = nav_targets([], [check_label(_req("nav", "About", "nav"), facts), dead])
    assert targets.status == "fail" and "“Workshops” lead nowhere (#top)" in targets.message
    missing = check_label(_req("nav", "Speakers", "nav"), facts)
    assert missing.status == "fail" and "missing" in missing.message
    stray = check_copy(_req("copy", "CREATIVE CAMP"), facts)
    assert stray.status == "fail" and "stray punctuation" in stray.message
    assert check_label(_req("label", "Sign In", "button"), facts).status == "pass"


def test_copy_in_alt_text_only_is_not_visible():
    from mmstudio.render.facts import Picture

    facts = _facts(pictures=[Picture(kind="img", alt="Weekend Event • June 13–15")])
    result = check_copy(_req("copy", "Weekend Event • June 13–15"), facts)
    assert result.status == "fail" and result.evidence.get("in_alt") is True


def test_fixed_header_and_column_ratio_read_from_the_facts():
    sticky = _req("layout", "fixed header", "header")
    away = HeaderFact(position="static", top_before=0, top_after=-1200, scrolled=1200)
    kept = HeaderFact(position="sticky", top_before=0, top_after=0, scrolled=1200)
    assert check_layout(sticky, _facts(header=away)).status == "fail"
    assert check_layout(sticky, _facts(header=kept)).status == "pass"
    ratio = _req("layout", "55/45 columns", "columns", ratio=[0.55, 0.45])
    even = RowFact(per_row=2, total=2, widths=[600, 600], width=1200)
    asked = RowFact(per_row=2, total=2, widths=[660, 540], width=1200)
    assert check_layout(ratio, _facts(rows=[even])).status == "fail"
    assert check_layout(ratio, _facts(rows=[even, asked])).status == "pass"


def test_unchecked_never_counts_as_a_pass():
    reqs = extract(BRIEF_001)
    results = check_all(reqs, None)
    assert {r.status for r in results} == {"unchecked"}
    assert pass_share(results) is None


def test_a_failing_extractor_gives_a_notice_and_no_requirements(monkeypatch):
    import sys

    extract_module = sys.modules["mmstudio.requirements.extract"]

    def broken(text, source):
        raise RuntimeError("boom")

    monkeypatch.setattr(extract_module, "PASSES", (broken,))
    extract_module._cached.cache_clear()
    reqs, notices = asyncio.run(core.read_requirements("a brief that trips the reader"))
    assert reqs == []
    assert len(notices) == 1 and "could not be read" in notices[0] and "\n" not in notices[0]
    extract_module._cached.cache_clear()


@pytest.mark.parametrize("size", [200_000])
def test_a_huge_brief_is_read_in_part_and_says_so(size):
    reqs, notices = asyncio.run(core.read_requirements("“Hello” " * (size // 8)))
    assert reqs and any("characters" in n for n in notices)


FAQ_027 = (
    "Below are four question-answer blocks. The first asks “How is this different from an "
    "accelerator?” with the answer “There’s no equity, no mandatory schedule, and no demo day.” "
    "The second asks “Can I switch plans later?” with the answer “Yes. You can upgrade or "
    "downgrade at any time.” The headline reads “Level Up Your” then “Creative” in teal."
)


def test_fields_of_one_item_pair_up_and_siblings_do_not():
    from mmstudio.requirements.pairs import extract_pairs

    pairs = [r.values for r in extract_pairs(FAQ_027)]
    assert ["Can I switch plans later?", "Yes. You can upgrade or downgrade at any time"] in pairs
    assert not [p for p in pairs if "Creative" in p]  # fragments of one headline


def test_pooled_fields_fail_and_a_card_passes():
    from mmstudio.render.facts import PairFact
    from mmstudio.requirements.pairs import check_pairing

    req = Requirement(id="p", kind="pairing", key="Q", text="Q and A", values=["Q?", "A."])
    pooled = PairFact(a="Q?", b="A.", found=[True, True], others=3, distance=560)
    card = PairFact(a="Q?", b="A.", found=[True, True], others=0, distance=80)
    assert check_pairing(req, _facts(pairs=[pooled])).status == "fail"
    assert check_pairing(req, _facts(pairs=[card])).status == "pass"
    assert check_pairing(req, _facts()).status == "unchecked"


def test_element_colours_named_in_the_brief():
    from mmstudio.requirements.element_colours import check_element_colour, same_family

    reqs = [r for r in extract(BRIEF_001) if r.role.startswith("element-")]
    by_label = {r.values[0]: r for r in reqs}
    assert by_label["Sign In"].key == "pink" and by_label["About"].key == "white"
    assert by_label["About"].values == ["About", "Workshops", "Speakers", "Tickets"]
    assert same_family([255, 105, 180, 1], by_label["Sign In"].label)
    assert not same_family([47, 111, 237, 1], by_label["Sign In"].label)  # a default blue
    blue = _facts(blocks=[TextBlock(tag="a", text="Sign In", color=[47, 111, 237, 1])])
    assert check_element_colour(by_label["Sign In"], blue).status == "fail"


def test_second_review_misreadings_stay_fixed():
    # "like Nunito or Quicksand": alternatives, one requirement that either meets
    fonts = [
        r
        for r in extract("Headings in a rounded sans like Nunito or Quicksand.")
        if r.kind == "font"
    ]
    assert [r.values for r in fonts] == [["Nunito", "Quicksand"]]
    # "about 4 grid columns" names no About section; a colon stays part of a label
    reqs = extract("The grid spans about 4 grid columns. A tag reads “Current Phase:” in green.")
    assert not [r for r in reqs if r.kind == "section" and r.role == "about"]
    assert "Current Phase:" in {r.label for r in reqs}
    # a colour of an outline is no text colour; "on white" is the fill
    reqs = extract("A button (“APEX”) on white with a thin black border.")
    colours = [r for r in reqs if r.role.startswith("element-")]
    assert [(r.key, r.role) for r in colours] == [("white", "element-fill")]


def test_layout_directives_in_a_designer_s_words():
    """Real brief excerpts (the calibration set's): adjectives between "fixed" and "header",
    a 12-column split, "equal columns", a count with three adjectives before "cards"."""

    def layout(text: str) -> dict:
        return {r.key: r for r in extract(text) if r.kind == "layout"}

    assert "fixed header" in layout("At the top of the page is a fixed, minimal header bar.")
    assert "fixed header" in layout("At the very top is a simple, fixed-position navigation bar.")
    assert "fixed header" not in layout("A fixed-width header with the logo.")
    split = layout("The left column is slightly wider (about 7 of 12 columns); the right narrower.")
    assert split["7/5 of 12 columns"].ratio == [7 / 12, 5 / 12]
    pair = layout("a narrow left column (about 3 of 12) and a wider right column (about 9 of 12)")
    assert pair["3/9 of 12 columns"].ratio == [0.25, 0.75]
    assert layout("We sell 7 of 12 bottles in the shop.") == {}
    assert "3 columns" in layout("This strip is divided into three equal columns.")
    assert "3 cards" in layout(
        "Below, three equally sized vertical cards are arranged side-by-side."
    )


def test_sections_a_short_brief_names_in_passing():
    """A list-like brief: a section word opening a sentence ("Testimonials from two students."),
    a plural noun before "section" that the vocabulary does not know ("a classes section",
    with its card titles as the section's titles); "About halfway down" names no section."""
    brief = (
        'A classes section with three cards: "Taster evening", "Six-week course". '
        "Testimonials from two students. About halfway down, a quiet band. "
        "A footer with the address."
    )
    sections = {r.key: r for r in extract(brief) if r.kind == "section"}
    assert set(sections) == {"classes", "testimonials", "footer"}
    assert sections["classes"].values[:2] == ["Taster evening", "Six-week course"]
    named = {r.key for r in extract("The recipes section is a grid. A glass section.")}
    assert "recipes" in named and "glass" not in named


def test_a_role_named_after_the_quote_and_prices_written_after_names():
    """ "the headline “Make something that lasts” and a “Book a class” button": the button is a
    button; "“Taster evening” £45" keeps the price with its class (no trailing comma)."""
    brief = (
        "A hero with the headline “Make something that lasts” and a “Book a class” button. "
        "Three cards: “Taster evening” £45, “Six-week course” £240, each with a “Reserve” pill; "
        "the “Solo” plan at $19 / month."
    )
    reqs = extract(brief)
    roles = {r.key: (r.kind, r.role) for r in reqs if r.kind in ("copy", "label")}
    assert roles["Make something that lasts"] == ("copy", "heading")
    assert roles["Book a class"] == ("label", "button")
    assert roles["Reserve"] == ("label", "tag")
    pairs = {r.key: r.values for r in reqs if r.kind == "pairing"}
    assert pairs["Taster evening"] == ["Taster evening", "£45"]
    assert pairs["Six-week course"] == ["Six-week course", "£240"]
    assert pairs["Solo"] == ["Solo", "$19 / month"]
    assert "Make something that lasts" not in pairs  # a heading and its call to action


def test_design_terms_typefaces_and_colour_codes_in_quotes_are_no_copy():
    """Real brief excerpts (dev prompts 016, 065, 105, 115, 027): the brief's own words for a
    design idea, a typeface it compares with and a quoted hex code are never copy to show; a
    lower-case menu and a list of lower-case brand names still are."""

    def shown(text: str) -> set[str]:
        return {r.key for r in extract(text) if r.kind in ("copy", "label", "nav")}

    assert shown("Each row has a small, circular “chocolate truffle” toggle.") == set()
    assert shown("The dashboard shows three “flavor tiles” in a row.") == set()
    assert shown("headings in a condensed grotesk font that looks like “Impact” crossed") == set()
    assert shown("The page background is “#F7F3EC” with ink “#22252B”.") == set()
    menu = "three tiny navigation links in lowercase: “event”, “program”, “subscribe”."
    assert shown(menu) == {"event", "program", "subscribe"}
    logos = "partner names in gray: “northloop”, “quiet harbor”, “Featherline”."
    assert {"northloop", "quiet harbor", "Featherline"} <= shown(logos)
    assert shown("The headline reads “sign up today”.") == {"sign up today"}


def test_sample_lines_standing_in_for_copy_fail():
    """ "A one-line introduction to Crumb & Co., a bakery." on the page is a placeholder a
    designer sees at once; a real heading ("A note from our founder") is not."""
    brief = "A landing page for a bakery called Crumb & Co. with a hero photo and opening hours."
    (req,) = [r for r in extract(brief) if r.key == "sample copy"]
    intro = TextBlock(tag="p", text="A one-line introduction to Crumb & Co., a bakery.")
    line = TextBlock(tag="p", text="A line on the house bread.")
    sample = PageFacts(blocks=[intro, line])
    (result,) = check_all([req], sample)
    assert result.status == "fail" and "A line on the house bread." in result.message
    real = PageFacts(blocks=[TextBlock(tag="h2", text="A note from our founder"),
                             TextBlock(tag="p", text="Rye and spelt, baked at dawn.")])  # fmt: skip
    assert [r.status for r in check_all([req], real)] == ["pass"]


def test_the_brief_s_values_shown_as_asked_are_no_leak():
    """ "Four KPI tiles at the top: Revenue $12,480, Orders 318, Conversion 3.2%, Avg order $39"
    drawn as tiles repeats the brief's words — its data, not a design note; a note still leaks."""
    from mmstudio.requirements.leaks import leaked_runs, prose

    brief = (
        "Four KPI tiles at the top: Revenue $12,480, Orders 318, Conversion 3.2%, Avg order $39. "
        "The header is a soft off-white band with a faint diagonal grid behind the logo."
    )
    tiles = "Revenue $12,480 Orders 318 Conversion 3.2% Avg order $39"
    assert leaked_runs(prose(brief), tiles) == []
    note = "a soft off-white band with a faint diagonal grid behind the logo"
    assert leaked_runs(prose(brief), note) != []


def _page(*blocks: TextBlock) -> PageFacts:
    return PageFacts(text=" ".join(b.text for b in blocks), blocks=list(blocks))


def test_copy_inside_a_longer_quote_of_another_paragraph_does_not_show_it():
    """A pack name “Galaxy Doodles” seen only inside the reminder “Upload assets: Galaxy Doodles
    pack” is a missing pack card; a headline's own emphasised words stay shown by it."""
    brief = (
        "The packs grid shows “Friendly Foodies” and “Galaxy Doodles”.\n"
        "Reminders list “Upload assets: Galaxy Doodles pack”.\n"
        "The headline “Level Up Your Creative Superpowers” sets “Creative” in teal."
    )
    reqs = {r.key: r for r in extract(brief) if r.kind == "copy" and r.role != "repeat"}
    page = _page(TextBlock(tag="h3", text="Friendly Foodies"),
                 TextBlock(tag="li", text="Upload assets: Galaxy Doodles pack"),
                 TextBlock(tag="h1", text="Level Up Your Creative Superpowers"))  # fmt: skip
    galaxy = check_copy(reqs["Galaxy Doodles"], page)
    assert galaxy.status == "fail" and "only inside" in galaxy.message
    assert check_copy(reqs["Creative"], page).status == "pass"
    shown = _page(*page.blocks, TextBlock(tag="h3", text="Galaxy Doodles"))
    assert check_copy(reqs["Galaxy Doodles"], shown).status == "pass"


def test_a_quote_placed_in_two_paragraphs_must_show_twice():
    """The brand in the header and the footer, a menu repeated as footer links: shown once is
    a missing footer; the naming mention ("a studio called …") is no place on the page."""
    brief = (
        "A landing page for a studio called “Seedline Studio”.\n"
        "The header holds the wordmark “Seedline Studio” and links “About”, “Pricing”, “FAQ”.\n"
        "The footer repeats “Seedline Studio” and lists “About”, “Pricing”, “FAQ”."
    )
    repeats = [r for r in extract(brief) if r.role == "repeat"]
    assert [(r.key, r.count, r.values) for r in repeats if not r.numbers] == [
        ("Seedline Studio", 2, [])
    ]
    (menu,) = [r for r in repeats if r.numbers]
    assert menu.values == ["About", "Pricing", "FAQ"] and menu.numbers == [2, 2, 2]
    once = _page(TextBlock(tag="a", text="Seedline Studio"), TextBlock(tag="a", text="About"),
                 TextBlock(tag="a", text="Pricing"), TextBlock(tag="a", text="FAQ"),
                 TextBlock(tag="p", text="About"))  # fmt: skip
    results = {r.key: r for r in check_all(repeats, once)}
    assert (
        results["Seedline Studio"].status == "fail"
        and "shows once" in results["Seedline Studio"].message
    )
    assert results["About"].status == "fail" and results["About"].evidence["labels"] == [
        "Pricing",
        "FAQ",
    ]
    twice = _page(*once.blocks, TextBlock(tag="p", text="Seedline Studio"),
                  TextBlock(tag="p", text="Pricing"), TextBlock(tag="p", text="FAQ"))  # fmt: skip
    assert {r.status for r in check_all(repeats, twice)} == {"pass"}


def test_capitals_the_brief_asks_for_must_show():
    brief = (
        "A portfolio for a designer named “Lina Schaub”.\nThe header shows “LINA SCHAUB” in bold."
    )
    (req,) = [r for r in extract(brief) if r.kind == "copy" and r.role != "repeat"]
    assert req.label == "LINA SCHAUB"
    mixed = check_copy(req, _page(TextBlock(tag="a", text="Lina Schaub")))
    assert mixed.status == "fail" and "not in capitals" in mixed.message
    # innerText after text-transform: uppercase is what the block holds
    assert check_copy(req, _page(TextBlock(tag="a", text="LINA SCHAUB"))).status == "pass"


def test_punctuation_that_is_not_the_label_s_own():
    """A chip with the sentence's comma fails even when a clean copy shows elsewhere; a doubled
    dash before an attribution fails; the sentence's period fails on a title (a tile, a band
    heading) and on the last item of a list, not on a sentence."""
    brief = (
        "A hero chip “Harvest & Harmony: Urban Garden Weekends,” above the title.\n"
        "Bullets: “Design tight experiments”, “Map your early adopters”, “Interview for insight,"
        " not approval.”\n"
        "The schedule shows “Closing Circle & Take-Home Guide.” last.\n"
        "The quote ends “— Maya Ortiz, co-founder at Quiet Harbor”.\n"
        "The headline “Grow Together in the City.” is large."
    )
    reqs = {r.key: r for r in extract(brief) if r.kind == "copy" and r.role != "repeat"}
    name = "Harvest & Harmony: Urban Garden Weekends"
    chip = _page(TextBlock(tag="h1", text=name), TextBlock(tag="span", text=name + ","))
    assert check_copy(reqs["Harvest & Harmony: Urban Garden Weekends"], chip).status == "fail"
    bullet = _page(TextBlock(tag="li", text="Interview for insight, not approval."))
    assert check_copy(reqs["Interview for insight, not approval"], bullet).status == "fail"
    tile = _page(TextBlock(tag="div", text="Closing Circle & Take-Home Guide."))
    assert check_copy(reqs["Closing Circle & Take-Home Guide"], tile).status == "fail"
    dash = _page(TextBlock(tag="p", text="— — Maya Ortiz, co-founder at Quiet Harbor"))
    assert check_copy(reqs["— Maya Ortiz, co-founder at Quiet Harbor"], dash).status == "fail"
    heading = _page(TextBlock(tag="h2", text="Grow Together in the City.", heading=True))
    assert check_copy(reqs["Grow Together in the City"], heading).status == "fail"
    sentence = _page(TextBlock(tag="p", text="Tea, snacks, and talk under the open sky."))
    assert (
        check_copy(_req("copy", "Tea, snacks, and talk under the open sky"), sentence).status
        == "pass"
    )
    clean = _page(TextBlock(tag="div", text="Closing Circle & Take-Home Guide"))
    assert check_copy(reqs["Closing Circle & Take-Home Guide"], clean).status == "pass"


def test_escape_sequences_printed_as_text_fail():
    brief = "The headline reads “ROLL FASTER.\\nPACK LIGHTER.”"
    (req,) = [r for r in extract(brief) if r.kind == "copy"]
    shown = _page(TextBlock(tag="h1", text="ROLL FASTER.\\nPACK LIGHTER."))
    assert check_copy(req, shown).status == "fail"
    assert (
        check_copy(req, _page(TextBlock(tag="h1", text="ROLL FASTER. PACK LIGHTER."))).status
        == "pass"
    )


def test_scare_quoted_design_ideas_component_names_and_alternative_fonts_leak():
    """“step cards” is the brief's idea, not copy; “Welcome panel” is a planner's name for a
    part of the layout; “Quicksand,” offered as an alternative typeface is still a typeface."""
    brief = (
        "Three numbered “step cards” explain the method. Body text is a rounded sans serif, like"
        " “Nunito” or “Quicksand,” in charcoal. The hero says “Welcome back, Luna”."
    )
    reqs = {r.key: r for r in extract(brief) if r.kind == "leak"}
    page = _page(TextBlock(tag="p", text="step cards"), TextBlock(tag="h2", text="Welcome panel"),
                 TextBlock(tag="span", text="Quicksand,"),
                 TextBlock(tag="h1", text="Welcome back, Luna"))  # fmt: skip
    (stray, fonts) = check_all([reqs["stray words"], reqs["typeface names"]], page)
    assert stray.status == "fail" and set(stray.evidence["leaked"]) == {
        "step cards",
        "Welcome panel",
    }
    assert fonts.status == "fail" and fonts.evidence["leaked"] == ["Quicksand"]
    line = {"x": 0, "y": 0, "w": 400, "h": 20}
    words = {"x": 60, "y": 0, "w": 90, "h": 20}
    inline = PageFacts(
        text="Press the call to action below",
        blocks=[TextBlock(tag="p", text="Press the call to action below", rect=line),
                TextBlock(tag="strong", text="call to action", rect=words)],
    )  # fmt: skip
    assert check_all([reqs["stray words"]], inline)[0].status == "pass"


def test_a_colour_word_keeps_the_hex_the_brief_gives_it():
    brief = (
        "The accent is a muted forest green (#1F5C4D). The “Start trial” button in forest green."
    )
    (req,) = [r for r in extract(brief) if r.kind == "palette" and r.role.startswith("element")]
    assert req.hex == "#1F5C4D" and "(#1F5C4D)" in req.text


def test_a_count_is_checked_in_the_section_the_brief_describes():
    """ "three cards" in the testimonials paragraph is met by three cards there, not by a row of
    three anywhere; nine pooled tags are no three cards."""
    from mmstudio.render.facts import SectionFact

    brief = (
        "Below the hero, a features section shows four feature tiles in a row.\n"
        "The testimonials section has three cards side by side."
    )
    (cards,) = [r for r in extract(brief) if r.kind == "layout" and r.count == 3]
    assert cards.label == "testimonials"
    (tiles,) = [r for r in extract(brief) if r.kind == "layout" and r.count == 4]
    assert tiles.label == "features"  # "below the hero" names a neighbour, not the section
    sections = [
        SectionFact(id="features", heading="Features", rect={"x": 0, "y": 0, "w": 1280, "h": 600}),
        SectionFact(id="testimonials", heading="What people say",
                    rect={"x": 0, "y": 600, "w": 1280, "h": 600}),
    ]  # fmt: skip
    elsewhere = [RowFact(section="features", per_row=3, total=3, width=1200, y=100)]
    pooled = [RowFact(section="testimonials", per_row=3, total=9, width=1200, y=700)]
    built = [RowFact(section="testimonials", per_row=3, total=3, width=1200, y=700)]
    assert check_layout(cards, PageFacts(sections=sections, rows=elsewhere)).status == "fail"
    assert check_layout(cards, PageFacts(sections=sections, rows=pooled)).status == "fail"
    assert check_layout(cards, PageFacts(sections=sections, rows=built)).status == "pass"


def test_form_fields_named_in_the_brief_must_be_inputs():
    """“Your Name” and “Email Address” as cards with no input are no form; an input labelled
    by a line just above it, or by its placeholder, is."""
    brief = (
        "The form has three fields in one column: “Your Name”, “Email Address”, and a "
        "dropdown-style field labeled “Choose Your Weekend”. A “Confirm My Spot” button."
    )
    (fields,) = [r for r in extract(brief) if r.role == "field"]
    assert fields.key == "form fields" and fields.values == [
        "Your Name", "Email Address", "Choose Your Weekend",
    ]  # fmt: skip
    assert any(r.kind == "label" and r.key == "Confirm My Spot" for r in extract(brief))
    cards = _page(
        TextBlock(tag="div", text="Your Name"), TextBlock(tag="div", text="Email Address")
    )
    result = check_all([fields], cards)[0]
    assert result.status == "fail" and result.evidence["labels"][0] == "Your Name"
    line = TextBlock(tag="label", text="Your Name", rect={"x": 100, "y": 100, "w": 200, "h": 20})
    inputs = [
        {"tag": "input", "type": "text", "rect": {"x": 100, "y": 130, "w": 300, "h": 36}},
        {"tag": "input", "type": "email", "placeholder": "Email address"},
        {"tag": "select", "label": "Choose Your Weekend"},
    ]
    form = PageFacts(text="Your Name", blocks=[line], widgets={"inputs": inputs})
    assert check_all([fields], form)[0].status == "pass"


def test_a_card_s_colour_is_read_behind_its_title_and_a_border_colour_is_no_text_colour():
    brief = (
        "A pale mustard card with a sun icon and the title “Mindful Moments” about breathing.\n"
        "The right card, with a thicker border in forest green, is labeled “Studio”."
    )
    reqs = [r for r in extract(brief) if r.kind == "palette" and r.role.startswith("element")]
    assert [(r.key, r.role) for r in reqs] == [("mustard", "element-fill")]
    mustard = [214, 170, 60, 1]
    title = TextBlock(tag="h3", text="Mindful Moments", background=[0, 0, 0, 0], backdrop=mustard)
    assert check_all(reqs, _page(title))[0].status == "pass"
    plain = TextBlock(tag="h3", text="Mindful Moments", background=[0, 0, 0, 0], backdrop=[255] * 4)
    assert check_all(reqs, _page(plain))[0].status == "fail"


def test_a_mark_by_the_logo_is_looked_for_in_the_header():
    from mmstudio.render.facts import Picture, SectionFact

    brief = (
        "The header holds the logo. To the left of the text is a small, flat icon: a minimalist "
        "sprouting seed drawn with one line. Links sit on the right."
    )
    (req,) = [r for r in extract(brief) if r.role == "logo-icon"]
    assert "sprouting seed" in req.span.excerpt
    header = SectionFact(id="header", tag="header", rect={"x": 0, "y": 0, "w": 1280, "h": 80})
    bare = PageFacts(sections=[header])
    assert check_all([req], bare)[0].status == "fail"
    seed = Picture(kind="svg", rect={"x": 40, "y": 24, "w": 28, "h": 28}, section="header")
    assert check_all([req], PageFacts(sections=[header], icons=[seed]))[0].status == "pass"
    low = Picture(kind="svg", rect={"x": 40, "y": 900, "w": 28, "h": 28})
    assert check_all([req], PageFacts(sections=[header], icons=[low]))[0].status == "fail"
    assert [
        r for r in extract("A plain logo “Nove” and three links.") if r.role == "logo-icon"
    ] == []


def test_design_ideas_typeface_descriptions_and_picture_words_are_read_as_such():
    """“leaf bullet list” after "below the paragraphs" is a design idea, a lower-case tag named
    as a tag is copy; a quoted typeface description is no copy and leaks when printed; words the
    brief puts on a picture fail as page copy beside it, and pass over it; a caption "below
    the image" is copy."""
    from mmstudio.render.facts import Picture

    brief = (
        "Below the paragraphs, a small “leaf bullet list” presents three points. Small tags read "
        "“mindful practice” and “soft color stories”. All text uses one family, described as "
        "“a clean, geometric sans-serif similar to Inter or SF Pro”.\n"
        "A poster reads “JUNE 12–14” along its edge. Below the image, a caption: “Figure 01”."
    )
    reqs = extract(brief)
    keys = {r.key: r for r in reqs}
    assert "leaf bullet list" not in keys and keys["mindful practice"].kind == "label"
    assert not any("sans-serif" in r.key for r in reqs if r.kind == "copy")
    assert keys["JUNE 12–14"].role == "in-image" and keys["Figure 01"].role == "copy"
    note = TextBlock(
        tag="p", text="Set in a clean, geometric sans-serif similar to Inter or SF Pro."
    )
    (typeface,) = [r for r in reqs if r.key == "typeface description"]
    assert check_all([typeface], _page(note))[0].status == "fail"
    sync = TextBlock(tag="p", text="Sync colors, logos, and fonts in one click.")
    assert check_all([typeface], _page(sync))[0].status == "pass"
    poster = Picture(kind="img", rect={"x": 0, "y": 0, "w": 400, "h": 600})
    beside = TextBlock(tag="p", text="JUNE 12–14", rect={"x": 500, "y": 100, "w": 120, "h": 20})
    over = TextBlock(tag="p", text="JUNE 12–14", rect={"x": 300, "y": 100, "w": 90, "h": 20})
    words = keys["JUNE 12–14"]
    assert (
        check_copy(words, PageFacts(text="JUNE 12–14", blocks=[beside], pictures=[poster])).status
        == "fail"
    )
    assert (
        check_copy(words, PageFacts(text="JUNE 12–14", blocks=[over], pictures=[poster])).status
        == "pass"
    )


def test_a_value_axis_names_what_the_brief_says_it_measures():
    from mmstudio.render.facts import Axis, ChartFact

    brief = (
        "A line chart titled “Average Session Length by Hour” with hours on the x-axis and minutes "
        "on the y-axis. A spike chart “Top 10 Titles” with the y-axis as “Streams (k)”."
    )
    axes = {r.key: r for r in extract(brief) if r.role == "axis"}
    assert set(axes) == {"minutes", "Streams (k)"}
    assert axes["minutes"].values == ["Average Session Length by Hour"]

    def chart(title, name):
        return ChartFact(title=title, readable=True, y_axis=[Axis(type="value", name=name)])

    named = PageFacts(charts=[chart("Average Session Length by Hour", "Avg. minutes")])
    bare = PageFacts(charts=[chart("Average Session Length by Hour", "")])
    assert check_all([axes["minutes"]], named)[0].status == "pass"
    assert check_all([axes["minutes"]], bare)[0].status == "fail"
    assert check_all([axes["minutes"]], PageFacts())[0].status == "unchecked"


def test_a_heading_the_brief_names_shown_as_a_button_fails():
    (req,) = [
        r for r in extract("The section is titled “Getting Here” in bold.") if r.kind == "copy"
    ]
    assert req.role == "heading"
    button = _page(TextBlock(tag="a", text="Getting Here", link=True, button=True, font_size=15))
    result = check_copy(req, button)
    assert result.status == "fail" and "a button, not a heading" in result.message
    heading = _page(TextBlock(tag="h2", text="Getting Here", heading=True, font_size=32))
    assert check_copy(req, heading).status == "pass"


def test_pictures_a_section_asks_for_are_counted_in_that_section():
    from mmstudio.render.facts import Picture, SectionFact

    brief = (
        "A team section titled “Meet Your Guides”. Beneath, four portrait Polaroid-style frames."
    )
    (req,) = [r for r in extract(brief) if r.kind == "image" and r.role == "count"]
    assert req.count == 4 and req.label == "team"
    team = SectionFact(
        id="team", heading="Meet Your Guides", rect={"x": 0, "y": 1000, "w": 1280, "h": 600}
    )

    def pic(y):
        return Picture(kind="img", rect={"x": 0, "y": y, "w": 200, "h": 250})

    one = PageFacts(sections=[team], pictures=[pic(100), pic(200), pic(300), pic(1100)])
    assert check_all([req], one)[0].status == "fail"
    four = PageFacts(sections=[team], pictures=[pic(1100), pic(1100), pic(1100), pic(1100)])
    assert check_all([req], four)[0].status == "pass"


def test_a_short_brief_s_food_menu_form_and_footer_are_read_apart():
    """ "a menu section listing “Sourdough” £4" is a food menu, not navigation; a quote after
    "fields “Name” and “Email”, and a footer repeating" is no field; "three testimonial cards"
    are counted in the testimonials, not in the menu named before them."""
    brief = (
        "A landing page for a bakery called “Crumb & Co.” with a sticky header, a menu section "
        "listing “Sourdough” £4 and “Rye loaf” £3.50, three testimonial cards, a contact form "
        "with fields “Name” and “Email”, and a footer repeating “Crumb & Co.”."
    )
    reqs = extract(brief)
    assert not [r for r in reqs if r.kind == "nav"]
    (fields,) = [r for r in reqs if r.role == "field"]
    assert fields.values == ["Name", "Email"]
    (cards,) = [r for r in reqs if r.kind == "layout" and r.role == "grid"]
    assert cards.label == "testimonials"


def test_two_items_pooled_across_the_page_fail_their_pairing():
    """ "“Sourdough” £4 and “Rye loaf” £3.50": the name in the nav and a price in a card far
    below sit together only in the page, which also holds the other item: not one box."""
    from mmstudio.render.facts import PairFact

    brief = "A menu section listing “Sourdough” £4 and “Rye loaf” £3.50."
    (pair, *_) = [r for r in extract(brief) if r.kind == "pairing"]
    apart = PairFact(a=pair.values[0], b=pair.values[1], found=[True, True], landmark=True,
                     others=1, distance=420)  # fmt: skip
    assert check_all([pair], PageFacts(pairs=[apart]))[0].status == "fail"
    card = apart.model_copy(update={"landmark": False, "others": 0, "distance": 40})
    assert check_all([pair], PageFacts(pairs=[card]))[0].status == "pass"


def test_a_colour_that_belongs_to_the_next_element_is_not_the_menu_s():
    brief = (
        "A right-aligned navigation menu with the items “Beans”, “Brew Guides” and “Visit Us”, "
        "followed by a small orange button reading “Shop Now”."
    )
    reqs = [r for r in extract(brief) if r.kind == "palette" and r.role.startswith("element")]
    assert [(r.key, r.values) for r in reqs] == [("orange", ["Shop Now"])]


def test_colour_and_punctuation_misreadings_of_the_full_second_review():
    """Misreadings the second review (every unmatched finding, 2026-12-03) found: a colour word
    that belongs to the next quote or to a thing beside the text, a hex code two words on, a
    period that is the copy's own, and a mention that points back at an element."""
    brief = (
        "Inside the badge, in white letters, it says “PIXEL POP” on the first line and in "
        "smaller uppercase mint text beneath, “CREATIVE CAMP.” "
        "Each row has a badge: one in mint with text “In progress”, one in soft amber with text "
        "“Review needed”. The second has a lavender folder icon and text “Active packs: 12”. "
        "Tags read “Architecture”, “Ecology” with tiny square forest green bullets. "
        "Accents are mint, peach (#FFD6C2) and mint (#C9F5E8).\n"
        "Cards say “Silly prompts, fast doodles, zero pressure.”; speakers are “Avery P.” and "
        "“Morning Mug Co.” in a row.\n"
        "At the top-left of the card is “Explore Illustration Packs”.\n"
        "Doodles float around, a paint splash behind “Explore Illustration Packs”; the “Quick "
        "Actions” card sits on the right.\n"
        "The title reads “Quick Actions”."
    )
    reqs = extract(brief)
    colours = {
        v: r.key for r in reqs if r.kind == "palette" and r.role.startswith("element")
        for v in r.values
    }  # fmt: skip
    assert colours.get("PIXEL POP") == "white" and colours.get("CREATIVE CAMP") == "mint"
    assert colours.get("In progress") == "mint" and colours.get("Review needed") == "amber"
    assert "Active packs: 12" not in colours and "Architecture" not in colours
    hexes = {r.values[0]: r.hex for r in reqs if r.kind == "palette" and r.values}
    assert hexes.get("In progress") == "#C9F5E8"  # not peach's, two words on
    ends = {r.key: r.sentence_end for r in reqs if r.kind == "copy" and r.role != "repeat"}
    assert not ends["Silly prompts, fast doodles, zero pressure"]
    assert not any(v for k, v in ends.items() if k.startswith(("Avery", "Morning")))
    repeats = {r.key for r in reqs if r.role == "repeat"}
    assert "Explore Illustration Packs" not in repeats and "Quick Actions" not in repeats


def test_column_counts_that_are_measures_options_or_the_whole_page():
    """ "across the width of three columns" measures, "two or three columns" leaves the choice,
    "the page uses a three-column grid" and "a two-column dashboard homepage" are the page's
    layout, and a sentence placed "beneath the header" is not about the header."""
    brief = (
        "At the top, a sticky header bar holds the logo and a thin rule across the width of "
        "three columns. The page uses a three-column grid on desktop. Each project uses two or "
        "three columns depending on the project. Beneath the header, the page body is split "
        "into two columns."
    )
    cols = [(r.count, r.label) for r in extract(brief) if r.kind == "layout" and r.count]
    assert (3, "header") not in cols and (2, "header") not in cols
    assert (3, "") in cols and (2, "") in cols
    assert len(cols) == 2


def test_a_short_brief_s_parts_keep_their_own_fields_and_pictures():
    """Misreadings found on short briefs (issue 14's newcomer briefs): a hero line and the first
    plan of the next part are no pair; "three photos … in the hero" counts them in the hero."""
    brief = (
        "Three sections: a hero saying “Breathe in the city”, a pricing section with plans "
        "“Drop-in” £12 and “Ten classes” £100, and a contact section. Use three photos of the "
        "workshop in the hero."
    )
    reqs = extract(brief)
    pairs = {tuple(r.values) for r in reqs if r.kind == "pairing"}
    assert ("Breathe in the city", "Drop-in") not in pairs and ("Drop-in", "£12") in pairs
    counts = [(r.count, r.label) for r in reqs if r.kind == "image" and r.role == "count"]
    assert counts == [(3, "hero")]
