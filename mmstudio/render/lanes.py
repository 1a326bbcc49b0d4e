"""Browser contexts kept warm between the pages of one site (a *lane*: a context, its one tab and
the tab's CDP session).

A new context starts a new renderer process and compiles every script the probe injects (axe is
half a megabyte) again; the pages of a site evaluated one after another in the same tab reuse
both, which roughly halves the CPU time of a 5-page site's evaluation.

Invariants:
- A lane renders one page at a time and serves one site folder. Its routes go to the
  :class:`~mmstudio.render.sandbox.Sandbox` of the page it renders now (a fresh one per page, so
  each page's blocked requests, dialogs and console errors are its own); with no page on, it
  serves only its blank document and aborts everything else.
- A lane is parked only after a render that finished cleanly (no failure, no interrupted
  script): its tab is first sent to the blank document of the sandbox origin, which ends the
  page's scripts, timers and animations, and the origin's storage is emptied (local and session
  storage, ``window.name``, cookies, IndexedDB, cache storage), so the next page starts as it
  would in a new context. A lane whose reset fails or times out is closed instead.
- The sandbox serves every file with ``Cache-Control: no-store`` (and Playwright's routing turns
  the HTTP cache off), so a page never sees an asset of an earlier page or version.
- Parked lanes belong to the browser that made them: a lane of a browser that is no longer the
  pool's is dropped, never used. At most ``limit`` are parked; each is closed after ``idle_s``
  unused. All of it runs on the pool's one event loop (no locks needed between awaits: a lane is
  in the park or in one render, never both).
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from .sandbox import NO_STORE, ORIGIN, Sandbox
from .scripts import INIT_JS

log = logging.getLogger(__name__)

BLANK_URL = f"{ORIGIN}/__mmstudio_blank__.html"
_BLANK_HTML = "<!doctype html><html><head><title></title></head><body></body></html>"
_CLEAR_JS = (
    "() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} window.name = ''; }"
)
_STORAGE_TYPES = "cookies,indexeddb,local_storage,cache_storage,service_workers,file_systems"


class Lane:
    """One context with one tab (see the module invariants). Make one with :meth:`open`."""

    def __init__(self, browser, site_dir: Path) -> None:
        self.browser = browser
        self.site_dir = site_dir
        # Playwright's BrowserContext, Page and CDPSession (imported lazily, like the browser)
        self.context: Any = None
        self.page: Any = None
        self.cdp: Any = None
        self.sandbox: Sandbox | None = None
        self.parked_at = 0.0
        self.loop = asyncio.get_running_loop()

    @classmethod
    async def open(cls, browser, site_dir: Path, viewport: dict, step_s: float) -> Lane:
        """A new lane on ``browser`` at ``viewport`` ({width, height} px), page calls timing out
        after ``step_s`` seconds. Closes what it made when a step fails, then re-raises."""
        lane = cls(browser, site_dir)
        try:
            lane.context = context = await browser.new_context(
                viewport={"width": viewport["width"], "height": viewport["height"]},
                device_scale_factor=1,
                service_workers="block",
                accept_downloads=False,
            )
            context.set_default_timeout(step_s * 1000)
            await context.add_init_script(INIT_JS)
            await context.route("**/*", lane._route)
            await context.route_web_socket("**/*", lane._websocket)
            lane.page = await context.new_page()
            lane.cdp = await context.new_cdp_session(lane.page)
        except BaseException:
            await lane.close()
            raise
        return lane

    async def begin(self, sandbox: Sandbox, viewport: dict) -> None:
        """Serve ``sandbox``'s page next, at ``viewport`` (the tab shows the blank document)."""
        size = {"width": viewport["width"], "height": viewport["height"]}
        if self.page.viewport_size != size:
            await self.page.set_viewport_size(size)
        self.sandbox = sandbox
        sandbox.attach(self.context, self.page)

    def end(self) -> None:
        """Stop serving the current page's sandbox (its records stay with it)."""
        if self.sandbox is not None:
            self.sandbox.detach(self.context, self.page)
        self.sandbox = None

    async def reset(self, timeout_s: float) -> bool:
        """Send the tab to the blank document and empty the origin's storage; False (the lane
        is then unusable) when that fails or takes longer than ``timeout_s`` seconds."""
        self.end()
        try:
            await asyncio.wait_for(self._blank(), timeout_s)
        except Exception:
            log.debug("resetting a render lane failed", exc_info=True)
            return False
        return True

    async def _blank(self) -> None:
        await self.page.goto(BLANK_URL, wait_until="load")
        await self.page.evaluate(_CLEAR_JS)
        await self.cdp.send(
            "Storage.clearDataForOrigin", {"origin": ORIGIN, "storageTypes": _STORAGE_TYPES}
        )
        await self.context.clear_cookies()

    async def _route(self, route) -> None:
        sandbox = self.sandbox
        if sandbox is not None:
            await sandbox.handle(route)
            return
        try:
            if route.request.url == BLANK_URL:
                await route.fulfill(body=_BLANK_HTML, content_type="text/html", headers=NO_STORE)
            else:  # a late request of the page before, or anything between pages
                await route.abort("blockedbyclient")
        except Exception:
            log.debug("route between pages failed", exc_info=True)

    async def _websocket(self, ws) -> None:
        sandbox = self.sandbox
        if sandbox is not None:
            await sandbox.handle_websocket(ws)
            return
        try:
            await ws.close(code=1008, reason="blocked by MM Studio")
        except Exception:
            log.debug("websocket already closed", exc_info=True)

    async def close(self) -> None:
        """Close the context (idempotent; never raises)."""
        self.end()
        context, self.context = self.context, None
        if context is not None:
            try:
                await asyncio.wait_for(context.close(), 10)
            except Exception:
                log.debug("closing a render lane failed", exc_info=True)


class Park:
    """Lanes waiting for the next page of their site (see the module invariants)."""

    def __init__(self, limit: int = 2, idle_s: float = 10.0) -> None:
        self.limit = limit
        self.idle_s = idle_s
        self._lanes: list[Lane] = []
        self._timer: asyncio.TimerHandle | None = None
        self._closing: set[asyncio.Task] = set()

    def __len__(self) -> int:
        return len(self._lanes)

    def take(self, browser, site_dir: Path) -> Lane | None:
        """The most recently parked lane of ``site_dir`` on ``browser``, or None. Lanes of
        another browser (restarted, or of another event loop) are dropped."""
        loop = asyncio.get_running_loop()
        self._lanes = [
            lane
            for lane in self._lanes
            if lane.browser is browser and lane.loop is loop and browser.is_connected()
        ]
        for lane in reversed(self._lanes):
            if lane.site_dir == site_dir:
                self._lanes.remove(lane)
                return lane
        return None

    def put(self, lane: Lane) -> None:
        """Park ``lane`` (already reset); the oldest is closed when more than ``limit`` wait."""
        lane.parked_at = time.monotonic()
        self._lanes.append(lane)
        while len(self._lanes) > self.limit:
            self._close(self._lanes.pop(0))
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.idle_s, self._expire)

    def _expire(self) -> None:
        self._timer = None
        now = time.monotonic()
        for lane in [x for x in self._lanes if now - x.parked_at >= self.idle_s]:
            self._lanes.remove(lane)
            self._close(lane)
        if self._lanes:
            wait = self.idle_s - (now - min(x.parked_at for x in self._lanes))
            self._timer = asyncio.get_running_loop().call_later(max(wait, 0.05), self._expire)

    def _close(self, lane: Lane) -> None:
        task = asyncio.get_running_loop().create_task(lane.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        """Close every parked lane now."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        lanes, self._lanes = self._lanes, []
        loop = asyncio.get_running_loop()
        for lane in lanes:
            if lane.loop is loop:  # one of another loop went with that loop's browser
                await lane.close()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
