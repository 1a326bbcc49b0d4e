"""The sandbox a page renders in: files from its site folder only, no network, no leaving.

Invariants:
- The site is served at :data:`ORIGIN` through ``context.route``; every request passes through
  :meth:`Sandbox.handle`. A request is fulfilled only when it names a regular file inside the
  site folder (after resolving symlinks and ``..``); anything else is aborted and recorded, so an
  external font, CDN script or image becomes a finding, never a hang or a leak.
- WebSockets are routed too and closed unopened; the browser's launch flags (see
  ``browser.CHROMIUM_ARGS``) send whatever the routes never see (WebRTC, preconnects) to a proxy
  that cannot resolve, so nothing reaches a socket.
- Any navigation of the main frame away from the page is aborted (``ERR_ABORTED`` keeps the
  current document) and recorded; popups are closed and recorded; dialogs are dismissed and
  recorded. Handlers never raise: a failure to answer a route is logged and the request aborted.
- Served files carry ``Cache-Control: no-store`` (:data:`NO_STORE`): a tab that renders the
  pages of a site in turn (``lanes``) never reuses an asset of an earlier page or version.
- A served file is read in a worker thread (``route.fulfill(path=…)`` would read it on the event
  loop, the GUI's in the app; a video is megabytes).
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .model import RequestRecord

log = logging.getLogger(__name__)

ORIGIN = "http://site.mmstudio.test"
_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".htm": "text/html",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".webp": "image/webp",
    ".webm": "video/webm",
    ".mp4": "video/mp4",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
}
MAX_RECORDS = 200
#: headers of every served file: no document reuses an asset of an earlier page or version
NO_STORE = {"Cache-Control": "no-store"}


def content_type(path: Path) -> str:
    """The MIME type to serve ``path`` with."""
    return _TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or "text/plain"


def site_path(url: str, site_dir: Path) -> tuple[Path | None, str]:
    """Map a URL of :data:`ORIGIN` to a file inside ``site_dir``.

    Returns (file or None, reason): reason is "" when served, else network | outside-site |
    missing."""
    parts = urlsplit(url)
    if f"{parts.scheme}://{parts.netloc}" != ORIGIN:
        return None, "network"
    root = site_dir.resolve()
    target = (root / unquote(parts.path).lstrip("/")).resolve()
    if not target.is_relative_to(root):
        return None, "outside-site"
    if target.is_dir():
        target = target / "index.html"
    return (target, "") if target.is_file() else (None, "missing")


def relative(url: str, site_dir: Path) -> str:
    """The site-relative path of a URL of this origin ("" for other URLs)."""
    parts = urlsplit(url)
    if f"{parts.scheme}://{parts.netloc}" != ORIGIN:
        return ""
    return unquote(parts.path).lstrip("/")


class Sandbox:
    """Serves one site folder to one browser context and records what it refused."""

    def __init__(self, site_dir: Path, page_url: str) -> None:
        self.site_dir = site_dir
        self.page_url = page_url
        self.blocked: list[RequestRecord] = []
        self.dialogs: list[str] = []
        self.console_errors: list[str] = []
        self.main_page = None
        self._loaded = False

    def _record(self, record: RequestRecord) -> None:
        if record.reason in ("navigation", "popup") and record in self.blocked:
            return  # a page that retries in a loop is one finding, not hundreds
        if len(self.blocked) < MAX_RECORDS:
            self.blocked.append(record)

    async def handle(self, route) -> None:
        """``context.route("**/*", …)`` handler."""
        request = route.request
        try:
            if self._leaving(request):
                self._record(RequestRecord(url=request.url, reason="navigation"))
                await route.abort("aborted")
                return
            path, reason = site_path(request.url, self.site_dir)
            if path is not None:
                body = await asyncio.to_thread(path.read_bytes)
                await route.fulfill(body=body, content_type=content_type(path), headers=NO_STORE)
                return
            self._record(
                RequestRecord(
                    url=request.url[:500],
                    reason=reason,
                    resource_type=request.resource_type,
                    frame_url=_frame_url(request),
                    path=relative(request.url, self.site_dir),
                )
            )
            if reason == "missing":
                await route.fulfill(status=404, body="not found", content_type="text/plain")
            else:
                await route.abort("blockedbyclient")
        except Exception:
            log.debug("route for %s failed", request.url, exc_info=True)
            await _abort_quietly(route)

    async def handle_websocket(self, ws) -> None:
        """``context.route_web_socket("**/*", …)`` handler: no page may open a WebSocket (the
        socket is closed without ever reaching a server) and each attempt is recorded."""
        self._record(RequestRecord(url=ws.url[:500], reason="network", resource_type="websocket"))
        try:
            await ws.close(code=1008, reason="blocked by MM Studio")
        except Exception:
            log.debug("websocket already closed", exc_info=True)

    def _leaving(self, request) -> bool:
        """True for a main-frame navigation other than the first load of the page: leaving, and
        reloading too (a page that reloads itself would destroy every probe mid-call)."""
        if not request.is_navigation_request():
            return False
        frame = request.frame
        if frame.parent_frame is not None:
            return False
        if request.url.split("#")[0] != self.page_url or self._loaded:
            return True
        self._loaded = True
        return False

    async def on_dialog(self, dialog) -> None:
        """Dismiss every dialog (alert, confirm, prompt, beforeunload) and record it."""
        self.dialogs.append(f"{dialog.type}: {dialog.message[:200]}")
        try:
            await dialog.dismiss()
        except Exception:
            log.debug("dialog already closed", exc_info=True)

    async def on_popup(self, page) -> None:
        """Close any page a script opens and record it."""
        if page is self.main_page:
            return
        self._record(RequestRecord(url=page.url[:500], reason="popup"))
        try:
            await page.close()
        except Exception:
            log.debug("popup already closed", exc_info=True)

    def on_console(self, message) -> None:
        # failed loads are already recorded (and reported) from the route handler
        if message.text.startswith("Failed to load resource"):
            return
        if message.type == "error" and len(self.console_errors) < 50:
            try:
                where = message.location or {}
            except Exception:  # a message of a closed page
                where = {}
            line = where.get("lineNumber")  # 0-based in Playwright
            at = _where(str(where.get("url", "")), line + 1 if isinstance(line, int) else None)
            self.console_errors.append(message.text[:300] + at)

    def on_page_error(self, error) -> None:
        """An uncaught exception: its message and, as evidence, the first place of the site
        its stack names (`` (at assets/js/tabs.js:12)``)."""
        if len(self.console_errors) < 50:
            found = _STACK_PLACE.search(str(getattr(error, "stack", "") or ""))
            at = _where(f"{ORIGIN}/{found.group(1)}", int(found.group(2))) if found else ""
            text, name = str(error), str(getattr(error, "name", "") or "")
            text = f"{name}: {text}" if name and not text.startswith(name) else text
            self.console_errors.append(f"uncaught: {text[:300]}{at}")

    def attach(self, context, page) -> None:
        """Wire the handlers to a context (routes, popups) and its page (dialogs, console)."""
        self.main_page = page
        context.on("page", self.on_popup)
        page.on("dialog", self.on_dialog)
        page.on("console", self.on_console)
        page.on("pageerror", self.on_page_error)

    def detach(self, context, page) -> None:
        """Undo :meth:`attach` (the tab goes on to another page with another sandbox)."""
        self.main_page = None
        context.remove_listener("page", self.on_popup)
        for event, handler in (
            ("dialog", self.on_dialog),
            ("console", self.on_console),
            ("pageerror", self.on_page_error),
        ):
            page.remove_listener(event, handler)


async def _abort_quietly(route) -> None:
    try:
        await route.abort("failed")
    except Exception:  # already handled, or the page is gone
        log.debug("could not abort %s", route.request.url, exc_info=True)


_STACK_PLACE = re.compile(re.escape(ORIGIN) + r"/([^\s():]+):(\d+)(?::\d+)?")


def _where(url: str, line: object) -> str:
    """`` (at PATH:LINE)`` for a URL of the site ("" for anything else or no line); the page
    itself shows as ``index.html``."""
    path = relative(url, Path("."))
    if not url.startswith(ORIGIN) or not isinstance(line, int) or line <= 0:
        return ""
    return f" (at {path or 'index.html'}:{line})"


def _frame_url(request) -> str:
    try:
        return request.frame.url[:300]
    except Exception:  # service-worker requests have no frame
        return ""
