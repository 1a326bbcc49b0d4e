"""Rendering: one warm Playwright Chromium per process, a sandbox serving only the site folder,
and a page probe that gathers every box and computed style in one ``page.evaluate``.

Public API: :func:`find_browser` (which Chromium, or a one-line fix), :class:`Renderer` (async
context manager; ``await renderer.render(site_dir, page, viewport_width, out_dir) -> Render``) and
:func:`get_renderer` (the process-wide shared renderer)."""

from .browser import BrowserInfo, BrowserUnavailable, find_browser
from .model import Render
from .renderer import Renderer, Timeouts, get_renderer

__all__ = [
    "BrowserInfo",
    "BrowserUnavailable",
    "Render",
    "Renderer",
    "Timeouts",
    "find_browser",
    "get_renderer",
]
