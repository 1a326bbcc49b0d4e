"""Find a Chromium and keep ONE warm instance per process.

Invariants:
- At most one Playwright driver and one Chromium per :class:`Renderer`, and one shared Renderer per
  process (:func:`get_renderer`). The browser starts lazily on the first render, behind an
  ``asyncio.Lock`` so concurrent first renders start it once; later renders reuse it.
- A Renderer is bound to the event loop it started on. Used from a different loop (a test with a
  fresh loop), it forgets the old driver (whose loop is gone) and starts anew on the current one.
- Each render gets its own browser context (cookies, storage, routes) and closes it in ``finally``;
  a semaphore caps concurrent renders so a 2-core machine is not swamped.
- ``close()`` stops the browser and the driver; an ``atexit`` hook does it for the shared instance
  when its loop is still usable. The driver process exits with ours regardless.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import glob
import importlib
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

# Defence in depth behind request interception (Playwright's routes, the preview's interceptor),
# which never sees WebRTC or a navigation preconnect: every connection nothing answers goes to a
# proxy that cannot resolve, loopback included, no name resolves, and WebRTC may use no direct UDP.
# The renderer and the app's preview (QApplication arguments, see gui.site_scheme) both use these.
NETWORK_LOCKDOWN_ARGS = (
    "--proxy-server=http://proxy.invalid:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    *NETWORK_LOCKDOWN_ARGS,
)
_SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
_FIX = (
    "no Chromium found: run `python -m playwright install chromium` or install your system's "
    "chromium package (or set MMSTUDIO_CHROMIUM to its path)"
)


@dataclass(frozen=True)
class BrowserInfo:
    """Which Chromium renders pages: ``source`` is "playwright" (its own download) or "system";
    ``problem`` is a one-line fix when none is found (then ``executable`` is None)."""

    executable: str | None
    source: Literal["playwright", "system"] | None
    version: str | None
    problem: str | None = None


def _playwright_candidates() -> list[str]:
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(
        Path.home() / ("Library/Caches" if sys.platform == "darwin" else ".cache") / "ms-playwright"
    )
    patterns = (
        "chromium-*/chrome-linux*/chrome",
        "chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium",
        "chromium-*/chrome-win*/chrome.exe",
        "chromium_headless_shell-*/chrome-*/headless_shell",
    )
    found: list[str] = []
    for pattern in patterns:
        found += sorted(glob.glob(os.path.join(root, pattern)), reverse=True)
    return [p for p in found if os.access(p, os.X_OK)]


def _system_candidates() -> list[str]:
    found = [shutil.which(name) for name in _SYSTEM_NAMES]
    return [p for p in found if p] + [p for p in ("/usr/bin/chromium",) if os.access(p, os.X_OK)]


def _version(executable: str) -> str | None:
    try:
        out = subprocess.run(
            [executable, "--version"], capture_output=True, text=True, timeout=15, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in out.splitlines() if "chrom" in line.lower()]
    return lines[0] if lines else None


@functools.cache
def find_browser() -> BrowserInfo:
    """The Chromium to use: ``$MMSTUDIO_CHROMIUM``, else Playwright's download, else the system's.

    Never raises; when nothing is found, ``problem`` says how to fix it."""
    override = os.environ.get("MMSTUDIO_CHROMIUM")
    if override and os.access(override, os.X_OK):
        return BrowserInfo(override, "system", _version(override))
    for source, candidates in (
        ("playwright", _playwright_candidates()),
        ("system", _system_candidates()),
    ):
        if candidates:
            return BrowserInfo(candidates[0], source, _version(candidates[0]))  # type: ignore[arg-type]
    return BrowserInfo(None, None, None, _FIX)


async def prewarm() -> BrowserInfo:
    """Pay the first-use costs of rendering off the event loop: find Chromium (cached) and
    import Playwright, each in a worker thread. Starts no browser; never raises."""
    info = await asyncio.to_thread(find_browser)
    with contextlib.suppress(ImportError):
        await asyncio.to_thread(importlib.import_module, "playwright.async_api")
    return info


class BrowserUnavailable(RuntimeError):
    """No Chromium could be found or started; the message is a one-line fix."""


class BrowserPool:
    """One lazily started Chromium bound to one event loop (see the module invariants)."""

    def __init__(self, info: BrowserInfo | None = None, max_concurrent: int = 2) -> None:
        self._info = info
        self._max = max_concurrent
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._slots: asyncio.Semaphore | None = None
        self._pw = None
        self._browser = None

    def _bind(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._browser is not None:
                log.info("renderer used from a new event loop: starting a fresh browser")
            self._loop, self._pw, self._browser = loop, None, None
            self._lock, self._slots = asyncio.Lock(), asyncio.Semaphore(self._max)

    @property
    def slots(self) -> asyncio.Semaphore:
        """Caps concurrent renders on this loop."""
        self._bind()
        assert self._slots is not None
        return self._slots

    async def browser(self):
        """The warm ``playwright.async_api.Browser``, started on first use.

        Raises :class:`BrowserUnavailable` with a one-line fix when no Chromium can start."""
        self._bind()
        assert self._lock is not None
        async with self._lock:
            if self._browser is None or not self._browser.is_connected():
                await self._start()
        return self._browser

    async def _start(self) -> None:
        # finding Chromium runs `chromium --version` and importing Playwright takes ~100 ms:
        # both in a worker thread, so the event loop (the GUI's, under qasync) keeps ticking
        info = self._info or await asyncio.to_thread(find_browser)
        await asyncio.to_thread(importlib.import_module, "playwright.async_api")
        from playwright.async_api import Error, async_playwright

        if info.executable is None:
            raise BrowserUnavailable(info.problem or _FIX)
        if self._pw is None:
            self._pw = await async_playwright().start()
        try:
            self._browser = await self._pw.chromium.launch(
                executable_path=info.executable, args=list(CHROMIUM_ARGS), headless=True
            )
        except Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise BrowserUnavailable(
                f"Chromium at {info.executable} did not start: {first}"
            ) from exc
        log.info("started %s (%s)", info.executable, info.version)

    async def close(self) -> None:
        """Stop the browser and the Playwright driver (idempotent)."""
        browser, pw = self._browser, self._pw
        self._browser = self._pw = None
        try:
            if browser is not None:
                await browser.close()
            if pw is not None:
                await pw.stop()
        except Exception:  # closing a half-dead driver must not mask the caller's error
            log.debug("error while closing the browser", exc_info=True)

    def close_at_exit(self) -> None:
        """``atexit`` hook: close on the bound loop if it can still run."""
        loop = self._loop
        if self._browser is None or loop is None or loop.is_closed() or loop.is_running():
            return
        try:
            loop.run_until_complete(self.close())
        except Exception:
            log.debug("could not close the browser at exit", exc_info=True)


_shared: BrowserPool | None = None


def shared_pool() -> BrowserPool:
    """The process-wide pool (created on first call, closed at exit)."""
    global _shared
    if _shared is None:
        _shared = BrowserPool()
        atexit.register(_shared.close_at_exit)
    return _shared
