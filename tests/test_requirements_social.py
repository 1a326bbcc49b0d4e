"""Social-platform icons the brief asks for, read from real dev-prompt excerpts and checked on
the page's small marks (fast: no browser)."""

from __future__ import annotations

from mmstudio.render.base import Box
from mmstudio.render.facts import PageFacts, Picture, SectionFact
from mmstudio.requirements import check_all, extract

# dev prompt 111 (tests/calibration/pages/111/prompt.txt), its footer paragraph
FOOTER_111 = (
    "The footer is a dark band. On the left, links read “Privacy”, “Code of Conduct”, "
    "“Accessibility”. On the right, three small circular icons for social platforms (stylized "
    "generic glyphs, not specific brands) glow softly, each with a different accent color."
)
# dev prompt 001
FOLLOW_001 = (
    "and “Follow” with three icon-only buttons showing a stylized tiny bird, a camera, and a chat "
    "bubble (standing in for social platforms), all in line-art style inside small circles."
)


def _social(text: str):
    return [r for r in extract(text) if r.role == "social-icons"]


def test_icons_for_social_platforms_are_one_requirement_with_their_count() -> None:
    [req] = _social(FOOTER_111)  # "glyphs" in the same sentence is the same demand
    assert (req.key, req.count, req.label) == ("three small circular icons", 3, "footer")
    [req] = _social(FOLLOW_001)
    assert (req.key, req.count) == ("three icon-only buttons", 3)


def test_no_social_icons_and_instead_of_social_icons_ask_for_none() -> None:
    # dev prompts 034 and 070
    assert not _social("There are no logos, no social media icons, no color gradients anywhere.")
    assert not _social(
        "On the right side of the section, instead of social media icons, there is a list of "
        "“UNSOCIAL LINKS”—simple textual URLs."
    )


def _page(icons: int) -> PageFacts:
    footer = SectionFact(id="footer", tag="footer", rect=Box(y=3000, w=1280, h=400))
    marks = [
        Picture(kind="svg", rect=Box(x=900 + 40 * i, y=3100, w=24, h=24)) for i in range(icons)
    ]
    header_logo = Picture(kind="svg", rect=Box(x=20, y=20, w=32, h=32))
    return PageFacts(text="Privacy", sections=[footer], icons=[header_logo, *marks])


def test_the_footer_must_show_that_many_icons() -> None:
    reqs = _social(FOOTER_111)
    assert [r.status for r in check_all(reqs, _page(3))] == ["pass"]
    [result] = check_all(reqs, _page(1))  # the header's logo mark is not in the footer
    assert result.status == "fail"
    assert result.message == "1 icon in the footer, 3 social icons asked"


# dev prompt 131 (tests/calibration/pages/131/prompt.txt)
VIDEO_131 = (
    "This video window represents a short looping video clip. The frame has a thin black border "
    "and a 3:4 vertical aspect ratio, slightly taller than the text block."
)


def test_an_aspect_ratio_is_read_for_the_media_it_describes_and_measured_on_its_box() -> None:
    from mmstudio.render.facts import VideoFact

    [req] = [r for r in extract(VIDEO_131) if r.checker == "aspect"]
    assert (req.kind, req.key, req.ratio) == ("video", "3:4", [3.0, 4.0])
    tall = PageFacts(videos=[VideoFact(rect=Box(x=800, y=200, w=360, h=640))])  # 9:16
    [result] = check_all([req], tall)
    assert (result.status, result.message) == ("fail", "3:4 asked; shown 360×640")
    right = PageFacts(videos=[VideoFact(rect=Box(x=800, y=200, w=360, h=480))])
    assert [r.status for r in check_all([req], right)] == ["pass"]
    assert [r.status for r in check_all([req], PageFacts())] == ["unchecked"]  # no video


# dev prompt 131: the FAQ's questions
FAQ_131 = (
    "Example questions: “CAN I PAUSE MY ROTATION?”, “WHAT IF I ALREADY HAVE SOME GEAR?”, “DO YOU "
    "SHIP INTERNATIONALLY?”, “HOW DO RETURNS WORK?”. When expanded, the answer text appears "
    "beneath in smaller, regular-weight sentence-case paragraphs."
)


def test_a_question_printed_as_the_answer_of_another_is_set_unlike_the_others() -> None:
    from mmstudio.render.facts import TextBlock

    [req] = [r for r in extract(FAQ_131) if r.checker == "alike"]
    assert len(req.values) == 4

    def h3(text: str, y: float) -> TextBlock:
        return TextBlock(tag="h3", text=text, heading=True, font_size=13, font_weight=700,
                         rect=Box(y=y, w=300, h=20))  # fmt: skip

    card = TextBlock(tag="div", text="DO YOU SHIP INTERNATIONALLY?", rect=Box(y=0, w=320, h=60))
    answer = TextBlock(tag="p", text="WHAT IF I ALREADY HAVE SOME GEAR?", font_size=11,
                       rect=Box(y=24, w=300, h=16))  # fmt: skip
    blocks = [h3("CAN I PAUSE MY ROTATION?", 0), answer, card,
              h3("DO YOU SHIP INTERNATIONALLY?", 0), h3("HOW DO RETURNS WORK?", 0)]  # fmt: skip
    [result] = check_all([req], PageFacts(blocks=blocks))
    assert result.status == "fail"
    assert result.evidence["labels"] == ["WHAT IF I ALREADY HAVE SOME GEAR?"]
    blocks[1] = h3("WHAT IF I ALREADY HAVE SOME GEAR?", 40)
    assert [r.status for r in check_all([req], PageFacts(blocks=blocks))] == ["pass"]
