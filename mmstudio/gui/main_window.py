"""The main window: live preview of the project's site beside the plan tree with score badges."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QWidget,
)

from mmstudio.gui.plan_tree import PlanTree
from mmstudio.gui.site_scheme import SCHEME, NetworkBlocker, SiteSchemeHandler, site_url
from mmstudio.project import Project, ProjectError

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


class MainWindow(QMainWindow):
    """Preview (centre) + plan tree (left dock); follows the project's head version on disk."""

    def __init__(self) -> None:
        super().__init__()
        self.project: Project | None = None
        self._scroll_y = 0
        self.setWindowTitle("MM Studio")
        self.resize(1600, 1000)
        self._build_preview()
        self._build_tree()
        self._build_actions()
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._manifest_changed)
        self.status = QLabel("Open a project to start")
        self.statusBar().addPermanentWidget(self.status)

    # -- construction ------------------------------------------------------------------------
    def _build_preview(self) -> None:
        # off the record (no cache on disk); owned by the application so it outlives its page
        self.profile = QWebEngineProfile(QApplication.instance())
        self.handler = SiteSchemeHandler(self)
        self.blocker = NetworkBlocker(self)
        self.profile.installUrlSchemeHandler(SCHEME, self.handler)
        self.profile.setUrlRequestInterceptor(self.blocker)
        self.page = PreviewPage(self.profile, self)
        self.page.element_clicked.connect(self._preview_clicked)
        self.view = QWebEngineView(self)
        self.view.setPage(self.page)
        self.view.loadFinished.connect(self._loaded)
        holder = QWidget(self)
        layout = QHBoxLayout(holder)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, alignment=Qt.AlignmentFlag.AlignHCenter)
        self.setCentralWidget(holder)
        self.set_device_width(1280)

    def _build_tree(self) -> None:
        self.tree = PlanTree(self)
        self.tree.element_selected.connect(self._tree_selected)
        dock = QDockWidget("Plan", self)
        dock.setObjectName("plan-dock")
        dock.setWidget(self.tree)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)

    def _build_actions(self) -> None:
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main-toolbar")
        open_action = QAction("Open Project…", self, shortcut=QKeySequence.StandardKey.Open)
        open_action.triggered.connect(self._choose_project)
        reload_action = QAction("Reload", self, shortcut=QKeySequence.StandardKey.Refresh)
        reload_action.triggered.connect(self.reload_preview)
        toolbar.addAction(open_action)
        toolbar.addAction(reload_action)
        toolbar.addSeparator()
        group = QActionGroup(self)
        for name, width in DEVICES:
            action = QAction(f"{name} {width}", self, checkable=True, checked=width == 1280)
            action.triggered.connect(lambda _=False, w=width: self.set_device_width(w))
            group.addAction(action)
            toolbar.addAction(action)
        menu = self.menuBar().addMenu("&File")
        menu.addAction(open_action)
        menu.addAction(reload_action)
        menu.addAction(QAction("&Quit", self, shortcut="Ctrl+Q", triggered=self.close))

    # -- project -----------------------------------------------------------------------------
    def open_project(self, root: Path) -> None:
        """Show the project at ``root``; a bad folder gets a one-line message, nothing else."""
        try:
            project = Project.open(root)
            plan = project.read_plan()
        except ProjectError as exc:
            QMessageBox.warning(self, "Cannot open project", str(exc))
            return
        self.project = project
        self.handler.site_dir = project.site_dir
        self.tree.show_plan(plan, project.read_report())
        manifest = str(project.root / "mmstudio.json")
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        self.watcher.addPath(manifest)
        self.setWindowTitle(f"MM Studio — {project.manifest.title}")
        self._show_scores()
        self.view.load(site_url())

    def _show_scores(self) -> None:
        report = self.project.read_report() if self.project else None
        if report is None:
            self.status.setText(f"version {self.project.manifest.head} · not evaluated")
            return
        parts = [f"{k} {v:.2f}" for k, v in report.scores.model_dump().items() if v is not None]
        self.status.setText(" · ".join(parts))

    def _choose_project(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open MM Studio project")
        if folder:
            self.open_project(Path(folder))

    def _manifest_changed(self, path: str) -> None:
        # a commit replaces mmstudio.json atomically: re-watch the new file and follow the head
        if Path(path).exists() and path not in self.watcher.files():
            self.watcher.addPath(path)
        if self.project:
            QTimer.singleShot(200, lambda: self.open_project(self.project.root))

    # -- preview -----------------------------------------------------------------------------
    def set_device_width(self, width: int) -> None:
        """Preview at ``width`` px (1280 desktop, 768 tablet, 390 mobile)."""
        self.view.setFixedWidth(width)

    def reload_preview(self) -> None:
        """Reload in place, keeping the scroll position."""
        self.page.runJavaScript("window.scrollY", 0, self._reload_at)

    def _reload_at(self, scroll_y) -> None:
        self._scroll_y = int(scroll_y or 0)
        self.view.reload()

    def _loaded(self, ok: bool) -> None:
        if not ok:
            log.warning("preview failed to load")
            return
        self.page.runJavaScript(_BRIDGE_JS)
        if self._scroll_y:
            self.page.runJavaScript(f"window.scrollTo(0, {self._scroll_y})")

    def _preview_clicked(self, item_id: str) -> None:
        self.tree.select(item_id)

    def _tree_selected(self, item_id: str) -> None:
        self.page.runJavaScript(f"window.mmHighlight && window.mmHighlight({json.dumps(item_id)})")
