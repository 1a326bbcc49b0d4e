"""The fault matrix of the model path: every command against every endpoint behaviour and fault.

    .venv/bin/python benchmarks/fault_matrix.py [--only SUBSTRING] [--out FILE]

Goal (issue 17): with the local test server (``tests/openai_server.py``, 127.0.0.1 only) set to
each of its five behaviours (openai, vllm, ollama, lmstudio, llamacpp), ``mmstudio new`` (with
one round of reflection), ``evaluate``, ``refine``, ``feedback``, ``bench --frontalk --limit 2``
and ``doctor`` finish with exit 0 or one clear line, and so does each added fault case (a
``/models`` reply of the wrong shape, 401, 429 with ``Retry-After``, a truncated stream, a body
that is not JSON, an image refused, a video endpoint that is gone, …). No case may print a
traceback or end in "internal error".

Each case starts a server of its own (a fresh port, so nothing learned about one endpoint carries
over), runs the command as a subprocess of the installed CLI with the provider configured by the
environment (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``MMSTUDIO_*``) as the README's
"Configuration" says, and records: behaviour, command, fault, exit code, the last stderr line,
and whether a traceback was printed or saved. The "model" behind the server is the offline
designer (``tests/openai_demo.py``) answering the plan, the page and the chart options, empty
verdicts for the judge, and small valid replies for the refiners and the feedback turn.

A case passes when no traceback was printed or saved and its expectation holds: ``exit 0`` (with
the words the case names in its output, e.g. the notice of an asset made offline) or ``one line``
(exit ≠ 0 and the last stderr line is the one ``mmstudio: error:`` line, or a feedback turn's
"not applied" summary), or for a failing ``doctor`` check ``BAD row`` (exit 1 and a ``BAD`` row
saying what is wrong). The table goes to ``benchmarks/results/fault_matrix.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from openai_demo import VERDICTS, DemoModel  # noqa: E402
from openai_server import (  # noqa: E402
    PROFILES,
    OpenAITestServer,
    Reply,
    Request,
    behaviour,
    chat_reply,
    chat_stream,
    error,
    image_reply,
)
from provider_fixtures import tiny_mp4, tiny_png  # noqa: E402

from mmstudio.providers.offline import layout, planner  # noqa: E402

CLI = [sys.executable, "-m", "mmstudio"]
PROMPT_FILE = ROOT / "resources" / "demo" / "prompt.txt"
DIALOGUES = ROOT.parent / "shared" / "data" / "frontalk" / "dialogues_dev.jsonl"
RESULTS = ROOT / "benchmarks" / "results" / "fault_matrix.md"
#: seconds a case may run (a two-dialogue FronTalk replay takes about two minutes on a busy box)
CASE_TIMEOUT_S = 600
KEY = "sk-fault-matrix-0123456789"

#: the chat request kinds, by reply schema or (on a rung without a schema) by the prompt's words
_KINDS = (
    ("DesignPlan", "planner of a web design studio"),
    ("ChartOption", "chart agent of a web design studio"),
    ("LayoutJudgement", "layout evaluator"),
    ("StyleJudgement", "style evaluator"),
    ("AestheticsJudgement", "aesthetics evaluator"),
    ("AssetJudgement", "image evaluator"),
    ("AssetJudgement", "chart evaluator"),
    ("VideoJudgement", "video evaluator"),
    ("PagePatch", "fixing the page as a whole"),
    ("ContextPatch", "context level"),
    ("AssetRevision", "refining one asset at the local level"),
    ("RequirementList", "atomic, checkable requirements"),
    ("JudgedList", "You review a web page against requirements"),
)


def request_kind(request: Request) -> str:
    """The schema name of a chat request, or the one its prompt's words say ("page": none)."""
    name = request.schema_name()
    if name:
        return name
    text = request.text()
    return next((kind for kind, words in _KINDS if words in text), "page")


class MatrixModel(DemoModel):
    """The demo model routed by request kind (so a rung without a schema is answered too), with
    small valid answers for the refiners and the feedback turn (so the matrix drives the model
    refiners, not only their fallback to the rules)."""

    def __call__(self, request: Request) -> Reply:
        kind = request_kind(request)
        if kind == "PagePatch":
            css = "main{row-gap:24px}"
            return chat_reply(json.dumps({"html": "", "css": css, "summary": "more room"}))
        if kind == "ContextPatch":
            return chat_reply(json.dumps({"markup": "", "css": [], "summary": "kept"}))
        if kind == "AssetRevision":
            revision = {"prompt": "", "attributes": [], "size": "", "option_patch": [],
                        "summary": "kept"}  # fmt: skip
            return chat_reply(json.dumps(revision))
        if kind == "RequirementList":
            asked = {"text": "The page's tone is warmer", "op": "tone", "target": None,
                     "value": "warmer", "behaviour": False, "asset": False}  # fmt: skip
            return chat_reply(json.dumps({"requirements": [asked]}))
        if kind == "JudgedList":
            ids = dict.fromkeys(re.findall(r"^- `([^`]+)`", request.text(), re.MULTILINE))
            verdicts = [{"id": i, "passed": True, "detail": "", "steps": []} for i in ids]
            return chat_reply(json.dumps({"verdicts": verdicts}))
        if kind in VERDICTS:
            return chat_reply(json.dumps(VERDICTS[kind]))
        if kind == "DesignPlan":
            prompt = request.text().split("<<<", 1)[-1].rsplit(">>>", 1)[0].strip()
            self.plan = planner.plan_from_prompt(prompt)
            return chat_reply(self.plan.model_dump_json())
        if self.plan is None:
            return error(400, "the matrix model needs a plan request first")
        if kind == "ChartOption":
            return chat_reply(json.dumps(self._chart(request.text())))
        page = layout.render_page(self.plan)
        return chat_stream(page, pieces=8) if _is_stream(request) else chat_reply(page)


#: a fault: (request) → the reply that replaces the normal one, or None (answer normally)
Fault = Callable[[Request], Reply | None]


class FaultServer(OpenAITestServer):
    """The test server answering with ``fault`` where it says so, else normally."""

    def __init__(self, kind, fault: Fault | None = None, **kwargs) -> None:
        super().__init__(behaviour=kind, **kwargs)
        self.fault = fault
        self.default_png = tiny_png((768, 512))
        self.video_bytes = tiny_mp4()
        self.chat_responder = MatrixModel()

    def take(self, request: Request) -> Reply:
        reply = self.fault(request) if self.fault else None
        if reply is None:
            return super().take(request)
        with self._lock:
            self.requests.append(request)
        return reply


def on(
    route: str,
    reply: Callable[[], Reply],
    *,
    kind: str | None = None,
    times: int | None = None,
    when: Callable[[Request], bool] | None = None,
) -> Fault:
    """A fault answering ``route`` (and chat requests of ``kind``) with ``reply()`` — the first
    ``times`` such requests, or every one."""
    count = [0]

    def fault(request: Request) -> Reply | None:
        if request.route != route or (kind and request_kind(request) != kind):
            return None
        if when is not None and not when(request):
            return None
        if times is not None and count[0] >= times:
            return None
        count[0] += 1
        return reply()

    return fault


def _is_stream(request: Request) -> bool:
    return bool(isinstance(request.json, dict) and request.json.get("stream"))


def _plan_cut_off() -> Reply:
    reply = chat_reply('{"title": "Ember')
    reply.json["choices"][0]["finish_reason"] = "length"
    return reply


@dataclass
class Case:
    """One row: ``command`` against a server of ``kind`` (a profile name or a Behaviour) with
    ``fault``; ``expect`` is ``exit 0`` or ``one line``; ``words`` must be in the output."""

    kind: str
    command: str
    fault_name: str = "none"
    fault: Fault | None = None
    flags: dict = field(default_factory=dict)
    expect: str = "exit 0"
    words: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    base_url: Callable[[OpenAITestServer], str] | None = None
    extra: tuple[str, ...] = ()

    @property
    def behaviour_label(self) -> str:
        flags = "+".join(k for k, v in self.flags.items() if v)
        return f"{self.kind}+{flags}" if flags else self.kind


@dataclass
class Outcome:
    case: Case
    code: int | None
    last_line: str
    traceback: bool
    seconds: float
    passed: bool
    why: str = ""


def command_args(case: Case, work: Path, project: Path | None) -> list[str]:
    """The CLI arguments of ``case`` (``project``: the project a command works on)."""
    provider = ["--provider", "openai"]
    if case.command == "new":
        return ["new", str(work / "new"), *provider, "--rounds", "1",
                "--prompt-file", str(PROMPT_FILE), *case.extra]  # fmt: skip
    if case.command == "bench --frontalk":
        return ["bench", "--frontalk", str(DIALOGUES), "--limit", "2", "-o",
                str(work / "bench"), *provider, "--no-figures", *case.extra]  # fmt: skip
    if case.command == "doctor":
        return ["doctor", *case.extra]
    assert project is not None
    copy = work / "project"
    shutil.copytree(project, copy, symlinks=True)
    if case.command == "evaluate":
        return ["evaluate", str(copy), *provider, *case.extra]
    if case.command.startswith("refine"):
        level = case.command.split()[-1] if " " in case.command else "global"
        return ["refine", str(copy), "--level", level, *provider, *case.extra]
    if case.command == "feedback":
        return ["feedback", str(copy), "--text", "Make the page feel warmer", *provider,
                *case.extra]  # fmt: skip
    raise ValueError(f"unknown command {case.command}")


def environment(server_url: str, work: Path, case: Case) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "MMSTUDIO_"))}
    env.update({
        "OPENAI_BASE_URL": server_url, "OPENAI_API_KEY": KEY,
        "MMSTUDIO_CONFIG": str(work / "config" / "config.toml"),
        "MMSTUDIO_LOG_DIR": str(work / "log"), "MMSTUDIO_TIMEOUT": "20",
        "MMSTUDIO_IMAGE_TIMEOUT": "20", "MMSTUDIO_MAX_RETRIES": "2",
        "MMSTUDIO_BACKOFF_BASE": "0.05", "MMSTUDIO_BACKOFF_MAX": "0.2",
        "MMSTUDIO_VIDEO_POLL": "0.05", "MMSTUDIO_VIDEO_DEADLINE": "20",
        "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1", **case.env,
    })  # fmt: skip
    return env


_ONE_LINE = re.compile(r"^(mmstudio: error: \S.*|committed, but .* not applied.*)$")


def run_case(case: Case, work: Path, project: Path | None) -> Outcome:
    """Run ``case`` in ``work`` (a fresh folder) against a server of its own."""
    from mmstudio.providers.openai_compat import forget_learned_rungs

    forget_learned_rungs()
    kind = behaviour(case.kind, **case.flags)
    with FaultServer(kind, case.fault) as server:
        url = case.base_url(server) if case.base_url else server.base_url
        args = command_args(case, work, project)
        started = time.monotonic()
        try:
            done = subprocess.run(
                [*CLI, *args], env=environment(url, work, case), cwd=work, capture_output=True,
                text=True, timeout=CASE_TIMEOUT_S,
            )  # fmt: skip
            code, out, err = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired as exc:
            code, out = None, (exc.stdout or b"").decode("utf-8", "replace")
            err = (exc.stderr or b"").decode("utf-8", "replace")
        seconds = time.monotonic() - started
    (work / "stdout.txt").write_text(out, encoding="utf-8")
    (work / "stderr.txt").write_text(err, encoding="utf-8")
    lines = [line for line in err.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    bad = [line for line in out.splitlines() if line.startswith("BAD ")]
    if case.command == "doctor" and bad:  # doctor's verdicts are rows on stdout
        last = bad[0]
    saved = list((work / "log").glob("crash-*.log")) if (work / "log").is_dir() else []
    traceback = (
        "Traceback (most recent call last)" in out + err or "internal error" in err or bool(saved)
    )
    passed, why = judge_outcome(case, code, out + err, last, traceback)
    return Outcome(case, code, last, traceback, seconds, passed, why)


def judge_outcome(
    case: Case, code: int | None, text: str, last: str, traceback: bool
) -> tuple[bool, str]:
    """Whether the outcome meets the case's expectation, and why not."""
    if code is None:
        return False, f"still running after {CASE_TIMEOUT_S} s"
    if traceback:
        return False, "a traceback"
    if case.expect == "exit 0" and code != 0:
        return False, f"exit {code}, expected 0"
    if case.expect == "one line" and (code == 0 or not _ONE_LINE.match(last)):
        return False, "expected one error line"
    if case.expect == "either" and code != 0 and not _ONE_LINE.match(last):
        return False, f"exit {code} without one clear line"
    if case.expect == "BAD row" and (code != 1 or not last.startswith("BAD ")):
        return False, "expected exit 1 with a BAD row"
    missing = [w for w in case.words if w not in text]
    if missing:
        return False, f"missing {missing!r}"
    return True, ""


GRID_COMMANDS = ("new", "evaluate", "refine", "feedback", "bench --frontalk", "doctor")
#: the local-model quirks each profile is run with in the grid (as in the compatibility tests)
GRID_FLAGS = {"ollama": {"think": True}, "llamacpp": {"think": True, "prose": True}}


def grid() -> list[Case]:
    cases = []
    for kind in PROFILES:
        for command in GRID_COMMANDS:
            # feedback: 0 (all pass) or 3 with its summary line (committed, a requirement not
            # applied) are both one clear outcome
            expect = "either" if command == "feedback" else "exit 0"
            cases.append(Case(kind, command, flags=GRID_FLAGS.get(kind, {}), expect=expect))
    return cases


def faults() -> list[Case]:
    """The fault cases beyond the grid."""
    closed_port = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
    # fmt: off
    return [
        Case("openai", "doctor", "/models: data is not a list",
             on("models", lambda: Reply(json={"object": "list", "data": "gpt-5.5"})),
             expect="BAD row", words=("wrong shape",)),
        Case("openai", "doctor", "/models: a bare list of one model",
             on("models", lambda: Reply(json=[{"id": "gpt-5.5"}])), expect="BAD row",
             words=("not listed",)),
        Case("openai", "doctor", "/models: entries without id",
             on("models", lambda: Reply(json={"object": "list", "data": [{"name": "x"}, 7]})),
             expect="BAD row", words=("wrong shape",)),
        Case("openai", "doctor", "/models: an HTML page",
             on("models", lambda: Reply(body=b"<html>proxy</html>", content_type="text/html")),
             expect="BAD row", words=("wrong shape",)),
        Case("openai", "doctor", "/models: 401",
             on("models", lambda: error(401, "Incorrect API key provided")), expect="BAD row",
             words=("OPENAI_API_KEY",)),
        Case("openai", "doctor", "endpoint unreachable", base_url=lambda s: closed_port,
             expect="BAD row", words=("is the server running",)),
        Case("openai", "doctor", "base URL without /v1", base_url=lambda s: s.root_url,
             expect="BAD row", words=("lacks /v1",)),
        Case("openai", "new", "401 on the first call",
             on("chat", lambda: error(401, "Incorrect API key provided")), expect="one line",
             words=("OPENAI_API_KEY",)),
        Case("openai", "new", "429 with Retry-After 0.3 s, then served",
             on("chat", lambda: error(429, "Rate limit reached", retry_after=0.3), times=2)),
        Case("openai", "new", "429 on every call",
             on("chat", lambda: error(429, "Rate limit reached", retry_after=0.05)),
             expect="one line"),
        Case("openai", "new", "500 on every call",
             on("chat", lambda: error(500, "The server had an error")), expect="one line"),
        Case("openai", "new", "page stream truncated once",
             on("chat", lambda: chat_stream("<!DOCTYPE html><html>", truncate=True),
                when=_is_stream, times=1)),
        Case("openai", "new", "page stream truncated every time",
             on("chat", lambda: chat_stream("<!DOCTYPE html><html>", truncate=True),
                when=_is_stream), expect="one line"),
        Case("openai", "new", "chat body not JSON",
             on("chat", lambda: Reply(body=b"{not json")), expect="one line"),
        Case("openai", "new", "chat reply without choices",
             on("chat", lambda: chat_reply("{}", choices=None)), expect="one line"),
        Case("openai", "new", "plan cut off at the output limit",
             on("chat", _plan_cut_off, kind="DesignPlan"), expect="one line",
             words=("output limit",)),
        Case("openai", "new", "plan reply is prose, even after the repair",
             on("chat", lambda: chat_reply("I would make a lovely page."), kind="DesignPlan"),
             expect="one line"),
        Case("openai", "new", "model not found (404)",
             on("chat", lambda: error(404, "The model `gpt-5.5` does not exist")),
             expect="one line", words=("gpt-5.5",)),
        Case("openai", "new", "request timeout (reply after 3 s, timeout 1 s)",
             on("chat", lambda: chat_reply("{}", delay_s=3.0)), expect="one line",
             env={"MMSTUDIO_TIMEOUT": "1", "MMSTUDIO_MAX_RETRIES": "1"}),
        Case("openai", "new", "base URL without /v1", base_url=lambda s: s.root_url,
             expect="one line", words=("/v1",)),
        Case("openai", "new", "endpoint unreachable", base_url=lambda s: closed_port,
             expect="one line"),
        Case("openai", "new", "every image refused (moderation)",
             on("images.generate", lambda: error(400, "Your request was rejected by the "
                                                  "safety system")),
             words=("notice:", "made by the offline maker")),
        Case("openai", "new", "image endpoint: 200 without data",
             on("images.generate", lambda: Reply(json={"created": 0, "data": []})),
             words=("notice:",)),
        Case("openai", "new", "image bytes are not an image",
             on("images.generate", lambda: image_reply(b"GIF89a not really")),
             words=("notice: image", "not an image")),
        Case("openai", "new", "image b64_json is not base64",
             on("images.generate", lambda: Reply(json={"created": 0,
                                                      "data": [{"b64_json": "%%not base64"}]})),
             words=("notice: image", "invalid base64")),
        Case("openai", "new", "video endpoint gone (404)",
             on("videos.create", lambda: error(404, "Not found")),
             words=("notice: video",)),
        Case("openai", "new", "video job failed",
             on("videos.retrieve", lambda: Reply(json={
                 "id": "video_1", "object": "video", "status": "failed", "progress": 0,
                 "error": {"code": "moderation_blocked", "message": "blocked"}})),
             words=("notice: video",)),
        Case("openai", "new", "video content: 500",
             on("videos.content", lambda: error(500, "storage down")),
             words=("notice: video",)),
        Case("openai", "new", "video content is not an mp4",
             on("videos.content", lambda: Reply(body=b"not a video", content_type="video/mp4")),
             words=("notice: video", "unusable")),
        Case("openai", "new", "chart option is not an object, even after the repair",
             on("chat", lambda: chat_reply("[1, 2, 3]"), kind="ChartOption"),
             words=("notice: chart", "made by the offline maker")),
        Case("openai", "new", "chart agent 500 on every call",
             on("chat", lambda: error(500, "chart backend down"), kind="ChartOption"),
             words=("notice: chart",)),
        Case("openai", "new", "plan reply without content (a refusal)",
             on("chat", lambda: chat_reply(None), kind="DesignPlan"), expect="one line",
             words=("without content",)),
        Case("openai", "new", "page stream empty",
             on("chat", lambda: chat_stream(" "), when=_is_stream), expect="one line",
             words=("HTML document",)),
        Case("openai", "new", "error event inside the page stream", flags={"stream_error":
             "upstream model crashed"}, expect="one line"),
        Case("openai", "new", "no response_format taken at all",
             flags={"reject_response_format": True}),
        Case("vllm", "new", "flat 400 errors on the plan",
             on("chat", lambda: error(400, "maximum context length is 4096 tokens"),
                kind="DesignPlan"), expect="one line", words=("context length",)),
        Case("openai", "evaluate", "judge replies unreadable",
             on("chat", lambda: chat_reply("Looks great to me!")), words=("not judged",)),
        Case("openai", "evaluate", "judge 500 on every call",
             on("chat", lambda: error(500, "judge down")), words=("not judged",)),
        Case("openai", "refine", "refiner reply unreadable",
             on("chat", lambda: chat_reply("Sure, here you go"), kind="PagePatch")),
        Case("openai", "refine local", "image edit 500",
             on("images.edit", lambda: error(500, "edit backend down"))),
        Case("openai", "refine", "refiner 401",
             on("chat", lambda: error(401, "Incorrect API key provided"), kind="PagePatch"),
             expect="either"),
        Case("openai", "feedback", "split 500 on every call",
             on("chat", lambda: error(500, "split down"), kind="RequirementList"),
             expect="either"),
        Case("openai", "feedback", "feedback judge unreadable",
             on("chat", lambda: chat_reply("yes"), kind="JudgedList"), expect="either"),
        Case("lmstudio", "bench --frontalk", "plan 500 on every call",
             on("chat", lambda: error(500, "The server had an error"), kind="DesignPlan"),
             expect="either"),
    ]
    # fmt: on


def base_project(root: Path) -> Path:
    """A project made through the model path once (openai behaviour, no reflection): the one
    ``evaluate``, ``refine`` and ``feedback`` cases start from (each on a copy of its own)."""
    work = root / "base"
    work.mkdir()
    case = Case("openai", "new")
    with FaultServer("openai") as server:
        args = ["new", str(work / "p"), "--provider", "openai", "--rounds", "0",
                "--prompt-file", str(PROMPT_FILE)]  # fmt: skip
        subprocess.run([*CLI, *args], env=environment(server.base_url, work, case), check=True,
                       capture_output=True, timeout=CASE_TIMEOUT_S)  # fmt: skip
    return work / "p"


def render_table(outcomes: list[Outcome], load: str, seconds: float) -> str:
    passed = sum(o.passed for o in outcomes)
    tracebacks = sum(o.traceback for o in outcomes)
    lines = [
        "# Fault matrix of the model path (issue 17)",
        "",
        f"`.venv/bin/python benchmarks/fault_matrix.py` — {len(outcomes)} cases, {passed} "
        f"pass, {len(outcomes) - passed} fail, {tracebacks} with a traceback; "
        f"{seconds:.0f} s; load average at start {load}.",
        "",
        "Each case: a fresh local test server (127.0.0.1) with the behaviour and fault shown, "
        "the command run as a subprocess with the provider set by `OPENAI_BASE_URL`, "
        "`OPENAI_API_KEY` and `MMSTUDIO_*`. Expectation: `exit 0`, `one line` (exit ≠ 0 and "
        "the last stderr line is the one error line) or `either`. Traceback: printed, saved "
        'as a crash log, or an "internal error" line.',
        "",
        "| # | behaviour | command | fault | expect | exit | last stderr line | traceback "
        "| s | outcome |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, o in enumerate(outcomes, 1):
        last = o.last_line.replace("|", "\\|")
        last = last if len(last) <= 160 else last[:157] + "…"
        verdict = "pass" if o.passed else f"FAIL: {o.why}"
        code = "timeout" if o.code is None else str(o.code)
        lines.append(
            f"| {n} | {o.case.behaviour_label} | {o.case.command} | {o.case.fault_name} | "
            f"{o.case.expect} | {code} | `{last}` | {'yes' if o.traceback else 'no'} | "
            f"{o.seconds:.1f} | {verdict} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[],
                        help="run only cases whose 'behaviour command fault' has this "
                             "(repeatable: any of them)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=RESULTS, help="the Markdown table")
    parser.add_argument("--keep", action="store_true", help="keep the case folders")
    args = parser.parse_args()
    cases = grid() + faults()
    if args.only:
        label = lambda c: f"{c.behaviour_label} {c.command} {c.fault_name}"  # noqa: E731
        cases = [c for c in cases if any(o in label(c) for o in args.only)]
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    root = Path(tempfile.mkdtemp(prefix="mm-fault-matrix-"))
    started = time.monotonic()
    outcomes = []
    try:
        needs = {"evaluate", "refine", "refine local", "feedback"}
        project = base_project(root) if any(c.command in needs for c in cases) else None
        for n, case in enumerate(cases, 1):
            work = root / f"case-{n:02d}"
            work.mkdir()
            outcome = run_case(case, work, project)
            outcomes.append(outcome)
            mark = "pass" if outcome.passed else f"FAIL ({outcome.why})"
            print(f"[{n}/{len(cases)}] {case.behaviour_label} {case.command} — "
                  f"{case.fault_name}: exit {outcome.code}, {outcome.seconds:.1f} s, {mark}"
                  f"\n    {outcome.last_line[:200]}", flush=True)  # fmt: skip
    finally:
        if args.keep:
            print(f"case folders kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_table(outcomes, load, time.monotonic() - started), "utf-8")
    print(f"{sum(o.passed for o in outcomes)}/{len(outcomes)} pass; table: {args.out}")
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
