"""Rendering: browser discovery, the sandbox (site files only, no network, no leaving), the probe,
timeouts, and one warm browser shared by every render."""

from __future__ import annotations

import http.server
import threading
import time
from pathlib import Path
from typing import ClassVar

import pytest

from mmstudio.render import BrowserInfo, find_browser, get_renderer
from mmstudio.render.browser import CHROMIUM_ARGS
from mmstudio.render.sandbox import ORIGIN, content_type, site_path

requires_browser = pytest.mark.skipif(
    find_browser().executable is None,
    reason=f"no Chromium for Playwright: {find_browser().problem}",
)


def test_find_browser_reports_a_browser_or_a_fix():
    info = find_browser()
    assert isinstance(info, BrowserInfo)
    if info.executable:
        assert info.source in ("playwright", "system") and info.problem is None
    else:
        assert info.source is None and "playwright install chromium" in (info.problem or "")
    assert "--no-sandbox" in CHROMIUM_ARGS and "--disable-background-networking" in CHROMIUM_ARGS


def test_sandbox_serves_only_files_inside_the_site(tmp_path):
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text("<p>hi</p>")
    (site / "assets" / "a b.png").write_bytes(b"png")
    (tmp_path / "secret.txt").write_text("secret")
    (site / "link.txt").symlink_to(tmp_path / "secret.txt")
    assert site_path(f"{ORIGIN}/index.html", site) == ((site / "index.html").resolve(), "")
    assert site_path(f"{ORIGIN}/", site) == ((site / "index.html").resolve(), "")
    assert site_path(f"{ORIGIN}/assets/a%20b.png", site)[1] == ""
    assert site_path(f"{ORIGIN}/%2e%2e/secret.txt", site) == (None, "outside-site")
    assert site_path(f"{ORIGIN}/link.txt", site) == (None, "outside-site")
    assert site_path(f"{ORIGIN}/assets/nope.png", site) == (None, "missing")
    assert site_path("https://cdn.example.com/x.js", site) == (None, "network")
    assert site_path("http://127.0.0.1:8000/index.html", site) == (None, "network")
    assert (
        content_type(Path("x.webm")) == "video/webm"
        and content_type(Path("a.js")) == "text/javascript"
    )


class _CountingHandler(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self):
        self.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_network_requests_are_blocked_and_recorded(renderer, tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _CountingHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    (tmp_path / "index.html").write_text(
        f'<h1>Hi</h1><img src="http://127.0.0.1:{port}/photo.png" alt="x">'
        f'<script>fetch("http://127.0.0.1:{port}/api").catch(() => 0)</script>'
        '<img src="../outside.png" alt="y">'
    )
    try:
        render = await renderer.render(tmp_path, out_dir=tmp_path / "out")
    finally:
        server.shutdown()
    assert _CountingHandler.hits == []
    reasons = sorted((r.reason, r.url.rsplit("/", 1)[-1]) for r in render.blocked)
    assert ("network", "api") in reasons and ("network", "photo.png") in reasons
    assert ("missing", "outside.png") in reasons  # "../" stops at the site's root URL


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_probe_gathers_boxes_styles_and_frames(renderer, cases: Path, tmp_path):
    render = await renderer.render(cases / "good", out_dir=tmp_path, extra_viewports=(390,))
    assert render.failure is None
    probe = render.probe
    media = {m.id: m for m in probe.media}
    assert set(media) == {"hero_image", "visits_chart"}
    hero = media["hero_image"]
    assert (hero.rect.w, hero.rect.h, hero.natural_w, hero.natural_h) == (480, 300, 800, 500)
    assert hero.hidden is None and hero.opacity == 1 and hero.section == "hero"
    frame = media["visits_chart"].frame
    assert frame.accessible and frame.client_h == 320 and frame.graphics[0].drawn
    assert [s.id for s in probe.sections] == ["hero", "stats"]
    assert any(t.owner == "hero_title" and t.font_size > 20 for t in probe.texts)
    assert [o.viewport_w for o in render.overflow] == [1280, 390]
    assert Path(render.screenshot).is_file() and Path(render.text_free_screenshot).is_file()
    assert set(render.crops) == {"hero_image", "visits_chart"}
    assert render.page_size["width"] == 1280


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_dialogs_navigation_and_endless_scripts_do_not_escape(renderer, cases, tmp_path):
    alert = await renderer.render(cases / "alert-on-load", out_dir=tmp_path / "a")
    assert alert.dialogs == ["alert: Welcome to the club!"] and alert.failure is None
    moved = await renderer.render(cases / "location-change", out_dir=tmp_path / "b")
    assert moved.probe.page.title == "Harbor Rowing Club"
    assert [r.reason for r in moved.blocked] == ["navigation"]
    started = time.monotonic()
    looped = await renderer.render(cases / "infinite-loop", out_dir=tmp_path / "c")
    assert time.monotonic() - started < renderer.timeouts.load_s + 4
    assert looped.failure is None and looped.script_timeouts[0]["stage"] == "load"
    assert looped.probe.page.title == "Harbor Rowing Club"


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_one_warm_browser_serves_every_render(renderer, cases, tmp_path):
    assert get_renderer() is renderer
    await renderer.render(cases / "good", out_dir=tmp_path / "a")
    browser = await renderer._pool.browser()
    started = time.monotonic()
    await renderer.render(cases / "good", out_dir=tmp_path / "b")
    assert await renderer._pool.browser() is browser
    assert time.monotonic() - started < 5


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_missing_page_is_a_caller_error(renderer, tmp_path):
    with pytest.raises(FileNotFoundError):
        await renderer.render(tmp_path, "nope.html")


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_a_slow_page_that_answers_is_waited_for_not_interrupted(
    renderer, tmp_path, monkeypatch
):
    """A page past its load limit whose thread still answers (a busy machine, frames loading a
    chart library) is waited for, not interrupted and not reported as a script that ran too
    long: ``Runtime.terminateExecution`` ends "the current or next" script (CDP), which can be
    a late frame's start-up — calibration pages 135 and 144 lost chart instances under load."""
    import asyncio

    from mmstudio.render import sandbox

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        "<title>Slow frame</title><h1 id='t'>Waiting</h1><iframe src='chart.html'></iframe>"
    )
    (site / "chart.html").write_text(
        "<script>parent.document.getElementById('t').textContent = 'Chart drawn'</script>"
    )
    real = sandbox.Sandbox.handle

    async def slow_chart(self, route):
        if route.request.url.endswith("/chart.html"):
            await asyncio.sleep(renderer.timeouts.load_s + 0.8)
        await real(self, route)

    monkeypatch.setattr(sandbox.Sandbox, "handle", slow_chart)
    render = await renderer.render(site, out_dir=tmp_path / "out")
    assert render.failure is None and render.script_timeouts == []
    assert render.facts is not None and "Chart drawn" in render.facts.text
