"""Arrangement requirements read from real brief excerpts: a testimonial's signature, stacked
items, a picture beside the text, column shares in words (fast: no browser)."""

from __future__ import annotations

from mmstudio.requirements import extract
from mmstudio.requirements.pairs import extract_pairs

# MM-WebGEN-Bench dev prompt 073 (tests/calibration/pages/073/prompt.txt)
QUOTES_073 = (
    "The quote text: “I never thought I could grow anything on my tiny balcony. Now I have "
    "basil, chives, and more — and new friends, too.” Beneath the quote, a small line reads "
    "“— Maya, first-time gardener” in a smaller sans-serif. The top right of the card has a "
    "small stamp illustration: a square with a tiny tomato drawing. The second testimonial "
    "card in the center is terracotta with a cream interior, with the quote: “The weekend felt "
    "like a mini retreat in the middle of the city. I left with soil under my nails and a "
    "calmer mind.” At the bottom: “— Jamal, yoga teacher.” The third, on the right, is pale "
    "mustard with the quote: “The facilitators made everything feel so approachable. I finally "
    "understand my plants’ needs!” signed “— Lina, plant parent in training.”"
)
# prompt 027
QUOTES_027 = (
    "The top small card reads: “We replaced our endless ‘strategy’ meetings with one hour of "
    "Seedline a week. The difference was immediate.” followed by “— Amir, product lead at "
    "Atlas & Co”. The bottom small card reads: “The prompts made it easy to discuss scary "
    "topics like pricing and positioning without getting stuck.” followed by “— Lina, solo "
    "founder”."
)


def _pairs(text: str) -> set[tuple[str, str]]:
    return {(r.values[0][:20], r.values[1]) for r in extract_pairs(text)}


def test_each_quote_is_paired_with_its_own_signature_across_sentences():
    pairs = _pairs(QUOTES_073)
    assert ("I never thought I co", "— Maya, first-time gardener") in pairs
    assert ("The weekend felt lik", "— Jamal, yoga teacher") in pairs
    assert ("The facilitators mad", "— Lina, plant parent in training") in pairs
    # a signature ends its testimonial: Jamal's is not paired with Lina's quote
    assert not [p for p in pairs if p[0].startswith("— Jamal")]
    assert ("We replaced our endl", "— Amir, product lead at Atlas & Co") in _pairs(QUOTES_027)


def test_a_signed_quote_is_checked_as_one_item():
    reqs = [r for r in extract(QUOTES_027) if r.kind == "pairing"]
    signed = [r for r in reqs if r.values[1].startswith("— Amir")]
    assert len(signed) == 1 and signed[0].severity == "major"
    assert "signed" in signed[0].text


# prompt 082: stacked cards (the old reading asked for them "side by side or in a grid")
LESSONS_082 = (
    "Next is the “Soft Light Lessons” section, a white background within the central column, "
    "with a large heading left-aligned: “Soft Light Lessons,” and a short explanatory line: "
    "“One-on-one and small group sessions tailored to your pace.” Below, three vertically "
    "stacked cards describe different offerings."
)
# prompt 073: the hero picture on the right
HERO_073 = (
    "Below this strip, occupying the top half of the screen, is the hero section, using an "
    "overlapping collage style. On the left two-thirds, there is a large, softly rounded "
    "rectangular block of pale cream with a torn-paper bottom edge. Inside, the headline reads "
    "“Grow Together in the City.” On the right side of the hero section, overlapping the cream "
    "headline panel, is a large, vertically oriented hero image."
)
# prompt 027: a two-thirds quote box; prompt 111: a panel floating over a video
THIRDS_027 = (
    "The section heading, left-aligned, says: “Founders who learned in the margins.” in dark "
    "gray. Underneath, occupying roughly two-thirds of the width and aligned to the left, is a "
    "large quote box with a thin forest green border."
)
FLOATING_111 = (
    "Floating above the video, anchored to the left two-thirds of the width but slightly "
    "overlapping the center, is an asymmetrical, semi-transparent hero panel with the heading "
    "“Breathe in the Future of Stillness.”"
)


def _arranged(text: str, role: str):
    return [r for r in extract(text) if r.kind == "layout" and r.role == role]


def _page(rows=(), pictures=(), heading=("Soft Light Lessons", 100)):
    from mmstudio.render.base import Box
    from mmstudio.render.facts import PageFacts, Picture, RowFact, SectionFact, TextBlock

    title, y = heading
    return PageFacts(
        sections=[SectionFact(id="s1", heading=title, rect=Box(x=0, y=0, w=1280, h=1400))],
        blocks=[
            TextBlock(tag="h2", text=title, heading=True, section="s1", font_size=40,
                      rect=Box(x=80, y=y, w=560, h=90))
        ],
        rows=[RowFact(section="s1", per_row=p, total=t, widths=w, width=1120, y=300)
              for p, t, w in rows],
        pictures=[Picture(kind="img", section="s1", rect=Box(x=x, y=py, w=500, h=600))
                  for x, py in pictures],
    )  # fmt: skip


def test_stacked_cards_are_not_read_as_a_grid_and_fail_side_by_side():
    from mmstudio.requirements.arrangement import check_arrangement

    (stack,) = _arranged(LESSONS_082, "stack")
    assert stack.count == 3 and "stacked cards" in stack.key
    assert not _arranged(LESSONS_082, "grid")  # no "3 cards side by side or in a grid"
    assert check_arrangement(stack, _page(rows=[(3, 6, [360, 360, 360])])).status == "fail"
    assert check_arrangement(stack, _page()).status == "pass"
    assert check_arrangement(stack, _page(heading=("Other", 100))).status == "unchecked"


def test_a_picture_on_the_right_must_sit_beside_the_text():
    from mmstudio.requirements.arrangement import check_arrangement

    (side,) = _arranged(HERO_073, "side")
    assert side.values[0] == "right" and side.label == "hero"
    title = ("Grow Together in the City.", 100)
    below = _page(pictures=[(80, 400)], heading=title)
    beside = _page(pictures=[(700, 60)], heading=title)
    left = _page(pictures=[(0, 60)], heading=("Grow Together in the City.", 100))
    left.blocks[0].rect.x = 640
    assert check_arrangement(side, below).status == "fail"
    assert check_arrangement(side, beside).status == "pass"
    assert check_arrangement(side, left).status == "fail"
    assert check_arrangement(side, _page(heading=title)).status == "unchecked"


def test_thirds_are_a_column_split_of_their_section_but_not_of_a_floating_panel():
    from mmstudio.requirements.arrangement import check_arrangement

    (thirds,) = _arranged(THIRDS_027, "thirds")
    assert thirds.ratio == [2 / 3, 1 / 3] and "Founders who learned in the margins" in thirds.values
    title = ("Founders who learned in the margins.", 50)
    halves = _page(rows=[(2, 2, [560, 560])], heading=title)
    split = _page(rows=[(2, 2, [740, 380])], heading=title)
    assert check_arrangement(thirds, halves).status == "fail"
    assert check_arrangement(thirds, split).status == "pass"
    assert check_arrangement(thirds, _page(rows=[(3, 3, [370] * 3)], heading=title)).status == (
        "fail"
    )
    assert not _arranged(FLOATING_111, "thirds")


# prompt 008: a split of one section, met on the old reading by the footer's columns
SPLIT_008 = (
    "Beneath the hero section, the page shifts into a more modular research grid. The next "
    "section spans the full width and is divided into two main columns: a narrow left column "
    "(about 3 of 12) and a wider right column (about 9 of 12). In the left column, a small "
    "label reads “PROJECT SUMMARY”."
)


def test_a_column_split_is_checked_in_its_own_section():
    from mmstudio.render.base import Box
    from mmstudio.render.facts import PageFacts, RowFact, SectionFact, TextBlock
    from mmstudio.requirements.checks import check_layout

    (split,) = [r for r in extract(SPLIT_008) if r.ratio]
    assert split.ratio == [3 / 12, 9 / 12] and "PROJECT SUMMARY" in split.values
    sections = [
        SectionFact(id="summary", rect=Box(x=0, y=900, w=1280, h=800)),
        SectionFact(id="footer", tag="footer", rect=Box(x=0, y=4000, w=1280, h=400)),
    ]
    label = TextBlock(tag="span", text="PROJECT SUMMARY", section="summary")
    footer_row = RowFact(section="footer", per_row=2, total=2, widths=[300, 860], width=1160)
    own_row = RowFact(section="summary", per_row=2, total=2, widths=[300, 860], width=1160)
    elsewhere = PageFacts(sections=sections, blocks=[label], rows=[footer_row])
    here = PageFacts(sections=sections, blocks=[label], rows=[footer_row, own_row])
    assert check_layout(split, elsewhere).status == "fail"
    assert check_layout(split, here).status == "pass"


# prompt 131: the section title the planner demoted under its lede
TIERS_131 = (
    "Instead of the usual three-column layout, the tiers appear as three full-width bands "
    "stacked vertically, each occupying their own block with clean edges. The section title "
    "“ROTATION TIERS” appears in uppercase black, with a tiny vermillion line drawn under it."
)


def test_a_section_title_must_head_its_section():
    from mmstudio.render.facts import PageFacts, TextBlock
    from mmstudio.requirements.placement import check_placement

    (title,) = [r for r in extract(TIERS_131) if r.role == "section-title"]
    assert title.key == "ROTATION TIERS"

    def page(size: float) -> PageFacts:
        return PageFacts(
            blocks=[
                TextBlock(tag="h3", text="ROTATION TIERS", heading=True, section="s",
                          font_size=size),
                TextBlock(tag="h2", text="Three precision-tuned kits.", heading=True, section="s",
                          font_size=46.4),
            ]
        )  # fmt: skip

    assert check_placement(title, page(19.2)).status == "fail"
    assert check_placement(title, page(46.4)).status == "pass"


# prompt 135: a title the brief centres, set as a link hugging its text at the left
TITLE_135 = (
    "At the very top, place a bold centered title “NovaQuest Live Ops KPI Dashboard” on a "
    "dark background."
)


def test_a_link_hugging_its_text_is_centred_only_where_its_heading_is():
    from mmstudio.render.base import Box
    from mmstudio.render.facts import PageFacts, TextBlock
    from mmstudio.requirements.typography import check_typography

    (centred,) = [r for r in extract(TITLE_135) if r.role == "center"]
    title = "NovaQuest Live Ops KPI Dashboard"

    def page(x: float) -> PageFacts:
        glyphs = Box(x=x, y=20, w=300, h=30)
        return PageFacts(
            blocks=[
                TextBlock(tag="a", text=title, link=True, section="header", rect=glyphs,
                          ink=glyphs, font_weight=700),
                TextBlock(tag="h1", text=title, heading=True, section="header", ink=glyphs,
                          rect=Box(x=40, y=20, w=1200, h=30), font_weight=700),
            ]
        )  # fmt: skip

    assert check_typography(centred, page(40)).status == "fail"  # at the left of its bar
    assert check_typography(centred, page(490)).status == "pass"  # in the middle of it
