"""Render lanes: the pages of a site rendered side by side reuse warm contexts (mmstudio/render/
lanes.py), with each page's results what a context of its own gives, and nothing of one page
(storage, cached assets, blocked requests, a looping script) reaching the next."""

from __future__ import annotations

import asyncio
import io

import pytest
from PIL import Image, ImageChops

from mmstudio.pipeline.generate import build_site
from mmstudio.providers.offline.designer import OfflineDesigner
from mmstudio.render import Renderer, Timeouts
from mmstudio.render import lanes as lanes_module
from mmstudio.render.browser import shared_pool

pytestmark = pytest.mark.asyncio(loop_scope="session")

FIVE_PAGES = (
    "A multi-page site for Nove, a cafe in Porto, with Home, Menu, About, Events and Contact "
    "pages: a hero photo on the home page, a menu of coffees with prices, the founder's story, "
    "a list of tasting events and a contact form."
)
TIMEOUTS = Timeouts(load_s=2.0, step_s=4.0, settle_assets_s=1.0, total_s=40.0)


def _png(width: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, 10), (200, 40, 40)).save(out, "PNG")
    return out.getvalue()


def _comparable(render) -> dict:
    """A render's results without the parts that name its folder or its timing."""
    data = render.model_dump(
        exclude={"timings", "screenshot", "text_free_screenshot", "crops", "settle", "overflow"}
    )
    data["overflow"] = [o.model_dump(exclude={"screenshot"}) for o in render.overflow]
    data["crops"] = sorted(render.crops)
    data["settle"] = {k: v for k, v in render.settle.items() if k != "ms"}
    return data


def _same_pixels(a: str, b: str) -> bool:
    with Image.open(a) as one, Image.open(b) as two:
        return (
            one.size == two.size
            and ImageChops.difference(one.convert("RGB"), two.convert("RGB")).getbbox() is None
        )


@pytest.fixture
def opened(monkeypatch) -> list[int]:
    """Counts the contexts the lanes open."""
    count: list[int] = []
    real = lanes_module.Lane.open.__func__

    async def counting(cls, *args, **kwargs):
        count.append(1)
        return await real(cls, *args, **kwargs)

    monkeypatch.setattr(lanes_module.Lane, "open", classmethod(counting))
    return count


async def test_pages_side_by_side_reuse_contexts_and_match_renders_of_their_own(
    renderer, tmp_path, opened
):
    designer = OfflineDesigner()
    plan = await designer.plan(FIVE_PAGES)
    site = tmp_path / "site"
    site.mkdir()
    await build_site(plan, designer, site)
    pages = [p.path for p in plan.site_pages()]
    assert len(pages) == 5

    async with Renderer(shared_pool(), TIMEOUTS, parked_lanes=0) as alone:
        own = [
            await alone.render(site, p, 1280, tmp_path / "own" / p, extra_viewports=(390,))
            for p in pages
        ]
    assert len(opened) == 5
    opened.clear()
    async with Renderer(shared_pool(), TIMEOUTS) as shared:
        together = await asyncio.gather(
            *(
                shared.render(site, p, 1280, tmp_path / "lane" / p, extra_viewports=(390,))
                for p in pages
            )
        )
    assert len(opened) == 2  # as many contexts as the pool renders at once, not one per page
    for mine, theirs in zip(own, together, strict=True):
        assert mine.failure is None and theirs.failure is None
        assert _comparable(theirs) == _comparable(mine), mine.page
        assert _same_pixels(theirs.screenshot, mine.screenshot), mine.page


async def test_nothing_of_a_page_reaches_the_next_in_its_lane(renderer, tmp_path, opened):
    site = tmp_path / "site"
    (site / "img").mkdir(parents=True)
    (site / "img" / "a.png").write_bytes(_png(10))
    (site / "a.html").write_text(
        "<!doctype html><title>a</title><img src='img/a.png' alt='a'><script>"
        "localStorage.setItem('k','from a'); sessionStorage.setItem('k','from a');"
        "window.name='from a'; document.cookie='k=from-a';"
        "fetch('https://cdn.example.com/a.js').catch(() => {});"
        "console.error('a broke');</script>"
    )
    (site / "b.html").write_text(
        "<!doctype html><title>b</title><img src='img/a.png' alt='a'><p id='seen'></p><script>"
        "document.getElementById('seen').textContent = 'seen: ' + [localStorage.getItem('k'),"
        " sessionStorage.getItem('k'), window.name || null, document.cookie || null].join('|');"
        "</script>"
    )
    async with Renderer(shared_pool(), TIMEOUTS) as shared:
        first = await shared.render(site, "a.html", 800, tmp_path / "a")
        (site / "img" / "a.png").write_bytes(_png(24))  # a new version of the same asset
        second = await shared.render(site, "b.html", 800, tmp_path / "b")
    assert len(opened) == 1  # b rendered in a's tab
    assert first.failure is None and second.failure is None
    assert any("cdn.example.com" in b.url for b in first.blocked)
    assert first.console_errors and not second.console_errors and not second.blocked
    text = second.facts.text
    assert "seen: |||" in text, text
    assert [m.natural_w for m in second.probe.media] == [24]


async def test_a_page_that_loops_never_hands_its_tab_on(renderer, tmp_path, opened):
    site = tmp_path / "site"
    site.mkdir()
    (site / "loop.html").write_text(
        "<!doctype html><p>x</p><script>setTimeout(() => { for (;;) {} }, 50)</script>"
    )
    (site / "ok.html").write_text("<!doctype html><h1>fine</h1>")
    async with Renderer(shared_pool(), TIMEOUTS) as shared:
        looped = await shared.render(site, "loop.html", 800, tmp_path / "l", accessibility=False)
        assert len(shared._park) == 0
        fine = await shared.render(site, "ok.html", 800, tmp_path / "o")
        assert len(shared._park) == 1
    assert looped.script_timeouts or looped.failure
    assert fine.failure is None and not fine.script_timeouts
    assert len(opened) == 2
