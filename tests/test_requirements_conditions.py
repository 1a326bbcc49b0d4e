"""FronTalk test conditions read and checked by rules, without a browser: the reading of real
dev-set condition texts (copied here), verdicts on a hand-built page (facts + markup on disk),
the judge wrapper (a model's verdict wins; rules fill in), the rates over checked conditions,
and the agreement of the reader with hand marks (tests/fixtures/frontalk_checkable.json).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from mmstudio.feedback.condition_judge import (
    SiteCheck,
    _Cache,
    condition_judge,
    condition_of,
    states_a_result,
    verdict,
)
from mmstudio.feedback.ledger import Verdict
from mmstudio.render.base import Box
from mmstudio.render.facts import HeaderFact, PageFacts, SectionFact, TextBlock
from mmstudio.requirements.condition_dom import SiteDom
from mmstudio.requirements.condition_style import colour_names, font_class
from mmstudio.requirements.condition_view import PageView
from mmstudio.requirements.conditions import read_condition
from mmstudio.studio.frontalk import Condition, FrontalkOptions, condition_requirement
from mmstudio.studio.frontalk_report import checked_rates, markdown, summarise

FIXTURE = Path(__file__).parent / "fixtures" / "frontalk_checkable.json"

# --- reading real condition texts ---------------------------------------------------------


def _parts(text: str) -> list[tuple[str, str, str]]:
    return [(p.checker, p.label or p.key, p.role) for p in read_condition(text).parts]


def test_named_controls_and_links_are_read():
    reading = read_condition('Verify the presence of a "Take Quiz" button on the homepage.')
    assert reading.where == "home" and reading.checkable
    assert _parts(reading.condition) == [("cond.control", "Take Quiz", "button")]
    links = read_condition(
        "The homepage navigation bar should include clearly labeled links to "
        '"Book Appointment," "Resources," and "Live Chat."'
    )
    assert [p.label for p in links.parts if p.checker == "cond.control"] == [
        "Book Appointment",
        "Resources",
        "Live Chat",
    ]
    assert all(p.role == "link" for p in links.parts if p.checker == "cond.control")
    assert links.checkable


def test_sections_pages_and_navigation_are_read():
    nav = read_condition(
        'Clicking the "Login/Register" link from the homepage navigates to the login and '
        "registration page."
    )
    step = next(p for p in nav.parts if p.checker == "cond.navigate")
    assert (step.label, step.role) == ("Login/Register", "vague") and nav.checkable
    home = read_condition(
        'The comic archive page should have a "Home" button in the sticky navigation bar that '
        "returns to the homepage."
    )
    assert (home.where, home.page) == ("page", "comic archive")
    back = next(p for p in home.parts if p.checker == "cond.navigate")
    assert (back.label, back.values, back.role) == ("Home", ["home"], "home")
    assert any(p.kind == "layout" and p.role == "header" for p in home.parts)  # sticky
    reached = read_condition(
        "The legal resource center is accessible from the homepage navigation."
    )
    assert [(p.checker, p.label) for p in reached.parts] == [
        ("cond.named", "legal resource center"),
        ("cond.navigate", ""),
    ]
    below = read_condition(
        'The "Featured Projects" section is visible on the homepage below the hero section.'
    )
    assert ("cond.position", "below", "section:Featured Projects") in _parts(below.condition)
    assert below.checkable


def test_widgets_fields_and_behaviours_are_read():
    form = read_condition(
        "The registration form includes fields for name, email, password, and a checkbox to "
        "agree to terms and conditions."
    )
    assert [p.label for p in form.parts if p.checker == "cond.field"] == [
        "name",
        "email",
        "password",
        "checkbox",
    ]
    submit = read_condition(
        'Submitting the form on the "Contact Us" page displays a confirmation message to the user.'
    )
    assert (submit.where, submit.page) == ("page", "Contact Us")
    assert any(p.checker == "cond.submit" for p in submit.parts) and submit.checkable
    quiz = read_condition(
        'Check that the "Take Quiz" button on the homepage directs users to a quiz page with '
        "multiple-choice questions."
    )
    step = next(p for p in quiz.parts if p.checker == "cond.navigate")
    assert step.values == ["quiz page", "needs:radio"]  # the questions are on the destination


def test_visual_properties_are_read_with_their_subject():
    blue = read_condition("The homepage background should be a calming blue color.")
    assert _parts(blue.condition) == [("cond.colour", "background", "page")]
    assert blue.parts[0].values == ["blue"] and blue.checkable
    hero = read_condition(
        "The heading in the hero section on the homepage should be large and bold, while the "
        "subheading should be smaller and in regular font."
    )
    assert ("cond.weight", "bold", "headline@hero") in _parts(hero.condition)
    assert ("cond.size", "small", "subheading") in _parts(hero.condition)
    footer = read_condition(
        "The footer on the homepage has a dark background with a textured pattern."
    )
    assert ("cond.colour", "background", "footer") in _parts(footer.condition)
    assert footer.unread == ["textured", "pattern"] and not footer.checkable


def test_what_no_rule_reads_stays_unread():
    assert read_condition("Appointment Booking System").parts == []
    taste = read_condition("The homepage header displays the title in a playful style.")
    assert "playful" in taste.unread and not taste.checkable
    # hover effects and per-item claims have parts of their own (style sheets, repeated items)
    hover = read_condition(
        "Menu items in the navigation bar on the homepage have subtle hover effects."
    )
    assert "hover" not in hover.unread
    assert any(p.checker == "cond.hover" and p.label == "link" for p in hover.parts)
    each = read_condition(
        'Check that each resource in the "Professional Resources" section on the homepage has a '
        'brief description and a "Download" button.'
    )
    items = next(p for p in each.parts if p.checker == "cond.items")
    assert items.label == "Professional Resources" and "button:Download" in items.values
    assert "each" not in each.unread


# --- verdicts on a hand-built page ----------------------------------------------------------

INDEX = """<!doctype html><html><head><title>Wasted Talent</title>
<style>.sticky-nav{position:sticky;top:0}</style></head><body>
<header><h1>Wasted Talent</h1></header>
<nav class="sticky-nav"><a href="#archive">Comic Archive</a>
<a href="quiz.html">Comic Quiz</a></nav>
<section id="archive"><h2>Comic Archive</h2></section>
<button id="take" onclick="location.href='quiz.html'">Take Quiz</button>
<button id="view-archive">View Archive</button>
<form><input type="email" id="email"><button type="submit">Subscribe</button></form>
</body></html>"""
QUIZ = """<html><head><title>Comic Quiz</title></head><body><h1>Quiz</h1>
<input type="radio" name="q1"> <input type="radio" name="q1"></body></html>"""


def _block(text, x, y, **kw) -> TextBlock:
    return TextBlock(tag=kw.pop("tag", "a"), text=text, rect=Box(x=x, y=y, w=120, h=40), **kw)


def _facts(background=(250, 250, 250)) -> PageFacts:
    white, dark = [255, 255, 255, 1], [51, 51, 51, 1]
    return PageFacts(
        text="Wasted Talent Comic Archive Comic Quiz Comic Archive Take Quiz View Archive "
        "Subscribe",
        blocks=[
            _block("Wasted Talent", 20, 10, tag="h1", heading=True, header=True, font_size=40,
                   font_weight=700, font="Georgia, serif"),
            _block("Comic Archive", 20, 90, link=True, header=True, color=white, background=dark),
            _block("Comic Quiz", 160, 90, link=True, header=True, color=white, background=dark),
            _block("Take Quiz", 20, 400, tag="button", button=True),
            _block("View Archive", 160, 400, tag="button", button=True),
        ],
        sections=[
            SectionFact(tag="header", rect=Box(w=1280, h=80), heading="Wasted Talent"),
            SectionFact(id="archive", tag="section", rect=Box(y=140, w=1280, h=200),
                        heading="Comic Archive"),
        ],
        header=HeaderFact(position="static", top_after=-600, scrolled=600, h=80, w=1280),
        page_background=[*background, 1],
        widgets={"form": 1, "inputs": [{"tag": "input", "type": "email", "name": "",
                                        "placeholder": "", "label": ""}]},
    )  # fmt: skip


@pytest.fixture
def site(tmp_path) -> Path:
    (tmp_path / "index.html").write_text(INDEX)
    (tmp_path / "quiz.html").write_text(QUIZ)
    return tmp_path


def _judge(site: Path, text: str, facts: PageFacts | None = None) -> tuple[str, str]:
    dom = SiteDom(site)
    view = PageView("index.html", facts or _facts(), dom.page("index.html"))
    check = SiteCheck(site, "index.html", view, "k", _Cache(), render_page=None)
    return asyncio.run(check.judge(read_condition(text)))


def test_presence_navigation_and_style_verdicts(site):
    assert _judge(site, 'Verify the presence of a "Take Quiz" button on the homepage.')[0] == "pass"
    status, detail = _judge(
        site, 'Confirm that a "Random Comic" button is available on the homepage.'
    )
    assert status == "fail" and "no button “Random Comic”" in detail
    quiz = 'Check that the "Take Quiz" button on the homepage directs users to a quiz page with ' \
        "multiple-choice questions."  # fmt: skip
    assert _judge(site, quiz) == ("pass", _judge(site, quiz)[1])
    assert "leads to quiz.html" in _judge(site, quiz)[1]
    dead = 'The "View Archive" button on the homepage leads to the full comic archive page.'
    status, detail = _judge(site, dead)
    assert status == "fail" and "leads nowhere" in detail  # no href, no script
    sticky = "A sticky navigation bar remains visible as users scroll down the homepage."
    assert _judge(site, sticky)[0] == "pass"  # the <header> scrolls, the pinned <nav> stays
    blue = "The homepage background should be a calming blue color."
    assert _judge(site, blue)[0] == "fail"
    assert _judge(site, blue, _facts(background=(40, 90, 200)))[0] == "pass"
    title = 'The homepage header displays the title "Wasted Talent" in a serif font.'
    assert _judge(site, title)[0] == "pass"
    hover = "Menu items in the navigation bar on the homepage have subtle hover effects."
    status, detail = _judge(site, hover)  # the bar exists; its style sheet has no :hover rule
    assert status == "fail" and "no :hover rule for link" in detail
    hovered = site.parent / "hovered"
    shutil.copytree(site, hovered)
    index = hovered / "index.html"
    index.write_text(index.read_text().replace("</style>", ".sticky-nav a:hover{color:red}"
                                               "</style>"), encoding="utf-8")  # fmt: skip
    assert _judge(hovered, hover)[0] == "pass"
    contrast = (
        "Menu items in the navigation bar on the homepage use contrasting colors against the "
        "background."
    )
    assert _judge(site, contrast)[0] == "pass"
    missing = "On the Contact Us page, a form has fields for name, email, and message."
    assert _judge(site, missing)[0] == "fail"  # no such page or section
    assert _judge(site, "Appointment Booking System") == (
        "unchecked",
        "no rule reads this condition",
    )


def test_verdict_rule_never_passes_a_partial_reading():
    reading = read_condition('The homepage header displays the title "Wasted Talent" in a '
                             "bold, playful font style.")  # fmt: skip
    from mmstudio.requirements.model import RequirementResult

    ok = [RequirementResult.of(p, "pass", "ok") for p in reading.parts]
    assert verdict(reading, ok)[0] == "unchecked"
    assert (
        verdict(reading, [RequirementResult.of(reading.parts[0], "fail", "no header")])[0] == "fail"
    )


def test_the_judge_keeps_a_model_verdict_and_decides_the_rest(site):
    texts = [
        ('Verify the presence of a "Take Quiz" button on the homepage.', "function"),
        ('Confirm that a "Random Comic" button is available on the homepage.', "function"),
        ("The page feels premium.", "design"),
    ]
    reqs = []
    for n, (text, kind) in enumerate(texts, start=1):
        req = condition_requirement(Condition(condition=text, pass_="Yes.", fail="No."), kind)
        req.id = f"t1.r{n}"
        reqs.append(req)
    render = SimpleNamespace(site_dir=str(site), page="index.html", facts=_facts(),
                             screenshot="", viewport={"width": 1280})  # fmt: skip

    async def model(requirements, render):
        return [Verdict("t1.r2", True, "judge: looks fine")]

    offline = {
        v.requirement: v for v in asyncio.run(condition_judge(render_page=None)(reqs, render))
    }
    assert (offline["t1.r1"].passed, offline["t1.r2"].passed, offline["t1.r3"].passed) == (
        True,
        False,
        None,
    )
    assert offline["t1.r3"].detail == "rules: no rule reads this condition"
    both = {
        v.requirement: v
        for v in asyncio.run(condition_judge(model, render_page=None)(reqs, render))
    }
    assert both["t1.r2"].detail == "judge: looks fine" and both["t1.r1"].passed is True


def test_the_judge_of_feedback_turns_reads_free_requirements_in_their_own_words(site):
    """A turn's free requirement ("Add a “Take Quiz” button …") is read as a condition only
    with ``turns=True`` (the app's and the CLI's feedback); FronTalk's replay passes only its
    test conditions. "The whole page" names no page."""
    from mmstudio.feedback.requirements import Requirement as TurnRequirement

    free = TurnRequirement(text='Put a "Take Quiz" button on the page', op="free")
    free.id = "t1.r1"
    vague = TurnRequirement(text="Make the whole page feel more premium", op="free")
    vague.id = "t1.r2"
    render = SimpleNamespace(site_dir=str(site), page="index.html", facts=_facts(),
                             screenshot="", viewport={"width": 1280})  # fmt: skip
    replay = asyncio.run(condition_judge(render_page=None)([free, vague], render))
    assert replay == []
    turns = {
        v.requirement: v
        for v in asyncio.run(condition_judge(render_page=None, turns=True)([free, vague], render))
    }
    assert turns["t1.r1"].passed is True
    assert turns["t1.r2"].passed is None, turns["t1.r2"].detail
    assert read_condition("Make the whole page feel more premium").where != "page"
    change = TurnRequirement(text='Frobnicate the "Take Quiz" button', op="free")
    change.id = "t1.r3"
    (unproven,) = asyncio.run(condition_judge(render_page=None, turns=True)([change], render))
    assert unproven.passed is None and "read only part" in unproven.detail
    assert states_a_result("The header should stay fixed at the top")
    assert states_a_result("Add a testimonials section")
    assert not states_a_result("Make the contact form ask for name and email")


def test_colour_and_font_words():
    assert {"blue", "navy", "dark"} <= colour_names((20, 40, 110))
    assert "gray" in colour_names((128, 128, 128)) and "white" in colour_names((255, 255, 255))
    assert "green" in colour_names((40, 160, 80)) and "red" in colour_names((200, 30, 40))
    assert font_class("'Playfair Display', Georgia, serif") == "serif"
    assert font_class("'Liberation Sans', Arial, sans-serif") == "sans-serif"
    assert font_class("Unknown Face, serif") == "serif"


# --- rates over checked conditions ----------------------------------------------------------


def test_checked_rates_leave_unchecked_conditions_out():
    tests = [
        {"turn": 1, "statuses": ["pass", "pass", "fail"]},  # forgotten at the final turn
        {"turn": 1, "statuses": ["unchecked", "pass", "pass"]},  # not checked when introduced
        {"turn": 1, "statuses": ["pass", "pass", "unchecked"]},  # not checked at the end
        {"turn": 2, "statuses": [None, "fail", "fail"]},
        {"turn": 3, "statuses": [None, None, "pass"]},
    ]
    rates = checked_rates(tests, 3)
    assert (rates["checked"], rates["checked_share"]) == (4, 0.8)
    assert rates["checked_pass_rate"] == round((1 + 0 + 1) / 3, 4)
    assert (rates["checked_passes_at_intro"], rates["checked_passes_at_final"]) == (1, 0)
    assert rates["checked_forgetting_rate"] == 1.0
    assert checked_rates([], 3)["checked_share"] is None


def test_the_summary_gives_the_checked_share_and_rates_over_checked():
    tests = [
        {"turn": 1, "statuses": ["pass", "pass"]},
        {"turn": 1, "statuses": ["unchecked", "unchecked"]},
        {"turn": 2, "statuses": [None, "fail"]},
    ]
    from mmstudio.studio.frontalk import frontalk_rates

    record = {"id": "d.html", "ok": True, "turns": [{"seconds": 1.0}] * 2, "tests": tests,
              "seconds": 2.0, "start_seconds": 0.5, **frontalk_rates(tests, 2)}  # fmt: skip
    summary = summarise([record], FrontalkOptions())
    assert (summary["checked"], summary["checked_share"]) == (2, round(2 / 3, 4))
    assert summary["checked_pass_rate"] == 0.5 and summary["checked_forgetting_rate"] == 0.0
    assert summary["pass_rate"] == 0.25  # FronTalk's own rate counts unchecked as not passing
    page = markdown({**summary, "wall_seconds": 2.0})
    assert "**Checked** 2/3 test conditions" in page and "unchecked 33%" in page
    requirement = condition_requirement(
        Condition(condition="A footer is present.", pass_="Footer.", fail="None."), "design"
    )
    assert condition_of(requirement) == ("A footer is present.", "Footer.", "None.")


# --- agreement with hand marks --------------------------------------------------------------


def test_the_reader_marks_checkable_what_a_reader_would():
    rows = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert len({r["dialogue"] for r in rows}) >= 5
    marked = [r for r in rows if r["checkable"]]
    got = {id(r): read_condition(r["text"]).checkable for r in rows}
    recall = sum(got[id(r)] for r in marked) / len(marked)
    agreement = sum(got[id(r)] == r["checkable"] for r in rows) / len(rows)
    precision = sum(r["checkable"] for r in rows if got[id(r)]) / max(1, sum(got.values()))
    print(f"hand-marked checkable: {len(marked)}/{len(rows)}; recall {recall:.2f}, "
          f"precision {precision:.2f}, agreement {agreement:.2f}")  # fmt: skip
    assert recall >= 0.8
    assert agreement >= 0.8
