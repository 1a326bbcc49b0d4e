"""A screenshot walk-through of the designer's path in the real app, each step checked.

    .venv/bin/python scripts/gui_walkthrough.py [OUT] [--work DIR] [--prompt-file F]

OUT (default ``resources/screenshots/walkthrough``) receives one picture of the window (or the
open dialog) per step — PNG, or JPEG with ``--format jpg`` (as committed) — and ``steps.json``:
per step its name, picture, what the designer would see (``seen``), the checks on it
(``checks``: name → true/false) and the longest event-loop stall (ms) since the step before
(saving the pictures left out), plus the longest over the whole path. Exits 1 when a check
fails.

Runs the main window on qasync's loop as ``mmstudio gui`` does: under X when ``DISPLAY`` is set
(``Xvfb :99 & DISPLAY=:99 QT_QPA_PLATFORM=xcb …``), offscreen otherwise. The path: welcome →
New from Prompt (the demo prompt, offline) → generating → the project → select the hero image →
flag it and Refine Local (nothing to refine: the notice) → an instruction in the Issues dock
("make it darker", a feedback job) → annotate the chart ("line chart") and send → the editor on
the new screenshot → Undo (the Turns dock marks the turn undone) → the Page row (the page's own
issues) → reopen in a new window (flags and device width kept) → Open Site Folder on the export.
Takes about two minutes on two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TICK_MS = 10


class StallProbe:
    """A 10 ms QTimer; a stall is the gap between two ticks minus the interval (ms)."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.last = time.perf_counter()
        self._last_cpu = time.thread_time()  # the loop thread's CPU at the last tick (s)
        self.stalls: list[float] = []
        self.cpu: list[float] = []  # the loop thread's CPU (ms) between two ticks: our code
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    def resume(self) -> None:
        self.last, self._last_cpu = time.perf_counter(), time.thread_time()
        self.timer.start()

    def tick(self) -> None:
        now = time.perf_counter()
        self.stalls.append(max(0.0, (now - self.last) * 1000 - TICK_MS))
        cpu = time.thread_time()
        self.cpu.append((cpu - self._last_cpu) * 1000)
        self.last, self._last_cpu = now, cpu


class Walk:
    """Saves a picture per step and records what it saw."""

    def __init__(self, out: Path, probe: StallProbe | None = None, suffix: str = "png") -> None:
        self.out, self.probe, self.suffix = out, probe, suffix
        out.mkdir(parents=True, exist_ok=True)
        for old in [*out.glob("*.png"), *out.glob("*.jpg")]:
            old.unlink()
        self.steps: list[dict] = []
        self._seen_ticks = 0

    def shot(self, widget, name: str, seen: dict, checks: dict[str, bool]) -> None:
        number = len(self.steps) + 1
        picture = self.out / f"{number:02d}-{name}.{self.suffix}"
        if self.probe is not None:  # saving the picture is the walk's work, not the app's
            self.probe.timer.stop()
        widget.grab().save(str(picture), quality=82 if self.suffix == "jpg" else -1)
        if self.probe is not None:
            self.probe.resume()
        since = self.probe.stalls[self._seen_ticks :] if self.probe else []
        held = self.probe.cpu[self._seen_ticks :] if self.probe else []
        self._seen_ticks += len(since)
        self.steps.append(
            {
                "step": number,
                "name": name,
                "picture": picture.name,
                "seen": seen,
                "checks": checks,
                "longest_stall_ms": round(max(since), 1) if since else None,
                "longest_loop_cpu_ms": round(max(held), 1) if held else None,
            }
        )
        mark = "ok " if all(checks.values()) else "FAIL"
        failed = [k for k, v in checks.items() if not v]
        stall = self.steps[-1]["longest_stall_ms"]
        cpu = self.steps[-1]["longest_loop_cpu_ms"]
        line = f"{mark} {number:02d} {name} (longest stall {stall} ms, loop CPU {cpu} ms)"
        print(line + (f"  failed: {failed}" if failed else ""), flush=True)


async def wait_for(condition, timeout_s: float = 120.0, step_s: float = 0.1) -> bool:
    """Wait until ``condition()`` is true (False after ``timeout_s``)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if condition():
            return True
        await asyncio.sleep(step_s)
    return bool(condition())


async def settle(window, extra_s: float = 1.0) -> None:
    """Wait for every job and refine task, then for the panels to refresh."""
    await asyncio.sleep(0.3)
    while window.session._tasks or any(
        j.state in ("queued", "running") for j in window.session.jobs.jobs.values()
    ):
        await asyncio.sleep(0.1)
    await asyncio.sleep(extra_s)


def notices(window) -> list[str]:
    return [n.message.text() for n in window.notifications.notices]


async def path(window_factory, walk: Walk, work: Path, prompt: str) -> dict:
    from PySide6.QtWidgets import QFileDialog

    from mmstudio.gui.plan_tree import SCORE_ROLE

    window = window_factory()
    await asyncio.sleep(1.0)
    walk.shot(
        window,
        "welcome",
        {"title": window.windowTitle()},
        {"export disabled": not window.commands["export"].isEnabled()},
    )

    folder = work / "ember-oak"
    dialog = window.new_from_prompt(prompt)
    proposed = dialog.folder.text()
    dialog.folder.setText(str(folder))
    dialog.rounds.setValue(1)
    await asyncio.sleep(0.5)
    walk.shot(
        dialog,
        "new-from-prompt",
        {"proposed folder": proposed},
        {"generate enabled": dialog.generate.isEnabled()},
    )
    dialog.generate.click()
    await wait_for(lambda: any(j.state == "running" for j in window.session.jobs.jobs.values()))
    await asyncio.sleep(4.0)
    table = window.jobs_panel.table
    elapsed = table.item(0, 5).text() if table.rowCount() else ""
    walk.shot(
        window,
        "generating",
        {"elapsed": elapsed, "message": table.item(0, 8).text()},
        {"elapsed ticks": elapsed not in ("", "0.0 s")},
    )
    await wait_for(lambda: window.snapshot is not None, 300)
    await settle(window, 2.0)
    plan = window.snapshot.plan
    image = plan.images[0].id
    chart = plan.charts[0].id if plan.charts else None
    message = table.item(0, 8).text()
    walk.shot(
        window,
        "project",
        {"badges": window.badges.pills["overall"].text(), "job message": message},
        {
            "project open": window.session.project is not None,
            "job says how it ended": message.startswith("done"),
        },
    )

    window.tree.select(image)
    await asyncio.sleep(1.0)
    walk.shot(
        window,
        "select-image",
        {"issues": window.issues.heading.text()},
        {"issues of the image": window.issues.heading.text().startswith(image)},
    )

    window.commands["flag"].trigger()
    window.commands["refine-local"].trigger()
    await asyncio.sleep(0.5)
    said = notices(window)[-1] if notices(window) else ""
    refined = window.session.jobs.jobs and any(
        j.kind.startswith("refine") for j in window.session.jobs.jobs.values()
    )
    walk.shot(
        window,
        "flag-and-refine-local",
        {"notice": said},
        {
            "flagged": image in window.session.flagged,
            "a notice or a job": "No issues" in said or bool(refined),
        },
    )
    await settle(window)

    head = window.snapshot.head
    window.issues.instruction.setText("make it darker")
    window.issues.change.click()
    await wait_for(lambda: any(j.kind == "feedback" for j in window.session.jobs.jobs.values()))
    await asyncio.sleep(2.0)
    walk.shot(
        window,
        "instruction-running",
        {"instruction for": image},
        {"a feedback job": any(j.kind == "feedback" for j in window.session.jobs.jobs.values())},
    )
    await settle(window, 2.0)
    said = notices(window)[-1] if notices(window) else ""
    walk.shot(
        window,
        "instruction-done",
        {"notice": said, "version": window.snapshot.head},
        {
            "new version": window.snapshot.head != head,
            "undo enabled": window.commands["undo"].isEnabled(),
        },
    )

    capture = window.annotate()
    await window.session.jobs.wait(capture.id)
    await wait_for(lambda: getattr(window, "annotator", None) is not None, 30)
    editor = window.annotator
    editor.resize(1400, 900)
    target = next((e for e in editor.canvas.elements if e.id == chart), None)
    if target is not None:
        from mmstudio.feedback.annotation import Shape

        box = target.box
        editor.canvas.add_shape(
            Shape(
                id=editor.canvas.annotation.next_id(),
                kind="rect",
                x=box.x - 6,
                y=box.y - 6,
                w=box.w + 12,
                h=box.h + 12,
            )
        )
        shape_id = editor.canvas.annotation.shapes[-1].id
        menu = [a.text() for a in editor.operation_menu(shape_id).actions()]
        editor.choose_operation(shape_id, "line chart")
        editor.scroll.ensureVisible(int(box.x), int(box.y), 50, 300)
    else:
        menu = []
    await asyncio.sleep(0.5)
    walk.shot(
        editor,
        "annotate-chart",
        {"marks": editor.marks_list.count(), "menu": menu},
        {"chart marked": target is not None, "chart type offered": "Change chart type" in menu},
    )
    old_background = editor.canvas.background.cacheKey()
    editor.send()
    await settle(window, 1.0)
    await wait_for(lambda: getattr(editor, "recaptured", False), 240)
    walk.shot(
        editor,
        "annotate-sent",
        {"state": editor.state.text(), "requirements": editor.requirements.count()},
        {
            "editor on the new page": editor.canvas.background.cacheKey() != old_background,
            "marks cleared": not editor.canvas.annotation.shapes,
        },
    )
    editor.close()
    await settle(window, 1.5)
    label = window.tree._items[chart].text(0) if chart else ""
    turns_dock = next(
        d for d in window.findChildren(_dock_type()) if d.objectName() == "turns-dock"
    )
    turns_dock.raise_()
    await settle(window, 1.0)  # the state read the turn's version (and checked it, if stale)
    lines = window.turns_panel.requirement_lines()
    walk.shot(
        window,
        "turn-done",
        {"chart row": label, "turns": lines},
        {
            "tree shows the new chart type": "line" in label,
            "turn listed": any("chart" in line for line in lines),
        },
    )

    window.commands["undo"].trigger()
    await settle(window, 2.0)
    await settle(window, 1.0)  # a head check the undo's refresh started
    lines = window.turns_panel.requirement_lines()
    walk.shot(
        window,
        "undo",
        {"turns": lines, "version": window.snapshot.head},
        {"last turn marked undone": any(line.startswith("undone") for line in lines)},
    )

    # a plan edit moves the head past the turns: the Turns dock says "not checked at this
    # version" until the head check has read the new version, then shows its verdicts
    before = window.snapshot.head
    subject = "a dark roasted coffee bean close-up on a slate board"
    window.edit_plan("element", image, {"prompt": subject, "alt": subject})
    await wait_for(lambda: window.snapshot.head != before, 120)
    stale_seen = any("not checked at this version" in line
                     for line in window.turns_panel.requirement_lines())  # fmt: skip
    await settle(window, 1.0)
    await settle(window, 1.0)
    lines = window.turns_panel.requirement_lines()
    rechecked = [
        window.turns_panel.tree.topLevelItem(i).child(j).toolTip(1)
        for i in range(window.turns_panel.tree.topLevelItemCount())
        for j in range(window.turns_panel.tree.topLevelItem(i).childCount())
    ]
    walk.shot(
        window,
        "edit-after-turns",
        {"turns": lines, "version": window.snapshot.head, "stale while checking": stale_seen},
        {
            "new version": window.snapshot.head != before,
            "every live requirement checked at this version": not any(
                "not checked at this version" in line for line in lines
            ),
            "re-checked by the head check": any("re-checked" in tip for tip in rechecked),
        },
    )

    # a row with a finding: its issue with the evidence crop the head check cut around it
    issues_dock = next(
        d for d in window.findChildren(_dock_type()) if d.objectName() == "issues-dock"
    )
    issues_dock.raise_()
    from mmstudio.gui.plan_tree import row_issues

    check = window.snapshot.check
    cropped = [
        item_id
        for item_id in sorted(check.crops if check is not None else {})
        if row_issues(window.report, item_id) and item_id in window.tree._items
    ]
    if cropped:
        window.tree.select(cropped[0])
        await asyncio.sleep(0.5)
        icons = [
            window.issues.list.item(i).data(257)
            for i in range(window.issues.list.count())
            if window.issues.list.item(i).data(257)
        ]
        walk.shot(
            window,
            "evidence-crop",
            {"row": cropped[0], "issues": window.issues.heading.text(), "crops": icons},
            {"the issue shows its crop": bool(icons)},
        )

    window.tree.select_page()
    await asyncio.sleep(0.5)
    crops = [
        window.issues.list.item(i).data(257)
        for i in range(window.issues.list.count())
        if window.issues.list.item(i).data(257)
    ]  # Qt.UserRole + 1: the evidence crop's path
    walk.shot(
        window,
        "page-row",
        {
            "issues": window.issues.heading.text(),
            "badges": window.badges.pills["brief"].text(),
            "evidence crops": len(crops),
        },
        {
            "page issues shown": window.issues.heading.text().startswith("the page"),
            "brief share shown": window.badges.pills["brief"].text().startswith("brief 0."),
        },
    )

    window.set_device(768)
    exported = work / "exported"
    original = QFileDialog.getExistingDirectory
    QFileDialog.getExistingDirectory = staticmethod(lambda *a, **k: str(exported))
    try:
        window.commands["export"].trigger()
    finally:
        QFileDialog.getExistingDirectory = original
    await settle(window)
    root = window.session.project.root
    window.close()
    await asyncio.sleep(1.0)

    window = window_factory()
    window.open_project(root)
    await asyncio.sleep(3.0)
    walk.shot(
        window,
        "reopen",
        {"flagged": sorted(window.session.flagged), "device": window.device_width},
        {
            "flag kept": image in window.session.flagged,
            "device kept": window.device_width == 768,
            "export written": (exported / "index.html").is_file(),
        },
    )

    window.open_site(exported)
    await settle(window, 2.0)
    rows = len(window.tree._items)
    walk.shot(
        window,
        "site-folder",
        {
            "rows": rows,
            "badges": window.badges.pills["overall"].text(),
            "notices": notices(window)[-2:],
        },
        {
            "site evaluated": window.report is not None and rows > 0,
            "no deleted-row error": not any("already deleted" in n for n in notices(window)),
        },
    )
    window.close()
    return {"score_role": int(SCORE_ROLE)}


def _dock_type():
    from PySide6.QtWidgets import QDockWidget

    return QDockWidget


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=str(ROOT / "resources/screenshots/walkthrough"))
    parser.add_argument("--work", help="folder for the project (default: a temporary one)")
    parser.add_argument("--prompt-file", default=str(ROOT / "resources/demo/prompt.txt"))
    parser.add_argument("--format", choices=("png", "jpg"), default="png", help="picture format")
    parser.add_argument("--where", action="store_true", help="sample where the loop is held")
    args = parser.parse_args(argv)
    work = Path(args.work or tempfile.mkdtemp(prefix="mmstudio-walk-"))
    os.environ.setdefault("XDG_CONFIG_HOME", str(work / "config"))  # never the user's settings
    from mmstudio.gui.app import create_application, install_error_hooks

    app = create_application()
    app.setQuitOnLastWindowClosed(False)  # the path closes a window and opens another
    import qasync

    from mmstudio.gui.main_window import MainWindow
    from mmstudio.studio.evaluation import close_renderer

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)

    def window_factory():
        window = MainWindow()
        install_error_hooks(window, loop)
        window.resize(1920, 1080)
        window.show()
        return window

    prompt = Path(args.prompt_file).read_text(encoding="utf-8")
    probe = StallProbe()
    walk = Walk(Path(args.out), probe, args.format)
    watchdog = None
    heavy: list[str] = []  # who imported the OpenAI SDK (~0.3–1.7 s), on which thread
    if args.where:

        def on_import(event: str, args_: tuple) -> None:
            if event == "import" and args_[0] == "openai" and not heavy:
                import threading
                import traceback

                ours = [f for f in traceback.extract_stack() if "/mmstudio/" in f.filename]
                where = " ← ".join(f"{Path(f.filename).name}:{f.lineno}" for f in ours[::-1][:6])
                heavy.append(f"{threading.current_thread().name}: {where}")

        sys.addaudithook(on_import)
    if args.where:  # the loop thread's stack while it holds the loop (benchmarks/gui_stall.py)
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from gui_stall import Watchdog

        watchdog = Watchdog(probe)
        watchdog.start()

    async def everything() -> None:
        try:
            await path(window_factory, walk, work, prompt)
        except BaseException:
            import traceback

            traceback.print_exc()
            raise
        finally:
            await close_renderer()

    with loop:
        loop.run_until_complete(everything())
    summary, failed = finish(walk, probe)
    if watchdog is not None:
        watchdog.stop.set()
        for place, samples in watchdog.where.most_common(15):
            print(f"  loop held at {place}: {samples * 10} ms sampled")
        print(f"  openai imported by {heavy[0] if heavy else 'nothing'}")
    print(
        f"{len(walk.steps)} steps, {len(failed)} failed; longest stall "
        f"{summary['longest_stall_ms']} ms ({summary['stalls_over_100ms']} over 100 ms; median "
        f"of the steps' longest {summary['median_step_longest_stall_ms']} ms, p99 "
        f"{summary['p99_stall_ms']} ms); loop-thread CPU between ticks: max "
        f"{summary['loop_cpu_max_ms']} ms, {summary['loop_cpu_over_100ms']} over 100 ms, "
        f"{summary['loop_cpu_over_50ms']} over 50 ms; load {summary['load_average']}; "
        f"pictures in {walk.out}"
    )
    return 1 if failed else 0


def finish(walk: Walk, probe: StallProbe) -> tuple[dict, list[str]]:
    """Stop the stall probe, write ``steps.json`` (the steps, their checks and the event-loop
    stalls in ms) into the walk's folder; returns the summary and the failed steps' names."""
    probe.timer.stop()
    stalls = sorted(probe.stalls)
    summary = {
        "platform": os.environ.get("QT_QPA_PLATFORM", "default"),
        "steps": walk.steps,
        "longest_stall_ms": round(stalls[-1], 1) if stalls else None,
        "stalls_over_100ms": sum(s > 100 for s in stalls),
        "ticks": len(stalls),
        # the median over the steps of each step's longest stall, and the 99th percentile tick
        "median_step_longest_stall_ms": _median(
            [s["longest_stall_ms"] for s in walk.steps if s["longest_stall_ms"] is not None]
        ),
        "p99_stall_ms": round(stalls[int(0.99 * (len(stalls) - 1))], 1) if stalls else None,
        # what the loop thread itself ran between two ticks (a stall with little CPU was the
        # thread waiting for a core on a loaded machine, not the app holding the loop)
        "loop_cpu_max_ms": round(max(probe.cpu), 1) if probe.cpu else None,
        "loop_cpu_over_50ms": sum(c > 50 for c in probe.cpu),
        "loop_cpu_over_100ms": sum(c > 100 for c in probe.cpu),
        "load_average": [round(v, 1) for v in os.getloadavg()],
    }
    (walk.out / "steps.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (walk.out / "README.md").write_text(index_page(summary), encoding="utf-8")
    return summary, [s["name"] for s in walk.steps if not all(s["checks"].values())]


def index_page(summary: dict) -> str:
    """The walk-through as a Markdown page (the folder's README.md): each step's picture with
    what it showed and what was checked, in order."""
    lines = [
        "# The designer's path, step by step",
        "",
        "Made by `scripts/gui_walkthrough.py` (the real window, platform "
        f"`{summary['platform']}`); each step's checks are what the designer would see. "
        "`steps.json` has the same, with the event loop's longest stall per step.",
        "",
    ]
    for step in summary["steps"]:
        title = step["name"].replace("-", " ")
        lines += [f"## {step['step']}. {title}", "", f"![{title}]({step['picture']})", ""]
        lines += [f"- {key}: {value}" for key, value in step["seen"].items()]
        lines += [
            f"- check: {key} — {'ok' if passed else 'FAILED'}"
            for key, passed in step["checks"].items()
        ]
        lines.append("")
    return "\n".join(lines)


def _median(values: list[float]) -> float | None:
    import statistics

    return round(statistics.median(values), 1) if values else None


if __name__ == "__main__":
    sys.exit(main())
