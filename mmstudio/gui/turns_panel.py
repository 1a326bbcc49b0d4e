"""The "Turns" panel: every feedback turn of the open project with its requirements and their
status AT THE CURRENT VERSION (pass / FAIL / unchecked / superseded as the turn's critic or the
head check found them on this version; "not checked at this version" while neither has — the
head moved by undo, restore or a refine and the check is running or could not run; "undone"
when the turn's own version is not in the current one's history), the forgetting events and
FronTalk's pass and forgetting rates.

The panel never reads files: bound to the app's :class:`~mmstudio.studio.state.StudioState`
(:meth:`TurnsPanel.bind`) it shows the head's ledger view as the state read it
(:func:`mmstudio.studio.head_check.statuses_at_head`'s shape: ``{turns: [{turn, text, version,
summary, undone, requirements: [{id, text, op, target, status, detail, checked_by}]}],
forgetting: [...], pass_rate, forgetting_rate, head}``).
"""

from __future__ import annotations

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
    "stale": "not checked at this version",
    "undone": "undone",
}


class TurnsPanel(QWidget):
    """A tree of turns → requirements (status, id, words) with a one-line rates summary."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("turns-panel")
        self.checking = False
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

    def bind(self, state) -> None:
        """Follow a :class:`~mmstudio.studio.state.StudioState`: its head's turns, and whether
        the head is being checked."""
        state.subscribe(self._state_changed)

    def _state_changed(self, state, change) -> None:
        if change.touches("project", "turns", "checking"):
            view = state.view.turns if state.view is not None else {"turns": []}
            self.show_view(view, checking=state.checking)

    def show_view(self, view: dict, checking: bool = False) -> None:
        """Rebuild the tree from a ledger view (see the module docstring); ``checking``: the
        head check runs (rows not checked at this version say so)."""
        self.checking = checking
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
        words = STATUS_WORDS.get(status, status)
        if status == "stale" and self.checking:
            words += " (checking…)"
        elif row.get("checked_by") == "check":
            words += " (re-checked)"
        item = QTreeWidgetItem(parent, [label, words])
        detail = row.get("detail") or row.get("op", "")
        if row.get("checked_by") == "check":
            detail = f"re-checked at this version: {detail}".rstrip(": ")
        item.setToolTip(0, detail)
        item.setToolTip(1, detail)
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
    stale = sum(r.get("status") == "stale" for t in view["turns"] for r in t["requirements"])
    if stale:
        parts.append(f"{stale} not checked at this version")
    if rate is not None:
        parts.append(f"pass rate {rate:.0%}")
    if forget is not None:
        parts.append(f"forgetting rate {forget:.0%}")
    events = view.get("forgetting", [])
    if events:
        parts.append(f"{len(events)} forgetting event(s)")
    return " · ".join(parts)
