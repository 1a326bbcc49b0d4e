"""One model bundle for every service, against the local OpenAI-compatible test server (issue 17):
refine trials judged like a judged baseline (kept only for a real gain, the judge's issues never
erased), an instruction alone acted on by the model, the judge's findings carried by an offline
refine, a local image refine through ``images.edit``, a feedback turn whose model failed reported
as not applied, the session, the FronTalk replay and the bench on the bundle, and usage printed
by the CLI also on failure. Fake measured evaluators keep most tests off the browser; the CLI
tests that render are marked ``requires_browser``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_server import Reply, Request, chat_reply, chat_stream, error
from provider_fixtures import (  # noqa: F401
    clean_env,
    fast_env,
    fast_settings,
    make_plan,
    no_network,
    server,
    tiny_png,
)
from refine_fixtures import project_from, requires_browser

from mmstudio.feedback.ledger import Verdict
from mmstudio.feedback.result import TurnResult
from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.providers.llm.page import with_mp4_paths
from mmstudio.providers.models import Models
from mmstudio.providers.offline import layout
from mmstudio.refine.llm import ModelRefiners
from mmstudio.report import ElementScore, Issue, Report, Scores
from mmstudio.studio.refining import CARRIED, RefineService, judged

pytestmark = pytest.mark.usefixtures("no_network", "clean_env")

IMAGE = "hero-photo"
CHART = "sales-chart"
PAGE_PATCH = 'data-mm-patch="page"'
FRAME = Issue(
    id="m1", element=CHART, dimension="chart", level="context", code="frame-too-short",
    message="The chart is taller than its frame",
    evidence={"content_px": [600, 420], "frame_px": [600, 360]},
)  # fmt: skip
PALETTE = Issue(
    id="m4", element=IMAGE, dimension="image", level="local", code="palette-drift",
    message="The image's colours are off the page palette", evidence={},
)  # fmt: skip


def site_folder(root: Path, image: bytes = b"not an image") -> Path:
    site = root / "site-src"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text(layout.render_page(make_plan()))
    (site / "assets/hero-photo.webp").write_bytes(image)
    (site / "assets/sales-chart.html").write_text("<!doctype html><title>chart</title>")
    return site


def new_project(tmp_path: Path, image: bytes = b"not an image") -> Project:
    return project_from(site_folder(tmp_path, image), tmp_path / "p", make_plan())


def measured(issues: list[Issue] | None = None, original_image: bytes | None = None):
    """A fake measured evaluator: no issue but ``issues`` (a palette issue goes once the image
    changed from ``original_image``; the frame issue once the chart has a patch)."""

    async def evaluate(page: Path, plan: DesignPlan | None, out: Path) -> Report:
        html = page.read_text()
        left = []
        for issue in issues or []:
            image = page.parent / "assets/hero-photo.webp"
            if issue.code == "palette-drift" and image.read_bytes() != original_image:
                continue
            if issue.code == "frame-too-short" and 'data-mm-patch="sales-chart"' in html:
                continue
            left.append(issue)
        elements = [
            ElementScore(id=CHART, kind="chart", path="assets/sales-chart.html", score=1.0),
            ElementScore(id=IMAGE, kind="image", path="assets/hero-photo.webp", score=1.0),
        ]
        for row in elements:
            row.issues = [i.id for i in left if i.element == row.id]
            row.score = round(1 - 0.2 * len(row.issues), 3)
        scores = Scores(layout=1.0, style=1.0, chart=elements[0].score, image=elements[1].score)
        return Report(scores=scores.with_overall(), elements=elements, issues=left)

    return evaluate


def judge_and_refine(penalty_until_patched: bool = True, css: str = "main{gap:24px}"):
    """Chat replies: the layout judge reports one misplaced hero until the page carries its page
    patch (``penalty_until_patched``; else always), the style judge nothing, and a global refine
    answers ``css``."""

    def reply(request: Request) -> Reply:
        name = request.schema_name()
        if name == "LayoutJudgement":
            patched = PAGE_PATCH in request.text()
            penalised = not patched or not penalty_until_patched
            penalty = {"kind": "misplaced", "element": IMAGE, "message": "The hero sits low"}
            penalties = [penalty] if penalised else []
            return chat_reply(json.dumps({"penalties": penalties}))
        if name == "StyleJudgement":
            return chat_reply(json.dumps({"penalties": []}))
        if name == "PagePatch":
            return chat_reply(json.dumps({"html": "", "css": css, "summary": "hero higher"}))
        return error(400, f"unexpected request {name}")

    return reply


# --- judged refine: the same evaluator, real gains only, the judge's issues kept ----------------


async def test_a_judge_issue_reaches_the_global_refiner_and_the_trial_is_judged_again(
    tmp_path,
    server,  # noqa: F811
):
    server.chat_responder = judge_and_refine()
    project = new_project(tmp_path)
    models = Models(fast_settings(server))
    service = RefineService(project, evaluator=measured(), models=models)
    outcomes = await service.refine("global")
    await models.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    assert "fixed judge-layout-misplaced" in outcomes[0].reason
    assert outcomes[0].before < outcomes[0].after
    names = [r.schema_name() for r in server.log("chat")]
    # baseline judged (layout + style), the model's page fix, the trial judged again
    assert sorted(names[:2]) == ["LayoutJudgement", "StyleJudgement"] and names[2] == "PagePatch"
    assert sorted(names[3:]) == ["LayoutJudgement", "StyleJudgement"]
    report = Project.open(project.root).read_report()
    assert judged(report) and report.scores.layout == 1.0
    assert PAGE_PATCH in (project.site_dir / "index.html").read_text()


async def test_a_refine_the_judge_still_faults_is_reverted_and_its_issue_kept(tmp_path, server):  # noqa: F811
    server.chat_responder = judge_and_refine(penalty_until_patched=False)
    project = new_project(tmp_path)
    models = Models(fast_settings(server))
    service = RefineService(project, evaluator=measured(), models=models)
    outcomes = await service.refine("global")
    await models.aclose()
    assert [o.outcome for o in outcomes] == ["reverted"]
    assert "no gain: judge-layout-misplaced still reported" in outcomes[0].reason
    report = Project.open(project.root).read_report()
    kept = [i for i in report.issues if i.source == "judge"]
    assert [(i.code, i.level) for i in kept] == [("judge-layout-misplaced", "global")]
    assert PAGE_PATCH not in (project.site_dir / "index.html").read_text()


async def test_a_measured_report_is_judged_before_a_model_refine(tmp_path, server):  # noqa: F811
    server.chat_responder = judge_and_refine()
    project = new_project(tmp_path)
    await RefineService(project, evaluator=measured()).evaluate()  # measured only
    assert not judged(project.read_report())
    models = Models(fast_settings(server))
    outcomes = await RefineService(project, evaluator=measured(), models=models).refine("global")
    await models.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"]  # the judge's issue was found and fixed


# --- an instruction alone ----------------------------------------------------------------------


async def test_an_instruction_alone_is_acted_on_by_the_model(tmp_path, server):  # noqa: F811
    server.chat_responder = judge_and_refine(css="h1{letter-spacing:.02em}")
    project = new_project(tmp_path)
    server.chat_responder = judge_and_refine(css="h1{letter-spacing:.02em}")
    models = Models(fast_settings(server))
    service = RefineService(project, evaluator=measured(), models=models)
    await service.evaluate()
    server.chat_responder = lambda r: (
        chat_reply(json.dumps({"penalties": []})) if r.schema_name() != "PagePatch"
        else chat_reply(json.dumps({"html": "", "css": "h1{letter-spacing:.02em}",
                                    "summary": "airier headline"}))
    )  # fmt: skip
    outcomes = await service.refine("global", instruction="give the headline more air")
    await models.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    assert outcomes[0].reason.startswith("done as asked (“give the headline more air”")
    [patch] = [r for r in server.log("chat") if r.schema_name() == "PagePatch"]
    assert "give the headline more air" in patch.text()
    assert "letter-spacing:.02em" in (project.site_dir / "index.html").read_text()


async def test_an_instruction_the_refiners_cannot_act_on_is_one_clear_line(tmp_path, server):  # noqa: F811
    project = new_project(tmp_path)
    offline = RefineService(project, evaluator=measured())
    with pytest.raises(ValueError, match=r"read no instructions.*--provider openai"):
        await offline.refine("global", instruction="make it pop")
    server.chat_responder = lambda r: chat_reply(json.dumps({"penalties": []}))
    models = Models(fast_settings(server))
    service = RefineService(project, evaluator=measured(), models=models)
    with pytest.raises(ValueError, match=r"name it with --element ID \(e\.g\. sales-chart"):
        await service.refine("local", instruction="warmer")
    await models.aclose()
    assert server.log("images.generate") == [] and server.log("images.edit") == []


# --- an offline refine after a judged evaluation ---------------------------------------------


async def test_an_offline_refine_after_a_judged_evaluation_carries_the_judges_findings(tmp_path):
    project = new_project(tmp_path)
    evaluate = measured([FRAME])
    baseline = await evaluate(project.site_dir / "index.html", None, tmp_path)
    judge_issue = Issue(
        id="judge-image-1", element=IMAGE, dimension="image", level="local",
        code="judge-image-asset-side", message="Beans look plastic", source="judge",
    )  # fmt: skip
    layout_issue = Issue(
        id="judge-layout-1", dimension="layout", level="global", severity="major",
        code="judge-layout-misplaced", message="The hero sits low", source="judge",
    )  # fmt: skip
    scores = baseline.scores.model_copy(update={"layout": 0.925, "image": 0.8}).with_overall()
    elements = [e.model_copy(update={"score": 0.8, "issues": ["judge-image-1"]})
                if e.id == IMAGE else e for e in baseline.elements]  # fmt: skip
    judged_report = baseline.model_copy(update={
        "scores": scores, "elements": elements, "timings": {"judge": 1.0},
        "issues": [*baseline.issues, judge_issue, layout_issue],
    })  # fmt: skip
    project.write_report(judged_report)
    service = RefineService(project, evaluator=evaluate)  # offline: no judge here
    outcomes = await service.refine("context", element=CHART)
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    report = Project.open(project.root).read_report()
    carried = [i for i in report.issues if i.source == "judge"]
    assert {i.code for i in carried} == {"judge-image-asset-side", "judge-layout-misplaced"}
    assert all(i.evidence.get("carried") for i in carried)
    assert CARRIED in report.notices
    assert report.scores.layout == 0.925 and report.scores.image == 0.8  # never above the judge's
    assert "frame-too-short" not in {i.code for i in report.issues}


# --- a local image refine edits the current image -----------------------------------------------


async def test_a_local_image_refine_edits_the_current_image(tmp_path, server):  # noqa: F811
    current = tiny_png()
    project = new_project(tmp_path, image=current)
    models = Models(fast_settings(server))
    service = RefineService(
        project, evaluator=measured([PALETTE], original_image=current),
        refiners=ModelRefiners.of(models),
    )  # fmt: skip
    outcomes = await service.refine("local", element=IMAGE, instruction="warmer light")
    await models.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    assert "edited by the image model gpt-image-2.5-sunburst" in outcomes[0].reason
    [edit] = server.log("images.edit")
    assert edit.files["image"][:4] == b"\x89PNG"
    assert "colours are off the page palette" in edit.form["prompt"]
    assert "warmer light" in edit.form["prompt"]
    assert server.log("chat") == [] and server.log("images.generate") == []
    made = (project.site_dir / "assets/hero-photo.webp").read_bytes()
    assert made[:4] == b"RIFF" and made[8:12] == b"WEBP"


async def test_without_image_edits_the_image_is_made_again_from_a_revised_prompt(
    tmp_path,
    server,  # noqa: F811
):
    current = tiny_png()
    project = new_project(tmp_path, image=current)
    server.script("chat", chat_reply(json.dumps({"prompt": "Beans in amber light"})))
    models = Models(fast_settings(server, capabilities={"image_edits": False}))
    assert not models["image"].can("image_edits") and models["image"].available
    service = RefineService(
        project, evaluator=measured([PALETTE], original_image=current),
        refiners=ModelRefiners.of(models),
    )  # fmt: skip
    outcomes = await service.refine("local", element=IMAGE)
    await models.aclose()
    assert [o.outcome for o in outcomes] == ["accepted"]
    assert server.log("images.edit") == []
    assert "Beans in amber light" in server.log("images.generate")[0].json["prompt"]


def test_dall_e_models_take_no_edits():
    from mmstudio.providers.models import edits_images

    assert edits_images("gpt-image-2.5-sunburst") and edits_images("chatgpt-image-latest")
    assert not edits_images("dall-e-3")


# --- feedback: a model that failed is never a pass --------------------------------------------


def test_a_turn_whose_model_call_failed_is_not_applied_not_ok():
    failed = TurnResult(
        1, "frame the hero in gold", [], [], [Verdict("t1.r1", None, "unchecked: judge failed")],
        not_applied=["t1.r1: the model's context refine failed: HTTP 500",
                     "t1.r1 (repair): the model's context refine failed: HTTP 500"],
    )  # fmt: skip
    assert failed.unapplied == ["t1.r1"] and failed.status == "not applied"
    assert "1 not applied" in failed.summary() and failed.as_dict()["status"] == "not applied"
    failure = "t1.r1: the model's context refine failed: HTTP 500"
    held = TurnResult(1, "x", [], [], [Verdict("t1.r1", True, "measured")], not_applied=[failure])
    assert held.status == "ok" and held.unapplied == []  # it holds on the page all the same


# --- the session, the FronTalk replay and the bench hold one bundle ------------------------------


async def test_the_session_works_on_a_model_project_with_one_bundle(tmp_path, server):  # noqa: F811
    import asyncio
    import shutil

    from mmstudio.studio.session import Session

    project = Project.create(tmp_path / "p", prompt="test", provider="openai", title="T")
    staged = project.staging_dir() / "site"
    shutil.copytree(site_folder(tmp_path), staged)
    project.install_site(staged)
    session = Session(settings=fast_settings(server))
    session.open(project.root)
    models = session.models
    assert models is not None and session._refiner.models is models
    service = session.feedback()
    assert service.chat is models.provider and service.model_refiners.name == "openai"
    assert service.model_refiners.refiner.designer.provider is models.provider
    session.close()
    await asyncio.sleep(0.05)
    assert session.models is None
    offline = project_from(site_folder(tmp_path / "o"), tmp_path / "o" / "p", make_plan())
    session.open(offline.root)
    assert session.models is None and session.feedback().model_refiners is None
    session.close()


async def test_the_frontalk_replay_shares_one_bundle(server):  # noqa: F811
    from mmstudio.studio.frontalk import FrontalkOptions, _Models

    models = _Models.of(FrontalkOptions(provider="openai", settings=fast_settings(server)))
    assert models.bundle is not None and models.chat is models.bundle.provider
    assert models.refiners.refiner.designer.provider is models.bundle.provider
    await models.close()
    assert _Models.of(FrontalkOptions()).bundle is None


def by_stage(plan: DesignPlan, layout_fails: bool = False):
    html = layout.render_page(with_mp4_paths(plan))

    def reply(request: Request) -> Reply:
        if (request.json or {}).get("stream"):
            return error(500, "the coder is down") if layout_fails else chat_stream(html, pieces=3)
        if "chart agent" in request.text():
            from provider_fixtures import chart_option_json

            return chat_reply(chart_option_json())
        if "planner of a web design studio" in request.text():
            return chat_reply(plan.model_dump_json())
        return error(500, "unexpected chat request")

    return reply


async def test_a_bench_prompt_records_its_usage_also_when_it_fails(tmp_path, server):  # noqa: F811
    from mmstudio.studio.bench import BenchOptions, run_prompt

    plan = make_plan()
    server.chat_responder = by_stage(plan, layout_fails=True)
    options = BenchOptions(provider="openai", rounds=0, evaluate=False,
                           settings=fast_settings(server))  # fmt: skip
    record = await run_prompt({"id": "p1", "prompt": "A page for Ember Roasters"}, tmp_path,
                              options)  # fmt: skip
    assert not record["ok"] and "the coder is down" in record["error"]
    assert record["usage"]["calls"] >= 1  # the plan was paid for before the layout failed


async def test_new_project_on_a_bundle_leaves_it_open_and_counts_its_own_calls(tmp_path, server):  # noqa: F811
    from mmstudio.studio.create import new_project as make

    plan = make_plan()
    server.chat_responder = by_stage(plan)
    server.default_png = tiny_png()
    from provider_fixtures import tiny_mp4

    server.video_bytes = tiny_mp4()
    models = Models(fast_settings(server))
    first = await make(tmp_path / "a", "A page for Ember Roasters", models=models, evaluate=False)
    second = await make(tmp_path / "b", "A page for Ember Roasters", models=models, evaluate=False)
    assert first.usage["calls"] == second.usage["calls"] > 0
    assert models.usage.summary()["calls"] == 2 * first.usage["calls"]
    await models.aclose()


# --- the CLI: judge notices, usage on success and on failure (render: needs Chromium) ----------


@requires_browser
def test_cli_evaluate_with_an_unreadable_judge_says_not_judged_never_1(
    tmp_path,
    server,  # noqa: F811
    monkeypatch,
    capsys,
    cases: Path,
):
    from mmstudio.cli import main

    server.chat_responder = lambda request: chat_reply("The page looks great to me!")
    fast_env(monkeypatch, server)
    code = main(["evaluate", str(cases / "short-frame"), "--provider", "openai"])
    out, err = capsys.readouterr()
    assert code == 0, err
    scores = out.splitlines()[0]
    # the judge's reply could not be read: the measured score stands, said to be only that
    assert "aesthetics" in scores and "(measured only: not judged)" in scores, scores
    assert "chart 0.80 (measured only: not judged)" in scores
    assert "layout 1.00 (" not in scores  # no plan: the judge was not asked, nothing failed
    assert "notice: judge: aesthetics not judged" in out
    assert "usage: calls" in err and "Traceback" not in err


@requires_browser
def test_cli_refine_prints_the_usage_spent_before_it_stops(
    tmp_path,
    server,  # noqa: F811
    monkeypatch,
    capsys,
    cases: Path,
):
    from mmstudio.cli import main

    project = project_from(cases / "short-frame", tmp_path / "p")
    server.chat_responder = lambda request: chat_reply(json.dumps(
        {"issues": []} if request.schema_name() == "AssetJudgement" else
        dict.fromkeys(("balance_spacing", "typography", "colour", "clarity_polish", "overall"),
                      0.8) | {"notes": []}
    ))  # fmt: skip
    fast_env(monkeypatch, server)
    code = main(["refine", str(project.root), "--level", "local", "--instruction", "warmer",
                 "--provider", "openai"])  # fmt: skip
    _out, err = capsys.readouterr()
    assert code == 1
    assert "mmstudio: usage before the failure: calls" in err
    assert "name it with --element ID" in err and "Traceback" not in err
    assert judged(Project.open(project.root).read_report())  # judged before refining


@pytest.mark.parametrize("vision", [True, False])
async def test_the_feedback_judge_sends_the_screenshot_only_to_a_model_that_sees(
    tmp_path,
    server,  # noqa: F811
    vision,
):
    from types import SimpleNamespace

    from mmstudio.feedback.provider import model_judge
    from mmstudio.feedback.requirements import Requirement
    from mmstudio.studio.feedback import FeedbackService

    shot = tmp_path / "shot.png"
    shot.write_bytes(tiny_png())
    server.chat_responder = lambda r: chat_reply(json.dumps(
        {"verdicts": [{"id": "t1.r1", "passed": True, "detail": "gold frame", "steps": []}]}
    ))  # fmt: skip
    models = Models(fast_settings(server, capabilities={"vision": vision}))
    project = new_project(tmp_path)
    service = FeedbackService(project, models=models)
    assert service.chat is models.provider and service.model_refiners.name == "openai"
    judge = model_judge(models.provider, vision=models["judge"].can("vision"))
    render = SimpleNamespace(probe=None, screenshot=str(shot), site_dir=None, page="index.html")
    [verdict] = await judge([Requirement(id="t1.r1", text="frame the hero in gold")], render)
    await models.aclose()
    assert verdict.passed is True
    [request] = server.log("chat")
    sent = json.dumps(request.json["messages"])
    assert ("image_url" in sent) is vision


@pytest.mark.parametrize("edit_fixes_it", [True, False])
async def test_reflection_routes_a_judged_layout_and_image_issue_to_global_and_local_refines(
    tmp_path,
    server,  # noqa: F811
    edit_fixes_it,
):
    """The judge reports a misplaced hero (layout → global) and plastic-looking beans (image,
    asset-side → local); each refine is kept only once the re-judged trial no longer shows it
    and its score rose: an edit the judge still finds plastic is reverted, its issue kept."""
    import base64

    original = tiny_png()
    project = new_project(tmp_path, image=original)
    seen = base64.b64encode(original).decode()
    low_hero = tiny_png((95, 64))
    low = base64.b64encode(low_hero).decode()

    async def measure(page: Path, plan, out: Path) -> Report:
        report = await measured()(page, plan, out)
        (out / "crops").mkdir(parents=True, exist_ok=True)
        patched = PAGE_PATCH in page.read_text()  # the screenshot shows the page as it is
        (out / "shot.png").write_bytes(tiny_png((97, 64)) if patched else low_hero)
        (out / "crops" / f"{IMAGE}.png").write_bytes(
            (page.parent / "assets/hero-photo.webp").read_bytes()
        )
        return report.model_copy(update={"render": report.render.model_copy(
            update={"screenshot": str(out / "shot.png")})})  # fmt: skip

    layout_and_refine = judge_and_refine()

    def reply(request: Request) -> Reply:
        name = request.schema_name()
        if name == "LayoutJudgement":  # the judge sees the screenshot, not the HTML
            penalty = {"kind": "misplaced", "element": IMAGE, "message": "The hero sits low"}
            penalised = low in json.dumps(request.json)
            return chat_reply(json.dumps({"penalties": [penalty] if penalised else []}))
        if name == "AssetJudgement":
            plastic = seen in json.dumps(request.json) or not edit_fixes_it
            issues = [{"side": "asset", "message": "Beans look plastic"}] if plastic else []
            return chat_reply(json.dumps({"issues": issues}))
        if name == "AestheticsJudgement":
            grades = ("balance_spacing", "typography", "colour", "clarity_polish", "overall")
            return chat_reply(json.dumps(dict.fromkeys(grades, 0.8) | {"notes": []}))
        return layout_and_refine(request)

    server.chat_responder = reply
    models = Models(fast_settings(server))
    result = await RefineService(project, evaluator=measure, models=models).reflect(2)
    await models.aclose()
    tried = {(o.level, o.element): o for o in result.outcomes if o.level in ("global", "local")}
    assert set(tried) >= {("global", None), ("local", IMAGE)}, [o.reason for o in result.outcomes]
    accepted = {(o.level, o.element) for o in result.outcomes if o.outcome == "accepted"}
    assert accepted == ({("global", None), ("local", IMAGE)} if edit_fixes_it
                        else {("global", None)}), [o.reason for o in result.outcomes]  # fmt: skip
    for outcome in result.outcomes:  # kept exactly when the re-judged score rose
        if outcome.outcome == "accepted":
            assert outcome.after > outcome.before, outcome.reason
    edits = server.log("images.edit")
    assert edits and all("Beans look plastic" in r.form["prompt"] for r in edits)
    assert len(edits) == 1 or not edit_fixes_it  # a fixed image is not edited again
    assert result.after > result.before
    report = Project.open(project.root).read_report()
    left = [(i.code, i.element) for i in report.issues if i.source == "judge"]
    assert judged(report)
    if edit_fixes_it:
        assert left == []
    else:
        local = [o for o in result.outcomes if (o.level, o.element) == ("local", IMAGE)]
        assert local and all(o.outcome == "reverted" and "no gain" in o.reason for o in local)
        assert [element for _, element in left] == [IMAGE]  # the image issue is kept
        assert (project.site_dir / "assets/hero-photo.webp").read_bytes() == original


@pytest.mark.parametrize("edits, words", [(True, "edited in place (images.edit)"),
                                          (False, "made again")])  # fmt: skip
async def test_doctor_says_how_a_local_refine_fixes_an_image(server, edits, words):  # noqa: F811
    from mmstudio.providers.doctor import endpoint_checks_async

    settings = fast_settings(server, capabilities={"image_edits": edits})
    rows = {row["name"]: row for row in await endpoint_checks_async(settings)}
    assert rows["image model"]["ok"] and words in rows["image model"]["detail"]


def by_prompt(request: Request) -> Reply:
    """judge_and_refine() routed by the prompt's words (a rung without a schema names none)."""
    text = request.text()
    if "layout evaluator" in text:
        patched = PAGE_PATCH in text
        penalty = {"kind": "misplaced", "element": IMAGE, "message": "The hero sits low"}
        return chat_reply(json.dumps({"penalties": [] if patched else [penalty]}))
    if "style evaluator" in text:
        return chat_reply(json.dumps({"penalties": []}))
    if "fixing the page as a whole" in text:
        return chat_reply(json.dumps({"html": "", "css": "main{gap:24px}", "summary": "hero"}))
    return error(400, "unexpected request")


@pytest.mark.parametrize("profile", ["openai", "vllm", "ollama", "lmstudio", "llamacpp"])
async def test_a_judged_global_refine_finishes_against_each_endpoint_behaviour(tmp_path, profile):
    from openai_server import OpenAITestServer, behaviour

    from mmstudio.providers.openai_compat import forget_learned_rungs

    forget_learned_rungs()
    server = OpenAITestServer(behaviour=behaviour(profile, think=profile in ("ollama", "llamacpp")))  # noqa: F811
    server.start()
    try:
        server.chat_responder = by_prompt
        models = Models(fast_settings(server))
        service = RefineService(new_project(tmp_path), evaluator=measured(), models=models)
        outcomes = await service.refine("global")
        await models.aclose()
    finally:
        server.stop()
        forget_learned_rungs()
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    assert "fixed judge-layout-misplaced" in outcomes[0].reason


def test_the_usage_line_always_prints_the_cost_and_names_what_is_unpriced():
    from mmstudio.studio.bundle import totals_line, usage_line

    total = {"calls": 9, "input_tokens": 1200, "output_tokens": 0, "images": 6,
             "video_seconds": 0, "cost_usd": 0.378, "unpriced": 3}  # fmt: skip
    by_model = {"gpt-5.5": {"unpriced": 3}, "gpt-image-1": {"unpriced": 0}}
    line = usage_line({"calls": 9, "total": total, "by_model": by_model})
    assert line == (
        "calls 9, input_tokens 1200, images 6, cost_usd 0.378, "
        "unpriced 3 (gpt-5.5: not in prices.json)"
    )
    free = {"calls": 2, "input_tokens": 10, "cost_usd": 0, "unpriced": 0}
    assert totals_line(free) == "calls 2, input_tokens 10, cost_usd 0"
    assert usage_line({"calls": 0, "total": free}) == ""


async def test_a_generation_in_the_session_keeps_its_notices_until_they_are_shown(
    tmp_path, monkeypatch
):
    from mmstudio.studio import session as session_module
    from mmstudio.studio.create import NewProject
    from mmstudio.studio.session import Session

    made = new_project(tmp_path)
    refused = "image photo-4: made by the offline maker: the safety system refused it"

    async def fake_new_project(root, prompt, **kwargs):
        return NewProject(project=made, plan=make_plan(), notices=[refused])

    monkeypatch.setattr(session_module, "new_project", fake_new_project)
    session = Session()
    job = session.generate(tmp_path / "unused", "a page")
    await session.jobs.wait(job.id)
    assert session.project is not None and session.project.root == made.root
    assert session.take_notices() == [refused]
    assert session.take_notices() == [] and session.notices == []
    session.close()
