"""The live preview: a QWebEngineView of the site served from the site folder only, with
click-to-select and highlight through an injected bridge script, device widths, reloads that
keep the scroll position, and — for a multi-page site — a page switcher above the page."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from mmstudio.gui.site_scheme import SCHEME, NetworkBlocker, SiteSchemeHandler, site_url
from mmstudio.plan import HOME_PATH, DesignPlan

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


def site_plan(site_dir: Path | None) -> DesignPlan | None:
    """The multi-page plan of the project ``site_dir`` belongs to (its ``plan.json``), or None
    (no site, no plan, a plan that cannot be read, or a one-page plan)."""
    if site_dir is None:
        return None
    plan_file = Path(site_dir).parent / "plan.json"
    try:
        plan = DesignPlan.model_validate_json(plan_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return plan if plan.multi_page else None


def site_pages(site_dir: Path | None, plan: DesignPlan | None = None) -> list[tuple[str, str]]:
    """``[(page file, label), …]`` of the multi-page site in ``site_dir``: the pages of
    ``plan`` (default: :func:`site_plan`) whose files exist, home first; empty for a one-page
    site."""
    plan = plan or site_plan(site_dir)
    if plan is None or site_dir is None:
        return []
    return [(p.path, p.label) for p in plan.site_pages() if (Path(site_dir) / p.path).is_file()]


class Preview(QWidget):
    """The preview widget; ``element_clicked(id)`` fires when a planned element is clicked,
    ``page_changed(file)`` when the page switcher shows another page of the site."""

    element_clicked = Signal(str)
    page_changed = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._scroll_y = 0
        self._site_dir: Path | None = None
        self._page = HOME_PATH
        self._plan: DesignPlan | None = None
        self._pending_highlight: str | None = None
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
        self.pages = QComboBox(self)
        self.pages.setObjectName("previewPages")
        self.pages.setAccessibleName("Page")
        self.pages.setToolTip("Which page of the site the preview shows")
        self.pages.activated.connect(self._pick_page)
        self.pages_bar = QWidget(self)
        bar = QHBoxLayout(self.pages_bar)
        bar.setContentsMargins(6, 4, 6, 4)
        label = QLabel("Page:", self.pages_bar)
        label.setBuddy(self.pages)
        bar.addWidget(label)
        bar.addWidget(self.pages)
        bar.addStretch(1)
        self.pages_bar.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.pages_bar)
        layout.addWidget(self.view, 1, alignment=Qt.AlignmentFlag.AlignHCenter)
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

    def show_site(self, site_dir: Path | None, page: str | None = None) -> None:
        """Serve ``site_dir`` (only it) and load ``page`` (None: the page shown before, when the
        site still has it, else ``index.html``); None shows a blank page. A multi-page site
        (:func:`site_pages`) shows the page switcher."""
        if self.released:
            return
        self.handler.site_dir = site_dir
        self._scroll_y = 0
        self._plan = site_plan(site_dir)
        pages = site_pages(site_dir, self._plan)
        files = [path for path, _label in pages]
        if page is None:
            same = site_dir is not None and site_dir == self._site_dir
            page = self._page if same and self._page in files else HOME_PATH
        self._site_dir, self._page = site_dir, page
        self.pages.blockSignals(True)
        self.pages.clear()
        for path, label in pages:
            self.pages.addItem(f"{label} — {path}", path)
        if page in files:
            self.pages.setCurrentIndex(files.index(page))
        self.pages.blockSignals(False)
        self.pages_bar.setVisible(len(pages) > 1)
        if site_dir is None:
            self.view.setHtml("")
        else:
            self.view.load(site_url(page))

    @property
    def current_page(self) -> str:
        """The file of the page shown (``index.html`` for a one-page site)."""
        return self._page

    def show_page(self, page: str) -> None:
        """Show ``page`` (a file of the site, e.g. ``about.html``) of the site shown."""
        if self.released or self._site_dir is None or page == self._page:
            return
        self.show_site(self._site_dir, page)
        self.page_changed.emit(page)

    def _pick_page(self, index: int) -> None:
        page = self.pages.itemData(index)
        if isinstance(page, str):
            self.show_page(page)

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
        """Outline the element or section ``item_id`` in the page; on a multi-page site whose
        page shown does not hold it, show the page that does first."""
        if self.released:
            return
        page = self._page_holding(item_id)
        if page is not None and page != self._page:
            self._pending_highlight = item_id
            self.show_page(page)
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

    def _page_holding(self, item_id: str) -> str | None:
        """The file of the page that shows ``item_id`` (the page shown when it is in the shared
        frame there); None on a one-page site or for an id the plan does not know."""
        plan = self._plan
        if plan is None:
            return None
        current = next((p for p in plan.site_pages() if p.path == self._page), None)
        if current is not None:
            view = plan.page_view(current.id)
            if item_id in {s.id for s in view.sections} | {e.id for e in view.elements()}:
                return current.path
        try:
            return plan.page_of(item_id).path
        except KeyError:
            return None

    def _loaded(self, ok: bool) -> None:
        if not ok:
            log.warning("preview failed to load")
            return
        self.page.runJavaScript(_BRIDGE_JS)
        pending, self._pending_highlight = self._pending_highlight, None
        if pending:
            self.highlight(pending)
        if self._scroll_y:
            self.page.runJavaScript(f"window.scrollTo(0, {self._scroll_y})")
