"""Run by tests/test_gui.py in its own process: the app on a qasync loop, offscreen, refining a
hidden chart from the issues dock. Prints what it saw as one JSON line."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

import PySide6.QtWebEngineWidgets  # noqa: F401  (before the QApplication)
import qasync
from PySide6.QtWidgets import QApplication

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
    window.open_project(project.root)
    window.session.evaluate()
    await settle(window)
    window.refresh()
    window.tree.select(chart)
    seen = {"before": window.tree._items[chart].data(1, SCORE_ROLE)}
    seen["issue"] = window.issues.list.item(0).text() if window.issues.list.count() else ""
    window.issues.buttons["context"].click()
    await settle(window)
    await asyncio.sleep(0.5)  # the job-finished signal refreshes the panels
    seen["after"] = window.tree._items[chart].data(1, SCORE_ROLE)
    seen["chart_badge"] = window.badges.pills["chart"].text()
    window.undo()
    await settle(window)
    await asyncio.sleep(0.5)
    seen["after_undo"] = window.tree._items[chart].data(1, SCORE_ROLE)
    window.session.export(root.parent / "exported")
    await settle(window)
    seen["exported"] = (root.parent / "exported" / "index.html").is_file()
    seen["cancelled"] = await cancel_from_the_jobs_table(window)
    table = window.jobs_panel.table
    seen["job_kinds"] = sorted({table.item(r, 1).text() for r in range(table.rowCount())})
    await close_renderer()
    return seen


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
    lock_down_chromium()
    app = QApplication(sys.argv[:1])
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
