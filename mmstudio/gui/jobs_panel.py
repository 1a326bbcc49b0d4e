"""Bottom dock: the session's jobs (state, element, level, elapsed, progress, cancel) and a log.

A running job's elapsed time ticks every :data:`TICK_MS` (not only when the job reports); its
progress bar never goes back (a pipeline reports each stage from 0); a finished job's message says
how it ended, not the last stage it was in ("rendering")."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
)

from mmstudio.gui.icons import icon
from mmstudio.studio.jobs import Job, JobManager

_COLUMNS = ("Job", "Kind", "Element", "Level", "State", "Elapsed", "Progress", "", "Message")
_CANCEL = 7
_ELAPSED = 5
TICK_MS = 500  # how often a running job's elapsed time is redrawn
_ACTIVE = ("queued", "running")


def finished_message(job: Job) -> str:
    """What a finished job's Message column says: how it ended, with its result in a few words."""
    if job.state == "failed":
        return f"failed: {job.error}"
    if job.state == "cancelled":
        return job.outcome
    result = job.result
    scores = getattr(result, "scores", None)
    if scores is not None and getattr(scores, "overall", None) is not None:
        return f"done: overall {scores.overall:.2f}"
    if isinstance(result, list):  # a refine: its attempts' outcomes
        kept = sum(getattr(o, "outcome", "") == "accepted" for o in result)
        if not result:
            return "done: nothing to change"
        return f"done: {kept} of {len(result)} change(s) kept"
    verdicts = getattr(result, "verdicts", None)
    if isinstance(verdicts, dict) and hasattr(result, "crops"):  # a head check
        if result.error:
            return f"done: version {result.version} could not be rendered ({result.error})"
        met = sum(v.get("passed") is True for v in verdicts.values())
        return (f"done: {met} of {len(verdicts)} requirement(s) pass at version "
                f"{result.version}; {len(result.crops)} evidence crop(s)")  # fmt: skip
    version = getattr(result, "version", None)
    if isinstance(version, str):  # a feedback turn
        return f"done: version {version}"
    if isinstance(getattr(result, "root", None), Path):  # a generated project
        return f"done: {result.root.name} is ready"
    if isinstance(getattr(result, "id", None), str) and hasattr(result, "summary"):  # a version
        return f"done: now at version {result.id} ({result.summary[:80]})"
    if isinstance(result, Path):  # an export
        return f"done: {result}"
    if getattr(result, "screenshot", None):  # a capture
        return "done: screenshot taken"
    return "done"


class JobsTable(QTableWidget):
    """One row per job, updated from JobManager events."""

    def __init__(self, jobs: JobManager, parent=None) -> None:
        super().__init__(0, len(_COLUMNS), parent)
        self.jobs = jobs
        self.setHorizontalHeaderLabels(_COLUMNS)
        # sized to the contents when a row comes or a job ends, not on every progress event
        # (ResizeToContents measures every row at each change: tens of ms per event)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setStretchLastSection(True)
        self.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.verticalHeader().hide()
        self._rows: dict[str, int] = {}
        self._progress: dict[str, int] = {}  # job id → the highest progress shown (%)
        self._started: dict[str, float] = {}  # running job id → its start (s since the epoch)
        self._ticker = QTimer(self)
        self._ticker.setInterval(TICK_MS)
        self._ticker.timeout.connect(self._tick)
        self._unsubscribe = jobs.subscribe(self.update_job)

    def bind(self, state) -> None:
        """Follow a :class:`~mmstudio.studio.state.StudioState` instead of the manager: a row
        per job event, and the rows of the state's job list when another project is shown."""
        self._unsubscribe()
        self._unsubscribe = state.subscribe(self._state_changed)

    def _state_changed(self, state, change) -> None:
        if change.touches("project"):
            self.show_jobs(list(state.job_list.values()))
        elif change.job is not None:
            self.update_job(change.job)

    def show_jobs(self, jobs: list[Job]) -> None:
        """Show exactly ``jobs`` (oldest first)."""
        if list(self._rows) == [j.id for j in jobs]:
            for job in jobs:
                self.update_job(job)
            return
        self.setRowCount(0)
        self._rows.clear()
        ids = {j.id for j in jobs}
        self._progress = {k: v for k, v in self._progress.items() if k in ids}
        self._started = {k: v for k, v in self._started.items() if k in ids}
        for job in jobs:
            self.update_job(job)

    def clear_finished(self, keep: set[str] | None = None) -> None:
        """Drop the rows of finished jobs (another project was opened) except those in ``keep``
        (job ids); running ones stay."""
        keep = [j for j in self._rows if self._state(j) in _ACTIVE or j in (keep or set())]
        shown = {job_id: self.jobs.jobs[job_id] for job_id in keep if job_id in self.jobs.jobs}
        self.setRowCount(0)
        self._rows.clear()
        self._progress = {k: v for k, v in self._progress.items() if k in shown}
        self._started = {k: v for k, v in self._started.items() if k in shown}
        for job in shown.values():
            self.update_job(job)

    def _state(self, job_id: str) -> str:
        job = self.jobs.jobs.get(job_id)
        return job.state if job is not None else "done"

    def _tick(self) -> None:
        now = time.time()
        for job_id, started in self._started.items():
            row = self._rows.get(job_id)
            if row is not None and self.item(row, _ELAPSED) is not None:
                self.item(row, _ELAPSED).setText(f"{now - started:.1f} s")
        if not self._started:
            self._ticker.stop()

    def _set(self, row: int, column: int, text: str, tip: str | None = None) -> bool:
        """Set a cell's text (a new item only for a new cell); returns whether it changed."""
        item = self.item(row, column)
        if item is None:
            item = QTableWidgetItem(text)
            self.setItem(row, column, item)
        elif item.text() == text:
            return False
        else:
            item.setText(text)
        if tip is not None:
            item.setToolTip(tip)
        return True

    def update_job(self, job: Job) -> None:
        row = self._rows.get(job.id)
        added = row is None
        if row is None:
            row = self._rows[job.id] = self.rowCount()
            self.insertRow(row)
            self.setCellWidget(row, 6, QProgressBar(self))
            cancel = QPushButton(icon("cancel"), "Cancel", self)
            cancel.setToolTip("Cancel this job")
            cancel.clicked.connect(lambda _=False, jid=job.id: self.jobs.cancel(jid))
            self.setCellWidget(row, _CANCEL, cancel)
            self.scrollToBottom()
        state = job.outcome  # "cancelled during evaluate", "failed: <error>", or the state
        values = (
            job.id,
            job.kind,
            job.element or "page",
            job.level or "",
            state,
            f"{job.elapsed_s:.1f} s",
        )
        for column, value in enumerate(values):
            self._set(row, column, value, state if column == 4 else None)
        active = job.state in _ACTIVE
        message = job.message if active else finished_message(job)
        self._set(row, len(_COLUMNS) - 1, message, message)
        shown = self._progress.get(job.id, 0)
        percent = 100 if job.state == "done" else max(shown, int(job.progress * 100))
        self._progress[job.id] = percent
        bar = self.cellWidget(row, 6)
        shape = f"%p % · {job.stage}" if active and job.stage else "%p %"
        if bar.value() != percent:  # each change repaints the bar
            bar.setValue(percent)
        if bar.format() != shape:
            bar.setFormat(shape)
        if job.state == "running" and job.started_at is not None:
            self._started[job.id] = job.started_at
            if not self._ticker.isActive():
                self._ticker.start()
        else:
            self._started.pop(job.id, None)
        cancel = self.cellWidget(row, _CANCEL)
        if cancel.isEnabled() != active:
            cancel.setEnabled(active)
            cancel.setToolTip("Cancel this job" if active else f"This job is {job.state}")
        if added or not active:
            for column in range(len(_COLUMNS) - 1):
                self.resizeColumnToContents(column)

    def closeEvent(self, event) -> None:
        self._unsubscribe()
        super().closeEvent(event)


class _LogBridge(QObject, logging.Handler):
    """A logging handler that appends records to the log view on the GUI thread."""

    record = Signal(str)

    def __init__(self) -> None:
        QObject.__init__(self)
        logging.Handler.__init__(self, logging.INFO)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:  # logging.Handler API
        self.record.emit(self.format(record))


class JobsPanel(QTabWidget):
    """Tabs: Jobs and Log."""

    def __init__(self, jobs: JobManager, parent=None) -> None:
        super().__init__(parent)
        self.table = JobsTable(jobs, self)
        self.log = QPlainTextEdit(self)
        self.log.setReadOnly(True)
        self.addTab(self.table, "Jobs")
        self.addTab(self.log, "Log")
        self._bridge = _LogBridge()
        self._bridge.record.connect(self.log.appendPlainText)
        logging.getLogger("mmstudio").addHandler(self._bridge)

    def detach(self) -> None:
        logging.getLogger("mmstudio").removeHandler(self._bridge)
