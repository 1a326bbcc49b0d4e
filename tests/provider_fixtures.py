"""Fixtures of the provider tests: the local OpenAI-compatible server, settings with tiny
timeouts and backoffs, an isolated environment, a network guard (127.0.0.1 only), a plan with one
image, one video and one chart, and real tiny PNG / mp4 payloads.

Test modules import what they use: ``from provider_fixtures import server, ...``.
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
from functools import cache
from pathlib import Path

import imageio_ffmpeg
import pytest
from openai_server import OpenAITestServer
from PIL import Image

from mmstudio.plan import DesignPlan
from mmstudio.providers.settings import Settings

SECRET = "sk-test-SECRET-0123456789"
_LOCAL = {"127.0.0.1", "localhost", "::1"}


@pytest.fixture
def no_network(monkeypatch):
    """Refuse every connection and name lookup that is not 127.0.0.1."""
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(sock, address):
        host = address[0] if isinstance(address, tuple) else address
        if sock.family in (socket.AF_INET, socket.AF_INET6) and host not in _LOCAL:
            raise ConnectionRefusedError(f"tests may not reach {host}")
        return real_connect(sock, address)

    def getaddrinfo(host, *args, **kwargs):
        if host not in _LOCAL:
            raise socket.gaierror(f"tests may not resolve {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No OPENAI_* / MMSTUDIO_* variables from the machine; a config path that does not exist."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "MMSTUDIO_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MMSTUDIO_CONFIG", str(tmp_path / "no-config.toml"))


@pytest.fixture
def server():
    """A started test server with a real PNG and a real mp4 as its default image and video
    (and no structured-output rung learned from an earlier server on the same port)."""
    from mmstudio.providers.openai_compat import forget_learned_rungs

    forget_learned_rungs()
    with OpenAITestServer() as running:
        running.default_png = tiny_png()
        running.video_bytes = tiny_mp4()
        yield running


def fast_settings(server: OpenAITestServer, **changes) -> Settings:
    """Settings for ``server`` with test-sized timeouts (s) and backoffs."""
    values = {
        "base_url": server.base_url, "api_key": SECRET, "timeout_s": 0.5,
        "image_timeout_s": 0.5, "max_retries": 2, "backoff_base_s": 0.01, "backoff_max_s": 0.05,
        "video_poll_s": 0.01, "video_deadline_s": 2.0,
    }  # fmt: skip
    return Settings.model_validate({**values, **changes})


def fast_env(monkeypatch, server: OpenAITestServer, **extra: str) -> None:
    """The same settings as environment variables (for code that loads its own settings)."""
    env = {
        "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": SECRET, "MMSTUDIO_TIMEOUT": "0.5",
        "MMSTUDIO_IMAGE_TIMEOUT": "0.5", "MMSTUDIO_MAX_RETRIES": "2",
        "MMSTUDIO_BACKOFF_BASE": "0.01", "MMSTUDIO_BACKOFF_MAX": "0.05",
        "MMSTUDIO_VIDEO_POLL": "0.01", "MMSTUDIO_VIDEO_DEADLINE": "2", **extra,
    }  # fmt: skip
    for name, value in env.items():
        monkeypatch.setenv(name, value)


@cache
def tiny_png(size: tuple[int, int] = (96, 64)) -> bytes:
    """A real PNG (a two-colour gradient) of ``size`` px."""
    image = Image.linear_gradient("L").resize(size).convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


@cache
def tiny_mp4() -> bytes:
    """A real 1 s, 128x72, 12 fps H.264 mp4 made by the imageio-ffmpeg binary."""
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"mmstudio-test-{os.getpid()}.mp4"
    subprocess.run(
        [imageio_ffmpeg.get_ffmpeg_exe(), "-y", "-loglevel", "error", "-f", "lavfi", "-i",
         "testsrc=size=128x72:rate=12:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p",
         str(out)],
        check=True, timeout=60,
    )  # fmt: skip
    data = out.read_bytes()
    out.unlink()
    return data


def make_plan() -> DesignPlan:
    """A small plausible plan: a hero with an image, a loop video, a sales chart."""
    palette = [
        {"role": "background", "hex": "#fdf8f2"}, {"role": "text", "hex": "#2b1d14"},
        {"role": "primary", "hex": "#8a4b2a"}, {"role": "accent", "hex": "#d9a05b"},
    ]  # fmt: skip
    common = {"display_width_px": 640, "display_height_px": 360}
    return DesignPlan.model_validate(
        {
            "title": "Ember Roasters",
            "layout": {
                "palette": palette, "mood": ["warm", "crafted"],
                "typography": {"heading": "Georgia, serif", "body": "'DejaVu Sans', sans-serif"},
            },
            "sections": [
                {"id": "hero", "kind": "hero", "title": "Small-batch coffee",
                 "buttons": ["Shop beans"], "element_ids": ["hero-photo"]},
                {"id": "craft", "kind": "content", "title": "Roasted by hand",
                 "paragraphs": ["Every batch is watched."], "element_ids": ["pour-loop"]},
                {"id": "sales", "kind": "charts", "title": "Growing every month",
                 "element_ids": ["sales-chart"]},
            ],
            "images": [{
                "id": "hero-photo", "save_path": "assets/hero-photo.webp", "size": "1536x1024",
                "context": {"section": "hero", "role": "hero photo", "page_style": "warm craft"},
                "prompt": "Freshly roasted coffee beans on a wooden table",
                "attributes": {"visual_style": "photographic", "lighting": "golden hour"},
                **common,
            }],
            "videos": [{
                "id": "pour-loop", "save_path": "assets/pour-loop.webm",
                "poster_path": "assets/pour-loop-poster.webp",
                "context": {"section": "craft", "role": "ambient loop"},
                "prompt": "Coffee poured slowly into a ceramic cup", **common,
            }],
            "charts": [{
                "id": "sales-chart", "save_path": "assets/sales-chart.html", "title": "Sales",
                "context": {"section": "sales", "role": "monthly sales"},
                "prompt": "Monthly sales bar chart",
                "source_data": {"columns": ["Month", "Bags"],
                                "rows": [["Jan", 120], ["Feb", 150], ["Mar", 170]]},
                **common,
            }],
        }
    )  # fmt: skip


def chart_option_json() -> str:
    """A plausible ECharts option reply for the plan's chart."""
    return (
        '{"xAxis": {"type": "category", "data": ["Jan", "Feb", "Mar"]}, "yAxis": {"type": "value"},'
        ' "tooltip": {}, "series": [{"type": "bar", "name": "Bags", "data": [120, 150, 170]}]}'
    )
