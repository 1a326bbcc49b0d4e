"""How the brief sets a label (bold, size, case, alignment) and where it places it (on a picture,
above its heading), read from brief excerpts of the calibration set and checked on facts."""

from __future__ import annotations

from mmstudio.render.base import Box
from mmstudio.render.facts import PageFacts, Picture, SectionFact, TextBlock
from mmstudio.requirements import check_all, extract


def _asked(brief: str, checker: str) -> dict[tuple[str, str], object]:
    return {(r.key, r.role): r for r in extract(brief) if r.checker == checker}


def test_typography_words_around_a_quote_become_one_requirement_each():
    brief = (
        "The title at the top-left reads “Quick Actions” in bold charcoal. "
        "Below it, a line reads “Updated: September 2025” in 11px, regular, charcoal. "
        "A simple black text link “Download Abstract (PDF)” in 12px, underlined. "
        "At the very top, place a bold centered title “NovaQuest Live Ops KPI Dashboard”. "
        "The logo reads “Harvest & Harmony” in the brush script, and beneath it in tiny "
        "uppercase “URBAN GARDEN WEEKENDS”. "
        "The first tag is pale sage with “Next Session” in tiny uppercase and “May 18–19, 2025” "
        "in slightly larger sentence case. Cards have a 12px radius around “Trail notes”."
    )
    got = _asked(brief, "typography")
    assert ("Quick Actions", "bold") in got
    assert got[("Updated: September 2025", "size")].numbers == [11.0]
    assert {("Download Abstract (PDF)", "size"), ("Download Abstract (PDF)", "underline")} <= set(
        got
    )
    assert {("NovaQuest Live Ops KPI Dashboard", r) for r in ("bold", "center")} <= set(got)
    assert ("Next Session", "upper") in got
    # the next element's words are not this one's; a quote in capitals already; a radius
    assert ("Harvest & Harmony", "upper") not in got
    assert ("May 18–19, 2025", "upper") not in got
    assert ("URBAN GARDEN WEEKENDS", "upper") not in got
    assert not [k for k in got if k[0] == "Trail notes"]


def _block(text, **kw) -> TextBlock:
    base = dict(tag="p", text=text, rect=Box(x=100, y=100, w=400, h=24), section="s1")
    return TextBlock(**(base | kw))


def _status(brief: str, blocks, **facts) -> dict[tuple[str, str], str]:
    page = PageFacts(
        blocks=blocks,
        sections=[SectionFact(id="s1", rect=Box(x=0, y=0, w=1280, h=800))],
        **facts,
    )
    reqs = [r for r in extract(brief) if r.checker in ("typography", "placement")]
    roles = {r.id: r.role for r in reqs}
    return {(r.key, roles[r.id]): r.status for r in check_all(reqs, page) if r.id in roles}


def test_typography_read_from_computed_style_and_the_glyphs_box():
    brief = (
        "A heading “Quick Actions” in bold charcoal. A line “Updated today” in 11px. "
        "A centered title “Field Notes”. A button reads “Join Now” in uppercase, centered."
    )
    thin = [
        _block("Quick Actions", font_weight=400),
        _block("Updated today", font_size=16),
        # left-aligned text in a full-width heading box: not centred
        _block("Field Notes", tag="h2", align="start", ink=Box(x=100, y=100, w=120, h=24)),
        _block("Join Now", tag="button", align="start", ink=Box(x=100, y=100, w=90, h=24)),
    ]
    got = _status(brief, thin)
    assert got[("Quick Actions", "bold")] == "fail"
    assert got[("Updated today", "size")] == "fail"
    assert got[("Field Notes", "center")] == "fail"
    assert got[("Join Now", "upper")] == "fail"
    right = [
        _block("Quick Actions", font_weight=700),
        _block("Updated today", font_size=11),
        _block("Field Notes", tag="h2", align="center"),
        # a button hugging its label: centred in its own box; text-transform shows capitals
        _block(
            "JOIN NOW",
            tag="button",
            rect=Box(x=100, y=100, w=110, h=40),
            ink=Box(x=110, y=108, w=90, h=24),
        ),
    ]
    got = _status(brief, right)
    assert got[("Quick Actions", "bold")] == "pass"
    assert got[("Updated today", "size")] == "pass"
    assert got[("Field Notes", "center")] == "pass"
    assert got[("Join Now", "upper")] == "pass"
    assert got[("Join Now", "center")] == "pass"
    # a label the page does not show is the copy check's to report
    assert _status(brief, right[:1])[("Join Now", "upper")] == "unchecked"


def test_placement_on_a_picture_and_above_the_heading():
    brief = (
        "Overlapping the bottom left corner of this illustration is a small, angled sticker-like "
        "badge that reads “New for 2025: Storyboarding Lab”. "
        "At the very top of this block, in small uppercase type, sits a label: “RESEARCH "
        "ARCHIVE”. Around the desk are faint suggestions of other “objects” on the photo."
    )
    asked = _asked(brief, "placement")
    assert set(asked) == {
        ("New for 2025: Storyboarding Lab", "on-picture"),
        ("RESEARCH ARCHIVE", "above-heading"),
    }
    picture = Picture(kind="img", src="a.webp", rect=Box(x=600, y=100, w=500, h=400))
    heading = _block("Designing Eco-Lodges", tag="h1", heading=True, font_size=48,
                     rect=Box(x=100, y=200, w=400, h=60))  # fmt: skip
    beside = [
        _block("New for 2025: Storyboarding Lab", rect=Box(x=100, y=300, w=200, h=30)),
        _block("RESEARCH ARCHIVE", font_size=11, rect=Box(x=100, y=280, w=200, h=16)),
        heading,
    ]
    got = _status(brief, beside, pictures=[picture])
    assert got[("New for 2025: Storyboarding Lab", "on-picture")] == "fail"
    assert got[("RESEARCH ARCHIVE", "above-heading")] == "fail"
    placed = [
        _block("New for 2025: Storyboarding Lab", rect=Box(x=580, y=460, w=200, h=30)),
        _block("RESEARCH ARCHIVE", font_size=11, rect=Box(x=100, y=160, w=200, h=16)),
        heading,
    ]
    got = _status(brief, placed, pictures=[picture])
    assert got[("New for 2025: Storyboarding Lab", "on-picture")] == "pass"
    assert got[("RESEARCH ARCHIVE", "above-heading")] == "pass"


def test_a_headline_demoted_to_a_card_title_fails():
    brief = (
        "The hero headline “Make Something Slowly” is bold and centered, with a line “Wheel, "
        "glaze and fire in six evenings” below it. A section “Our Classes” shows three cards."
    )
    asked = _asked(brief, "placement")
    assert set(asked) == {("Make Something Slowly", "headline")}  # not the line after it
    small = _block("Make Something Slowly", tag="h3", heading=True, font_size=19.2)
    big = _block("Our Classes", tag="h1", heading=True, font_size=69.8)
    assert _status(brief, [small, big])[("Make Something Slowly", "headline")] == "fail"
    small.font_size = 64
    assert _status(brief, [small, big])[("Make Something Slowly", "headline")] == "pass"


def test_a_label_above_its_own_card_title_is_above_its_heading():
    brief = "At the top of each card is a small label “Weekend Pass” above the title."
    card_title = _block("Grab Your Spot", tag="h3", heading=True, font_size=28,
                        rect=Box(x=700, y=520, w=300, h=36))  # fmt: skip
    section_title = _block("Tickets", tag="h2", heading=True, font_size=48,
                           rect=Box(x=100, y=100, w=400, h=60))  # fmt: skip
    label = _block("Weekend Pass", font_size=12, rect=Box(x=700, y=490, w=120, h=18))
    got = _status(brief, [section_title, card_title, label])
    assert got[("Weekend Pass", "above-heading")] == "pass"
    label.rect = Box(x=700, y=580, w=120, h=18)  # under the card's title: fails
    assert (
        _status(brief, [section_title, card_title, label])[("Weekend Pass", "above-heading")]
        == "fail"
    )


def test_a_descriptor_of_the_next_element_a_section_name_and_a_menu_link_of_the_same_words():
    brief = (
        "Each block has a label “TOOLS”, bold subheading “Only what you can carry on a climb”. "
        "Create a prominent “Tickets & Call to Action” section towards the bottom, centered. "
        "The publications band has a rotated “Publications” heading in bold, 30px."
    )
    got = _asked(brief, "typography")
    assert ("TOOLS", "bold") not in got
    assert ("Only what you can carry on a climb", "bold") in got
    assert not [k for k in got if k[0] == "Tickets & Call to Action"]
    # only the menu's link shows the words: the heading is missing, not set wrong
    link = _block("Publications", tag="a", link=True, header=True, font_size=12)
    assert _status(brief, [link])[("Publications", "bold")] == "unchecked"


def test_the_logo_is_the_headers_brand_link_not_a_chip_of_the_same_word() -> None:
    # dev prompt 131 (tests/calibration/pages/131/prompt.txt); the header's link is bold
    from mmstudio.render.base import Box
    from mmstudio.render.facts import PageFacts, TextBlock
    from mmstudio.requirements import check_all, extract

    text = "The logo is purely typographic: the word “ALPINE” in bold uppercase, letter-spaced."
    reqs = [r for r in extract(text) if r.checker == "typography" and r.role == "bold"]
    logo = TextBlock(tag="a", text="ALPINE", link=True, header=True, font_weight=700,
                     rect=Box(x=80, y=20, w=80, h=24))  # fmt: skip
    chip = TextBlock(tag="span", text="ALPINE", font_weight=400, rect=Box(x=80, y=3000, w=60, h=20))
    assert [r.status for r in check_all(reqs, PageFacts(text="ALPINE", blocks=[logo, chip]))] == [
        "pass"
    ]
