"""Bottom dock: the session's jobs (state, element, level, elapsed, progress, cancel) and a log."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Qt, Signal
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


class JobsTable(QTableWidget):
    """One row per job, updated from JobManager events."""

    def __init__(self, jobs: JobManager, parent=None) -> None:
        super().__init__(0, len(_COLUMNS), parent)
        self.jobs = jobs
        self.setHorizontalHeaderLabels(_COLUMNS)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.verticalHeader().hide()
        self._rows: dict[str, int] = {}
        self._unsubscribe = jobs.subscribe(self.update_job)

    def update_job(self, job: Job) -> None:
        row = self._rows.get(job.id)
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
            self.setItem(row, column, QTableWidgetItem(value))
        self.setItem(row, len(_COLUMNS) - 1, QTableWidgetItem(job.message))
        self.item(row, 4).setToolTip(state)
        self.cellWidget(row, 6).setValue(int(job.progress * 100))
        active = job.state in ("queued", "running")
        cancel = self.cellWidget(row, _CANCEL)
        cancel.setEnabled(active)
        cancel.setToolTip("Cancel this job" if active else f"This job is {job.state}")

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
