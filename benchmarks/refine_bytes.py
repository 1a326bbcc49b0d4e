"""Budget 4: request bytes of a context refine versus a global refine for the same issue.

    .venv/bin/python benchmarks/refine_bytes.py [--prompt-id 108] [--runs 5]

Goal: context ≤ 1/5 of global.

One page is generated offline from a dev bench prompt (no evaluation, no reflection). Its first
chart (else its first image) gets one page-side issue with the exact shape the measured check
emits (``frame-too-short`` for a chart, ``cover-crop`` for an image: the frame or slot and the
content sizes in px). The model-backed refiners (``mmstudio.refine.llm.ModelRefiners``) then
refine that issue once at the context level (the element's bounded excerpt) and once at the
global level (the whole page), against the local OpenAI-compatible test server
(``tests/openai_server.py``, 127.0.0.1 only) running in a child process. The server reports the
size of every chat request body it received (bytes on the wire, JSON); the script prints the
median over ``--runs`` runs of each, the ratio and a last line ``budget 4: … MET|MISSED`` (exit
status 1 when missed). Each run's replies are valid patches, so a run that fell back to the
rules (no model request measured) is an error, not a smaller number.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from openai_server import OpenAITestServer, Reply, Request, chat_reply, error  # noqa: E402

from mmstudio.plan import ChartPlan, DesignPlan  # noqa: E402
from mmstudio.project import Project  # noqa: E402
from mmstudio.providers.settings import Settings  # noqa: E402
from mmstudio.refine import Target  # noqa: E402
from mmstudio.refine.llm import ModelRefiners  # noqa: E402
from mmstudio.refine.model import RefineInput  # noqa: E402
from mmstudio.report import ElementScore, Issue, Report  # noqa: E402
from mmstudio.studio.bench import read_prompts  # noqa: E402
from mmstudio.studio.create import new_project  # noqa: E402

PROMPTS = ROOT.parent / "shared" / "data" / "bench" / "mm_webgen_dev.jsonl"
GOAL = 0.2
_SELECTOR = re.compile(r'selector `(\[data-mm-id="[^"]+"\])`')


class BytesServer(OpenAITestServer):
    """The test server answering refine requests with valid patches and printing, per chat
    request, one JSON line ``{"schema": name, "bytes": n}`` (n: request body bytes)."""

    def __init__(self) -> None:
        super().__init__()
        self.chat_responder = self.answer

    def answer(self, request: Request) -> Reply:
        name = request.schema_name()
        print(json.dumps({"schema": name, "bytes": len(request.raw)}), flush=True)
        if name == "ContextPatch":
            match = _SELECTOR.search(request.text())
            rule = {"selector": match.group(1) if match else "", "declarations": "height:440px"}
            return chat_reply(json.dumps({"css": [rule], "summary": "a taller frame"}))
        if name == "PagePatch":
            return chat_reply(json.dumps({"css": "iframe{min-height:440px}", "summary": "taller"}))
        return error(400, f"unexpected chat request {name!r}")


def serve() -> None:
    """``--serve``: run the server until stdin closes; the first line printed is its URL."""
    with BytesServer() as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


@contextlib.contextmanager
def server_process():
    """The server in a child process; yields (base URL, its stdout to read sizes from)."""
    command = [sys.executable, __file__, "--serve"]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield child.stdout.readline().strip(), child.stdout
    finally:
        child.stdin.close()
        child.wait(10)


def the_issue(plan: DesignPlan) -> tuple[Issue, ElementScore]:
    """One page-side issue of the page's first chart (else first image), measured-shaped."""
    spec = plan.charts[0] if plan.charts else plan.images[0]
    w, h = spec.display_width_px, spec.display_height_px
    if isinstance(spec, ChartPlan):
        code, evidence = "frame-too-short", {"frame_px": [w, h], "content_px": [w, h + 96]}
        message = f"The chart frame is too small for its chart: {w}×{h} px holds a {w}×{h + 96}"
    else:
        code, evidence = "cover-crop", {"slot_px": [w, h], "asset_px": [1024, 1536]}
        message = f"The image is cover-cropped: a 1024×1536 asset in a {w}×{h} px slot"
    issue = Issue(
        id="bench-1", element=spec.id, dimension=spec.kind, level="context", code=code,
        message=message + " px.", evidence=evidence,
    )  # fmt: skip
    return issue, ElementScore(id=spec.id, kind=spec.kind, path=spec.save_path, issues=["bench-1"])


async def one_run(refiners: ModelRefiners, project: Project, issue: Issue, row, sizes) -> dict:
    """One context and one global refine of ``issue``; the bytes the server received."""
    html = (project.site_dir / "index.html").read_text(encoding="utf-8")
    report = Report(elements=[row], issues=[issue])
    result = {}
    for level, element in (("context", issue.element), ("global", None)):
        inp = RefineInput(
            level, element, [issue], report, project.read_plan(), project.site_dir, html
        )
        changes = await refiners.propose(Target(level, element, [issue]), inp)
        if [c.note for c in changes] != [refiners.note]:
            raise RuntimeError(f"the {level} refine did not use the model: {refiners.fallbacks}")
        line = json.loads(sizes.readline())
        result[level] = line["bytes"]
    return result


async def bench(args) -> list[dict]:
    row = next(r for r in read_prompts(PROMPTS) if r["id"] == args.prompt_id)
    runs = []
    with tempfile.TemporaryDirectory() as tmp, server_process() as (url, sizes):
        made = await new_project(Path(tmp) / "page", row["prompt"], evaluate=False, rounds=0)
        issue, element = the_issue(made.plan)
        page = (made.project.site_dir / "index.html").stat().st_size
        print(f"prompt {row['id']}: page {page} B, issue {issue.code} on {element.kind} "
              f"{element.id}")  # fmt: skip
        refiners = ModelRefiners(Settings(base_url=url, api_key="sk-local-bench"))
        try:
            for n in range(args.runs):
                run = await one_run(refiners, made.project, issue, element, sizes)
                runs.append(run)
                print(f"run {n + 1}: context {run['context']} B, global {run['global']} B, "
                      f"ratio {run['context'] / run['global']:.3f}", flush=True)  # fmt: skip
        finally:
            await refiners.aclose()
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt-id", default="108", help="dev bench prompt (108: has a chart)")
    parser.add_argument("--runs", type=int, default=5, help="runs (≥ 1; 5)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return 0
    runs = asyncio.run(bench(args))
    context = statistics.median(r["context"] for r in runs)
    whole = statistics.median(r["global"] for r in runs)
    ratio = context / whole
    print(f"budget 4: context request median {context:g} B vs global {whole:g} B over "
          f"{len(runs)} runs: ratio {ratio:.3f} (1/{whole / context:.1f}); goal ≤ 1/5: "
          f"{'MET' if ratio <= GOAL else 'MISSED'}")  # fmt: skip
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
