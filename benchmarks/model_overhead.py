"""Budget 1: orchestration overhead on the model path, against a latency profile.

    .venv/bin/python benchmarks/model_overhead.py [--prompt-id 108] [--scale 0.1] [--runs 5]

Goal: overhead ≤ 5 % of the critical path.

The local OpenAI-compatible test server (``tests/openai_server.py``, 127.0.0.1 only) answers every
request over the real wire format after the latency of its kind (the profile below, in seconds of a
real model, times ``--scale``): planner, layout (streamed), each image, each chart option, each
video job, each judge call. The "model" behind it is the offline designer's plan, page and chart
options, a 768×512 PNG per image and a 1 s mp4 per video.

Critical path implied by the profile (what an ideal orchestrator with the same concurrency caps
would take): generation = plan + max(layout, makespan of the assets in plan order on
``--concurrency`` workers); judging = makespan of the judge calls on ``settings.concurrency``
workers. Overhead = (wall − critical path) / critical path, over generation + judging, median of
``--runs`` fresh projects. Everything local (validation, image re-encoding, mp4 → VP9 transcoding,
writing and committing the project) is overhead by this measure. Rendering for the judge's
screenshots is not part of it (done before the judge phase is timed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import heapq
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from openai_demo import VERDICTS  # noqa: E402
from openai_server import OpenAITestServer, Reply, Request, chat_reply, chat_stream, error  # noqa: E402
from provider_fixtures import tiny_mp4, tiny_png  # noqa: E402

from mmstudio.pipeline import charts  # noqa: E402
from mmstudio.plan import ChartPlan, DesignPlan  # noqa: E402
from mmstudio.providers.llm.page import with_mp4_paths  # noqa: E402
from mmstudio.providers.llm.review import judge_site  # noqa: E402
from mmstudio.providers.offline import layout, planner  # noqa: E402
from mmstudio.providers.settings import Settings  # noqa: E402
from mmstudio.render import find_browser, get_renderer  # noqa: E402
from mmstudio.studio.bench import read_prompts  # noqa: E402
from mmstudio.studio.create import new_project  # noqa: E402
from mmstudio.studio.evaluation import evaluate_project  # noqa: E402

PROMPTS = ROOT.parent / "shared" / "data" / "bench" / "mm_webgen_dev.jsonl"
#: seconds per call of a real model (a typical GPT-5.1 / gpt-image-1 / sora-2 run), before scaling
PROFILE_S = {"plan": 30.0, "layout": 45.0, "image": 15.0, "chart": 8.0, "video": 60.0,
             "judge": 10.0}  # fmt: skip
GOAL = 0.05


class LatencyServer(OpenAITestServer):
    """The test server answering like a model with the latencies of ``profile`` (s)."""

    def __init__(self, plan: DesignPlan, profile: dict[str, float]) -> None:
        super().__init__()
        self.plan, self.profile = plan, profile
        self.default_png, self.video_bytes = tiny_png((768, 512)), tiny_mp4()
        self.chat_responder = self.chat

    def _default(self, request: Request) -> Reply:
        reply = super()._default(request)
        delay = {"images.generate": "image", "videos.create": "video"}.get(request.route)
        if delay:
            reply.delay_s = self.profile[delay]
        return reply

    def chat(self, request: Request) -> Reply:
        name, p = request.schema_name(), self.profile
        if name == "DesignPlan":
            return chat_reply(self.plan.model_dump_json(), delay_s=p["plan"])
        if name in VERDICTS:
            return chat_reply(json.dumps(VERDICTS[name]), delay_s=p["judge"])
        if name == "ChartOption":
            return chat_reply(json.dumps(self.chart(request.text())), delay_s=p["chart"])
        if (request.json or {}).get("stream"):
            page = layout.render_page(with_mp4_paths(self.plan))
            return chat_stream(page, pieces=8, delay_s=p["layout"])
        return error(400, f"unexpected chat request {name!r}")

    def chart(self, text: str) -> dict:
        body = text.split("Chart plan:", 1)[1].split("Reply with", 1)[0]
        element = ChartPlan.model_validate_json(body)
        return charts.build_option(self.plan.element(element.id), self.plan)


def makespan(durations: list[float], workers: int) -> float:
    """Seconds to run ``durations`` in order on ``workers`` (each task to the first free one)."""
    free = [0.0] * max(1, workers)
    for duration in durations:
        heapq.heappush(free, heapq.heappop(free) + duration)
    return max(free)


def generation_path(plan: DesignPlan, p: dict[str, float], workers: int, poll_s: float) -> float:
    """The critical path (s) of plan → layout ∥ assets."""
    cost = {"image": p["image"], "chart": p["chart"], "video": p["video"] + poll_s}
    assets = [cost[e.kind] for e in plan.elements()]
    return p["plan"] + max(p["layout"], makespan(assets, workers))


def serve(args) -> None:
    """``--serve``: run the latency server in this process until stdin closes; prints its URL."""
    row = next(r for r in read_prompts(PROMPTS) if r["id"] == args.prompt_id)
    plan = planner.plan_from_prompt(row["prompt"])
    with LatencyServer(plan, profile_of(args)) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


def profile_of(args) -> dict[str, float]:
    return {k: v * args.scale for k, v in PROFILE_S.items()}


@contextlib.contextmanager
def server_process(args):
    """The latency server in a child process (its JSON and base64 work must not share our GIL
    and count as our overhead); yields its base URL."""
    command = [sys.executable, __file__, "--serve", "--prompt-id", args.prompt_id,
               "--scale", str(args.scale)]  # fmt: skip
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield child.stdout.readline().strip()
    finally:
        child.stdin.close()
        child.wait(10)


async def one_run(settings: Settings, prompt: str, root: Path, args) -> dict:
    t0 = time.perf_counter()
    made = await new_project(
        root, prompt, provider="openai", settings=settings, evaluate=False, rounds=0,
        concurrency=args.concurrency,
    )  # fmt: skip
    gen_wall = time.perf_counter() - t0
    report = await evaluate_project(made.project)  # screenshots for the judge: not timed
    t0 = time.perf_counter()
    review = await judge_site(report, made.plan, made.project.site_dir, settings)
    judge_wall = time.perf_counter() - t0
    calls = len(review.usage.records())
    p = profile_of(args)
    return {
        "gen_wall": gen_wall,
        "gen_path": generation_path(made.plan, p, args.concurrency, settings.video_poll_s),
        "judge_wall": judge_wall,
        "judge_path": makespan([p["judge"]] * calls, settings.concurrency),
        "judge_calls": calls,
        "timings": made.timings,
    }


async def bench(args) -> list[dict]:
    row = next(r for r in read_prompts(PROMPTS) if r["id"] == args.prompt_id)
    plan = planner.plan_from_prompt(row["prompt"])
    profile = profile_of(args)
    print(f"prompt {row['id']}: {len(plan.images)} images, {len(plan.charts)} charts, "
          f"{len(plan.videos)} videos; profile (s): "
          + ", ".join(f"{k} {v:g}" for k, v in profile.items()))  # fmt: skip
    runs = []
    with server_process(args) as url, tempfile.TemporaryDirectory() as tmp:
        settings = Settings(base_url=url, api_key="sk-local-bench", video_poll_s=0.01)
        for n in range(args.runs):
            run = await one_run(settings, row["prompt"], Path(tmp) / f"p{n}", args)
            runs.append(run)
            wall, path = run["gen_wall"] + run["judge_wall"], run["gen_path"] + run["judge_path"]
            print(f"run {n + 1}: generation {run['gen_wall']:.2f} s vs path {run['gen_path']:.2f}"
                  f"; judge {run['judge_wall']:.2f} s vs path {run['judge_path']:.2f} "
                  f"({run['judge_calls']} calls); overhead {(wall - path) / path:+.1%}",
                  flush=True)  # fmt: skip
    await get_renderer().close()
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt-id", default="108", help="bench prompt (108: 7 images, ...)")
    parser.add_argument("--scale", type=float, default=0.1, help="latency scale (0.1)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=2, help="assets at once (2)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args)
        return 0
    if find_browser().executable is None:
        print(find_browser().problem)
        return 2
    runs = asyncio.run(bench(args))
    gen = statistics.median((r["gen_wall"] - r["gen_path"]) / r["gen_path"] for r in runs)
    judge = statistics.median((r["judge_wall"] - r["judge_path"]) / r["judge_path"] for r in runs)
    total = statistics.median(
        (r["gen_wall"] + r["judge_wall"]) / (r["gen_path"] + r["judge_path"]) - 1 for r in runs
    )
    print(f"budget 1: overhead median {total:+.1%} (generation {gen:+.1%}, judge {judge:+.1%}); "
          f"goal ≤ {GOAL:.0%}: {'MET' if total <= GOAL else 'MISSED'}")  # fmt: skip
    return 0 if total <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
