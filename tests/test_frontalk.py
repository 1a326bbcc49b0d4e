"""FronTalk replay and functional checks: the rates' arithmetic, strict validation of the judge's
action scripts, a script that passes and one that fails on a page whose button reveals text, and
a replay of two dialogues against the local OpenAI-compatible test server whose scripted judge
makes one earlier condition regress (forgetting 1 − 2/3) — checked in the ledger, the verdicts,
the records and the summary, and resumed without a single new request.
"""

from __future__ import annotations

import json
import re

import pytest
from openai_server import Reply, Request, chat_reply, error
from provider_fixtures import clean_env, fast_settings, no_network, server  # noqa: F401

from mmstudio.feedback import Ledger
from mmstudio.feedback.functional import (
    MAX_STEPS,
    ScriptError,
    Step,
    check_selector,
    parse_script,
    run_script,
)
from mmstudio.render import find_browser
from mmstudio.studio.frontalk import (
    FrontalkOptions,
    frontalk_rates,
    read_dialogues,
    run_frontalk,
)

needs_browser = pytest.mark.skipif(
    find_browser().executable is None, reason="no Chromium for Playwright"
)

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Reveal</title>
<style>body{font:18px/1.5 sans-serif;margin:40px} #secret{display:none}</style></head>
<body><main data-mm-section="main"><h1>Plans</h1>
<label>Name <input id="name"></label>
<select id="size"><option value="s">Small</option><option value="l">Large</option></select>
<button id="reveal" type="button">Show the plan</button>
<p id="secret">Secret plan: ship on Friday</p>
<p id="echo"></p>
<script>
document.getElementById('reveal').addEventListener('click', () => {
  document.getElementById('secret').style.display = 'block';
  const size = document.getElementById('size').value;
  document.getElementById('echo').textContent =
    'Hello ' + document.getElementById('name').value + ' (' + size + ')';
});
</script></main></body></html>"""


# --- the arithmetic -------------------------------------------------------------------------


def _test(turn: int, *statuses: str | None) -> dict:
    return {"turn": turn, "statuses": list(statuses)}


def test_frontalk_rates_follow_the_paper():
    tests = [
        _test(1, "pass", "pass", "pass"),
        _test(1, "pass", "pass", "fail"),  # forgotten at the final turn
        _test(2, None, "pass", "pass"),
        _test(3, None, None, "fail"),  # introduced at the final turn: not in forgetting
        _test(3, None, None, "pass"),
    ]
    rates = frontalk_rates(tests, 3)
    assert rates["pass_rate"] == round((1 + 1 + 0.5) / 3, 4)
    assert rates["forgetting_rate"] == round(1 - 2 / 3, 4)
    assert (rates["passes_at_intro"], rates["passes_at_final"]) == (3, 2)
    assert rates["at_intro"] == {"pass": 4, "fail": 1, "unchecked": 0}
    unchecked = [_test(1, "unchecked", "unchecked"), _test(2, None, "unchecked")]
    rates = frontalk_rates(unchecked, 2)
    assert (rates["pass_rate"], rates["forgetting_rate"]) == (0.0, None)  # never a pass
    assert rates["at_intro"]["unchecked"] == 2
    assert frontalk_rates([], 3)["pass_rate"] is None


# --- the script is untrusted ------------------------------------------------------------------


def test_scripts_are_validated_strictly():
    steps = parse_script([
        {"action": "type", "selector": "#name", "text": "Ada"},
        {"action": "select", "selector": "css=#size", "text": "Large"},
        {"action": "click", "selector": "role=button[name='Show the plan']"},
        {"action": "expect_text", "text": "Secret plan"},
    ])  # fmt: skip
    assert [s.line() for s in steps] == [
        'type "Ada" into `#name`', 'select "Large" in `css=#size`',
        "click `role=button[name='Show the plan']`", 'expect text "Secret plan"',
    ]  # fmt: skip
    bad = {
        "the script has no steps": [],
        f"at most {MAX_STEPS}": [{"action": "click", "selector": "#a"}] * (MAX_STEPS + 1),
        "step 1: Input should be": [{"action": "evaluate", "selector": "#a"}],
        "step 1: Extra inputs": [{"action": "click", "selector": "#a", "script": "x()"}],
        "step 1: click needs a selector": [{"action": "click"}],
        "step 2: type needs a text": [
            {"action": "click", "selector": "#a"}, {"action": "type", "selector": "#b"}],
        "engine '_react' is not allowed": [{"action": "click", "selector": "_react=App"}],
        "internal selectors": [{"action": "click", "selector": "div >> internal:text=x"}],
        "at most 200 characters": [{"action": "expect_visible", "selector": "#a" + "b" * 300}],
    }  # fmt: skip
    for reason, proposal in bad.items():
        with pytest.raises(ScriptError, match=re.escape(reason)):
            parse_script(proposal)
    with pytest.raises(ValueError, match="control characters"):
        check_selector("#a\nb")
    assert Step(action="expect_visible", selector=" #a ").selector == "#a"


# --- scripts on a real page -----------------------------------------------------------------


@pytest.fixture
def reveal_site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(PAGE)
    return site


@pytest.mark.asyncio(loop_scope="session")
async def test_a_script_that_reveals_the_text_passes(renderer, reveal_site):
    steps = parse_script([
        {"action": "expect_visible", "selector": "#reveal"},
        {"action": "type", "selector": "#name", "text": "Ada"},
        {"action": "select", "selector": "#size", "text": "Large"},
        {"action": "click", "selector": "#reveal"},
        {"action": "expect_text", "text": "Secret plan: ship on Friday"},
        {"action": "expect_text", "selector": "#echo", "text": "Hello Ada (l)"},
    ])  # fmt: skip
    outcome = await run_script(reveal_site, steps)
    assert outcome.passed, outcome.detail
    assert outcome.detail.startswith("all 6 step(s) passed") and outcome.steps_run == 6


@pytest.mark.asyncio(loop_scope="session")
async def test_a_failing_step_names_the_step_and_the_reason(renderer, reveal_site):
    # without the click the text stays hidden: the expectation fails at step 1
    hidden = parse_script([{"action": "expect_text", "text": "Secret plan"}])
    outcome = await run_script(reveal_site, hidden)
    assert not outcome.passed
    assert outcome.detail == (
        'step 1 (expect text "Secret plan"): the text is not visible within 2 s'
    )
    missing = parse_script([
        {"action": "click", "selector": "#reveal"},
        {"action": "click", "selector": "#subscribe"},
        {"action": "expect_text", "text": "Thanks"},
    ])  # fmt: skip
    outcome = await run_script(reveal_site, missing)
    assert not outcome.passed and outcome.steps_run == 2
    assert outcome.detail.startswith("step 2 (click `#subscribe`): no usable element matches")
    with pytest.raises(FileNotFoundError):
        await run_script(reveal_site, missing, page="nope.html")


@pytest.mark.asyncio(loop_scope="session")
async def test_scripts_follow_links_within_the_site_only(renderer, reveal_site):
    (reveal_site / "next.html").write_text(
        '<p>Second page</p><a id="out" href="https://example.com/">away</a>'
    )
    index = reveal_site / "index.html"
    index.write_text(
        index.read_text().replace("</main>", '<a id="on" href="next.html">on</a></main>')
    )
    steps = [
        {"action": "click", "selector": "#on"},
        {"action": "expect_text", "text": "Second page"},
        {"action": "click", "selector": "#out"},
        {"action": "expect_text", "text": "Second page"},  # still here: leaving was refused
        {"action": "expect_visible", "selector": "#reveal"},
    ]
    outcome = await run_script(reveal_site, parse_script(steps))
    assert not outcome.passed and outcome.steps_run == 5
    assert outcome.detail.startswith("step 5 (expect visible `#reveal`): no visible element")


# --- a replay of two dialogues over the wire ------------------------------------------------

DIALOGUES = [
    {"id": "dlg-a.html", "summary": {"purpose": "A plans page"}, "cases": [
        {"instructions": "Build a plans page [A-t1]", "type": "function", "test_conditions": [
            {"condition": "[A1] Clicking the button reveals the plan.", "pass": "The plan shows.",
             "fail": "Nothing happens."},
            {"condition": "[A2] The page has a heading.", "pass": "A heading.", "fail": "None."}]},
        {"instructions": "Make it friendlier [A-t2]", "type": "design", "test_conditions": [
            {"condition": "[A3] The tone is friendly.", "pass": "Friendly.", "fail": "Cold."}]},
        {"instructions": "Add a footer [A-t3]", "type": "design", "test_conditions": [
            {"condition": "[A4] A footer is present.", "pass": "Footer.", "fail": "None."}]},
    ]},
    {"id": "dlg-b.html", "summary": {}, "cases": [
        {"instructions": "Build a form [B-t1]", "type": "design", "test_conditions": [
            {"condition": "[B1] The page is calm.", "pass": "Calm.", "fail": "Loud."},
            {"condition": "[B2] The page feels premium.", "pass": "Yes.", "fail": "No."}]},
        {"instructions": "Add subscribing [B-t2]", "type": "function", "test_conditions": [
            {"condition": "[B3] A visitor can subscribe.", "pass": "Subscribed.",
             "fail": "Cannot."}]},
    ]},
]  # fmt: skip

REVEAL_STEPS = [
    {"action": "click", "selector": "#reveal"},
    {"action": "expect_text", "text": "Secret plan"},
]
# (condition marker, current turn) → the judge's verdict; absent: no verdict (stays unchecked)
VERDICTS = {
    ("A1", 1): {"passed": False, "steps": REVEAL_STEPS},  # the run decides, not the model
    ("A1", 2): {"passed": False, "steps": REVEAL_STEPS},
    ("A1", 3): {"passed": False, "steps": REVEAL_STEPS},
    ("A2", 1): {"passed": True}, ("A2", 2): {"passed": True}, ("A2", 3): {"passed": False},
    ("A3", 2): {"passed": True}, ("A3", 3): {"passed": True},
    ("A4", 3): {"passed": False},
    ("B1", 1): {"passed": True}, ("B1", 2): {"passed": True},
    ("B3", 2): {"passed": True, "steps": [{"action": "click", "selector": "#subscribe"}]},
}  # fmt: skip
PAGE_CSS = "h1{letter-spacing:.02em}"
_REQ_LINE = re.compile(r"^- `t(\d+)\.r(\d+)`[^:]*: \[(\w\d)\]", re.M)


class ScriptedModel:
    """The scripted model: the split of each turn and the judge's verdicts (see VERDICTS)."""

    def __call__(self, request: Request) -> Reply:
        text = request.text()
        if request.schema_name() == "RequirementList":
            extra = [{"text": "[S] The menu opens on click", "op": "free", "behaviour": True}]
            return chat_reply(json.dumps({"requirements": extra if "[A-t2]" in text else []}))
        if request.schema_name() == "PagePatch":  # the model refiners apply the turn's own split
            return chat_reply(json.dumps({"css": PAGE_CSS, "summary": "a friendlier menu"}))
        if request.schema_name() != "JudgedList":
            return error(400, f"unexpected request {request.schema_name()}")
        lines = _REQ_LINE.findall(text)
        turn = max(int(t) for t, _, _ in lines)
        verdicts = []
        for t, r, marker in lines:
            answer = VERDICTS.get((marker, turn))
            if answer is not None:
                verdicts.append({"id": f"t{t}.r{r}", "detail": f"{marker} at {turn}", **answer})
        return chat_reply(json.dumps({"verdicts": verdicts}))


@pytest.fixture
def dialogue_file(tmp_path):
    path = tmp_path / "frontalk" / "dialogues.jsonl"
    for name in ("dlg-a", "dlg-b"):
        site = path.parent / "sites" / name
        site.mkdir(parents=True)
        (site / "index.html").write_text(PAGE)
    path.write_text("\n".join(json.dumps(d) for d in DIALOGUES) + "\n")
    return path


@pytest.mark.usefixtures("no_network", "clean_env")
@pytest.mark.asyncio(loop_scope="session")
async def test_replay_of_two_dialogues_scores_forgetting_exactly(
    renderer,
    server,  # noqa: F811
    dialogue_file,
    tmp_path,
):
    server.chat_responder = ScriptedModel()
    options = FrontalkOptions(provider="openai", start="reference", settings=fast_settings(server))
    out = tmp_path / "out"
    summary = await run_frontalk(dialogue_file, out, options=options)

    ledger = Ledger(out / "projects" / "dlg-a" / "history.sqlite")
    reqs = {r.id: r for r in ledger.requirements()}
    assert [(i, r.text[:4], r.aspect, r.check_only) for i, r in reqs.items()] == [
        ("t1.r1", "[A1]", "behaviour", True), ("t1.r2", "[A2]", "behaviour", True),
        ("t2.r1", "[S] ", "behaviour", False), ("t2.r2", "[A3]", "design", True),
        ("t3.r1", "[A4]", "design", True),
    ]  # fmt: skip
    # the turn's own requirement is applied by a global refine; test conditions never travel
    patches = [r.text() for r in server.log("chat") if r.schema_name() == "PagePatch"]
    assert len(patches) == 1 and "[S] The menu opens on click" in patches[0]
    assert not re.search(r"\[[AB]\d\]", patches[0])
    site = (out / "projects" / "dlg-a" / "site" / "index.html").read_text()
    assert f'<style data-mm-patch="page">\n{PAGE_CSS}\n</style>' in site
    assert "Passes when: The plan shows. Fails when: Nothing happens." in reqs["t1.r1"].text
    table = ledger.verdicts_by_turn()
    passed = {i: {t: v.passed for t, v in by.items()} for i, by in table.items()}
    assert passed == {
        "t1.r1": {1: True, 2: True, 3: True},  # the steps ran and passed: the model said False
        "t1.r2": {1: True, 2: True, 3: False},
        "t2.r1": {2: None, 3: None},
        "t2.r2": {2: True, 3: True},
        "t3.r1": {3: False},
    }
    assert table["t1.r1"][3].detail.startswith("steps: all 2 step(s) passed: click `#reveal`")
    assert table["t1.r2"][3].detail == "judge: A2 at 3"
    assert ledger.forgetting() == [
        {"requirement": "t1.r2", "turn": 3, "detail": "judge: A2 at 3", "repaired": False}
    ]
    ledger_b = Ledger(out / "projects" / "dlg-b" / "history.sqlite")
    b3 = ledger_b.verdicts_by_turn()["t2.r1"][2]
    assert b3.passed is False
    assert b3.detail.startswith("steps: step 1 (click `#subscribe`): no usable element matches")

    # the last version of a replayed dialogue carries its evaluation (the app's badges and
    # score plot read it); the earlier turns are only judged
    from mmstudio.project import Project

    project = Project.open(out / "projects" / "dlg-a")
    versions = project.history.list()
    head = project.history.get(project.manifest.head)
    assert "report.json" in head.files and head.scores.get("overall") is not None
    assert project.read_report() is not None and project.read_report().scores.overall is not None
    assert [v.scores.get("overall") is not None for v in versions].count(True) == 1

    records = {r["id"]: r for r in json.loads((out / "summary.json").read_text())["dialogues"]}
    a, b = records["dlg-a.html"], records["dlg-b.html"]
    assert [t["statuses"] for t in a["tests"]] == [
        ["pass", "pass", "pass"], ["pass", "pass", "fail"], [None, "pass", "pass"],
        [None, None, "fail"],
    ]  # fmt: skip
    assert (a["pass_rate"], a["forgetting_rate"]) == (round(2 / 3, 4), round(1 - 2 / 3, 4))
    assert (a["passes_at_intro"], a["passes_at_final"]) == (3, 2)
    assert [t["statuses"] for t in b["tests"]] == [
        ["pass", "pass"],
        ["unchecked", "unchecked"],
        [None, "fail"],
    ]
    assert (b["pass_rate"], b["forgetting_rate"]) == (0.25, 0.0)
    assert summary["pass_rate"] == round((round(2 / 3, 4) + 0.25) / 2, 4)
    assert summary["forgetting_rate"] == round(1 - 3 / 4, 4)  # pooled: (2 + 1) / (3 + 1)
    assert summary["at_intro"] == {"pass": 4, "fail": 2, "unchecked": 1}
    assert (summary["finished"], summary["tests"], summary["turns"]) == (2, 7, 5)
    assert summary["usage"]["calls"] > 0  # one bundle for the whole replay: its spend

    judged = [r.text() for r in server.log("chat") if r.schema_name() == "JudgedList"]
    assert "`t1.r1` (behaviour)" in judged[0] and 'id="reveal"' in judged[0]
    # A: one judgement a turn, plus the repair's at turn 3; B: one, plus the repair's at turn 2
    assert len(judged) == 3 + 1 + 2 + 1
    assert "`t2.r1` (behaviour): [S] The menu opens on click" in judged[1]
    md = (out / "summary.md").read_text()
    assert "1 − 3/4" in md and "1 test condition(s) stayed unchecked" in md

    asked = len(server.log("chat"))
    again = await run_frontalk(dialogue_file, out, options=options)
    assert (again["ran_now"], again["resumed"]) == (0, 2) and again["usage"] is None
    assert len(server.log("chat")) == asked
    assert again["forgetting_rate"] == summary["forgetting_rate"]


def test_dialogue_file_errors_are_one_line(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "x", "cases": []}) + "\n")
    with pytest.raises(ValueError, match=r"d.jsonl:1 is not a FronTalk dialogue: cases"):
        read_dialogues(path)
    one = json.dumps(DIALOGUES[1])
    path.write_text(f"{one}\n\n{one}\n")
    with pytest.raises(ValueError, match=r"d.jsonl:3 repeats the dialogue 'dlg-b.html'"):
        read_dialogues(path)
