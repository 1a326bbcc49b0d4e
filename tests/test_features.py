"""Features built offline from a turn's words (mmstudio.feedback.features, MM Studio issue 16) and
the FronTalk condition parts that check them (per-item claims, hover effects, motion, icons):
what the words are read into, the markup built in the page's own classes, the kit driven in
Chromium, and checks that fail on a page without the feature."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mmstudio.feedback import functional
from mmstudio.feedback.features import (
    FeatureSpec,
    build,
    entry_copy,
    entry_subject,
    find_feature,
    read_clause,
)
from mmstudio.feedback.requirements import split_offline
from mmstudio.pipeline import behaviours as kit
from mmstudio.refine import guardrails
from mmstudio.render import find_browser
from mmstudio.requirements.condition_hover import check_hover, check_motion
from mmstudio.requirements.condition_items import check_icon, check_items
from mmstudio.requirements.conditions import read_condition

requires_browser = pytest.mark.skipif(
    find_browser().executable is None,
    reason=f"no Chromium for Playwright: {find_browser().problem}",
)
session_loop = pytest.mark.asyncio(loop_scope="session")

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Wasted Talent</title>
<style>.card{border:1px solid #ccc}</style></head><body id="top">
<header id="header" data-mm-section="header" class="site-header"><div class="wrap">
<div class="header-bar"><h1>Wasted Talent</h1><div class="header-tools"></div></div></div></header>
<main id="main"><section id="hero" data-mm-section="hero" class="section"><div class="wrap">
<h2>Comics</h2></div></section></main></body></html>"""


def _one(text: str) -> FeatureSpec:
    spec = read_clause(text)
    assert spec is not None, text
    return spec


def test_a_named_section_with_a_button_that_leads_somewhere_is_read():
    spec = _one(
        'Introduce a "Featured Comic" section on the homepage that highlights a selected comic '
        'strip, with a brief description and a "Read More" button that navigates to the archive'
    )
    assert spec.name == "Featured Comic"
    assert [(c.label, c.role, c.menu) for c in spec.controls] == [("Read More", "button", False)]
    assert "archive" in spec.controls[0].dest
    assert spec.about.startswith("Highlights a selected comic strip")


def test_menu_links_kits_sorts_and_categories_are_read():
    wish = _one('Introduce a "Software Wishlist" feature accessible via a "Wishlist" link')
    assert wish.name == "Software Wishlist" and wish.controls[0].menu
    quiz = _one('Integrate a "Comic Quiz" feature with trivia questions and a "Take Quiz" button')
    assert "quiz" in quiz.kits
    sort = _one(
        "Enhance the User Reviews and Ratings Section by implementing a sorting dropdown "
        'allowing users to sort reviews by "Most Recent," "Highest Rating," and "Lowest Rating."'
    )
    assert sort.name == "User Reviews and Ratings"
    assert [v for _, v in sort.sorts] == ["date-desc", "rating-desc", "rating-asc"]
    tags = _one('Add a filter to the Project Gallery with categories such as "Homes", "Offices"')
    assert tags.options == ["Homes", "Offices"] and "filter" in tags.kits
    assert read_clause("Make the title red") is None  # a colour, not a feature


def test_a_turn_becomes_feature_requirements_and_keeps_the_rest():
    reqs = split_offline(
        'Introduce a "Featured Comic" section with a "Read More" button. Ensure the featured '
        "comic changes weekly. Make the header red.",
        [],
        [],
    )
    assert [r.op for r in reqs] == ["feature", "free", "colour"]
    assert FeatureSpec.loads(reqs[0].content).name == "Featured Comic"


def test_build_places_a_section_in_the_page_classes_with_a_menu_link_and_no_duplicate():
    spec = _one(
        'Introduce a "Top Rated Software" section accessible via a "Top Rated" link on the '
        "homepage, showcasing the highest-rated software products with their rating"
    )
    page, names = build(PAGE, spec, "t2-r1")
    assert names == []
    assert 'data-mm-section="fb-top-rated-software"' in page
    assert '<a href="#top-rated-software">Top Rated</a>' in page  # in the header's nav
    assert page.count('class="card"') == 6 and "★" in page
    assert not guardrails.page_problems(PAGE, page)
    history = _one('Introduce a "Software Comparison History" feature listing past comparisons')
    tool, _ = build(PAGE, _one('Add a "Dynamic Software Comparison Tool" section'), "t1")
    both, _ = build(tool, history, "t2")  # a name sharing two words is another feature
    assert "fb-software-comparison-history" in both and "fb-dynamic-software" in both
    again, _ = build(page, spec, "t3-r1")  # the feature exists: extended, never doubled
    assert again.count('data-mm-section="fb-top-rated-software"') == 1
    assert again.count(">Top Rated</a>") == 1


def test_a_search_added_later_filters_the_cards_already_there():
    page, _ = build(PAGE, _one('Add a "Comic Archive" section listing past comic strips'), "t2")
    page, names = build(
        page, _one("Enhance the Comic Archive by adding a search bar for keywords"), "t3"
    )
    assert names == ["filter"]
    archive = find_feature(page, "Comic Archive")
    inside = page[archive.start : archive.end]
    assert 'data-mm-behaviour="filter"' in inside and inside.count("data-mm-item") == 6
    assert kit.head_tags(["filter"]).splitlines()[1] in page


def test_a_footer_a_sticky_bar_and_hover_effects_are_built():
    page, _ = build(
        PAGE,
        _one(
            "Introduce a footer with social media icons, contact information and a brief "
            '"About" section on a dark background'
        ),
        "t4",
    )
    assert "<footer" in page and "fb-footer-dark" in page and "hello@wastedtalent.example" in page
    page, _ = build(page, _one("Introduce a sticky navigation bar at the top"), "t5")
    assert "fb-sticky" in page
    page, _ = build(PAGE, _one('Add a "Gallery" section of project images'), "t6")
    page, _ = build(page, _one("Add hover effects that slightly enlarge the cards"), "t7")
    assert ":hover{transform:scale(1.05)}" in page.replace(" ", "")
    page, _ = build(page, _one("Ensure each card includes an icon for its category"), "t8")
    assert page.count('class="fb-icon"') == 6  # every card of the gallery, once
    again, _ = build(page, _one("Ensure each card includes an icon for its category"), "t9")
    assert again.count('class="fb-icon"') == 6


# --- condition parts that check the features ------------------------------------------------


def _part(condition: str, checker: str):
    reading = read_condition(condition)
    return next(p for p in reading.parts if p.checker == checker)


def test_per_item_claims_pass_on_complete_items_and_fail_on_missing_ones():
    condition = (
        'In the "Top Rated Software" section, each software in the list includes its name, '
        "average rating, and a short description."
    )
    part = _part(condition, "cond.items")
    assert part.label == "Top Rated Software" and set(part.values) >= {"title", "rating", "text"}
    built, _ = build(
        PAGE, _one('Add a "Top Rated Software" section listing software with ratings'), "t1"
    )
    assert check_items(part, built, "index.html").status == "pass"
    bare = re.sub(r'<p class="item-label">.*?</p>', "", built)  # the cards without ratings
    failed = check_items(part, bare, "index.html")
    assert failed.status == "fail" and "rating" in failed.message
    assert check_items(part, PAGE, "index.html").status == "fail"  # no such section
    assert "each" not in read_condition(condition).unread


def test_hover_motion_and_icon_checks_read_the_style_sheets_and_can_fail():
    hover = _part("Hovering over a card slightly elevates it and changes its border color.",
                  "cond.hover")  # fmt: skip
    assert hover.label == "card" and {"lift", "border"} <= set(hover.values)
    good = ".card{transition:transform .2s}.card:hover{transform:translateY(-4px);border-color:red}"
    assert check_hover(hover, good).status == "pass"
    assert check_hover(hover, ".card:hover{color:red}").status == "fail"
    assert check_hover(hover, ".card{transform:translateY(-4px)}").status == "fail"
    motion = _part("The banner slides in from the top with a subtle animation.", "cond.motion")
    css = "@keyframes drop{from{opacity:0}}.banner{animation:drop .4s ease}"
    assert check_motion(motion, css).status == "pass"
    assert check_motion(motion, ".banner{color:red}").status == "fail"
    icon = _part("Social media icons are visible in the footer.", "cond.icon")
    assert check_icon(icon, '<svg class="fb-icon" width="28"></svg>', "i.html").status == "pass"
    assert check_icon(icon, "<p>★ 4.5 / 5 rated</p>", "i.html").status == "fail"


# --- the built features driven in Chromium ---------------------------------------------------


def _site(tmp_path: Path, page: str, names: list[str]) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    kit.install(site, names)
    (site / "index.html").write_text(page, encoding="utf-8")
    return site


@requires_browser
@session_loop
async def test_the_built_search_and_sort_work_and_a_bare_copy_fails(renderer, tmp_path):
    spec = _one(
        'Add a "Reviews" section of reviews with a search bar and a sorting dropdown to sort by '
        '"Most Recent" and "Lowest Rating"'
    )
    page, names = build(PAGE, spec, "t1")
    site = _site(tmp_path, page, names)
    copy = entry_copy(spec.subject, "")  # a word of one entry only: typing it leaves that one
    word = next(w for _t, x in copy for w in re.findall(r"[a-z]{5,}", x.lower())
                if sum(w in f"{t2} {x2}".lower() for t2, x2 in copy) == 1)  # fmt: skip
    steps = functional.parse_script([
        {"action": "select", "selector": "select[data-mm-sort]", "text": "rating-asc"},
        {"action": "expect_visible",
         "selector": ".fb-cards > li:first-child[data-mm-sort-rating='3.9']"},
        {"action": "type", "selector": "[data-mm-filter-input]", "text": word},
        {"action": "expect_text", "selector": "[data-mm-filter-count]", "text": "1 of 6 shown"},
    ])  # fmt: skip
    working = await functional.run_script(site, steps)
    assert working.passed, working.detail
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "index.html").write_text(page, encoding="utf-8")  # the markup, no kit scripts
    assert not (await functional.run_script(bare, steps)).passed


def test_a_sentence_that_ends_inside_a_quote_ends_its_clause():
    text = (
        'Create a "Software Exploration" feature, which lists categories like "Accounting" and '
        '"Project Management." Include a reviews section where users can read existing reviews.'
    )
    reqs = split_offline(text, [], [])
    assert reqs[0].op == "feature" and reqs[0].value == "Software Exploration"
    assert reqs[0].text.endswith('"Project Management"') and "reviews" not in reqs[0].text
    assert len(reqs) == 2


def test_a_part_of_the_site_a_turn_refines_is_built_when_it_is_missing():
    clause = (
        "Enhance the visual design of the lawyer and legal services directory page by "
        "incorporating a professional and user-friendly layout"
    )
    spec = _one(clause)
    assert spec.name == "Lawyer and legal services directory"
    page, _ = build(PAGE, spec, "t3-r1")
    node = find_feature(page, "lawyer and legal services directory")
    assert node is not None and 'class="card"' in page[node.start : node.end]
    again, _ = build(page, _one(clause), "t4-r1")  # there now: refined, never built twice
    assert again.count(">Lawyer and legal services directory</h2>") == 1
    assert read_clause("Enhance the homepage by improving the overall layout") is None
    plural = _one("Refine the movie review pages by incorporating a consistent visual theme")
    assert plural.name == "Movie review"


def test_a_feature_introduced_into_another_is_built_beside_it():
    spec = _one(
        'Enhance the "Climate News Digest" section by integrating a dedicated "Weekly '
        'Highlights" feature that showcases the top three most impactful news stories'
    )
    assert spec.name == "Weekly Highlights" and spec.place == "after:Climate News Digest"
    assert spec.subject == "news story"
    digest = PAGE.replace(
        "</main>",
        '<section id="digest" data-mm-section="digest"><div class="wrap"><h2>Climate News '
        'Digest</h2></div></section><section id="last" data-mm-section="last"><h2>Last</h2>'
        "</section></main>",
    )
    page, _ = build(digest, spec, "t8-r1")
    assert page.index(">Climate News Digest<") < page.index(">Weekly Highlights<")
    assert page.index(">Weekly Highlights<") < page.index(">Last<")


def test_entries_of_a_feature_already_there_gain_icons_dates_and_their_own_buttons():
    news = PAGE.replace(
        "</main>",
        '<section id="news" data-mm-section="news" aria-label="News"><div class="wrap">'
        '<h2>News</h2><ul class="items"><li class="card"><h3>Fair</h3><p>Saturday.</p></li>'
        '<li class="card"><h3>Choir</h3><p>Sunday.</p></li></ul></div></section></main>',
    )
    reqs = split_offline(
        'Integrate a "News" section. This section should display a list of the latest news '
        'articles, each with a headline, publication date, and a "Read More" button. Add a '
        "small, decorative icon next to each headline in the News section.",
        [], [],
    )  # fmt: skip
    built = [r for r in reqs if r.op == "feature"]
    assert [r.value for r in built] == ["News"] * len(built) and len(built) >= 3
    page = news
    for req in built:
        page, _ = build(page, FeatureSpec.loads(req.content), req.id or "t1-r1")
    node = find_feature(page, "News")
    section = page[node.start : node.end]
    cards = re.findall(r"<li class=\"card\">.*?</li>", section, re.S)
    assert len(cards) == 2
    for card in cards:
        assert 'class="fb-icon"' in card and re.search(r"\d+ May 2025", card)
        assert card.count(">Read More</a>") == 1
    part = read_condition("Each news item in the News section shows a date").parts
    items = next(p for p in part if p.checker == "cond.items")
    assert check_items(items, page, "index.html").status == "pass"
    assert check_items(items, news, "index.html").status == "fail"


def test_rounded_corners_and_borders_are_read_and_checked_on_the_style_sheets():
    from mmstudio.requirements.condition_shape import check_shape

    reading = read_condition("Each lawyer card has rounded corners and a thin border.")
    shapes = {p.checker: p for p in reading.parts if p.checker in ("cond.rounded", "cond.border")}
    assert set(shapes) == {"cond.rounded", "cond.border"} and shapes["cond.rounded"].label == "card"
    assert not {"rounded", "corners", "border"} & set(reading.unread)
    good = ":root{--radius:10px} .card{border-radius:var(--radius);border:1px solid #ccc}"
    flat = ":root{--radius:0} .card{border-radius:var(--radius);border:none}"
    hover_only = ".card:hover{border-radius:12px;border:1px solid red} p{border-radius:9px}"
    for part in shapes.values():
        assert check_shape(part, good).status == "pass"
        assert check_shape(part, flat).status == "fail"
        assert check_shape(part, hover_only).status == "fail"
    circle = next(p for p in read_condition("User avatars are circular.").parts
                  if p.checker == "cond.rounded")  # fmt: skip
    assert check_shape(circle, ".avatar img{border-radius:50%}").status == "pass"
    assert check_shape(circle, ".avatar img{border-radius:8px}").status == "fail"
    # a border only a hover changes is the hover part's; a border of nothing named stays unread
    hovered = read_condition("Hovering over a card changes its border color.")
    assert not [p for p in hovered.parts if p.checker == "cond.border"]
    vague = read_condition("The page has a nice border.")
    assert not vague.parts and "border" in vague.unread


def test_the_look_a_turn_asks_of_a_features_entries_is_built():
    from mmstudio.requirements.condition_shape import check_shape

    reqs = split_offline(
        "Enhance the visual design of the lawyer directory page by incorporating a clean "
        "layout. Use a card-based design for each lawyer's profile, with rounded corners and a "
        "subtle shadow effect to create depth.",
        [], [],
    )  # fmt: skip
    assert [r.op for r in reqs] == ["feature", "feature"]
    page = PAGE
    for req in reqs:
        page, _ = build(page, FeatureSpec.loads(req.content), "t3-r1")
    css = " ".join(re.findall(r"<style[^>]*>(.*?)</style>", page, re.S))
    part = next(p for p in read_condition("Lawyer cards have rounded corners.").parts
                if p.checker == "cond.rounded")  # fmt: skip
    assert check_shape(part, css).status == "pass"
    assert check_shape(part, " ".join(re.findall(r"<style[^>]*>(.*?)</style>", PAGE, re.S))
                       ).status == "fail"  # fmt: skip
    assert re.search(r"#lawyer-directory \.card[^{]*\{[^}]*box-shadow", css)


def test_a_dropdown_asked_after_the_categories_turns_their_buttons_into_a_select():
    reqs = split_offline(
        'Enhance the Event Calendar by adding a filtering feature that allows users to sort '
        'events by categories such as "Worship Services," "Community Events," and "Workshops." '
        "Place a dropdown menu at the top of the Event Calendar page to facilitate this "
        "filtering.",
        [], [],
    )  # fmt: skip
    page = PAGE
    for n, req in enumerate(r for r in reqs if r.op == "feature"):
        page, _ = build(page, FeatureSpec.loads(req.content), f"t9-r{n}")
    section = page[find_feature(page, "Event Calendar").start :]
    assert "mm-filter-tags" not in section
    select = re.search(r"<select[^>]*data-mm-filter-select>(.*?)</select>", section, re.S)
    assert select and re.findall(r">([^<]+)</option>", select.group(1)) == [
        "All", "Worship Services", "Community Events", "Workshops"]  # fmt: skip
    items = re.findall(r'data-mm-tags="([^"]+)"', section)
    assert {"worship-services", "community-events", "workshops"} <= set(items)


def test_a_separate_page_named_by_its_menu_label_is_a_page_of_its_own():
    spec = _one(
        "Create a separate page accessible from the homepage via a navigation menu labeled "
        '"Coupon Stacking Guide," which offers tips and strategies for combining coupons'
    )
    assert spec.name == "Coupon Stacking Guide" and spec.page
    assert [(c.label, c.menu) for c in spec.controls] == [("Coupon Stacking Guide", True)]
    assert not _one('Introduce a "Featured Deals" section on the homepage').page
    # a page a turn refines is refined where it is (built as a section when missing)
    assert not _one("Enhance the visual design of the lawyer directory page by adding icons").page


def test_sample_entries_come_from_the_subject_the_words_give():
    """The entries of a built feature are about what the turn says it lists (real FronTalk
    instructions), not "Deal 1 — Picked by the editors this week."; the copy is data."""
    comics = _one('Introduce a "Comic Archive" section showcasing past comic strips')
    page, _names = build(PAGE, comics, "t1")
    assert comics.subject == "comic strip"
    titles = [t for t, _x in entry_copy("comic strip", "Wasted Talent")]
    assert all(f">{t}<" in page for t in titles[:3])
    assert "Picked by the editors" not in page and "Comic Strip 1" not in page
    # a subject the copy file does not know: numbered titles, texts naming the subject and site
    copy = entry_copy("milestone", "Baby Steps")
    assert copy[0][0] == "Milestone 1" and "Baby Steps" in " ".join(x for _t, x in copy)
    # words that name no subject ("a list of their …") fall back to the feature's own noun
    assert entry_subject("of their", "Software Wishlist") == "wishlist"
    assert entry_subject("a curated list of recipes") == "recipes"
    assert entry_subject("page") == "entry"
    clause = (  # 520ebabf turn 5: "Available 1 — A available from Deal Categories …"
        'Develop a "Deal Categories" page accessible via the homepage navigation menu, providing '
        "users with a comprehensive list of available deal categories such as clothing, shoes."
    )
    assert read_clause(clause).subject == "deal"


def test_a_feature_on_this_page_goes_into_the_turns_page():
    """FronTalk 520ebabf, turn 5: "Develop a “Deal Categories” page … Integrate a filter
    functionality on this page, …" built a page "Filter functionality on this"."""
    clause = (
        "Integrate a filter functionality on this page, allowing users to narrow down deals by "
        "parameters like discount percentage or brand."
    )
    spec = read_clause(clause, "Deal Categories")
    assert spec is not None and spec.name == "" and not spec.page and "filter" in spec.kits
    reqs = split_offline(
        'Develop a "Deal Categories" page accessible via the homepage navigation menu. ' + clause,
        [], [],
    )  # fmt: skip
    names = [FeatureSpec.loads(r.content).name for r in reqs if r.op == "feature"]
    assert names and all(n == "Deal Categories" for n in names)
