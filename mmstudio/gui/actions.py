"""The window's actions (menus, toolbar, shortcuts) and the rule that says when each one works.

Every action is either enabled or disabled with a reason: :func:`reasons` maps the window's
:class:`UiState` to a one-line reason per action (None: it works now), and :func:`apply` sets
``enabled``, the tooltip and the status tip from it, so a designer hovering a grey action reads
why ("Open a project first", "Nothing to undo", "Needs Chromium: …").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence

from mmstudio.gui.icons import icon

NO_PROJECT = "Open a project (File › Open Project) or create one (File › New from Prompt) first"
NO_TARGET = "Open a project or a site folder first"
NO_ELEMENT = "Select an element in the Plan tree or click one in the preview first"
NO_FLAGGED = "Flag elements first (select one, then Element › Flag)"
NO_JOB = "No job is running"
BUSY = "Wait for the running jobs to finish, or cancel them (Jobs › Cancel All Jobs)"
GENERATING = "A page is being generated; wait for it or cancel it in the Jobs dock"
SITE_ONLY = "Only for projects: a site folder is evaluated, never changed"


@dataclass(frozen=True)
class Spec:
    """One action: ``name`` (stable id), menu label, icon name, shortcut, menu, on the toolbar?"""

    name: str
    label: str
    icon: str | None
    shortcut: str | QKeySequence.StandardKey | None
    menu: str
    toolbar: bool
    tip: str


SPECS: tuple[Spec, ...] = (
    Spec("new", "New from Prompt…", "new", QKeySequence.StandardKey.New, "file", True,
         "Plan, generate, evaluate and refine a new page from a prompt"),
    Spec("open", "Open Project…", "open", QKeySequence.StandardKey.Open, "file", True,
         "Open an MM Studio project folder"),
    Spec("open-site", "Open Site Folder…", "open-site", "Ctrl+Shift+O", "file", True,
         "Preview and evaluate a site someone else made (nothing is written into it)"),
    Spec("export", "Export…", "export", "Ctrl+E", "file", True,
         "Write the current site to a new folder or a .zip"),
    Spec("settings", "Settings…", "settings", QKeySequence.StandardKey.Preferences, "file", False,
         "Model provider, endpoint, models per role, rounds, concurrency"),
    Spec("undo", "Undo", "undo", QKeySequence.StandardKey.Undo, "page", True,
         "Go back to the previous version"),
    Spec("redo", "Redo", "redo", QKeySequence.StandardKey.Redo, "page", True,
         "Go forward to the version last undone"),
    Spec("evaluate", "Evaluate", "evaluate", "Ctrl+R", "page", True,
         "Render the page and score it (six dimensions, issues by level)"),
    Spec("regenerate", "Generate Again from Prompt…", "generate", "Ctrl+G", "page", False,
         "Start a new project from this project's prompt"),
    Spec("history", "History…", "history", "Ctrl+H", "page", True,
         "Versions with scores and summaries; restore one"),
    Spec("annotate", "Annotate…", "annotate", "Ctrl+M", "page", True,
         "Draw on a screenshot of the page and say what should change"),
    Spec("sketch", "Sketch…", "sketch", "Ctrl+Shift+M", "page", True,
         "Sketch on a blank wireframe of the page and say what should change"),
    Spec("reload", "Reload Preview", "reload", QKeySequence.StandardKey.Refresh, "page", False,
         "Reload the preview, keeping the scroll position"),
    Spec("refine-local", "Refine Local", "refine", "Ctrl+1", "element", False,
         "Fix the selected element's own file (regenerate or repair it) for its local issues"),
    Spec("refine-context", "Refine Context", "refine", "Ctrl+2", "element", False,
         "Fix how the page embeds the selected element (CSS, container) for its context issues"),
    Spec("refine-global", "Refine Global", "refine", "Ctrl+3", "element", False,
         "Fix the page's layout and style for its global issues"),
    Spec("flag", "Flag", "flag", "Ctrl+F", "element", False,
         "Flag the selected element for Refine All Flagged"),
    Spec("refine-flagged", "Refine All Flagged", "refine", "Ctrl+Shift+F", "element", False,
         "Refine each flagged element at the levels of its issues; those without are named"),
    Spec("cancel-all", "Cancel All Jobs", "cancel", "Ctrl+.", "jobs", False,
         "Cancel every queued or running job"),
)  # fmt: skip


# shorter labels for the Issues dock's buttons (a tool button shows an action's icon text)
SHORT = {
    "refine-local": "Local", "refine-context": "Context", "refine-global": "Global",
    "refine-flagged": "Refine flagged",
}  # fmt: skip


@dataclass(frozen=True)
class UiState:
    """What the rules look at: the open project, the selection, the jobs, the browser."""

    has_project: bool = False
    site_only: bool = False
    selected: str | None = None
    selected_is_element: bool = False
    flagged: int = 0
    running_jobs: int = 0
    generating: bool = False
    can_undo: bool = False
    can_redo: bool = False
    browser_problem: str | None = None  # None: found (or not checked yet)


def reasons(state: UiState) -> dict[str, str | None]:
    """Why each action cannot run now (None: it can)."""
    project = None if state.has_project else (SITE_ONLY if state.site_only else NO_PROJECT)
    browser = f"Needs Chromium: {state.browser_problem}" if state.browser_problem else None
    busy = BUSY if state.running_jobs else None
    element = None if state.selected_is_element else NO_ELEMENT
    out: dict[str, str | None] = {
        "new": GENERATING if state.generating else None,
        "open": None,
        "open-site": None,
        "settings": None,
        "export": project,
        "undo": project or busy or (None if state.can_undo else "Nothing to undo: first version"),
        "redo": project or busy or (None if state.can_redo else "Nothing to redo"),
        "evaluate": (None if state.has_project or state.site_only else NO_TARGET) or browser,
        "regenerate": project or (GENERATING if state.generating else None),
        "history": project,
        "annotate": project or browser,
        "sketch": project or browser,
        "reload": None if state.has_project or state.site_only else NO_TARGET,
        "refine-local": project or element or browser,
        "refine-context": project or element or browser,
        "refine-global": project or browser,
        "flag": project or element,
        "refine-flagged": project or (None if state.flagged else NO_FLAGGED) or browser,
        "cancel-all": None if state.running_jobs else NO_JOB,
    }
    return out


def build(specs: tuple[Spec, ...], slots: dict[str, Callable[[], object]], parent) -> dict:
    """One QAction per spec, connected to ``slots[name]``; returns {name: QAction}."""
    actions: dict[str, QAction] = {}
    for spec in specs:
        action = QAction(spec.label, parent)
        action.setObjectName(f"action-{spec.name}")
        if spec.icon:
            action.setIcon(icon(spec.icon))
        if spec.shortcut is not None:
            action.setShortcut(spec.shortcut)
        if spec.name in SHORT:
            action.setIconText(SHORT[spec.name])
        action.triggered.connect(lambda _=False, slot=slots[spec.name]: slot())
        actions[spec.name] = action
    return actions


def apply(actions: dict[str, QAction], why: dict[str, str | None]) -> None:
    """Enable each action, or disable it and put the reason in its tooltip and status tip."""
    tips = {spec.name: spec.tip for spec in SPECS}
    for name, action in actions.items():
        reason = why.get(name)
        action.setEnabled(reason is None)
        label = action.text().rstrip("…").replace("&", "")
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        shortcut = f" ({keys})" if keys else ""
        if reason is None:
            action.setToolTip(f"{label}{shortcut}: {tips.get(name, '')}".rstrip(": "))
            action.setStatusTip(tips.get(name, ""))
        else:
            action.setToolTip(f"{label}: {reason}")
            action.setStatusTip(reason)
