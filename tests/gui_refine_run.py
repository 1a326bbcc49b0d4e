"""The designer's refine loop in the real app on a qasync loop, offscreen: a hidden chart gets a
red badge, "Context" in the issues dock runs the refine job, the badge turns green and the
preview reloads; then Undo (the menu action), Export (the menu action, its file dialog answered)
and Cancel (the button in the jobs dock).

tests/test_gui.py runs :func:`scenario` in-process (pytest-qt's QApplication with a qasync loop
made for the test); ``python tests/gui_refine_run.py DIR`` runs it as the app would, in a process
of its own, and prints what it saw as one JSON line."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

import PySide6.QtWebEngineWidgets  # noqa: F401  (before the QApplication)
import qasync
from PySide6.QtWidgets import QApplication, QFileDialog

from mmstudio.gui.plan_tree import SCORE_ROLE
from mmstudio.gui.site_scheme import lock_down_chromium, register_scheme
from mmstudio.resources import resource
from mmstudio.studio.create import new_project
from mmstudio.studio.evaluation import close_renderer


async def settle(window) -> None:
    await asyncio.sleep(0.3)
    while window.session._tasks:
        await asyncio.gather(*window.session._tasks, return_exceptions=True)
    await window.session.jobs.wait_all()


async def scenario(window, root: Path) -> dict:
    prompt = resource("demo", "prompt.txt").read_text(encoding="utf-8")
    made = await new_project(root, prompt, rounds=0)
    project, chart = made.project, made.plan.charts[0].id
    index = project.site_dir / "index.html"
    hidden = f'<style>[data-mm-id="{chart}"] {{ opacity: 0; }}</style></head>'
    index.write_text(index.read_text(encoding="utf-8").replace("</head>", hidden, 1))
    project.commit("hid the chart by hand")
    loads: list[bool] = []
    window.view.loadFinished.connect(loads.append)
    window.open_project(project.root)
    window.session.evaluate()
    await settle(window)
    window.refresh()
    window.tree.select(chart)
    seen = {"before": window.tree._items[chart].data(1, SCORE_ROLE)}
    seen["issue"] = window.issues.list.item(0).text() if window.issues.list.count() else ""
    loads_before = len(loads)
    seen["context_enabled"] = window.issues.buttons["context"].isEnabled()
    window.issues.buttons["context"].click()
    table = window.jobs_panel.table

    def kinds() -> list[str]:
        return sorted({table.item(r, 1).text() for r in range(table.rowCount())})

    for _ in range(100):  # the job is listed once the refiner has read and committed the state
        await asyncio.sleep(0.05)
        if "refine-context" in kinds():
            break
    seen["running_kinds"] = kinds()
    await settle(window)
    await asyncio.sleep(1.0)  # the job-finished signal refreshes the panels, the preview reloads
    seen["after"] = window.tree._items[chart].data(1, SCORE_ROLE)
    seen["notices"] = [n.message.text() for n in window.notifications.notices]
    seen["chart_badge"] = window.badges.pills["chart"].text()
    seen["preview_reloaded"] = len(loads) > loads_before
    seen["undo_enabled"] = window.commands["undo"].isEnabled()
    window.commands["undo"].trigger()
    await settle(window)
    await asyncio.sleep(1.0)
    seen["after_undo"] = window.tree._items[chart].data(1, SCORE_ROLE)
    seen["redo_enabled"] = window.commands["redo"].isEnabled()
    dest = root.parent / "exported"
    with answer_file_dialog(str(dest)):
        window.commands["export"].trigger()
    await settle(window)
    seen["exported"] = (dest / "index.html").is_file()
    seen["cancelled"] = await cancel_from_the_jobs_table(window)
    table = window.jobs_panel.table
    seen["job_kinds"] = sorted({table.item(r, 1).text() for r in range(table.rowCount())})
    await close_renderer()
    return seen


@contextlib.contextmanager
def answer_file_dialog(path: str):
    """Answer the next folder dialog with ``path`` (no modal dialog offscreen)."""
    original = QFileDialog.getExistingDirectory
    QFileDialog.getExistingDirectory = staticmethod(lambda *a, **k: path)  # type: ignore[method-assign]
    try:
        yield
    finally:
        QFileDialog.getExistingDirectory = original  # type: ignore[method-assign]


async def cancel_from_the_jobs_table(window) -> str:
    """Start a job that would run for an hour and press its Cancel button in the jobs dock."""
    job = window.session.jobs.submit("demo-wait", lambda ctx: asyncio.sleep(3600))
    await asyncio.sleep(0.2)
    table = window.jobs_panel.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == job.id)
    table.cellWidget(row, 7).click()
    await window.session.jobs.wait(job.id)
    return job.state


def main() -> int:
    register_scheme()
    app = QApplication([*sys.argv[:1], *lock_down_chromium()])
    from mmstudio.gui.main_window import MainWindow

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow()
    window.show()
    with loop:
        seen = loop.run_until_complete(scenario(window, Path(sys.argv[1])))
    window.close()
    print(json.dumps(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
