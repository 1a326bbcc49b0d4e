"""Render one page of a site folder in the warm Chromium and probe it.

Invariants:
- A render has a browser context to itself (a *lane*, :mod:`.lanes`): a new one, or the one a
  clean render of the same site folder left parked (blank tab, storage emptied). In ``finally``
  (also on timeout and cancellation) the lane is reset and parked when the render finished
  cleanly, else closed; so the pages of a site rendered side by side (``asyncio.gather``, as
  many at once as the pool's slots) reuse the warm renderer processes, and a page that failed,
  looped or was cancelled never hands its tab on.
- No step can hang the caller: every page call runs under a timeout; when one expires the page's
  JavaScript is interrupted with CDP ``Runtime.terminateExecution`` (which reaches a renderer busy
  in an endless loop) and the step is retried once; a second expiry, or the whole render passing
  ``Timeouts.total_s``, ends the render with ``Render.failure`` set — never an exception.
- Only caller mistakes raise: a site folder or page that does not exist (FileNotFoundError).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmstudio.threads import run_cpu

from .browser import BrowserPool, BrowserUnavailable, shared_pool
from .crops import save_crops
from .facts import PageFacts
from .lanes import Lane, Park
from .model import A11yViolation, OverflowProbe, Probe, Render
from .sandbox import ORIGIN, Sandbox, relative
from .scripts import (
    A11Y_JS,
    A11Y_RULES,
    FACTS_JS,
    OVERFLOW_JS,
    PROBE_JS,
    SETTLE_JS,
    axe_source,
)

log = logging.getLogger(__name__)

TEXT_FREE_CSS = (
    "*,*::before,*::after{color:transparent!important;text-shadow:none!important;"
    "-webkit-text-stroke-color:transparent!important;text-decoration-color:transparent!important}"
)
MAX_SHOT_HEIGHT = 16000


@dataclass(frozen=True)
class Timeouts:
    """Time limits in seconds: page load, one page call, the settle wait for assets, the whole
    render."""

    load_s: float = 5.0
    step_s: float = 6.0
    settle_assets_s: float = 1.5
    total_s: float = 60.0


class StepTimeout(Exception):
    """A page call did not return in time, even after the page's scripts were interrupted."""


class Renderer:
    """Renders pages in one shared Chromium. ``async with Renderer() as r: await r.render(site)``.

    Leaving the ``async with`` closes the browser of a private renderer; the shared one from
    :func:`get_renderer` stays warm until the process exits."""

    def __init__(
        self,
        pool: BrowserPool | None = None,
        timeouts: Timeouts = Timeouts(),
        *,
        parked_lanes: int = 2,
    ) -> None:
        """``parked_lanes``: how many clean contexts wait for the next page of their site
        (0: every render opens and closes its own)."""
        self._pool = pool or BrowserPool()
        self.timeouts = timeouts
        self._park = Park(limit=parked_lanes)

    async def __aenter__(self) -> Renderer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._park.close()
        if self._pool is not shared_pool():
            await self._pool.close()

    async def start(self) -> None:
        """Start the browser now (it otherwise starts on the first render). Raises
        :class:`~mmstudio.render.browser.BrowserUnavailable`."""
        await self._pool.browser()

    async def close(self) -> None:
        """Stop the browser (a later render starts it again)."""
        await self._park.close()
        await self._pool.close()

    async def render(
        self,
        site_dir: Path,
        page: str = "index.html",
        viewport_width: int = 1280,
        out_dir: Path | None = None,
        *,
        viewport_height: int = 800,
        extra_viewports: tuple[int, ...] = (),
        accessibility: bool = True,
        pairs: tuple[tuple[str, str], ...] = (),
    ) -> Render:
        """Render ``site_dir/page`` at ``viewport_width`` × ``viewport_height`` px.

        Writes the full-page screenshot, a text-free screenshot (for contrast) and one crop per
        media element into ``out_dir`` (a temp dir when None); probes the page; measures horizontal
        overflow at each of ``extra_viewports`` (px); locates each of ``pairs`` (two texts that
        belong to one item) in the page facts. Raises FileNotFoundError when the page does
        not exist; every other problem is returned in ``Render.failure``."""
        site_dir = Path(site_dir).resolve()
        if not (site_dir / page).is_file():
            raise FileNotFoundError(f"no page {page!r} in {site_dir}")
        out = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="mmstudio-render-"))
        out.mkdir(parents=True, exist_ok=True)
        result = Render(
            site_dir=str(site_dir),
            page=page,
            url=f"{ORIGIN}/{page}",
            viewport={"width": viewport_width, "height": viewport_height},
        )
        job = _Job(self, result, site_dir, out, extra_viewports, accessibility)
        job.pairs = [list(p) for p in pairs][:80]
        started = time.perf_counter()
        try:
            async with self._pool.slots:
                try:
                    await asyncio.wait_for(job.run(), self.timeouts.total_s)
                finally:  # in the slot: the next page of the site waiting for it takes the lane
                    await job.close()
        except BrowserUnavailable as exc:
            result.failure = str(exc)
        except (TimeoutError, StepTimeout) as exc:
            result.failure = f"render timed out ({exc or 'whole render'})"
        except Exception as exc:  # a crashed page or browser is a finding, not a crash of ours
            log.warning("render of %s failed", site_dir / page, exc_info=True)
            result.failure = f"render failed: {type(exc).__name__}: {str(exc)[:200]}"
        result.timings["render_total_s"] = round(time.perf_counter() - started, 3)
        return result


class _Job:
    """The steps of one render (see :meth:`Renderer.render`)."""

    def __init__(self, renderer, result, site_dir, out, extra, accessibility) -> None:
        self.r, self.result, self.site_dir, self.out = renderer, result, site_dir, out
        self.extra, self.accessibility = extra, accessibility
        self.t = renderer.timeouts
        self.context: Any = None  # the lane's Playwright context, tab and CDP session
        self.page: Any = None
        self.cdp: Any = None
        self.lane: Lane | None = None
        self.sandbox = Sandbox(site_dir, result.url)
        self.pairs: list[list[str]] = []
        self.finished = False

    async def run(self) -> None:
        await self._step("open", self._open)
        await self._step("load", self._load)
        self.result.settle = await self._guard("settle", self._settle)
        raw = await self._guard("probe", self._probe)
        self.result.probe = _with_ids(Probe.model_validate_json(raw), self.site_dir)
        await self._step("screenshot", self._screenshots)
        await self._step("facts", self._facts)
        if self.accessibility:
            await self._step("a11y", self._a11y)
        await self._step("viewports", self._viewports)
        await self._step("crops", self._crops)
        self.finished = True

    async def _step(self, name: str, fn) -> Any:
        t0 = time.perf_counter()
        try:
            return await fn()
        finally:
            self.result.timings[f"{name}_s"] = round(time.perf_counter() - t0, 3)

    async def _open(self) -> None:
        browser = await self.r._pool.browser()
        vp = self.result.viewport
        self.lane = self.r._park.take(browser, self.site_dir)
        if self.lane is None:
            self.lane = await Lane.open(browser, self.site_dir, vp, self.t.step_s)
        self.context, self.page, self.cdp = self.lane.context, self.lane.page, self.lane.cdp
        await self.lane.begin(self.sandbox, vp)

    async def _load(self) -> None:
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        try:
            await self.page.goto(self.result.url, wait_until="load", timeout=self.t.load_s * 1000)
        except PlaywrightTimeout:
            # only a page whose thread is held (an endless loop) is interrupted: a page that is
            # merely slow — a busy machine, frames each loading a chart library — answers, and
            # interrupting it would kill its frames' start-up scripts (charts without instances)
            responsive = await self._answers()
            if not responsive:
                await self._terminate("load")
            try:
                # a page of megabytes may not even have arrived: wait until OUR document has
                # loaded (about:blank is "loaded" at once, and probing it races the commit)
                await self.page.wait_for_url(
                    lambda url: url.split("#")[0] == self.result.url,
                    wait_until="load",
                    timeout=self.t.load_s * 1000,
                )
            except PlaywrightTimeout:
                if responsive and not await self._answers():
                    await self._terminate("load")
                log.info("%s never finished loading", self.result.url)

    async def _answers(self, within_s: float = 1.0) -> bool:
        """Whether the page's thread runs a trivial script within ``within_s`` seconds (False
        while a script holds it, or when the page cannot be reached)."""
        try:
            await asyncio.wait_for(self.page.evaluate("0"), within_s)
        except Exception:  # a timeout, a closed page, a context lost mid-navigation
            return False
        return True

    async def _terminate(self, stage: str) -> None:
        """Interrupt whatever script holds the page's thread (an endless loop)."""
        at = time.time() * 1000
        try:
            await asyncio.wait_for(self.cdp.send("Runtime.terminateExecution"), 5)
        except Exception:
            log.debug("terminateExecution failed", exc_info=True)
        self.result.script_timeouts.append({"stage": stage, "at_ms": at})
        log.info("stopped a script that ran too long during %s of %s", stage, self.result.url)

    async def _guard(self, stage: str, fn) -> Any:
        """Run a page call under ``step_s``; on expiry interrupt scripts and retry once."""
        t0 = time.perf_counter()
        try:
            for _attempt in range(2):
                try:
                    return await asyncio.wait_for(fn(), self.t.step_s)
                except TimeoutError:
                    await self._terminate(stage)
            raise StepTimeout(stage)
        finally:
            self.result.timings[f"{stage}_s"] = round(time.perf_counter() - t0, 3)

    async def _settle(self) -> dict:
        args = {"maxMs": self.t.settle_assets_s * 1000, "maxScrollPx": 30000}
        return await self.page.evaluate(SETTLE_JS, args)

    async def _probe(self) -> str:
        return await self.page.evaluate(PROBE_JS, {"maxTexts": 600, "scrollLimit": 30000})

    async def _facts(self) -> None:
        """What a visitor sees, for the requirement checks; a page whose facts cannot be read
        (a script holding the thread) still renders, its requirements then stay unchecked."""
        args = {"maxBlocks": 1500, "maxText": 200_000, "scrollTo": 1200, "pairs": self.pairs}
        try:
            raw = await self._guard("facts_probe", lambda: self.page.evaluate(FACTS_JS, args))
        except StepTimeout:
            log.info("page facts did not finish on %s", self.result.url)
            return
        self.result.facts = PageFacts.model_validate_json(raw)

    async def _screenshots(self) -> None:
        probe = self.result.probe
        height = min(probe.page.scroll_h, MAX_SHOT_HEIGHT)
        width = self.result.viewport["width"]
        self.result.page_size = {"width": probe.page.scroll_w, "height": probe.page.scroll_h}
        clip = {"x": 0, "y": 0, "width": width, "height": max(1, height), "scale": 1}
        shot = self.out / f"screenshot-{width}.png"
        await self._guard("shot", lambda: self._capture(shot, clip, "png"))
        self.result.screenshot = str(shot)
        plain = self.out / f"textfree-{width}.jpg"
        await self._guard("textfree", lambda: self._text_free(plain, clip))
        self.result.text_free_screenshot = str(plain)

    async def _capture(self, path: Path, clip: dict, fmt: str) -> None:
        """Full-page capture through CDP: ``optimizeForSpeed`` makes a tall PNG ~2× faster than
        Playwright's ``page.screenshot``."""
        params = {"format": fmt, "clip": clip, "captureBeyondViewport": True}
        params |= {"optimizeForSpeed": True} if fmt == "png" else {"quality": 92}
        reply = await self.cdp.send("Page.captureScreenshot", params)
        await asyncio.to_thread(path.write_bytes, base64.b64decode(reply["data"]))

    async def _text_free(self, path: Path, clip: dict) -> None:
        handle = await self.page.add_style_tag(content=TEXT_FREE_CSS)
        await self._capture(path, clip, "jpeg")
        await handle.evaluate("e => e.remove()")

    async def _a11y(self) -> None:
        async def run() -> list:
            await self.page.evaluate(axe_source())
            return await self.page.evaluate(A11Y_JS, list(A11Y_RULES))

        try:
            found = await self._guard("axe", run)
        except StepTimeout:
            log.info("axe did not finish on %s", self.result.url)
            return
        self.result.a11y = [A11yViolation.model_validate(v) for v in found]

    async def _viewports(self) -> None:
        widths = (self.result.viewport["width"], *self.extra)
        height = self.result.viewport["height"]
        for width in dict.fromkeys(widths):
            await self.page.set_viewport_size({"width": width, "height": height})
            measured = await self._guard(f"overflow_{width}", self._overflow)
            item = OverflowProbe.model_validate(measured)
            if width != widths[0]:
                shot = self.out / f"screenshot-{width}.png"
                await self._guard(f"shot_{width}", lambda s=shot: self.page.screenshot(path=s))
                item.screenshot = str(shot)
            self.result.overflow.append(item)

    async def _overflow(self) -> dict:
        await self.page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
        return await self.page.evaluate(OVERFLOW_JS)

    async def _crops(self) -> None:
        media = self.result.probe.media if self.result.probe else []
        # decoding the full-page PNG and encoding the crops holds the GIL: in the app, a worker
        # process does it
        self.result.crops = await run_cpu(
            save_crops, Path(self.result.screenshot), media, self.out / "crops"
        )

    async def close(self) -> None:
        self.result.blocked = list(self.sandbox.blocked)
        self.result.dialogs = list(self.sandbox.dialogs)
        self.result.console_errors = list(self.sandbox.console_errors)
        lane, self.lane = self.lane, None
        if lane is None:
            return
        clean = self.finished and not self.result.failure and not self.result.script_timeouts
        clean = clean and self.r._park.limit > 0
        if clean and await lane.reset(self.t.load_s):
            self.r._park.put(lane)
        else:
            await lane.close()


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40]
    return slug or "x"


def _with_ids(probe: Probe, site_dir: Path) -> Probe:
    """Give discovered media stable ids (``img-<file stem>``, ``chart-<stem>``, ``video-<stem>``,
    ``canvas-<n>``) and fill each element's site-relative asset ``path``."""
    prefix = {"img": "img", "video": "video", "iframe": "chart", "canvas": "canvas"}
    taken = {m.id for m in probe.media if m.id} | {i.id for i in probe.ids}
    for n, media in enumerate(probe.media, start=1):
        src = media.src or (media.video.current_src if media.video else "")
        if media.video and not src and media.video.sources:
            src = media.video.sources[0].src
        media.path = relative(src, site_dir) if src else ""
        if media.id:
            continue
        stem = Path(media.path or src.split("?")[0]).stem if (media.path or src) else ""
        base = f"{prefix.get(media.tag, 'chart')}-{_slug(stem) if stem else n}"
        candidate, k = base, 2
        while candidate in taken:
            candidate, k = f"{base}-{k}", k + 1
        media.id = candidate
        taken.add(candidate)
    return probe


_shared_renderer: Renderer | None = None


def get_renderer() -> Renderer:
    """The process-wide renderer over the shared warm browser."""
    global _shared_renderer
    if _shared_renderer is None:
        _shared_renderer = Renderer(shared_pool())
    return _shared_renderer
