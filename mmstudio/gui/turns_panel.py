"""The "Turns" panel: every feedback turn of the open project with its requirements and their
status AT THE CURRENT VERSION (pass / FAIL / unchecked / superseded as the critic found them on
this version; "not checked here" when the critic never checked this version — the head moved
by undo, restore or a refine; "undone" when the turn's own version is not in the current one's
history), the forgetting events and FronTalk's pass and forgetting rates.

The panel never reads files itself: it is given a ``source()`` that returns the ledger view
(:func:`mmstudio.studio.feedback.ledger_view` shape: ``{turns: [{turn, text, version, summary,
requirements: [{id, text, op, target, status, detail}]}], forgetting: [...], pass_rate,
forgetting_rate}``) and shows it on :meth:`refresh` — or on :meth:`refresh_async`, which calls
``source()`` in a worker thread (it reads the project's database and, the first time, imports the
feedback code: up to 200 ms the GUI thread would otherwise stall for).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

STATUS_COLOURS = {
    "pass": "#2f855a",
    "fail": "#c53030",
    "unchecked": "#8a8f98",
    "superseded": "#8a8f98",
    "stale": "#b7791f",
    "undone": "#8a8f98",
}
STATUS_WORDS = {
    "pass": "pass",
    "fail": "FAIL",
    "unchecked": "—",
    "superseded": "superseded",
    "stale": "not checked here",
    "undone": "undone",
}


def at_head(view: dict, head: str | None, parents: dict[str, str | None], finals: list[dict]):
    """``view`` (the ledger view) with each requirement's status as of the version ``head``:
    the critic's final verdict recorded AT ``head``; else "undone" when its turn's version is
    not ``head`` or one of its ancestors (``parents``: version → parent), else "stale" (checked
    at another version only). ``finals``: the ledger's final verdicts ({requirement, turn,
    version, passed, detail}). Superseded requirements stay superseded. Returns a new dict."""
    lineage: list[str] = []
    version = head
    while version and version not in lineage:
        lineage.append(version)
        version = parents.get(version)
    here = {row["requirement"]: row for row in finals if row["version"] == head}
    turns = []
    for turn in view.get("turns", []):
        undone = turn.get("version") not in lineage
        rows = []
        for row in turn.get("requirements", []):
            row = dict(row)
            if row.get("status") != "superseded":
                if undone:
                    row["status"] = "undone"
                    row["detail"] = (
                        f"turn {turn['turn']}'s version {turn.get('version')} is not in the "
                        f"current version {head} (undone, or an earlier version restored)"
                    )
                elif row["id"] in here:
                    passed = here[row["id"]]["passed"]
                    row["status"] = "unchecked" if passed is None else "pass" if passed else "fail"
                    row["detail"] = here[row["id"]]["detail"]
                else:
                    was = STATUS_WORDS.get(row.get("status", "unchecked"), "")
                    row["status"] = "stale"
                    row["detail"] = (
                        f"not checked at the current version {head}; last verdict {was} at "
                        "another version — send a turn, or undo back, to check it again"
                    )
            rows.append(row)
        turns.append({**turn, "requirements": rows, "undone": undone})
    return {**view, "turns": turns, "head": head}


class TurnsPanel(QWidget):
    """A tree of turns → requirements (status, id, words) with a one-line rates summary."""

    def __init__(self, source: Callable[[], dict], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("turns-panel")
        self.source = source
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Turn / requirement", "Status"])
        header = self.tree.header()  # the status stays in view however narrow the dock
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.summary = QLabel("No feedback turns yet.", self)
        self.summary.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tree)
        layout.addWidget(self.summary)

    def refresh(self) -> None:
        """Show the ledger as ``source()`` returns it now (an empty view when it fails)."""
        self.show_view(_read(self.source))

    async def refresh_async(self) -> None:
        """:meth:`refresh` with ``source()`` run in a worker thread (see the module docstring)."""
        self.show_view(await asyncio.to_thread(_read, self.source))

    def show_view(self, view: dict) -> None:
        """Rebuild the tree from a ledger view (see the module docstring)."""
        self.tree.clear()
        forgotten = {event["requirement"] for event in view.get("forgetting", [])}
        for turn in view.get("turns", []):
            undone = " (undone)" if turn.get("undone") else ""
            label = f"Turn {turn['turn']}: {turn['text'] or '(marks)'}{undone}"
            head = QTreeWidgetItem(self.tree, [label, ""])
            head.setToolTip(0, f"version {turn.get('version')}\n{turn.get('summary', '')}".strip())
            for row in turn.get("requirements", []):
                self._requirement(head, row, row["id"] in forgotten)
        self.tree.expandAll()
        self.summary.setText(_summary(view))

    def _requirement(self, parent: QTreeWidgetItem, row: dict, forgotten: bool) -> None:
        status = row.get("status", "unchecked")
        label = f"{row['id']}: {row['text']}" + (" (forgotten once)" if forgotten else "")
        item = QTreeWidgetItem(parent, [label, STATUS_WORDS.get(status, status)])
        item.setToolTip(0, row.get("detail") or row.get("op", ""))
        item.setForeground(1, QBrush(QColor(STATUS_COLOURS.get(status, "#333333"))))
        item.setData(0, Qt.ItemDataRole.UserRole, row["id"])

    def requirement_lines(self) -> list[str]:
        """Every requirement row as "<status>  <id>: <text>" (for tests and copy)."""
        lines = []
        for i in range(self.tree.topLevelItemCount()):
            head = self.tree.topLevelItem(i)
            for j in range(head.childCount()):
                child = head.child(j)
                lines.append(f"{child.text(1)}  {child.text(0)}")
        return lines


def _read(source: Callable[[], dict]) -> dict:
    """The view ``source()`` returns, or an empty one that says why it failed."""
    try:
        return source() or {}
    except Exception as exc:  # a missing project or a locked database: say so, keep going
        return {"turns": [], "error": str(exc).splitlines()[0] if str(exc) else "error"}


def _summary(view: dict) -> str:
    if view.get("error"):
        return f"Cannot read the turns: {view['error']}"
    if not view.get("turns"):
        return "No feedback turns yet."
    rate = view.get("pass_rate")
    forget = view.get("forgetting_rate")
    parts = [f"{len(view['turns'])} turn(s)"]
    if view.get("head"):
        parts.append(f"statuses at version {view['head']}")
    if rate is not None:
        parts.append(f"pass rate {rate:.0%}")
    if forget is not None:
        parts.append(f"forgetting rate {forget:.0%}")
    events = view.get("forgetting", [])
    if events:
        parts.append(f"{len(events)} forgetting event(s)")
    return " · ".join(parts)


def for_window(window) -> TurnsPanel:
    """A panel fed by the window's open project (empty without one)."""

    def source() -> dict:
        project = window.session.project
        if project is None:
            return {"turns": []}
        from mmstudio.feedback import Ledger
        from mmstudio.studio.feedback import FeedbackService

        view = FeedbackService(project).turns()
        parents = {v.id: v.parent for v in project.history.list()}
        finals = Ledger(project.root / "history.sqlite").final_verdicts()
        return at_head(view, project.manifest.head, parents, finals)

    return TurnsPanel(source, window)
