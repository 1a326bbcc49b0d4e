"""The live preview: a QWebEngineView of the site served from the site folder only, with
click-to-select and highlight through an injected bridge script, device widths, and reloads that
keep the scroll position."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QHBoxLayout, QWidget

from mmstudio.gui.site_scheme import SCHEME, NetworkBlocker, SiteSchemeHandler, site_url

log = logging.getLogger(__name__)

DEVICES = (("Desktop", 1280), ("Tablet", 768), ("Mobile", 390))
_SELECT_PREFIX = "mm-select:"
# Injected after each load: clicking a planned element selects it (reported via the console),
# and window.mmHighlight(id) outlines an element chosen in the plan tree.
_BRIDGE_JS = """
(() => {
  if (window.mmBridge) return; window.mmBridge = true;
  document.addEventListener('click', (event) => {
    const el = event.target.closest('[data-mm-id],[data-mm-section]');
    if (!el) return;
    event.preventDefault();
    console.log('MM_PREFIX' + (el.dataset.mmId || el.dataset.mmSection));
  }, true);
  window.mmHighlight = (id) => {
    document.querySelectorAll('[data-mm-outline]').forEach(e => {
      e.style.outline = ''; e.removeAttribute('data-mm-outline'); });
    const el = document.querySelector(`[data-mm-id="${id}"],[data-mm-section="${id}"]`);
    if (!el) return;
    el.setAttribute('data-mm-outline', '1');
    el.style.outline = '3px solid #3B82F6'; el.style.outlineOffset = '2px';
    el.scrollIntoView({block: 'nearest'});
  };
})();
""".replace("MM_PREFIX", _SELECT_PREFIX)


class PreviewPage(QWebEnginePage):
    """A page that turns the bridge's console messages into ``element_clicked``."""

    element_clicked = Signal(str)

    def javaScriptConsoleMessage(self, level, message: str, line: int, source: str) -> None:
        if message.startswith(_SELECT_PREFIX):
            self.element_clicked.emit(message[len(_SELECT_PREFIX) :])


class Preview(QWidget):
    """The preview widget; ``element_clicked(id)`` fires when a planned element is clicked."""

    element_clicked = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._scroll_y = 0
        # off the record: no cache on disk. A profile must outlive its pages: release() deletes
        # them in that order (QtWebEngine crashes at exit when a profile dies before its page).
        self.profile = QWebEngineProfile(self)
        self.handler = SiteSchemeHandler(self)
        self.blocker = NetworkBlocker(self)
        self.profile.installUrlSchemeHandler(SCHEME, self.handler)
        self.profile.setUrlRequestInterceptor(self.blocker)
        self.page = PreviewPage(self.profile, self)
        self.page.element_clicked.connect(self.element_clicked)
        self.view = QWebEngineView(self)
        self.view.setPage(self.page)
        self.view.loadFinished.connect(self._loaded)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, alignment=Qt.AlignmentFlag.AlignHCenter)
        self.set_device_width(1280)

    def release(self) -> None:
        """Delete the view, then the page, then the profile (call when the window closes)."""
        if self.profile is None:
            return
        doomed = (self.view, self.page, self.profile)
        # released first: deleting the page runs its pending JavaScript callbacks (a reload's
        # scroll read) at once, and they must find the preview released, not a deleted view
        self.profile = None
        for obj in doomed:
            shiboken6.delete(obj)

    def show_site(self, site_dir: Path | None, page: str = "index.html") -> None:
        """Serve ``site_dir`` (only it) and load ``page``; None shows a blank page."""
        if self.released:
            return
        self.handler.site_dir = site_dir
        self._scroll_y = 0
        if site_dir is None:
            self.view.setHtml("")
        else:
            self.view.load(site_url(page))

    def set_device_width(self, width: int) -> None:
        """Preview at ``width`` px (1280 desktop, 768 tablet, 390 mobile)."""
        self.view.setFixedWidth(width)

    @property
    def released(self) -> bool:
        return self.profile is None

    def reload(self) -> None:
        """Reload in place, keeping the scroll position (no-op once released)."""
        if self.released:
            return
        self.page.runJavaScript("window.scrollY", 0, self._reload_at)

    def _reload_at(self, scroll_y) -> None:
        if self.released:
            return
        self._scroll_y = int(scroll_y or 0)
        # bypassing the cache: an asset made again keeps its URL (a plan edit, a local refine),
        # and a plain reload would show the picture the renderer holds in memory
        self.page.triggerAction(QWebEnginePage.WebAction.ReloadAndBypassCache)

    def highlight(self, item_id: str) -> None:
        """Outline the element or section ``item_id`` in the page."""
        if self.released:
            return
        self.page.runJavaScript(f"window.mmHighlight && window.mmHighlight({json.dumps(item_id)})")

    def element_box(self, item_id: str, done) -> None:
        """Call ``done(box)`` with the box of the element or section ``item_id`` in page px at
        the preview's width (``{x, y, w, h}``), or ``done(None)`` when the page has none."""
        if self.released:
            done(None)
            return
        clean = "".join(c for c in item_id if c.isalnum() or c in "-_:.")
        selector = json.dumps(f'[data-mm-id="{clean}"],[data-mm-section="{clean}"]')
        script = (
            f"(() => {{ const el = document.querySelector({selector}); if (!el) return null;"
            " const r = el.getBoundingClientRect();"
            " return JSON.stringify({x: r.left + window.scrollX, y: r.top + window.scrollY,"
            " w: r.width, h: r.height}); })()"
        )

        def answer(text) -> None:
            try:
                box = json.loads(text) if isinstance(text, str) else None
            except ValueError:
                box = None
            done(box if isinstance(box, dict) and box.get("w") and box.get("h") else None)

        self.page.runJavaScript(script, 0, answer)

    def _loaded(self, ok: bool) -> None:
        if not ok:
            log.warning("preview failed to load")
            return
        self.page.runJavaScript(_BRIDGE_JS)
        if self._scroll_y:
            self.page.runJavaScript(f"window.scrollTo(0, {self._scroll_y})")
