"""The main window: live preview beside the plan tree with score badges, the selected element's
issues, the jobs and log, and the menus of a design session. Every action is a job on the
session's JobManager; every panel binds to the session's
:class:`~mmstudio.studio.state.StudioState` (project, head, report, statuses at the head,
selection, flags, device, jobs) and redraws on its changes — after an operation finished, the
state reads the head once and every panel shows that one version.

Failures never open a modal dialog: expected ones (a job failed, the project is locked by another
process, a folder is not a project, the page could not be rendered) and unexpected exceptions
(:meth:`MainWindow.report_exception`, installed as the hook by ``app.run``) show as a notice in
the banner above the preview, with the full text behind "Details" and the traceback in the log.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import logging
import pkgutil
import threading
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import (
    QDialog,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from mmstudio.evaluate import resolve_target
from mmstudio.gui import actions as rules
from mmstudio.gui import bridge
from mmstudio.gui.commands import ProjectCommands
from mmstudio.gui.icons import app_icon
from mmstudio.gui.issues_panel import IssuesPanel
from mmstudio.gui.jobs_panel import JobsPanel
from mmstudio.gui.notify import NotificationArea
from mmstudio.gui.outcomes import JobOutcomes
from mmstudio.gui.plan_tree import BadgeBar, PlanTree
from mmstudio.gui.preview import DEVICES, Preview
from mmstudio.gui.turns_panel import TurnsPanel
from mmstudio.gui.welcome import Welcome
from mmstudio.project import ProjectError
from mmstudio.report import Report
from mmstudio.studio.jobs import Job
from mmstudio.studio.plan_edit import PlanEditService
from mmstudio.studio.session import Session
from mmstudio.studio.state import Change, HeadView, StudioState, read_head

log = logging.getLogger(__name__)
_ACTIVE = ("queued", "running")
# what a first offline generate / evaluate / refine imports beyond the window's own imports
# (measured); imported in a worker at start-up. Not the model providers: openai alone takes
# ~1.7 s of CPU to import, paid only by a designer who chose it.
_PREWARM = (
    "playwright.async_api",
    "axe_playwright_python",
    # the head check (after an undo, a refine, a plan edit): the critic and its rules
    "mmstudio.studio.head_check",
    "mmstudio.feedback.critic",
    "mmstudio.feedback.condition_judge",
)
_PREWARM_PACKAGES = ("mmstudio.providers.offline",)


def _prewarm_modules() -> list[str]:
    """The modules a first generate / evaluate / refine job would import on the loop."""
    names = list(_PREWARM)
    for package in _PREWARM_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec and spec.submodule_search_locations:
            found = pkgutil.iter_modules(spec.submodule_search_locations, f"{package}.")
            names += sorted(info.name for info in found)
    return names


class MainWindow(ProjectCommands, JobOutcomes, QMainWindow):
    """The app window over one :class:`Session`."""

    job_finished = Signal(object)

    def __init__(self, session: Session | None = None) -> None:
        super().__init__()
        self.session = session or Session()
        self.studio: StudioState = self.session.state
        self.browser_problem: str | None = None
        self._job_states: dict[str, str] = {}
        self._shown_root: Path | None = None  # the project the panels show
        self._preview_head: str | None = None  # the version the preview shows
        self._routed: dict[tuple, list] = {}  # (report id, level, element) → routed issues
        self.proposed_folders: set[Path] = set()  # New from Prompt's folders in this session
        self.instructed: dict[str, str | None] = {}  # instruction job id → its element
        self.dialog: QDialog | None = None  # the open New / Settings / History dialog
        self.setWindowTitle("MM Studio")
        self.setWindowIcon(app_icon())
        self.resize(1680, 1000)
        self._build_centre()
        self._build_docks()
        self._build_actions()
        self.welcome = Welcome([self.commands[n] for n in ("new", "open", "open-site")], self)
        self.welcome.recent_chosen.connect(lambda path: self.open_project(Path(path)))
        self.pages.insertWidget(0, self.welcome)
        self.pages.setCurrentWidget(self.welcome)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._manifest_changed)
        self.status = QLabel("Open a project or start a new one from a prompt")
        self.statusBar().addPermanentWidget(self.status)
        self.job_finished.connect(self._job_finished)
        self._bind_panels()
        self.state = QSettings("MM Studio", "mmstudio")
        self._restore_state()
        self.welcome.show_recent(self.recent_projects())
        bridge.install()
        threading.Thread(target=self._check_browser, daemon=True, name="find-browser").start()
        self.update_actions()

    def _bind_panels(self) -> None:
        """Every panel follows the state; the window itself: title, status, preview, actions,
        job outcomes."""
        self.tree.bind(self.studio)
        self.badges.bind(self.studio)
        self.issues.bind_state(self.studio)
        self.turns_panel.bind(self.studio)
        self.jobs_panel.table.bind(self.studio)
        self._unsubscribe = self.studio.subscribe(self._state_changed)

    def _state_changed(self, state: StudioState, change: Change) -> None:
        moved = change.job is not None and self._job_event(change.job)  # not progress only
        if change.touches("project"):
            self._project_changed()
        if change.touches("selection"):
            self.preview.highlight(state.selection) if state.selection else None
        if change.touches("head", "project") and state.view is not None:
            head = state.view.head
            if self._preview_head is not None and head != self._preview_head:
                self.preview.reload()  # the head moved: the preview shows it
            self._preview_head = head
        if state.view is not None and change.touches("head", "versions", "project"):
            self.status.setText(f"{state.view.root} · version {state.view.head}")
        if moved or change.touches("project", "head", "report", "selection", "flags", "versions"):
            self.update_actions()

    def _project_changed(self) -> None:
        """The state shows another project (or a site folder, or nothing)."""
        project = self.studio.project
        if project is None:
            self._preview_head = None
            if self.watcher.files():
                self.watcher.removePaths(self.watcher.files())
            return
        if self._shown_root == project.root:
            return
        self._shown_root = project.root
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        self.watcher.addPath(str(project.root / "mmstudio.json"))
        self.setWindowTitle(f"MM Studio — {project.manifest.title}")
        self._remember(project.root)
        self.pages.setCurrentWidget(self.page_view)
        self._restore_project_state(project.root)
        self._preview_head = None
        self.preview.show_site(project.site_dir)

    # compatibility accessors: what the state holds
    @property
    def site_only(self) -> Path | None:
        """The site folder opened for evaluation only (None: a project, or nothing)."""
        return self.studio.site_only

    @property
    def report(self) -> Report | None:
        return self.studio.report

    @property
    def selected(self) -> str | None:
        return self.studio.selection

    @property
    def snapshot(self) -> HeadView | None:
        """What the panels show of the open project's head (None until it is read)."""
        return self.studio.view if self.session.project is not None else None

    def _build_centre(self) -> None:
        self.preview = Preview(self)
        self.preview.element_clicked.connect(lambda item_id: self.studio.select(item_id))
        self.notifications = NotificationArea(self)
        self.badges = BadgeBar(self)
        self.page_view = QWidget(self)
        page_column = QVBoxLayout(self.page_view)
        page_column.setContentsMargins(0, 0, 0, 0)
        page_column.setSpacing(0)
        page_column.addWidget(self.badges)
        page_column.addWidget(self.preview, stretch=1)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.page_view)
        centre = QWidget(self)
        column = QVBoxLayout(centre)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.notifications)
        column.addWidget(self.pages, stretch=1)
        self.setCentralWidget(centre)

    def _build_docks(self) -> None:
        self.tree = PlanTree(self)
        self.tree.setMinimumWidth(320)
        self.tree.edit_requested.connect(self.edit_plan)
        self.tree.site_page_selected.connect(self.preview.show_page)
        self.issues = IssuesPanel(self)
        self.issues.setMinimumWidth(300)
        self.issues.instruction_given.connect(self.instruct)
        self.jobs_panel = JobsPanel(self.session.jobs, self)
        self._dock("Plan", self.tree, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("Issues", self.issues, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Jobs", self.jobs_panel, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.turns_panel = TurnsPanel(self)
        self._dock("Turns", self.turns_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(
            self.findChild(QDockWidget, "issues-dock"), self.findChild(QDockWidget, "turns-dock")
        )
        self.findChild(QDockWidget, "issues-dock").raise_()
        self.resizeDocks(
            [self.findChild(QDockWidget, n) for n in ("plan-dock", "issues-dock")],
            [360, 340],
            Qt.Orientation.Horizontal,
        )
        self.resizeDocks([self.findChild(QDockWidget, "jobs-dock")], [150], Qt.Orientation.Vertical)

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> None:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"{title.lower()}-dock")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)

    def _build_actions(self) -> None:
        slots = {
            "new": self.new_from_prompt,
            "open": self._choose_project,
            "open-site": self._choose_site,
            "export": self.export,
            "settings": self.edit_settings,
            "undo": self.undo,
            "redo": self.redo,
            "evaluate": self.evaluate,
            "regenerate": self.generate_again,
            "history": self.show_history,
            "annotate": self.annotate,
            "sketch": lambda: self.annotate(sketch=True),
            "reload": self.preview.reload,
            "refine-local": lambda: self.refine("local"),
            "refine-context": lambda: self.refine("context"),
            "refine-global": lambda: self.refine("global"),
            "flag": self.toggle_flag,
            "refine-flagged": self.refine_flagged,
            "cancel-all": self.session.jobs.cancel_all,
        }
        self.commands = rules.build(rules.SPECS, slots, self)
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main-toolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        menus = {
            name: self.menuBar().addMenu(title)
            for name, title in (
                ("file", "&File"),
                ("page", "&Page"),
                ("element", "&Element"),
                ("jobs", "&Jobs"),
            )
        }
        for menu in menus.values():
            menu.setToolTipsVisible(True)
        for spec in rules.SPECS:
            menus[spec.menu].addAction(self.commands[spec.name])
            if spec.toolbar:
                toolbar.addAction(self.commands[spec.name])
            if spec.name in ("open-site", "settings", "redo", "reload", "refine-global"):
                menus[spec.menu].addSeparator()
        self.recent_menu = menus["file"].addMenu("Open Recent")
        menus["file"].addSeparator()
        menus["file"].addAction(QAction("&Quit", self, shortcut="Ctrl+Q", triggered=self.close))
        menus["jobs"].addAction(self._dock_toggle("jobs-dock", "Show Jobs and Log"))
        toolbar.addSeparator()
        group = QActionGroup(self)
        self.device_actions: dict[int, QAction] = {}
        for name, width in DEVICES:
            action = QAction(f"{name} {width}", self, checkable=True, checked=width == 1280)
            action.setToolTip(f"Preview at {width} px wide")
            action.triggered.connect(lambda _=False, w=width: self.set_device(w))
            group.addAction(action)
            toolbar.addAction(action)
            self.device_actions[width] = action
        self.issues.bind(self.commands)
        # kept for callers that list the actions needing a project
        self.project_actions = [self.commands[n] for n in ("export", "undo", "redo", "history")]
        self.project_actions += [self.commands[n] for n in ("annotate", "sketch")]

    def set_device(self, width: int, remember: bool = True) -> None:
        """Preview at ``width`` px (1280 desktop, 768 tablet, 390 mobile), its toolbar button
        checked; remembered for the open project (``remember``)."""
        if width in self.device_actions:
            self.device_actions[width].setChecked(True)
        self.studio.set_device(width)
        self.preview.set_device_width(width)
        project = self.session.project
        if remember and project is not None:
            self.state.setValue(self._project_key(project.root, "device"), width)

    def _dock_toggle(self, name: str, label: str) -> QAction:
        action = self.findChild(QDockWidget, name).toggleViewAction()
        action.setText(label)
        return action

    # -- what works now ----------------------------------------------------------------------
    @property
    def device_width(self) -> int:
        return self.studio.device

    def ui_state(self) -> rules.UiState:
        """The state the action rules look at."""
        snap = self.snapshot
        active = self.studio.busy_jobs
        return rules.UiState(
            has_project=self.session.project is not None,
            site_only=self.site_only is not None,
            selected=self.selected,
            selected_is_element=self.studio.selected_is_element,
            flagged=len(self.session.flagged),
            running_jobs=len(active),
            generating=any(j.kind == "generate" for j in active),
            can_undo=bool(snap and snap.can_undo),
            can_redo=bool(snap and snap.can_redo),
            browser_problem=self.browser_problem,
        )

    def update_actions(self) -> None:
        """Enable each action or disable it with the reason (see :mod:`mmstudio.gui.actions`)."""
        flagged = self.selected is not None and self.selected in self.session.flagged
        self.commands["flag"].setText("Unflag" if flagged else "Flag")
        self.commands["flag"].setIconText("Unflag" if flagged else "Flag")
        rules.apply(self.commands, rules.reasons(self.ui_state()))
        self._say_what_refine_does()
        self.issues.set_changeable(self.session.project is not None)

    def _say_what_refine_does(self) -> None:
        """The enabled refine actions' tooltips say what a click will do now: which issues of
        which element it works on, or that there is nothing to refine (and what to do)."""
        from mmstudio.gui.commands import _LEVEL_WORDS, nothing_to_refine, routed

        for level in ("local", "context", "global"):
            action = self.commands[f"refine-{level}"]
            if not action.isEnabled():
                continue
            element = None if level == "global" else self.selected
            key = (id(self.report), level, element)
            if key not in self._routed:  # routing is pure: once per report, level and element
                self._routed = {k: v for k, v in self._routed.items() if k[0] == key[0]}
                self._routed[key] = routed(self.report, level, element)
            issues = self._routed[key]
            what = element or "the page"
            if issues:
                tip = f"fix {len(issues)} {level} issue(s) of {what}: {_LEVEL_WORDS[level]}"
            else:
                tip = nothing_to_refine(level, element)
            keys = action.shortcut().toString()
            action.setToolTip(f"{action.text()}{f' ({keys})' if keys else ''}: {tip}")
            action.setStatusTip(tip)

    def _check_browser(self) -> None:
        # off the GUI thread: finding Chromium runs `chromium --version` (60–90 ms), and the
        # first job would otherwise import Playwright and the pipeline on the loop (~150 ms)
        from mmstudio.render import find_browser

        try:
            problem = find_browser().problem or ""
        except Exception as exc:  # a broken finder must not kill the thread silently
            problem = str(exc)
        bridge.call_soon(self, lambda window: window._browser_found(problem))
        for module in _prewarm_modules():
            try:
                importlib.import_module(module)
            except Exception:  # an optional module; the job will report it if it matters
                log.debug("prewarm import of %s failed", module, exc_info=True)

    def _browser_found(self, problem: str) -> None:
        self.browser_problem = problem or None
        if problem:
            self.notify("warning", f"Rendering and scoring are unavailable: {problem}")
        self.update_actions()

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

    # per project: flags, device width and the docks' sizes, saved when the designer changes them
    # (flags, device) and when the project is left (docks), restored when it is shown again
    def _project_key(self, root: Path, name: str) -> str:
        digest = hashlib.sha1(str(Path(root).resolve()).encode()).hexdigest()[:16]
        return f"projects/{digest}/{name}"

    def save_project_state(self) -> None:
        """Remember the open project's flags, device width and dock layout."""
        project = self.session.project
        if project is None:
            return
        self.state.setValue(self._project_key(project.root, "flags"), sorted(self.session.flagged))
        self.state.setValue(self._project_key(project.root, "device"), self.device_width)
        self.state.setValue(self._project_key(project.root, "window-state"), self.saveState())

    def _restore_project_state(self, root: Path) -> None:
        flags = self.state.value(self._project_key(root, "flags")) or []
        flags = [flags] if isinstance(flags, str) else list(flags)
        self.studio.set_flags(flags)  # ids the head does not know go when it is read
        device = self.state.value(self._project_key(root, "device"))
        if device is not None and int(device) in self.device_actions:
            self.set_device(int(device), remember=False)
        docks = self.state.value(self._project_key(root, "window-state"))
        if docks is not None:
            self.restoreState(docks)

    def _remember(self, root: Path, keep: bool = True) -> None:
        others = [p for p in self.recent_projects() if p != str(root)]
        self.state.setValue("recent-projects", ([str(root)] if keep else []) + others[:7])
        self._show_recent()

    def _show_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_projects():
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_project(Path(p)))
        self.recent_menu.setEnabled(bool(self.recent_projects()))
        self.recent_menu.setToolTip("" if self.recent_projects() else "No project opened yet")
        if hasattr(self, "welcome"):
            self.welcome.show_recent(self.recent_projects())

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

    # -- opening -----------------------------------------------------------------------------
    def open_project(self, root: Path) -> bool:
        """Show the project at ``root``; a folder that cannot be opened gets a notice, nothing
        else (it stays in the recent list — a lock held by another process passes — unless the
        folder is gone). Its head is read off the GUI thread (when the loop runs) and shown
        by every panel at once. Returns whether it opened."""
        self.save_project_state()
        try:
            project = self.session.open(root)  # the state now shows it (title, preview)
        except ProjectError as exc:
            self.notify("error", f"Cannot open the project: {exc}")
            if str(root) in self.recent_projects() and not Path(root).is_dir():
                self._remember(root, keep=False)
            return False
        self.session_notices()  # e.g. the project's model settings cannot be read
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop runs (a test driving the window): read it now
            try:
                self.studio.apply(read_head(project))
            except ProjectError as exc:
                self._unreadable(exc)
                return False
            return True
        self._spawn(self._read_head())
        return True

    async def _read_head(self) -> None:
        try:
            await self.studio.reload()
        except ProjectError as exc:
            self._unreadable(exc)

    def _unreadable(self, exc: ProjectError) -> None:
        """The project opened but its plan or report cannot be read: say so, and close it."""
        self.notify("error", f"Cannot open the project: {exc}")
        self.session.close()
        self._shown_root = None
        self.preview.show_site(None)
        self.setWindowTitle("MM Studio")
        self.update_actions()

    def open_site(self, folder: Path) -> bool:
        """Preview someone else's site folder and evaluate it (nothing is written into it);
        a folder with no page gets a notice. Returns whether it opened."""
        try:
            site_dir, page, _ = resolve_target(folder)
        except (OSError, ValueError) as exc:
            self.notify("error", f"Cannot open the site: {exc}")
            return False
        self.save_project_state()
        self.session.close()  # cancels the project's jobs, lets go of its writer lock
        self._shown_root = None
        self.studio.set_site(folder)
        self.setWindowTitle(f"MM Studio — {folder}")
        self.pages.setCurrentWidget(self.page_view)
        self.preview.show_site(site_dir, page)
        self.status.setText(f"{folder} · site folder (evaluated, never changed)")
        self.update_actions()
        from mmstudio.studio.evaluation import evaluate_path

        async def run(ctx):
            ctx.progress(0.1, "rendering")
            report, _ = await evaluate_path(folder)
            return report

        self.session.jobs.submit("evaluate", run, slot="evaluate")
        return True

    def refresh(self) -> None:
        """Read the open project's head now, on this thread, into the state (tests)."""
        project = self.session.project
        if project is not None:
            self.studio.apply(read_head(project))

    async def refresh_async(self) -> None:
        """Read the open project's head off the GUI thread into the state."""
        await self.studio.reload()

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
        # (another process's commit; this process's operations refresh when they finish)
        if Path(path).exists() and path not in self.watcher.files():
            self.watcher.addPath(path)
        QTimer.singleShot(200, self._reload_project)

    def _reload_project(self) -> None:
        if self.session.project is not None:
            self.studio.reload_soon()

    def _spawn(self, coro) -> asyncio.Task | None:
        """Run ``coro`` on the running loop (errors become notices); without a running loop
        (a test driving the window directly) run it to completion now."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            runner = asyncio.new_event_loop()
            try:
                runner.run_until_complete(coro)
                runner.run_until_complete(runner.shutdown_default_executor())
            finally:
                runner.close()
            return None
        task = loop.create_task(coro)
        task.add_done_callback(self._task_failed)
        return task

    def _task_failed(self, task: asyncio.Future) -> None:
        if not task.cancelled() and task.exception() is not None:
            self.report_exception(task.exception())  # type: ignore[arg-type]

    # -- selection ---------------------------------------------------------------------------
    def _tree_selected(self, item_id: str | None) -> None:
        """Select the element or section ``item_id`` (None: the page's own issues)."""
        self.studio.select(item_id)

    def edit_plan(self, what: str, item_id: str, changes: dict) -> Job | None:
        """Run a plan edit from the tree as a job (:mod:`mmstudio.studio.plan_edit`): ``what``
        "element" (``changes``: prompt/alt, chart_type, title), "section" (title), "order"
        ({"order": section ids}) or "palette" ({role: hex}). None (and a notice) when no
        project with a plan is open."""
        project = self.session.project
        if project is None or self.site_only is not None:
            self.notify("warning", "Open a project to edit its plan (a site folder has none)")
            return None
        service = PlanEditService(project, self.session.jobs)
        if what == "palette":
            return service.palette(changes)
        if what == "section":
            return service.section(item_id, changes["title"])
        if what == "order":
            return service.order(changes["order"])
        return service.element(item_id, **changes)

    def closeEvent(self, event) -> None:
        self.save_project_state()
        self.state.setValue("geometry", self.saveGeometry())
        self.state.setValue("window-state", self.saveState())
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        self._unsubscribe()
        self.session.close()
        self.studio.close()
        self.jobs_panel.detach()
        super().closeEvent(event)
        self.preview.release()
