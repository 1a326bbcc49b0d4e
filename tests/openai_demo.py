"""A demo backend: the local OpenAI-compatible test server answering like a model.

    python tests/openai_demo.py --port 8765
    OPENAI_BASE_URL=http://127.0.0.1:8765/v1 mmstudio new demo --provider openai --prompt "…"

Every request goes over the real wire format; the "model" behind it is the offline designer (plan,
page, chart option), a gradient PNG for images, a test-pattern mp4 for videos, and empty verdicts
for the judge; refine and feedback requests get a 400, so MM Studio's offline rules stand in.
Listens on 127.0.0.1 only. Single-user: the last plan is remembered for the page and chart
requests that follow it.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from openai_server import OpenAITestServer, Reply, Request, chat_reply, chat_stream, error
from provider_fixtures import tiny_mp4, tiny_png

from mmstudio.pipeline import charts
from mmstudio.plan import ChartPlan, DesignPlan
from mmstudio.providers.offline import layout, planner

log = logging.getLogger("openai_demo")

#: the judge's empty verdicts, by reply schema (also the latency benchmark's)
VERDICTS = {
    "LayoutJudgement": {"penalties": []},
    "StyleJudgement": {"penalties": []},
    "AestheticsJudgement": dict.fromkeys(
        ("balance_spacing", "typography", "colour", "clarity_polish", "overall"), 0.8
    ),
    "AssetJudgement": {"issues": []},
    "VideoJudgement": {"score": 0.8, "issues": []},
}


class DemoModel:
    """Answers chat requests with the offline designer's work."""

    def __init__(self) -> None:
        self.plan: DesignPlan | None = None

    def __call__(self, request: Request) -> Reply:
        name = request.schema_name()
        text = request.text()
        if name == "DesignPlan":
            prompt = text.split("<<<", 1)[-1].rsplit(">>>", 1)[0].strip()
            self.plan = planner.plan_from_prompt(prompt)
            return chat_reply(self.plan.model_dump_json())
        if name in VERDICTS:
            return chat_reply(json.dumps(VERDICTS[name]))
        if name and name != "ChartOption":  # refine and feedback requests: the rules stand in
            return error(400, f"the demo backend does not answer {name} requests")
        if self.plan is None:
            return error(400, "the demo model needs a plan request first")
        if name == "ChartOption":
            return chat_reply(json.dumps(self._chart(text)))
        return chat_stream(layout.render_page(self._page_plan(text)), pieces=8)

    def _page_plan(self, text: str) -> DesignPlan:
        """The plan the layout request quotes (one page's view of a multi-page site, so the
        page holds that page's sections only), else the last plan."""
        quoted = text.split("Plan:\n", 1)[-1].split("Reply with the HTML document only", 1)[0]
        try:
            return DesignPlan.model_validate_json(quoted.strip())
        except ValueError:
            return self.plan

    def _chart(self, text: str) -> dict:
        body = text.split("Chart plan:", 1)[1].split("Reply with", 1)[0]
        element = ChartPlan.model_validate_json(body)
        return charts.build_option(self.plan.element(element.id), self.plan)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    server = OpenAITestServer(port=args.port)
    server.default_png = tiny_png((768, 512))
    server.video_bytes = tiny_mp4()
    server.chat_responder = DemoModel()
    with server:
        log.info("OpenAI-compatible demo backend at %s (Ctrl-C stops it)", server.base_url)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            log.info("stopped")


if __name__ == "__main__":
    main()
