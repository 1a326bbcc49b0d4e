"""How the window tells the designer what happened: job outcomes (a generated project opens, a
refine reloads the preview, an export says where it went) and failures, as non-modal notices.

Expected failures — a job failed, the project is locked by another process, a folder is not a
project, the page could not be rendered — show as one line (details behind "Details"); an
unexpected exception is logged with its traceback (the Log tab) and shown with it as details.
Mixed into :class:`~mmstudio.gui.main_window.MainWindow` (``self`` is the window).
"""

from __future__ import annotations

import logging
import traceback

from mmstudio.gui.notify import Notice, Severity
from mmstudio.project.errors import UserError, one_line
from mmstudio.report import Report
from mmstudio.studio.jobs import Job

log = logging.getLogger("mmstudio.gui.main_window")
_ACTIVE = ("queued", "running")
# exceptions that are the user's situation, not a bug: shown as one line, no traceback
EXPECTED = (UserError,)


class JobOutcomes:
    """Notices and job-outcome handling for the main window."""

    def notify(self, severity: Severity, message: str, details: str = "") -> Notice:
        """Show a non-modal notice above the preview (info hides itself; errors stay)."""
        return self.notifications.notify(severity, message, details)

    def session_notices(self) -> list[Notice]:
        """Show what the session noted and has not shown yet (an asset made offline instead
        of by the model, a model not used for the project) as warnings, also in the Log."""
        shown = []
        for line in self.session.take_notices():
            log.warning("%s", line)
            shown.append(self.notify("warning", line))
        return shown

    def report_exception(self, exc: BaseException) -> Notice:
        """Log ``exc`` with its traceback (Log tab) and show it as a notice; expected errors
        (:data:`EXPECTED`) show as one line without the traceback."""
        text = "".join(traceback.format_exception(exc))
        if isinstance(exc, EXPECTED):
            log.warning("%s", exc)
            return self.notify("error", one_line(exc))
        log.error("unexpected error\n%s", text.rstrip())
        return self.notify("error", f"Unexpected error: {exc or type(exc).__name__}", text)

    def _job_event(self, job: Job) -> bool:
        """A job event the state passed on: a finished job's outcome is told. Returns whether
        the job's state changed (False: progress only)."""
        key = f"{job.id}:{job.kind}"
        if self._job_states.get(key) == job.state:
            return False
        self._job_states[key] = job.state
        if job.state not in _ACTIVE:
            del self._job_states[key]
            self.job_finished.emit(job)
        return True

    def _job_finished(self, job: Job) -> None:
        if job.state == "failed":
            self._job_failed(job)
        if job.state != "done":
            self.instructed.pop(job.id, None)
            return
        # the panels follow the state, which reads the head again after each of these jobs
        if job.kind == "generate":
            self.notify("info", f"{job.result.root.name} is ready")
            self.session_notices()
        elif job.kind == "evaluate":
            self._evaluated(job.result)
        elif job.kind == "feedback":
            if job.id in self.instructed:
                self._instructed(job)
        elif job.kind == "export":
            self.notify("info", f"Exported to {job.result}")
        elif job.kind.startswith("edit-"):  # a plan edit from the tree: its version
            version = job.result
            self.notify("info", f"{version.summary}: version {version.id}")
        elif job.kind == "check" and job.result is not None and job.result.error:
            self.notify("warning", f"The current version could not be checked: "
                        f"{job.result.error}")  # fmt: skip

    def _instructed(self, job: Job) -> None:
        """Say what the designer's instruction did (its turn's version and what still fails)."""
        element = self.instructed.pop(job.id, None) or "the page"
        result = job.result
        failing = [v.requirement for v in getattr(result, "failing", [])]
        not_understood = list(getattr(result, "not_understood", []))
        line = f"Changed {element}: version {getattr(result, 'version', '?')}"
        if failing:
            line += f"; still failing: {', '.join(failing)}"
        if not_understood:
            line += f"; not understood (kept unchecked): {'; '.join(not_understood)[:160]}"
        log.info("%s", line)
        self.notify("warning" if failing or not_understood else "info", line)

    def _job_failed(self, job: Job) -> None:
        what = job.kind + (f" of {job.element}" if job.element else "")
        details = (
            f"job {job.id}: {job.kind}, element {job.element or 'page'}, level "
            f"{job.level or '-'}, after {job.elapsed_s:.1f} s\n{job.error}\n\n"
            "The Log tab of the Jobs dock has the full trace."
        )
        self.notify("error", f"{what.capitalize()} failed: {job.error}", details)

    def _evaluated(self, report: Report) -> None:
        if report.failed:
            kept = "" if self.site_only else " (the previous scores are kept)"
            self.notify("error", f"The page could not be rendered: {report.failed}{kept}")
        # the state shows a site folder's report, and reads a project's head again
