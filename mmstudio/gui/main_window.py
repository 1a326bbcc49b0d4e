"""The main window: live preview beside the plan tree with score badges, the selected element's
issues, the jobs and log, and the menus of a design session. Every action is a job on the
session's JobManager; widgets only show what the jobs report."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from mmstudio.gui.dialogs import HistoryDialog, NewProjectDialog, SettingsDialog
from mmstudio.gui.issues_panel import IssuesPanel
from mmstudio.gui.jobs_panel import JobsPanel
from mmstudio.gui.plan_tree import PlanTree, badge_colour
from mmstudio.gui.preview import DEVICES, Preview
from mmstudio.project import ProjectError
from mmstudio.providers.settings import load_settings, save_config
from mmstudio.report import DIMENSIONS, Report
from mmstudio.studio.jobs import Job
from mmstudio.studio.session import Session

log = logging.getLogger(__name__)


class BadgeBar(QWidget):
    """Page-level pills: overall and the six dimensions (grey when absent or not evaluated)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        self.pills: dict[str, QLabel] = {}
        for name in ("overall", *DIMENSIONS):
            pill = QLabel(self)
            pill.setObjectName("badge")
            self.pills[name] = pill
            layout.addWidget(pill)
        layout.addStretch(1)
        self.show_report(None)

    def show_report(self, report: Report | None) -> None:
        scores = report.scores.model_dump() if report else {}
        for name, pill in self.pills.items():
            value = scores.get(name)
            pill.setText(f"{name} {'–' if value is None else format(value, '.2f')}")
            pill.setStyleSheet(
                f"background:{badge_colour(value).name()}; color:white; border-radius:9px;"
                "padding:2px 10px; font-weight:600;"
            )


# actions that act on an open project: disabled, with the reason as tooltip, until one is open
_NEEDS_PROJECT = {"Export", "Undo", "Redo", "History", "Annotate", "Sketch", "Reload Preview"}
_NO_PROJECT = "Open a project (File › Open Project) or create one (File › New from Prompt) first"


class MainWindow(QMainWindow):
    """The app window over one :class:`Session`."""

    job_finished = Signal(object)

    def __init__(self, session: Session | None = None) -> None:
        super().__init__()
        self.session = session or Session()
        self.site_only: Path | None = None  # a site folder opened for evaluation only
        self.report: Report | None = None
        self.selected: str | None = None
        self.setWindowTitle("MM Studio")
        self.resize(1680, 1000)
        self.preview = Preview(self)
        self.preview.element_clicked.connect(self._preview_clicked)
        self.badges = BadgeBar(self)
        centre = QWidget(self)
        column = QVBoxLayout(centre)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.badges)
        column.addWidget(self.preview, stretch=1)
        self.setCentralWidget(centre)
        self.tree = PlanTree(self)
        self.tree.setMinimumWidth(320)
        self.tree.element_selected.connect(self._tree_selected)
        self.issues = IssuesPanel(self)
        self.issues.setMinimumWidth(300)
        self.issues.refine_requested.connect(self.refine)
        self.issues.flag_requested.connect(self.toggle_flag)
        self.issues.refine_flagged_requested.connect(self.refine_flagged)
        self.jobs_panel = JobsPanel(self.session.jobs, self)
        self._dock("Plan", self.tree, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("Issues", self.issues, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Jobs", self.jobs_panel, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.resizeDocks(
            [self.findChild(QDockWidget, n) for n in ("plan-dock", "issues-dock")],
            [360, 340],
            Qt.Orientation.Horizontal,
        )
        self.resizeDocks([self.findChild(QDockWidget, "jobs-dock")], [150], Qt.Orientation.Vertical)
        self._build_actions()
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._manifest_changed)
        self.status = QLabel("Open a project or start a new one from a prompt")
        self.statusBar().addPermanentWidget(self.status)
        self.job_finished.connect(self._job_finished)
        self.session.jobs.subscribe(self._job_event)
        self.state = QSettings("MM Studio", "mmstudio")
        self._restore_state()

    def _enable_project_actions(self) -> None:
        has_project = self.session.project is not None
        for action in self.project_actions:
            action.setEnabled(has_project)
            action.setToolTip(action.text().rstrip("…") if has_project else _NO_PROJECT)

    # -- remembered state --------------------------------------------------------------------
    def _restore_state(self) -> None:
        geometry, docks = self.state.value("geometry"), self.state.value("window-state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if docks is not None:
            self.restoreState(docks)
        self._show_recent()

    def recent_projects(self) -> list[str]:
        value = self.state.value("recent-projects") or []
        return [value] if isinstance(value, str) else list(value)

    def _remember(self, root: Path) -> None:
        recent = [str(root), *[p for p in self.recent_projects() if p != str(root)]][:8]
        self.state.setValue("recent-projects", recent)
        self._show_recent()

    def _show_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_projects():
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_project(Path(p)))
        self.recent_menu.setEnabled(bool(self.recent_projects()))

    # compatibility accessors used by tests and the screenshot mode
    @property
    def view(self):
        return self.preview.view

    @property
    def page(self):
        return self.preview.page

    @property
    def project(self):
        return self.session.project

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> None:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"{title.lower()}-dock")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)

    def _build_actions(self) -> None:
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main-toolbar")
        file_menu = self.menuBar().addMenu("&File")
        page_menu = self.menuBar().addMenu("&Page")
        entries = [
            (file_menu, "New from Prompt…", QKeySequence.StandardKey.New, self.new_from_prompt),
            (file_menu, "Open Project…", QKeySequence.StandardKey.Open, self._choose_project),
            (file_menu, "Open Site Folder…", None, self._choose_site),
            (file_menu, "Export…", "Ctrl+E", self.export),
            (page_menu, "Undo", QKeySequence.StandardKey.Undo, self.undo),
            (page_menu, "Redo", QKeySequence.StandardKey.Redo, self.redo),
            (page_menu, "Evaluate", "Ctrl+R", self.evaluate),
            (page_menu, "History…", "Ctrl+H", self.show_history),
            (file_menu, "Settings…", QKeySequence.StandardKey.Preferences, self.edit_settings),
            (page_menu, "Reload Preview", QKeySequence.StandardKey.Refresh, self.preview.reload),
            (page_menu, "Annotate…", "Ctrl+M", self.annotate),
            (page_menu, "Sketch…", None, lambda: self.annotate(sketch=True)),
        ]
        self.project_actions: list[QAction] = []
        for menu, label, shortcut, slot in entries:
            action = QAction(label, self)
            if shortcut is not None:
                action.setShortcut(shortcut)
            action.triggered.connect(slot)
            menu.addAction(action)
            toolbar.addAction(action)
            if label.rstrip("…") in _NEEDS_PROJECT:
                self.project_actions.append(action)
        self._enable_project_actions()
        self.recent_menu = file_menu.addMenu("Open Recent")
        file_menu.addSeparator()
        file_menu.addAction(QAction("&Quit", self, shortcut="Ctrl+Q", triggered=self.close))
        toolbar.addSeparator()
        group = QActionGroup(self)
        for name, width in DEVICES:
            action = QAction(f"{name} {width}", self, checkable=True, checked=width == 1280)
            action.triggered.connect(lambda _=False, w=width: self.preview.set_device_width(w))
            group.addAction(action)
            toolbar.addAction(action)

    # -- opening -----------------------------------------------------------------------------
    def open_project(self, root: Path) -> None:
        """Show the project at ``root``; a bad folder gets a one-line message, nothing else."""
        try:
            project = self.session.open(root)
            project.read_plan()
        except ProjectError as exc:
            QMessageBox.warning(self, "Cannot open project", str(exc))
            return
        self.site_only = None
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        self.watcher.addPath(str(project.root / "mmstudio.json"))
        self.setWindowTitle(f"MM Studio — {project.manifest.title}")
        self._enable_project_actions()
        self._remember(project.root)
        self.refresh()
        self.preview.show_site(project.site_dir)

    def open_site(self, folder: Path) -> None:
        """Preview someone else's site folder and evaluate it (nothing is written into it)."""
        self.session.project = None
        self._enable_project_actions()
        self.site_only = folder
        self.setWindowTitle(f"MM Studio — {folder}")
        self.preview.show_site(folder)
        self.report = None
        self.tree.clear()
        from mmstudio.studio.evaluation import evaluate_path

        async def run(ctx):
            report, _ = await evaluate_path(folder)
            return report

        self.session.jobs.submit("evaluate", run, slot="evaluate")

    def refresh(self) -> None:
        """Re-read plan, report and history of the open project into every panel."""
        project = self.session.project
        if project is None:
            return
        self.report = project.read_report()
        self.tree.show_plan(project.read_plan(), self.report)
        self.badges.show_report(self.report)
        self.issues.show_issues(self.report, self.selected, self.selected in self.session.flagged)
        self.tree.show_flags(self.session.flagged)
        self.issues.plot.show_versions(project.history.list())
        head = project.manifest.head
        self.status.setText(f"{project.root} · version {head}")

    def _choose_project(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open MM Studio project")
        if folder:
            self.open_project(Path(folder))

    def _choose_site(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a site folder to evaluate")
        if folder:
            self.open_site(Path(folder))

    def _manifest_changed(self, path: str) -> None:
        # commits replace mmstudio.json atomically: watch the new file and follow the head
        if Path(path).exists() and path not in self.watcher.files():
            self.watcher.addPath(path)
        QTimer.singleShot(200, self._reload_project)

    def _reload_project(self) -> None:
        if self.session.project is not None:
            self.refresh()
            self.preview.reload()

    # -- actions -----------------------------------------------------------------------------
    def prefs(self) -> dict:
        """Generation preferences: default provider, reflection rounds, assets at once."""
        return {
            "provider": self.state.value("provider", "offline"),
            "rounds": int(self.state.value("rounds", 3)),
            "concurrency": int(self.state.value("concurrency", 2)),
        }

    def new_from_prompt(self) -> None:
        prefs = self.prefs()
        dialog = NewProjectDialog(self)
        dialog.provider.setCurrentText(prefs["provider"])
        if dialog.exec():
            prompt, provider, folder = dialog.values()
            self.session.generate(
                folder, prompt, provider, rounds=prefs["rounds"], concurrency=prefs["concurrency"]
            )

    def edit_settings(self) -> None:
        """Edit provider settings (config file, never the key) and generation preferences."""
        try:
            settings = load_settings()
        except ValueError as exc:
            self.statusBar().showMessage(f"Settings: {exc}", 15_000)
            return
        dialog = SettingsDialog(settings, self.prefs(), self)
        if not dialog.exec():
            return
        try:
            settings, prefs = dialog.values()
            path = save_config(settings)
        except (ValueError, OSError) as exc:
            self.statusBar().showMessage(f"Settings not saved: {exc}", 15_000)
            return
        for key, value in prefs.items():
            self.state.setValue(key, value)
        self.statusBar().showMessage(f"Settings saved to {path}", 10_000)

    def evaluate(self) -> None:
        if self.session.project is not None:
            self.session.evaluate()
        elif self.site_only is not None:
            self.open_site(self.site_only)
        else:
            self.statusBar().showMessage(_NO_PROJECT, 10_000)

    def export(self) -> None:
        if self.session.project is None:
            return
        folder = QFileDialog.getSaveFileName(self, "Export the site to a new folder")[0]
        if folder:
            self.session.export(Path(folder))

    def annotate(self, sketch: bool = False):
        """Draw over a screenshot of the page (or a blank sketch canvas) and send a feedback
        turn; returns the capture job (None without a project)."""
        from mmstudio.gui.annotate import open_annotator

        return open_annotator(self, sketch=sketch)

    def undo(self) -> None:
        if self.session.project is not None:
            self.session.undo()

    def redo(self) -> None:
        if self.session.project is not None:
            self.session.redo()

    def refine(self, level: str) -> None:
        """Refine the selected element at ``level`` (global: the page)."""
        if self.session.project is None:
            return
        element = None if level == "global" else self.selected
        self.session.refine(level, element)
        self.statusBar().showMessage(f"Refining {element or 'the page'} ({level})…", 5000)

    def toggle_flag(self) -> None:
        if self.selected and self.session.project is not None:
            self.session.toggle_flag(self.selected)
            self.tree.show_flags(self.session.flagged)
            self.issues.show_issues(
                self.report, self.selected, self.selected in self.session.flagged
            )

    def refine_flagged(self) -> None:
        if self.session.project is not None and self.session.flagged:
            self.session.refine_flagged()
            self.statusBar().showMessage(f"Refining {len(self.session.flagged)} flagged", 5000)

    def show_history(self) -> None:
        project = self.session.project
        if project is None:
            return
        dialog = HistoryDialog(project.history.list(), project.manifest.head, self)
        if dialog.exec() and dialog.chosen:
            self.session.restore(dialog.chosen)

    # -- jobs --------------------------------------------------------------------------------
    def _job_event(self, job: Job) -> None:
        if job.state in ("done", "failed", "cancelled"):
            self.job_finished.emit(job)

    def _job_finished(self, job: Job) -> None:
        if job.state == "failed":
            self.statusBar().showMessage(f"{job.kind} failed: {job.error}", 15_000)
            return
        if job.state != "done":
            return
        if job.kind == "generate":
            self.open_project(job.result.root)
        elif job.kind == "evaluate" and self.site_only is not None:
            self.report = job.result
            self.tree.show_report_elements(job.result)
            self.badges.show_report(job.result)
        elif job.kind in ("evaluate", "restore", "undo", "redo") or job.kind.startswith("refine"):
            self._reload_project()
        elif job.kind == "export":
            self.statusBar().showMessage(f"Exported to {job.result}", 15_000)

    # -- selection ---------------------------------------------------------------------------
    def _preview_clicked(self, item_id: str) -> None:
        self.tree.select(item_id)

    def _tree_selected(self, item_id: str) -> None:
        self.selected = item_id
        self.preview.highlight(item_id)
        self.issues.show_issues(self.report, item_id, item_id in self.session.flagged)

    def closeEvent(self, event) -> None:
        self.state.setValue("geometry", self.saveGeometry())
        self.state.setValue("window-state", self.saveState())
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        self.session.jobs.cancel_all()
        self.jobs_panel.detach()
        super().closeEvent(event)
        self.preview.release()
