"""Things FronTalk conditions ask for that the older rules left unread (timelines, tickers,
badges, sort controls, social links, star ratings, thumbnails, icons next to each item, a way
back to the homepage), read and judged on small sites. The condition texts are real, from
``../shared/data/frontalk/dialogues_dev.jsonl``; each test fails on the code before these rules
(the condition stayed unchecked)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mmstudio.feedback.condition_judge import SiteCheck, _Cache
from mmstudio.render.base import Box
from mmstudio.render.facts import PageFacts, Picture
from mmstudio.requirements.condition_dom import SiteDom
from mmstudio.requirements.condition_things import home_target, things
from mmstudio.requirements.condition_view import PageView
from mmstudio.requirements.conditions import read_condition

# the ticker part decides a missing ticker; "top" stays the position rule's
NEWS = "Verify the presence of a breaking news ticker at the top of the \u201cNews\u201d page."
TIMELINE = (
    "Verify that past comparison sessions in the \u201cSoftware Comparison History\u201d feature "
    "are displayed in a chronological timeline layout."
)
BADGE = (
    "Verify that each coupon in the \u201cTrending Coupons\u201d section on the homepage has a "
    "badge when applicable."
)
ICONS = (
    "Icons are present next to each category title in the resource library on the "
    "\u201cResources\u201d page."
)
BACK = (
    "Ensure that users can navigate back to the homepage from the \u201cCommunity Forum\u201d page."
)
SORT = "Search results can be sorted by date or relevance on the resource library page."
SORTING = (
    "Verify the presence of a sorting dropdown menu above the list of reviews on a restaurant's "
    "profile page in the User Reviews and Ratings section."
)
THUMBS = (
    "Titles and dates beneath thumbnails on the comic archive page use a legible, sans-serif font."
)


def _checkers(text: str) -> list[tuple[str, str]]:
    return [(p.checker, p.role) for p in read_condition(text).parts]


def test_things_are_read_from_real_conditions():
    assert ("cond.thing", "ticker") in _checkers(NEWS)
    assert ("cond.thing", "timeline") in _checkers(TIMELINE)
    assert ("cond.thing", "badge") in _checkers(BADGE)
    assert ("cond.home_link", "home") in _checkers(BACK)
    assert ("cond.thing", "sort") in _checkers(SORT)
    assert ("cond.thing", "thumbnails") in _checkers(THUMBS)
    items = next(p for p in read_condition(ICONS).parts if p.checker == "cond.items")
    assert "icon" in items.values  # every item holds an icon: "next to each … title"
    assert "next to" not in read_condition(ICONS).unread
    # a whole reading now: the badge and the per-item claim are the whole condition
    assert read_condition(BADGE).checkable
    assert read_condition(BACK).checkable
    # what a thing does is not read by its presence: "sorted by" stays unread
    assert "sorted" in read_condition(SORT).unread
    assert "sorting" not in read_condition(SORTING).unread
    assert not any(p.checker == "cond.thing" for p in read_condition(
        "The page has no ticker and no badges.").parts)  # fmt: skip


def test_presence_of_an_option_a_legend_or_pagination_is_read():
    unsubscribe = (
        "Verify the presence of an unsubscribe option on the training and events calendar page."
    )
    assert read_condition(unsubscribe).checkable  # before: only the page was read
    assert ("cond.thing", "legend") in _checkers(
        "A color-coded legend is displayed at the top of the Event Calendar page."
    )
    paging = (
        "Check the pagination controls on the search results page when there are multiple "
        "pages of results."
    )
    assert ("cond.thing", "pagination") in _checkers(paging)
    table = (
        "Verify that the comparison results on the \u201cProfiles\u201d page are displayed in "
        "a tabular format."
    )
    assert ("cond.widget", "table") in _checkers(table)
    filters = (
        "Confirm the presence of filter functionality on the \u201cDeal Categories\u201d page."
    )
    assert read_condition(filters).checkable
    # a reminder control's presence is no proof that reminders can be set: it can only fail
    reminders = (
        "Users can set reminders for specific broadcasts directly from the schedule on the "
        "\u201cLive Streaming\u201d page."
    )
    assert ("cond.thing", "reminder") in _checkers(reminders)
    assert not read_condition(reminders).checkable


def test_the_vocabulary_is_data():
    vocabulary = things()
    assert {"timeline", "ticker", "badge", "sort", "social", "stars", "thumbnails"} <= set(
        vocabulary
    )
    assert all(t.words.pattern and t.reads for t in vocabulary.values())


INDEX = """<!doctype html><html><head><title>Coupons</title></head><body>
<header><nav><a href="index.html">Home</a> <a href="forum.html">Community Forum</a>
<a href="resources.html">Resources</a></nav></header>
<section id="trending-coupons"><h2>Trending Coupons</h2><div class="cards">
<article class="card"><span class="badge">Hot</span><h3>10 % off shoes</h3>
<p>Ends Friday</p></article>
<article class="card"><span class="badge">New</span><h3>Free delivery</h3>
<p>On all orders</p></article>
</div></section>
<section id="history"><h2>Software Comparison History</h2><ol class="timeline">
<li>1 May: Slack vs Teams</li><li>3 May: Zoom vs Meet</li></ol></section>
</body></html>"""
FORUM = """<!doctype html><html><head><title>Community Forum</title></head><body>
<h1>Community Forum</h1><p>Threads</p><a href="./index.html#top">Back to the homepage</a>
</body></html>"""
RESOURCES = """<!doctype html><html><head><title>Resources</title></head><body>
<section><h1>Resources</h1><ul class="categories">
<li class="cat"><svg class="icon" width="16" height="16"></svg><h3>Guides</h3></li>
<li class="cat"><svg class="icon" width="16" height="16"></svg><h3>Calculators</h3></li>
</ul></section><a href="forum.html">Forum</a></body></html>"""


def _facts(text: str = "", pictures=()) -> PageFacts:
    return PageFacts(text=text, pictures=list(pictures))


@pytest.fixture
def site(tmp_path) -> Path:
    (tmp_path / "index.html").write_text(INDEX, encoding="utf-8")
    (tmp_path / "forum.html").write_text(FORUM, encoding="utf-8")
    (tmp_path / "resources.html").write_text(RESOURCES, encoding="utf-8")
    return tmp_path


def _judge(site: Path, text: str, facts: PageFacts | None = None) -> tuple[str, str]:
    dom = SiteDom(site)

    async def render(site_dir, file, width):
        return _facts(), None

    view = PageView("index.html", facts or _facts("Trending Coupons Hot New"),
                    dom.page("index.html"))  # fmt: skip
    check = SiteCheck(site, "index.html", view, "k", _Cache(), render_page=render)
    return asyncio.run(check.judge(read_condition(text)))


def test_things_pass_where_the_markup_shows_them_and_fail_where_it_does_not(site):
    assert _judge(site, BADGE)[0] == "pass"
    status, detail = _judge(site, TIMELINE)
    assert status == "unchecked" and "timeline" not in detail.split("not read:")[-1]
    plain = site.parent / "plain"
    plain.mkdir()
    (plain / "index.html").write_text(
        INDEX.replace('class="badge"', 'class="tag-line"').replace('class="timeline"', ""),
        encoding="utf-8",
    )
    for name in ("forum.html", "resources.html"):
        (plain / name).write_text((site / name).read_text(encoding="utf-8"), encoding="utf-8")
    status, detail = _judge(plain, BADGE)
    assert status == "fail" and "badge" in detail
    status, detail = _judge(plain, TIMELINE)
    assert status == "fail" and "no timeline" in detail
    assert _judge(site, ICONS)[0] == "pass"
    (plain / "resources.html").write_text(
        RESOURCES.replace('<svg class="icon" width="16" height="16"></svg>', ""), encoding="utf-8"
    )
    status, detail = _judge(plain, ICONS)
    assert status == "fail" and "icon" in detail


def test_a_way_back_to_the_homepage_is_a_link_on_that_page(site):
    status, detail = _judge(site, BACK)
    assert status == "pass" and "forum.html leads home" in detail
    (site / "forum.html").write_text(FORUM.replace("./index.html#top", "#threads"),
                                     encoding="utf-8")  # fmt: skip
    status, detail = _judge(site, BACK)
    assert status == "fail" and "no link on forum.html" in detail
    assert home_target("../index.html", "pages/a.html")
    assert home_target("/", "about.html")
    assert not home_target("index.html#pricing", "about.html")  # a section, not the homepage
    assert not home_target("https://example.com/index.html", "about.html")


def test_thumbnails_are_counted_from_the_pictures_boxes(site):
    from mmstudio.requirements.condition_things import check_thing

    part = next(p for p in read_condition(THUMBS).parts if p.checker == "cond.thing")
    dom = SiteDom(site).page("index.html")
    small = [Picture(kind="img", rect=Box(x=40 + 220 * n, y=300, w=200, h=150)) for n in range(3)]
    assert check_thing(part, PageView("index.html", _facts(pictures=small), dom)).status == "pass"
    hero = [Picture(kind="img", rect=Box(w=1280, h=600))]
    found = check_thing(part, PageView("index.html", _facts(pictures=hero), dom))
    assert found.status == "fail" and "0 thumbnail-sized" in found.message


def test_thumbnails_drawn_inline_count_and_icons_do_not(tmp_path):
    """The feature builder draws a card's thumbnail as an inline ``<svg role="img">``: no
    ``<img>`` in the facts, but a picture all the same; a 16 px svg icon is no thumbnail."""
    from mmstudio.requirements.condition_things import check_thing

    part = next(p for p in read_condition(THUMBS).parts if p.checker == "cond.thing")
    card = '<li class="card"><svg class="fb-thumb" viewBox="0 0 240 120" role="img"></svg>A</li>'
    icon = '<li class="card"><svg class="icon" width="16" role="img"></svg>A</li>'
    (tmp_path / "index.html").write_text(f"<ul>{card * 3}</ul>", encoding="utf-8")
    (tmp_path / "icons.html").write_text(f"<ul>{icon * 3}</ul>", encoding="utf-8")
    dom = SiteDom(tmp_path)
    drawn = check_thing(part, PageView("index.html", _facts(), dom.page("index.html")))
    assert drawn.status == "pass" and "3 drawn inline" in drawn.message
    icons = check_thing(part, PageView("icons.html", _facts(), dom.page("icons.html")))
    assert icons.status == "fail"


REACHED_PAGE = (
    "Verify that the \u201cDeal Categories\u201d page is accessible from the homepage via the "
    "navigation menu."
)
REACHED_NAME = "Community Engagement Forum is accessible from the homepage."


def test_a_page_or_feature_reached_from_the_homepage(tmp_path):
    from mmstudio.render.facts import TextBlock

    assert read_condition(REACHED_PAGE).checkable and read_condition(REACHED_NAME).checkable
    nav = '<header><nav><a href="index.html">Home</a> <a href="deals.html">Deal Categories</a>'
    (tmp_path / "index.html").write_text(
        f"{nav}</nav></header><main><h2>Welcome</h2>"
        '<p><a href="forum.html">Community Engagement Forum</a></p></main>',
        encoding="utf-8",
    )
    (tmp_path / "deals.html").write_text("<title>Deal Categories</title><h1>Deal Categories</h1>")
    (tmp_path / "forum.html").write_text("<title>Forum</title><h1>Community Engagement Forum</h1>")
    menu = [
        TextBlock(tag="a", text=t, rect=Box(x=20 + 140 * n, y=10, w=120, h=30), link=True,
                  header=True)
        for n, t in enumerate(("Home", "Deal Categories"))
    ]  # fmt: skip
    facts = PageFacts(text="Home Deal Categories Welcome Community Engagement Forum", blocks=menu)
    status, detail = _judge(tmp_path, REACHED_PAGE, facts)
    assert status == "pass" and "leads to deals.html" in detail
    assert _judge(tmp_path, REACHED_NAME, facts)[0] == "pass"
    # the link is there, but not in the menu the condition names: no pass
    (tmp_path / "index.html").write_text(
        '<header><nav><a href="index.html">Home</a></nav></header><main>'
        '<p><a href="deals.html">Deal Categories</a></p></main>',
        encoding="utf-8",
    )
    status, detail = _judge(tmp_path, REACHED_PAGE, PageFacts(text="Home", blocks=menu[:1]))
    assert status == "fail" and "no link of the menu" in detail
    (tmp_path / "forum.html").unlink()
    status, detail = _judge(tmp_path, REACHED_NAME, PageFacts(text="Home", blocks=menu[:1]))
    assert status == "fail" and "Community Engagement Forum" in detail


CLICK_ITEM = (
    "Check that clicking a headline in the \u201cLatest News\u201d section on the homepage takes "
    "the user to the full article page."
)


def _news(items: str) -> str:
    return (
        f'<main><section id="latest-news"><h2>Latest News</h2><ul class="news">{items}</ul>'
        "</section></main>"
    )


def test_clicking_an_item_leads_to_its_own_page(tmp_path):
    reading = read_condition(CLICK_ITEM)
    assert reading.checkable and any(p.checker == "cond.item_link" for p in reading.parts)
    linked = "".join(
        f'<li><h3><a href="{n}.html">{t}</a></h3><p>Short summary of it.</p></li>'
        for n, t in (("rates", "Rates rise again"), ("port", "New port opens"))
    )
    (tmp_path / "index.html").write_text(_news(linked), encoding="utf-8")
    for n, t in (("rates", "Rates rise again"), ("port", "New port opens")):
        (tmp_path / f"{n}.html").write_text(f"<title>{t}</title><h1>{t}</h1>", encoding="utf-8")
    facts = PageFacts(text="Latest News Rates rise again New port opens")
    status, detail = _judge(tmp_path, CLICK_ITEM, facts)
    assert status == "pass" and "link to port.html, rates.html" in detail
    plain = "".join(f"<li><h3>{t}</h3><p>Short summary of it.</p></li>" for t in ("A1", "B2"))
    (tmp_path / "index.html").write_text(_news(plain), encoding="utf-8")
    status, detail = _judge(tmp_path, CLICK_ITEM, facts)
    assert status == "fail" and "are no links" in detail
    dead = "".join(f'<li><h3><a href="#">{t}</a></h3><p>Short summary.</p></li>' for t in "AB")
    (tmp_path / "index.html").write_text(_news(dead), encoding="utf-8")
    status, detail = _judge(tmp_path, CLICK_ITEM, facts)
    assert status == "fail" and "2 lead nowhere" in detail
    scripted = "".join(f"<li><h3>{t}</h3><button>Read</button></li>" for t in ("A1", "B2"))
    (tmp_path / "index.html").write_text(_news(scripted), encoding="utf-8")
    assert _judge(tmp_path, CLICK_ITEM, facts)[0] == "unchecked"  # a script may handle them


def test_social_icons_by_their_pictures_and_a_filter_that_sorts_is_a_filter(tmp_path):
    from mmstudio.requirements.condition_things import check_thing

    social = (
        "Social media icons are visible in the footer and rotate slightly upon hover on the "
        "homepage."
    )
    part = next(p for p in read_condition(social).parts if p.role == "social")
    (tmp_path / "index.html").write_text('<footer><a href="#"><img alt="Facebook"></a></footer>')
    dom = SiteDom(tmp_path).page("index.html")
    logo = Picture(kind="img", alt="Facebook", rect=Box(x=10, y=900, w=24, h=24))
    assert check_thing(part, PageView("index.html", _facts(), dom)).status == "fail"
    found = check_thing(part, PageView("index.html", PageFacts(icons=[logo]), dom))
    assert found.status == "pass" and "Facebook" in found.message
    sorts = (
        "Test the filter functionality in the \u201cParenting Tips & Articles\u201d section to "
        "ensure it correctly sorts articles by selected topics."
    )
    assert ("cond.thing", "sort") not in _checkers(sorts)  # the words call a filter "sorting"
