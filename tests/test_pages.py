"""Sites, not pages (issue 16): multi-page plans, the offline planner's pages, one HTML file per
page, evaluation of every page, export clicked through from ``file://``, page removal."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from mmstudio.evaluate import core
from mmstudio.pipeline import pages as site_pages
from mmstudio.pipeline.generate import build_site
from mmstudio.plan import HOME_PATH, DesignPlan, Section, add_page, remove_page, slot_problems
from mmstudio.project.export import export_site, hygiene_problems
from mmstudio.providers.offline import layout
from mmstudio.providers.offline.designer import OfflineDesigner
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_pages import asked_pages
from mmstudio.render import find_browser
from mmstudio.render.browser import BrowserPool

requires_browser = pytest.mark.skipif(
    find_browser().executable is None, reason="no Chromium for Playwright on this machine"
)
session_loop = pytest.mark.asyncio(loop_scope="session")

BAKERY = (
    "A website for Crumb & Co., a bakery in Leeds, with a hero photo, a menu of breads with "
    "prices, an about page with the founder's story and a portrait, and a contact page with a "
    "form."
)
ONE_PAGE = "A landing page for a smart water bottle with a hero photo, three features and a FAQ."


def _one_page() -> DesignPlan:
    return plan_from_prompt(ONE_PAGE)


# --- the plan ---------------------------------------------------------------------------------


def test_a_plan_written_before_pages_loads_as_one_home_page():
    data = json.loads(_one_page().model_dump_json())
    data.pop("pages")
    for section in data["sections"]:
        section.pop("page")
    plan = DesignPlan.model_validate(data)
    assert plan.pages == [] and not plan.multi_page
    (home,) = plan.site_pages()
    assert (home.id, home.path) == ("home", HOME_PATH)
    assert plan.page_sections("home") == plan.sections
    assert plan.page_of(plan.sections[1].id).path == HOME_PATH


def test_add_page_then_remove_page_round_trip():
    plan = _one_page()
    about = Section(id="story", kind="content", title="Our story", paragraphs=["Since 2019."])
    site, page = add_page(plan, "About us", sections=[about])
    assert (page.id, page.path) == ("about-us", "about-us.html")
    assert [p.path for p in site.site_pages()] == ["index.html", "about-us.html"]
    assert site.section("story").page == "about-us"
    header = next(s for s in site.sections if s.kind == "header")
    assert "About us" in header.nav_items
    view = site.page_view("about-us")
    assert [s.id for s in view.sections] == [
        s.id for s in site.sections if s.kind in ("header", "footer") or s.id == "story"
    ]
    assert view.current_page == page and view.site is site
    assert "story" not in [s.id for s in site.page_sections("home")]
    back = remove_page(site, "about-us")
    assert [p.path for p in back.site_pages()] == ["index.html"]
    assert "story" not in [s.id for s in back.sections]
    assert "About us" not in next(s for s in back.sections if s.kind == "header").nav_items
    with pytest.raises(ValueError, match="home page"):
        remove_page(site, "home")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["pages"].reverse(), "first page must be index.html"),
        (lambda d: d["pages"][1].update(path="index.html"), "duplicate page files"),
        (lambda d: d["sections"][1].update(page="nowhere"), "unknown page"),
        (lambda d: d["pages"][1].update(path="../x.html"), "pattern"),
    ],
)
def test_invalid_pages_are_refused(change, message):
    site, _page = add_page(_one_page(), "Contact")
    data = json.loads(site.model_dump_json())
    change(data)
    with pytest.raises(ValidationError, match=message):
        DesignPlan.model_validate(data)


# --- the offline planner -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("brief", "names"),
    [
        ("A bakery site with an about page.", ["about"]),
        ("A studio site. Add a pricing page and a contact page.", ["pricing", "contact"]),
        ("A multi-page site with Home, Menu, Contact for a cafe called Nove.", ["Menu", "Contact"]),
        ("A cafe site; it needs about, menu and contact pages.", ["about", "menu", "contact"]),
        ('Integrate a "Contact Us" page accessible from the homepage.', ["Contact Us"]),
        (
            "Create a separate page accessible from the homepage via a navigation menu labeled "
            '"Coupon Stacking Guide," which lists tips.',
            ["Coupon Stacking Guide"],
        ),
        (
            "Users access separate pages for Business, World, and Politics news.",
            ["Business", "World", "Politics"],
        ),
        (ONE_PAGE, []),
        ("A product page for a lamp: the page has a hero and a spec table.", []),
        ("Make the page feel calm—only static illustrations, icons, and text.", []),
    ],
)
def test_the_pages_a_brief_asks_for(brief, names):
    assert [p.name for p in asked_pages(brief)] == names


def test_a_one_page_prompt_gives_one_page():
    plan = _one_page()
    assert plan.pages == [] and all(s.page is None for s in plan.sections)


def test_the_bench_prompts_stay_one_page():
    bench = Path(__file__).parents[2] / "shared" / "data" / "bench" / "mm_webgen_dev.jsonl"
    if not bench.is_file():
        pytest.skip("no MM-WebGEN dev prompts here")
    prompts = [json.loads(line)["prompt"] for line in bench.read_text().splitlines() if line]
    assert [i for i, p in enumerate(prompts) if asked_pages(p)] == []


def test_the_planner_puts_each_part_on_the_page_the_brief_names():
    plan = plan_from_prompt(BAKERY)
    assert [(p.id, p.path) for p in plan.pages] == [
        ("home", "index.html"),
        ("about", "about.html"),
        ("contact", "contact.html"),
    ]
    home = {s.kind for s in plan.page_sections("home")}
    assert {"header", "hero", "pricing", "footer"} <= home and "form" not in home
    about = [s.title for s in plan.page_sections("about") if s.kind not in ("header", "footer")]
    assert about == ["About", "Portrait"]
    assert [s.kind for s in plan.page_sections("contact")] == ["header", "form", "footer"]
    header = next(s for s in plan.sections if s.kind == "header")
    assert header.page is None and header.nav_items[0] == "Home"
    assert {p.label for p in plan.pages} <= set(header.nav_items)


def test_a_page_the_brief_only_names_gets_its_own_sections_and_home_keeps_a_hero():
    plan = plan_from_prompt("A site for Nove, a cafe. It needs about, menu and contact pages.")
    assert [p.path for p in plan.pages] == ["index.html", "about.html", "menu.html", "contact.html"]
    for page in plan.pages:
        body = [s for s in plan.page_sections(page.id) if s.kind not in ("header", "footer")]
        assert body, f"{page.path} has no section"
    assert any(s.kind == "hero" for s in plan.page_sections("home"))
    assert any(s.kind == "pricing" and s.items for s in plan.page_sections("menu"))
    assert any(s.kind == "form" for s in plan.page_sections("contact"))


def test_a_listed_site_keeps_its_name_and_its_parts_and_no_page_name_becomes_a_section():
    plan = plan_from_prompt(
        "A multi-page site for Nove, a cafe in Porto, with Home, Menu, About, Events and Contact "
        "pages: a hero photo on the home page, a menu of coffees with prices, the founder's "
        "story, a list of tasting events and a contact form."
    )
    assert plan.title == "Nove"
    assert [p.title for p in plan.pages] == ["Nove", "Menu", "About", "Events", "Contact"]
    header = next(s for s in plan.sections if s.kind == "header")
    assert header.nav_items == ["Home", "Menu", "About", "Events", "Contact"]
    assert not [s.title for s in plan.sections if s.title in ("Home", "Multi-page")]
    assert any(s.kind == "hero" and s.element_ids for s in plan.page_sections("home"))
    assert any(s.kind == "pricing" for s in plan.page_sections("menu"))
    assert any(s.kind == "form" for s in plan.page_sections("contact"))


# --- layout -----------------------------------------------------------------------------------


def test_every_page_links_every_other_page_file_and_marks_itself():
    plan = plan_from_prompt(BAKERY)
    files = {p.path for p in plan.site_pages()}
    for page in plan.site_pages():
        view = plan.page_view(page.id)
        html = layout.render_page(view)
        assert slot_problems(view, html) == []
        links = set(site_pages.page_links(html))
        assert files <= links, f"{page.path} misses links to {files - links}"
        assert links <= files
        assert f'href="{page.path}" aria-current="page"' in html
    about = layout.render_page(plan.page_view("about"))
    assert 'href="index.html#pricing"' in about  # the home page's "Menu" from another page
    assert "<title>About · Crumb &amp; Co</title>" in about


def test_a_one_page_plan_lays_out_as_before():
    plan = _one_page()
    assert layout.render_page(plan) == layout.render_page(plan.page_view("home"))
    assert "aria-current" not in layout.render_page(plan)


# --- generation, removal, export ----------------------------------------------------------------


def _build(plan: DesignPlan, site: Path) -> None:
    site.mkdir(parents=True)
    asyncio.run(build_site(plan, OfflineDesigner(), site))


def test_generation_writes_one_file_per_page_and_export_copies_them(tmp_path):
    plan = plan_from_prompt(BAKERY)
    site = tmp_path / "site"
    _build(plan, site)
    assert sorted(p.name for p in site.glob("*.html")) == [
        "about.html",
        "contact.html",
        "index.html",
    ]
    assert site_pages.dangling_links(site) == []
    out = export_site(site, tmp_path / "export")
    assert sorted(p.name for p in Path(out).glob("*.html")) == [
        "about.html",
        "contact.html",
        "index.html",
    ]
    assert hygiene_problems(Path(out)) == []


def test_a_removed_page_leaves_no_dangling_link(tmp_path):
    plan = plan_from_prompt(BAKERY)
    site = tmp_path / "site"
    _build(plan, site)
    after = site_pages.drop_page(site, plan, "about")
    assert not (site / "about.html").exists()
    assert site_pages.dangling_links(site) == []
    assert hygiene_problems(site) == []
    assert "about.html" not in (site / "index.html").read_text()
    assert [p.path for p in after.site_pages()] == ["index.html", "contact.html"]
    for page in after.site_pages():  # and a fresh layout of the new plan links no removed page
        html = layout.render_page(after.page_view(page.id))
        assert set(site_pages.page_links(html)) == {"index.html", "contact.html"}


def test_unlink_page_keeps_the_text_of_a_link_in_copy():
    html = (
        '<ul><li><a href="about.html">About</a></li><li><a href="index.html">Home</a></li></ul>'
        '<p>Read <a class="x" href="about.html#story">our story</a>.</p>'
    )
    assert site_pages.unlink_page(html, "about.html") == (
        '<ul><li><a href="index.html">Home</a></li></ul><p>Read our story.</p>'
    )


# --- in the browser -------------------------------------------------------------------------------


@requires_browser
@session_loop
async def test_an_exported_site_clicks_through_every_nav_link_from_a_file_url(renderer, tmp_path):
    from playwright.async_api import expect

    plan = plan_from_prompt(BAKERY)
    site = tmp_path / "site"
    site.mkdir()
    await build_site(plan, OfflineDesigner(), site)
    out = Path(export_site(site, tmp_path / "export"))
    # a browser of its own: the session's warm one may be restarted by another test's render
    # (a page that hangs is cut off by closing it), which would close this context mid-click
    pool = BrowserPool()
    browser = await pool.browser()
    context = await browser.new_context()
    context.set_default_timeout(15_000)
    expect.set_options(timeout=15_000)
    try:
        page = await context.new_page()
        visited = []
        for start in plan.site_pages():
            await page.goto((out / start.path).as_uri())
            nav = page.get_by_role("navigation").first
            for target in plan.site_pages():
                if not target.in_nav:
                    continue
                await page.goto((out / start.path).as_uri())
                await nav.get_by_role("link", name=target.label, exact=True).click()
                await expect(page).to_have_url((out / target.path).as_uri())
                current = page.locator('nav a[aria-current="page"]').first
                await expect(current).to_have_text(target.label)
                heading = plan.page_sections(target.id)[1].title
                await expect(page.get_by_role("heading", name=heading).first).to_be_visible()
                visited.append((start.path, target.path))
        assert len(visited) == len(plan.site_pages()) ** 2
        await page.goto((out / "about.html").as_uri())
        await page.get_by_role("link", name="Menu", exact=True).first.click()
        await expect(page).to_have_url((out / "index.html").as_uri() + "#pricing")
    finally:
        await context.close()
        await pool.close()
        expect.set_options(timeout=5_000)


@requires_browser
@session_loop
async def test_evaluation_renders_every_page_and_names_the_page_of_each_issue(renderer, tmp_path):
    plan = plan_from_prompt(BAKERY)
    site = tmp_path / "site"
    site.mkdir()
    await build_site(plan, OfflineDesigner(), site)
    clean = await core.evaluate(site, plan=plan, brief=BAKERY, out_dir=tmp_path / "r1")
    assert [p.path for p in clean.pages] == ["index.html", "about.html", "contact.html"]
    assert all(Path(p.screenshot).is_file() for p in clean.pages)
    assert clean.pages[1].screenshot != clean.pages[0].screenshot
    # break the contact page only: its copy runs off the right edge of a phone
    contact = site / "contact.html"
    contact.write_text(
        contact.read_text().replace(
            "</main>", '<div style="width:2400px;height:40px;background:#999">wide</div></main>'
        )
    )
    broken = await core.evaluate(site, plan=plan, brief=BAKERY, out_dir=tmp_path / "r2")
    new = {i.id for i in broken.issues} - {i.id for i in clean.issues}
    assert new, "the wide block on contact.html was not found"
    for issue in broken.issues:
        if issue.id in new and issue.source == "measured":
            assert issue.page == "contact.html"
            assert issue.message.startswith("contact.html: ")
    assert broken.pages[2].issues > clean.pages[2].issues
    assert broken.pages[0].issues == clean.pages[0].issues
    one = await core.evaluate(site / "about.html", out_dir=tmp_path / "r3")
    assert one.pages == [] and all(i.page is None for i in one.issues)


@requires_browser
@session_loop
async def test_feedback_turns_add_a_page_change_it_and_remove_it_with_no_dangling_link(
    renderer, tmp_path
):
    from mmstudio.feedback import FeedbackTurn
    from mmstudio.project import Project

    plan = plan_from_prompt(BAKERY)
    project = Project.create(tmp_path / "p", prompt=BAKERY, provider="offline", title="Crumb")
    staging = project.staging_dir() / "site"
    staging.mkdir(parents=True)
    await build_site(plan, OfflineDesigner(), staging)
    project.install_site(staging)
    project.write_plan(plan)
    project.commit("first")
    site = project.site_dir
    files = ["index.html", "about.html", "contact.html"]

    await FeedbackTurn(project, rescore=False).run(
        'Add a dedicated "Wholesale" page with a "Wholesale" link in the navigation menu, where '
        "cafes can see our bulk prices."
    )
    assert (site / "wholesale.html").is_file()
    for name in [*files, "wholesale.html"]:  # every page's navigation reaches the new page
        assert "wholesale.html" in site_pages.page_links((site / name).read_text()), name
    assert site_pages.dangling_links(site) == []
    new = (site / "wholesale.html").read_text()
    assert ">Wholesale</h2>" in new and '<a href="wholesale.html" aria-current="page">' in new
    assert "about.html" in site_pages.page_links(new)  # the shared frame came along
    assert [p.path for p in project.read_plan().site_pages()] == [*files, "wholesale.html"]
    built = [s for s in project.read_plan().sections if s.page == "wholesale"]
    assert [(s.kind, s.title) for s in built] == [("feature", "Wholesale")]  # the plan tree
    assert f'data-mm-section="{built[0].id}"' in new

    before = (site / "index.html").read_text()
    await FeedbackTurn(project, rescore=False).run(
        'Enhance the "Wholesale" page by adding a search bar to find breads.'
    )
    assert "data-mm-filter-input" in (site / "wholesale.html").read_text()  # a non-index page
    assert "data-mm-filter-input" not in (site / "index.html").read_text()
    assert (site / "index.html").read_text().count(">Wholesale<") == before.count(">Wholesale<")

    await FeedbackTurn(project, rescore=False).run("Remove the Wholesale page.")
    assert not (site / "wholesale.html").exists()
    assert site_pages.dangling_links(site) == []
    for name in files:
        assert "wholesale.html" not in (site / name).read_text(), name
    assert [p.path for p in project.read_plan().site_pages()] == files
    assert not [s for s in project.read_plan().sections if s.page == "wholesale"]
