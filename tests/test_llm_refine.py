"""Model-backed refiners against the local OpenAI-compatible server: each level's reply applied
through the SiteEditor, guardrails refusing replies that drop an element or change an asset
path, the rule-based fallback on a 500 or a malformed reply, and the size of a context request
against a global one (issue 8, budget 4). The evaluator is a fake (no browser): it reports each
issue until the page or the asset shows the fix the test expects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_server import Reply, Request, chat_reply, error
from provider_fixtures import (  # noqa: F401
    clean_env,
    fast_settings,
    make_plan,
    no_network,
    server,
)
from refine_fixtures import project_from, requires_browser

from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.providers.offline import layout
from mmstudio.refine import RuleRefiners, get_refiners, html_edit
from mmstudio.refine.excerpt import context_excerpt, matching_rules, style_rules
from mmstudio.refine.llm import ModelRefiners, in_scope
from mmstudio.refine.model import RefineInput
from mmstudio.report import ElementScore, Issue, Report, Scores
from mmstudio.studio.refining import RefineService, refine_project

pytestmark = pytest.mark.usefixtures("no_network", "clean_env")

CHART = "sales-chart"
IMAGE = "hero-photo"
CHART_SEL = '[data-mm-id="sales-chart"]'
ORIGINAL_IMAGE = b"original image bytes"

ISSUES = {
    "frame": Issue(
        id="m1", element=CHART, dimension="chart", level="context", code="frame-too-short",
        message="The chart is taller than its frame",
        evidence={"content_px": [600, 420], "frame_px": [600, 360]},
    ),
    "contrast": Issue(
        id="m2", element=None, dimension="style", level="global", code="low-contrast",
        message="Text with contrast 2.1:1 (h1)",
        evidence={"selector": "h1", "background": "#fdf8f2", "needed": 4.5},
    ),
    "overflow": Issue(
        id="m3", element=CHART, dimension="chart", level="local", code="chart-overflow",
        message="The chart overflows its frame", evidence={},
    ),
    "palette": Issue(
        id="m4", element=IMAGE, dimension="image", level="local", code="palette-drift",
        message="The image's colours are off the page palette", evidence={},
    ),
}  # fmt: skip


def fixed(name: str, site: Path) -> bool:
    """Whether the site now shows the fix of issue ``name`` (what the fake evaluator checks)."""
    html = (site / "index.html").read_text()
    if name == "frame":
        return 'data-mm-patch="sales-chart"' in html or "chart-frame tall" in html
    if name == "contrast":
        return 'data-mm-patch="page"' in html
    if name == "overflow":
        option = site / "assets/sales-chart.json"
        return option.is_file() and '"top": 8' in option.read_text()
    return (site / "assets/hero-photo.webp").read_bytes() != ORIGINAL_IMAGE


def evaluator(names: list[str]):
    """A fake evaluator reporting the issues ``names`` that the site does not fix yet."""

    async def evaluate(page: Path, plan: DesignPlan | None, out_dir: Path) -> Report:
        issues = [ISSUES[n] for n in names if not fixed(n, page.parent)]
        elements = [
            ElementScore(id=CHART, kind="chart", path="assets/sales-chart.html"),
            ElementScore(id=IMAGE, kind="image", path="assets/hero-photo.webp"),
        ]
        for row in elements:
            row.issues = [i.id for i in issues if i.element == row.id]
            row.score = round(1 - 0.2 * len(row.issues), 3)
        overall = round(1 - 0.05 * len(issues), 3)
        return Report(scores=Scores(overall=overall), elements=elements, issues=issues)

    return evaluate


def site_folder(root: Path) -> Path:
    """The offline layout of the test plan with placeholder assets."""
    site = root / "site-src"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text(layout.render_page(make_plan()))
    (site / "assets/hero-photo.webp").write_bytes(ORIGINAL_IMAGE)
    (site / "assets/sales-chart.html").write_text("<!doctype html><title>chart</title>")
    return site


async def service_for(tmp_path: Path, server, names: list[str], **settings) -> RefineService:  # noqa: F811
    project = project_from(site_folder(tmp_path), tmp_path / "p", make_plan())
    refiners = ModelRefiners(fast_settings(server, **settings))
    service = RefineService(project, evaluator=evaluator(names), refiners=refiners)
    await service.evaluate()
    return service


def context_reply(markup: str = "", css: list | None = None) -> str:
    return json.dumps({"markup": markup, "css": css or [], "summary": "taller frame"})


def page_text(service: RefineService) -> str:
    return (service.project.site_dir / "index.html").read_text()


# --- context ---------------------------------------------------------------------------------


async def test_context_css_reply_is_applied_in_the_element_block(tmp_path, server):  # noqa: F811
    service = await service_for(tmp_path, server, ["frame"])
    before = page_text(service)
    css = [{"selector": f":has(> {CHART_SEL})", "declarations": "height:440px!important"}]
    server.script("chat", chat_reply(context_reply(css=css)))
    outcomes = await service.refine("context", element=CHART)
    await service.refiners.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    assert "by the model" in outcomes[0].reason
    after = page_text(service)
    block = html_edit.patch_css(after, CHART)
    assert block == f":has(> {CHART_SEL}){{height:440px!important}}"
    assert html_edit.set_patch_block(before, CHART, block) == after
    request = server.log("chat")[0]
    assert request.schema_name() == "ContextPatch"
    text = request.text()
    assert 'src="assets/sales-chart.html"' in text and ".chart-frame" in text
    assert "Small-batch coffee" not in text  # another section's text never travels
    usage = service.refiners.refiner.usage.records()
    assert [r.stage for r in usage] == ["refine-context"]


async def test_context_markup_reply_replaces_only_the_wrapper(tmp_path, server):  # noqa: F811
    service = await service_for(tmp_path, server, ["frame"])
    before = page_text(service)
    node = html_edit.element_node(before, CHART)
    iframe = before[node.start : node.end]
    markup = f'<div class="chart-frame tall" style="height: 440px;">\n{iframe}\n</div>'
    server.script("chat", chat_reply(context_reply(markup=markup)))
    outcomes = await service.refine("context", element=CHART)
    await service.refiners.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    old = f'<div class="chart-frame" style="height: 360px;">\n{iframe}\n</div>'
    assert old in before
    assert page_text(service) == before.replace(old, markup)


@pytest.mark.parametrize(
    ("broken", "words"),
    [
        (lambda iframe: iframe.replace('data-mm-id="sales-chart" ', ""), "drops the id"),
        (
            lambda iframe: iframe.replace("assets/sales-chart.html", "assets/other.html"),
            "drops the asset path assets/sales-chart.html",
        ),
        (lambda iframe: iframe + '<script>alert("x")</script>', "inline script"),
    ],
)
async def test_guardrails_refuse_a_bad_context_reply_and_the_rules_stand_in(
    tmp_path,
    server,  # noqa: F811
    broken,
    words,
):
    service = await service_for(tmp_path, server, ["frame"])
    before = page_text(service)
    node = html_edit.element_node(before, CHART)
    markup = f'<div class="chart-frame">{broken(before[node.start : node.end])}</div>'
    server.script("chat", chat_reply(context_reply(markup=markup)))
    outcomes = await service.refine("context", element=CHART)
    await service.refiners.aclose()
    assert [o.outcome for o in outcomes] == ["rejected", "accepted"], [o.reason for o in outcomes]
    assert words in outcomes[0].reason
    assert "rule-based fallback" in outcomes[1].reason
    after = page_text(service)
    assert html_edit.ids(after) == html_edit.ids(before)
    assert html_edit.local_refs(after) == html_edit.local_refs(before)
    assert "<script>alert" not in after
    attempts = [(a.outcome, a.level) for a in service.project.history.attempts()]
    assert attempts == [("rejected", "context"), ("accepted", "context")]
    assert service.refiners.fallbacks and words in service.refiners.fallbacks[0]


def test_css_scope_is_the_element_its_inside_or_its_wrapper():
    inside = [
        CHART_SEL,
        f"section {CHART_SEL}",
        f"{CHART_SEL} > img",
        f"iframe[data-mm-id='{CHART}']",
    ]
    inside += [f"div.chart-frame:has( > {CHART_SEL})", f":has(>{CHART_SEL})"]
    outside = ["body", f"{CHART_SEL} ~ p", f"{CHART_SEL}+div", f"body:has({CHART_SEL}) *"]
    outside += ['[data-mm-id="sales-chart-2"]', f":has(> {CHART_SEL}) p"]
    assert [s for s in inside if not in_scope(s, CHART_SEL)] == []
    assert [s for s in outside if in_scope(s, CHART_SEL)] == []


@pytest.mark.parametrize("selector", ["body", f"body:has({CHART_SEL}) *"])
async def test_an_unscoped_css_rule_is_refused(tmp_path, server, selector):  # noqa: F811
    service = await service_for(tmp_path, server, ["frame"])
    css = [{"selector": selector, "declarations": "display:none"}]
    server.script("chat", chat_reply(context_reply(css=css)))
    outcomes = await service.refine("context", element=CHART)
    await service.refiners.aclose()
    assert [o.outcome for o in outcomes] == ["rejected", "accepted"]
    assert "not scoped" in outcomes[0].reason
    assert "display:none" not in page_text(service)


@pytest.mark.parametrize(
    ("replies", "words"),
    [
        ([error(500, "model on fire")] * 3, "after 3 tries"),
        ([chat_reply("no JSON here"), chat_reply("{still not")], "not a valid ContextPatch"),
    ],
)
async def test_a_failed_model_call_falls_back_to_the_rules(tmp_path, server, replies, words):  # noqa: F811
    service = await service_for(tmp_path, server, ["frame"])
    server.script("chat", *replies)
    outcomes = await service.refine("context", element=CHART)
    await service.refiners.aclose()
    assert [o.outcome for o in outcomes] == ["failed", "accepted"], [o.reason for o in outcomes]
    assert words in outcomes[0].reason and "refine failed" in outcomes[0].reason
    assert "rule-based fallback" in outcomes[1].reason
    assert html_edit.patch_css(page_text(service), CHART)  # the rule's frame height
    assert server.pending("chat") == 0


# --- global ----------------------------------------------------------------------------------


async def test_global_css_reply_goes_to_the_page_block(tmp_path, server):  # noqa: F811
    service = await service_for(tmp_path, server, ["contrast"])
    reply = {"html": "", "css": "h1{color:#1d232b!important}", "summary": "darker headings"}
    server.script("chat", chat_reply(json.dumps(reply)))
    outcomes = await service.refine("global")
    await service.refiners.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    assert html_edit.patch_css(page_text(service), "page") == "h1{color:#1d232b!important}"
    request = server.log("chat")[0]
    assert request.schema_name() == "PagePatch" and "Small-batch coffee" in request.text()


async def test_global_page_reply_that_drops_a_section_is_refused(tmp_path, server):  # noqa: F811
    service = await service_for(tmp_path, server, ["contrast"])
    before = page_text(service)
    broken = before.replace('data-mm-section="craft"', 'data-x="craft"')
    server.script("chat", chat_reply(json.dumps({"html": broken, "css": "", "summary": "x"})))
    outcomes = await service.refine("global")
    await service.refiners.aclose()
    assert outcomes[0].outcome == "rejected"
    assert "drops the section 'craft'" in outcomes[0].reason
    assert 'data-mm-section="craft"' in page_text(service)


async def test_global_page_reply_is_installed_whole(tmp_path, server):  # noqa: F811
    service = await service_for(tmp_path, server, ["contrast"])
    before = page_text(service)
    revised = before.replace("<h1 ", '<h1 data-tone="dark" ')
    css = "h1{color:#111111!important}"
    server.script("chat", chat_reply(json.dumps({"html": revised, "css": css, "summary": "x"})))
    outcomes = await service.refine("global")
    await service.refiners.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    expected = html_edit.set_patch_block(revised.strip() + "\n", "page", css)
    assert page_text(service) == expected  # the document as sent, with the page block


# --- local -----------------------------------------------------------------------------------


async def test_local_chart_option_patch_rewrites_the_chart(tmp_path, server):  # noqa: F811
    service = await service_for(tmp_path, server, ["overflow"])
    patch = {"grid": {"top": 8, "left": 4}, "title": None}
    server.script("chat", chat_reply(json.dumps({"option_patch": patch, "summary": "compact"})))
    outcomes = await service.refine("local", element=CHART)
    await service.refiners.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    site = service.project.site_dir
    option = json.loads((site / "assets/sales-chart.json").read_text())
    assert option["grid"]["top"] == 8 and option["grid"]["containLabel"] is True
    assert "title" not in option and option["series"][0]["data"] == [120, 150, 170]
    assert "echarts" in (site / "assets/sales-chart.html").read_text()
    request = server.log("chat")[0]
    assert request.schema_name() == "AssetRevision" and '"series"' in request.text()


async def test_local_image_prompt_revision_regenerates_the_image(tmp_path, server):  # noqa: F811
    service = await service_for(tmp_path, server, ["palette"])
    revision = {
        "prompt": "Roasted beans in warm amber light",
        "attributes": {"color_tone": "amber"},
    }
    server.script("chat", chat_reply(json.dumps(revision)))
    outcomes = await service.refine("local", element=IMAGE, instruction="warmer please")
    await service.refiners.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    generated = server.log("images.generate")[0].json
    assert "Roasted beans in warm amber light" in generated["prompt"]
    assert "Colour tone: amber" in generated["prompt"]
    assert "warmer please" in server.log("chat")[0].text()
    image = (service.project.site_dir / "assets/hero-photo.webp").read_bytes()
    assert image[:4] == b"RIFF" and image[8:12] == b"WEBP"
    spec = service.project.read_plan().element(IMAGE)
    assert spec.prompt == revision["prompt"] and spec.attributes.color_tone == "amber"


async def test_local_reply_with_an_unknown_size_falls_back(tmp_path, server):  # noqa: F811
    service = await service_for(tmp_path, server, ["palette"])
    server.script("chat", chat_reply(json.dumps({"size": "999x1"})))
    outcomes = await service.refine("local", element=IMAGE)
    await service.refiners.aclose()
    assert outcomes[0].outcome == "rejected"
    assert "invalid" in outcomes[0].reason
    assert server.log("images.generate") == []


async def test_the_reflection_loop_uses_the_model_at_every_level(tmp_path, server):  # noqa: F811
    service = await service_for(tmp_path, server, ["frame", "contrast", "overflow"])

    def answer(request: Request) -> Reply:
        name = request.schema_name()
        if name == "ContextPatch":
            rule = {"selector": CHART_SEL, "declarations": "height:440px!important"}
            return chat_reply(context_reply(css=[rule]))
        if name == "PagePatch":
            return chat_reply(json.dumps({"css": "h1{color:#111111!important}"}))
        return chat_reply(json.dumps({"option_patch": {"grid": {"top": 8}}}))

    server.chat_responder = answer
    result = await service.reflect(rounds=2)
    await service.refiners.aclose()
    assert sorted(o.level for o in result.outcomes if o.outcome == "accepted") == [
        "context", "global", "local"
    ]  # fmt: skip
    assert all("by the model" in o.reason for o in result.outcomes)
    assert result.issues_after == 0 and result.stopped == "no issue above the threshold"
    names = sorted(r.schema_name() for r in server.log("chat"))
    assert names == ["AssetRevision", "ContextPatch", "PagePatch"]


# --- request size (issue 8, budget 4) ---------------------------------------------------------


async def test_a_context_request_is_much_smaller_than_a_global_one(tmp_path, server):  # noqa: F811
    project = project_from(site_folder(tmp_path), tmp_path / "p", make_plan())
    html = (project.site_dir / "index.html").read_text()
    issue = ISSUES["frame"]
    report = await evaluator(["frame"])(project.site_dir / "index.html", None, tmp_path)
    refiners = ModelRefiners(fast_settings(server))
    server.script(
        "chat",
        chat_reply(context_reply(css=[{"selector": CHART_SEL, "declarations": "height:440px"}])),
        chat_reply(json.dumps({"css": f"{CHART_SEL}{{height:440px}}"})),
    )
    from mmstudio.refine import Target

    for level, element in (("context", CHART), ("global", None)):
        inp = RefineInput(
            level, element, [issue], report, project.read_plan(), project.site_dir, html
        )
        changes = await refiners.propose(Target(level, element, [issue]), inp)
        assert [c.note for c in changes] == [refiners.note]
    await refiners.aclose()
    context, whole = (len(r.raw) for r in server.log("chat"))
    print(f"context {context} B, global {whole} B")
    assert context * 5 < whole, (context, whole)


# --- excerpt and selection -------------------------------------------------------------------


def test_the_excerpt_holds_the_wrapper_and_only_matching_rules(tmp_path):
    html = layout.render_page(make_plan())
    report = Report(elements=[ElementScore(id=CHART, kind="chart", path="assets/sales-chart.html")])
    inp = RefineInput("context", CHART, [ISSUES["frame"]], report, make_plan(), tmp_path, html)
    excerpt = context_excerpt(inp)
    assert excerpt.editable == "wrapper" and excerpt.markup.startswith('<div class="chart-frame"')
    assert excerpt.selector == CHART_SEL and excerpt.kind == "chart"
    assert excerpt.ancestors.endswith("figure.chart-panel > div.chart-frame")
    assert excerpt.box == {
        "planned_px": [640, 360],
        "content_px": [600, 420],
        "frame_px": [600, 360],
    }
    assert excerpt.css and all(("chart-frame" in r or "iframe" in r) for r in excerpt.css)
    assert len(excerpt.css) < len(style_rules(html)) / 10


def test_rule_matching_reads_the_last_compound():
    html = '<div class="a b" id="x"><img data-mm-id="e" src="s.png"></div>'
    wrapper, img = html_edit.parse(html)
    css = (
        "<style>.a img{x:1} .b > img:hover{x:2} #x{x:3} .c img{x:4} img.c{x:5} "
        '[data-mm-id="e"]{x:6} [data-mm-id="f"]{x:7} :root{x:8} @media (max-width:600px){'
        ".a{x:9}} @keyframes k{from{x:10}}</style>"
    )
    found = [r.body for r in matching_rules(style_rules(css), [img, wrapper])]
    assert found == ["x:1", "x:2", "x:3", "x:4", "x:6", "x:9"]


def test_get_refiners_by_provider(server):  # noqa: F811
    assert isinstance(get_refiners("offline"), RuleRefiners)
    assert isinstance(get_refiners("openai", fast_settings(server)), ModelRefiners)
    with pytest.raises(ValueError, match="unknown provider"):
        get_refiners("nope")


# --- the real path: render, measured issue, model reply (needs Chromium) ----------------------


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_refine_project_with_the_openai_provider_fixes_a_measured_issue(
    renderer,
    cases: Path,
    tmp_path,
    server,  # noqa: F811
):
    project = project_from(cases / "short-frame", tmp_path / "p")
    rule = '[data-mm-id="visits_chart"]{height:420px!important;min-height:420px!important}'

    def answer(request: Request) -> Reply:
        selector, body = rule[:-1].split("{")
        if request.schema_name() == "AssetJudgement":  # the judge sees the page too
            return chat_reply(json.dumps({"issues": []}))
        if request.schema_name() == "AestheticsJudgement":
            grades = ("balance_spacing", "typography", "colour", "clarity_polish", "overall")
            return chat_reply(json.dumps(dict.fromkeys(grades, 0.8) | {"notes": []}))
        if request.schema_name() != "ContextPatch" or selector not in request.text():
            return error(400, "unexpected request")
        return chat_reply(context_reply(css=[{"selector": selector, "declarations": body}]))

    server.chat_responder = answer
    outcomes = await refine_project(
        project.root, "context", "visits_chart", provider="openai", settings=fast_settings(server)
    )
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    assert "by the model" in outcomes[0].reason
    opened = Project.open(project.root)
    assert "frame-too-short" not in {i.code for i in opened.read_report().issues}
    assert html_edit.patch_css((opened.site_dir / "index.html").read_text(), "visits_chart") == rule
    patches = [r for r in server.log("chat") if r.schema_name() == "ContextPatch"]
    assert len(patches) == 1 and "judge" in opened.read_report().timings  # judged like its trial
