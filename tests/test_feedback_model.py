"""Feedback turns with a model, against the local OpenAI-compatible test server: a targeted free
requirement applied by a context refine of the marked image (the judge, reading the trial
render's screenshot, passes it), a page-wide one applied by a global refine, a model that
answers 500 (the turn still commits, the requirement fails or stays unchecked with the reason),
and a behaviour requirement whose steps the judge's script runs on the trial page of an ordinary
turn. The scripted judge decides from the screenshot it is sent, so a change that never reached
the rendered page fails these tests.
"""

from __future__ import annotations

import base64
import io
import json
import math

import pytest
from openai_server import Reply, Request, chat_reply, error
from PIL import Image
from provider_fixtures import clean_env, fast_settings, no_network, server  # noqa: F401
from test_feedback_turns import PAGE, install_page

from mmstudio.feedback import Annotation, FeedbackTurn, Ledger, Shape
from mmstudio.feedback.provider import model_judge, model_splitter
from mmstudio.project import Project
from mmstudio.providers.openai_compat import OpenAIProvider
from mmstudio.refine.llm import ModelRefiners
from mmstudio.studio.feedback import FeedbackService, feedback_project

pytestmark = pytest.mark.usefixtures("no_network", "clean_env")

GOLD, DARK = (183, 137, 43), (29, 26, 23)
FRAME_CSS = "border:14px solid #b7892b!important"


@pytest.fixture
def project(tmp_path):
    project = Project.create(tmp_path / "p", prompt="coffee", provider="openai", title="Coffee")
    install_page(project, PAGE)
    return project


def _shot(request: Request) -> Image.Image | None:
    """The screenshot a judge request carries."""
    for message in request.json.get("messages") or []:
        for part in message.get("content") if isinstance(message.get("content"), list) else []:
            url = (part.get("image_url") or {}).get("url", "") if isinstance(part, dict) else ""
            if url.startswith("data:image"):
                data = base64.b64decode(url.split(",", 1)[1])
                return Image.open(io.BytesIO(data)).convert("RGB")
    return None


def _share(image: Image.Image, colour: tuple[int, int, int], near: float = 30.0) -> float:
    """Share (0–1) of the screenshot's pixels within ``near`` (RGB distance) of ``colour``."""
    small = image.resize((image.width // 4, image.height // 4), Image.Resampling.NEAREST)
    data = small.tobytes()
    pixels = [tuple(data[i : i + 3]) for i in range(0, len(data), 3)]
    return sum(math.dist(p, colour) <= near for p in pixels) / len(pixels)


class Model:
    """The scripted model: ``split`` is the RequirementList reply; ``patches`` maps a patch
    schema (ContextPatch, PagePatch, AssetRevision) to its reply (a Reply is sent as is); the
    judge passes a requirement when ``checks[marker](screenshot)`` holds (a marker is a word of
    the requirement's text)."""

    def __init__(self, split: list[dict], patches: dict, checks: dict) -> None:
        self.split, self.patches, self.checks = split, patches, checks

    def __call__(self, request: Request) -> Reply:
        name = request.schema_name()
        if name == "RequirementList":
            return chat_reply(json.dumps({"requirements": self.split}))
        if name in self.patches:
            reply = self.patches[name]
            return reply if isinstance(reply, Reply) else chat_reply(json.dumps(reply))
        if name != "JudgedList":
            return error(400, f"unexpected request {name}")
        shot, text, verdicts = _shot(request), request.text(), []
        for line in text.splitlines():
            if not line.startswith("- `t"):
                continue
            req_id = line[3 : line.index("`", 3)]
            for marker, check in self.checks.items():
                if marker in line:
                    passed = shot is not None and check(shot)
                    verdicts.append({"id": req_id, "passed": passed, "detail": f"{marker}?"})
        return chat_reply(json.dumps({"verdicts": verdicts}))


def _turn(project, server, **kwargs) -> FeedbackTurn:  # noqa: F811
    chat = OpenAIProvider(fast_settings(server))
    return FeedbackTurn(
        project, splitter=model_splitter(chat), judge=model_judge(chat),
        refiners=ModelRefiners(fast_settings(server)), rescore=False, **kwargs,
    )  # fmt: skip


async def _close(turn: FeedbackTurn) -> None:
    if turn.refiners is not None:
        await turn.refiners.aclose()


def _schemas(server) -> list[str]:  # noqa: F811
    return [r.schema_name() for r in server.log("chat")]


@pytest.mark.asyncio(loop_scope="session")
async def test_a_targeted_free_requirement_is_applied_by_a_context_refine(
    renderer,
    project,
    server,  # noqa: F811
):
    head = project.manifest.head
    frame = [{"selector": '[data-mm-id="hero_image"]', "declarations": FRAME_CSS}]
    server.chat_responder = Model(
        [{"text": "The hero image has a thick gold frame", "op": "free", "target": "hero_image"}],
        {"ContextPatch": {"css": frame, "summary": "a gold frame"}},
        {"gold frame": lambda shot: _share(shot, GOLD) > 0.004},
    )
    annotation = Annotation(shapes=[
        Shape(id="s1", kind="rect", x=70, y=170, w=520, h=370),  # around the image
        Shape(id="n1", kind="text", x=620, y=200, w=120, h=20, text="a thick gold frame"),
    ])  # fmt: skip
    turn = _turn(project, server)
    result = await turn.run("make it precious", annotation)
    await _close(turn)
    assert [(r.op, r.target, r.aspect) for r in result.requirements] == [
        ("free", "hero_image", "design")
    ]
    assert [(v.requirement, v.passed) for v in result.verdicts] == [("t1.r1", True)]
    assert result.status == "ok" and result.not_applied == [] and result.not_understood == []
    assert result.by_model == [
        "t1.r1: context refine of `hero_image` — Model context fix for hero_image: a gold frame "
        "(by the model gpt-5.5)"
    ]
    assert _schemas(server) == ["RequirementList", "ContextPatch", "JudgedList"]
    asked = server.log("chat")[1].text()
    assert "The designer asks: - The hero image has a thick gold frame" in asked
    assert "mark 1: rectangle over the image `hero_image`" in asked
    assert "note: 'a thick gold frame'" in asked
    assert "Our Story" not in asked  # a context refine sees only its element's excerpt
    assert result.version != head and project.manifest.head == result.version
    page = (project.site_dir / "index.html").read_text()
    assert f'<style data-mm-patch="hero_image">\n[data-mm-id="hero_image"]{{{FRAME_CSS}}}' in page
    assert not list(project.root.glob(".staging-feedback-*"))
    view = FeedbackService(project).turns()
    assert view["turns"][0]["requirements"][0]["status"] == "pass"


@pytest.mark.asyncio(loop_scope="session")
async def test_an_untargeted_requirement_is_applied_by_a_global_refine(
    renderer,
    project,
    server,  # noqa: F811
):
    css = "body,section,footer{background:#1d1a17!important}"
    server.chat_responder = Model(
        [{"text": "The page has a dark, premium background", "op": "free"}],
        {"PagePatch": {"css": css, "summary": "dark premium ground"}},
        {"premium": lambda shot: _share(shot, DARK, 12) > 0.3},
    )
    turn = _turn(project, server)
    result = await turn.run("make the page feel more premium")
    await _close(turn)
    assert result.route == "global" and result.requirements[0].target is None
    assert [(v.requirement, v.passed) for v in result.verdicts] == [("t1.r1", True)]
    assert _schemas(server) == ["RequirementList", "PagePatch", "JudgedList"]
    assert "The designer asks: - The page has a dark, premium background" in (
        server.log("chat")[1].text()
    )
    assert result.by_model[0].startswith("t1.r1: global refine — Model page fix: dark premium")
    page = (project.site_dir / "index.html").read_text()
    assert f'<style data-mm-patch="page">\n{css}\n</style>' in page
    assert project.manifest.head == result.version


@pytest.mark.asyncio(loop_scope="session")
async def test_a_requirement_on_the_asset_itself_is_applied_by_a_local_refine(
    renderer,
    project,
    server,  # noqa: F811
):
    server.chat_responder = Model(
        [{"text": "The sales chart's bars are gold", "op": "free", "target": "sales_chart",
          "asset": True}],
        {"AssetRevision": {"option_patch": {"color": ["#b7892b"]}, "summary": "gold bars"}},
        {"gold": lambda shot: _share(shot, GOLD) > 0.004},
    )  # fmt: skip
    turn = _turn(project, server)
    result = await turn.run("gold bars in the chart")
    await _close(turn)
    assert [(r.target, r.aspect) for r in result.requirements] == [("sales_chart", "asset")]
    assert _schemas(server) == ["RequirementList", "AssetRevision", "JudgedList"]
    assert [(v.requirement, v.passed) for v in result.verdicts] == [("t1.r1", True)]
    assert result.by_model[0].startswith("t1.r1: local refine of `sales_chart` — Model refine")
    option = json.loads((project.site_dir / "assets" / "sales.json").read_text())
    assert option["color"] == ["#b7892b"] and option["series"][0]["data"]
    assert "#b7892b" in (project.site_dir / "assets" / "sales.html").read_text()


@pytest.mark.asyncio(loop_scope="session")
async def test_a_model_that_fails_leaves_the_turn_committed_with_the_reason(
    renderer,
    project,
    server,  # noqa: F811
):
    before = (project.site_dir / "index.html").read_text()
    server.chat_responder = Model(
        [{"text": "The hero image has a thick gold frame", "op": "free", "target": "hero_image"}],
        {"ContextPatch": error(500, "the refiner is down")},
        {"gold frame": lambda shot: _share(shot, GOLD) > 0.004},
    )
    turn = _turn(project, server)
    result = await turn.run("frame the hero_image in gold")
    await _close(turn)
    assert [(v.requirement, v.passed) for v in result.verdicts] == [("t1.r1", False)]
    assert result.status == "failing" and result.by_model == [] and result.repaired == []
    assert len(result.not_applied) == 2, result.not_applied
    first, repair = result.not_applied
    assert first.startswith("t1.r1: the model's context refine failed: ")
    assert repair.startswith("t1.r1 (repair): the model's context refine failed: ")
    assert "the refiner is down" in first
    # the repair pass asked again, with the critic's finding
    patches = [r for r in server.log("chat") if r.schema_name() == "ContextPatch"]
    assert "it is still not met (judge: gold frame?). Fix it." in patches[-1].text()
    assert project.manifest.head == result.version  # committed anyway: nothing is lost
    assert (project.site_dir / "index.html").read_text() == before
    row = FeedbackService(project).turns()["turns"][0]["requirements"][0]
    assert (row["status"], row["detail"]) == ("fail", "judge: gold frame?")


@pytest.mark.asyncio(loop_scope="session")
async def test_a_model_that_answers_nothing_falls_back_and_leaves_requirements_unchecked(
    renderer,
    project,
    server,  # noqa: F811
):
    server.chat_responder = lambda request: error(500, "the endpoint is down")
    result = await feedback_project(
        project.root, "make the headline red and frobnicate the footer", provider="openai",
        settings=fast_settings(server),
    )  # fmt: skip
    assert result.notes and result.notes[0].startswith("the model's split failed (")
    assert [(r.op, r.target) for r in result.requirements] == [
        ("colour", "hero--title"), ("free", "footer"),
    ]  # fmt: skip
    verdicts = {v.requirement: (v.passed, v.detail) for v in result.verdicts}
    assert verdicts["t1.r1"][0] is True  # measured: the offline operation applied it
    assert verdicts["t1.r2"][0] is None
    assert verdicts["t1.r2"][1].startswith("unchecked: the judge failed: ")
    assert result.not_applied[0].startswith("t1.r2: the model's global refine failed: ")
    assert result.not_understood == ["t1.r2: frobnicate the footer"]
    assert Project.open(project.root).manifest.head == result.version


REVEAL = PAGE.replace(
    '<footer data-mm-section="footer">',
    '<section data-mm-section="plans"><button id="reveal" type="button">Show the plan</button>'
    '<p id="secret" style="display:none">Secret plan: ship on Friday</p>'
    "<script>document.getElementById('reveal').onclick = () => "
    "{document.getElementById('secret').style.display = 'block'};</script></section>"
    '<footer data-mm-section="footer">',
)


@pytest.mark.asyncio(loop_scope="session")
async def test_behaviour_steps_run_on_the_trial_page_of_an_ordinary_turn(
    renderer,
    tmp_path,
    server,  # noqa: F811
):
    project = Project.create(tmp_path / "q", prompt="coffee", provider="openai", title="Coffee")
    install_page(project, REVEAL)
    reveal = [{"action": "click", "selector": "#reveal"},
              {"action": "expect_text", "text": "Secret plan"}]  # fmt: skip
    split = [
        {"text": "Clicking 'Show the plan' reveals the plan", "op": "free", "behaviour": True},
        {"text": "Visitors can subscribe", "op": "free", "behaviour": True},
    ]

    def model(request: Request) -> Reply:
        if request.schema_name() == "RequirementList":
            return chat_reply(json.dumps({"requirements": split}))
        verdicts = [  # the model's own word is False: only the run can make it pass
            {"id": "t1.r1", "passed": False, "steps": reveal},
            {"id": "t1.r2", "passed": True, "steps": [{"action": "click", "selector": "#sub"}]},
        ]
        return chat_reply(json.dumps({"verdicts": verdicts}))

    server.chat_responder = model
    chat = OpenAIProvider(fast_settings(server))
    turn = FeedbackTurn(project, splitter=model_splitter(chat), judge=model_judge(chat),
                        rescore=False)  # fmt: skip
    result = await turn.run("the button must reveal the plan; let visitors subscribe")
    await chat.aclose()
    assert [r.aspect for r in result.requirements] == ["behaviour", "behaviour"]
    verdicts = {v.requirement: v for v in result.verdicts}
    assert verdicts["t1.r1"].passed is True
    assert verdicts["t1.r1"].detail.startswith("steps: all 2 step(s) passed: click `#reveal`")
    assert verdicts["t1.r2"].passed is False
    assert verdicts["t1.r2"].detail.startswith("steps: step 1 (click `#sub`): no usable element")
    judged = [r.text() for r in server.log("chat") if r.schema_name() == "JudgedList"]
    assert 'id="reveal"' in judged[0]  # the judge read the trial page's HTML
    assert not list(project.root.glob(".staging-feedback-*"))
    ledger = Ledger(project.root / "history.sqlite")
    assert [r.aspect for r in ledger.requirements()] == ["behaviour", "behaviour"]
