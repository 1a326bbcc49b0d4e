"""Starting the desktop app: ``mmstudio gui [PROJECT] [--screenshot PNG]`` / ``mmstudio-gui``.

QtWebEngine must be imported and its URL scheme registered before the QApplication exists; as
root it needs its sandbox off. The asyncio loop is qasync's ``QEventLoop`` set as the current loop
(not ``qasync.run``, whose global loop policy breaks loops in other threads).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
from pathlib import Path

from mmstudio.threads import offload_to_processes


def _prepare_environment() -> list[str]:
    """Set the environment QtWebEngine reads at start; returns the extra QApplication arguments
    (Chromium flags that cannot travel in the environment)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from .site_scheme import lock_down_chromium

    return lock_down_chromium()


def run(
    project: Path | None = None,
    screenshot: Path | None = None,
    delay_s: float = 2.5,
    *,
    select: str | None = None,
    device: str = "desktop",
) -> int:
    """Run the app; with ``screenshot``, save the window as PNG ``delay_s`` seconds after the
    preview loads, then quit. ``select`` selects an element (tree, preview outline, issues);
    ``device`` is desktop | tablet | mobile (1280 / 768 / 390 px). Returns the exit status;
    raises ProjectError (before any window opens) when ``project`` is not an openable project."""
    from mmstudio.project import Project

    if project is not None:
        Project.open(project).read_plan()
    app = create_application()
    import qasync

    from mmstudio.gui.main_window import MainWindow

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow()
    install_error_hooks(window, loop)
    window.show()
    settle_garbage_collector()
    if project is not None:
        window.open_project(project)
    window.set_device(DEVICE_WIDTHS[device])
    if select:
        window.view.loadFinished.connect(lambda _ok: window.tree.select(select))
    if screenshot is not None:
        _schedule_screenshot(app, window, screenshot, delay_s)
    with loop:
        loop.run_until_complete(_until_quit(app))
    return 0


DEVICE_WIDTHS = {"desktop": 1280, "tablet": 768, "mobile": 390}


#: the GIL switch interval of the app's process (seconds; see :func:`create_application`)
SWITCH_INTERVAL_S = 0.001


def _usable_cores() -> int:
    """The cores this process may run on (its CPU affinity; the machine's count elsewhere)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


#: worker processes for the jobs' CPU-heavy steps (:func:`mmstudio.threads.run_cpu`): the
#: pipeline runs at most 2 assets at once; on one core a second worker would only take it from
#: the GUI thread. They run at a lower priority (:data:`mmstudio.threads.WORKER_NICE`): a core
#: they share with the GUI thread goes to the GUI thread first.
WORKER_PROCESSES = max(1, min(2, _usable_cores()))

#: what each worker imports as it starts (the first job then pays no import)
WORKER_MODULES = (
    "mmstudio.evaluate.core",
    "mmstudio.providers.offline.designer",
    "mmstudio.refine.local",
)


def create_application():
    """The QApplication of the studio (the existing one if there is one): environment and
    Chromium arguments for QtWebEngine, the ``mmsite`` scheme, name, theme and icon, the
    process's GIL switch interval (:data:`SWITCH_INTERVAL_S`) and the worker processes of the
    jobs' CPU-heavy steps (:data:`WORKER_PROCESSES`, started now)."""
    engine_args = _prepare_environment()
    import PySide6.QtWebEngineWidgets  # noqa: F401  (must precede QApplication)
    from PySide6.QtWidgets import QApplication

    from mmstudio.gui.icons import app_icon
    from mmstudio.gui.site_scheme import register_scheme

    register_scheme()
    # a worker thread running Python hands the GIL to the GUI thread after at most this long
    # (CPython's default: 5 ms). The loop takes the GIL back after every Qt call that released
    # it, so a 5 ms wait each time added up to 50–60 ms per tick beside a busy worker (measured
    # with the score plot drawn in a thread: the loop's 90th-percentile wait 14 → 3 ms).
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    # the jobs' CPU-heavy steps (planner, pictures, video frames, the measured checks) run in
    # worker processes: in a thread of the app they held the GIL the GUI loop needs for
    # 50–350 ms at a time (``benchmarks/gui_stall.py``'s "loop thread blocked")
    offload_to_processes(WORKER_PROCESSES, warm=WORKER_MODULES)
    app = QApplication.instance() or QApplication([*sys.argv[:1], *engine_args])
    app.setApplicationName("MM Studio")
    _apply_theme(app)
    app.setWindowIcon(app_icon())
    return app


def settle_garbage_collector() -> None:
    """Move everything alive once the window is up (modules, Qt wrappers, the plan tree) out of
    the collector's reach: a full collection over them held the GUI thread for up to 68 ms."""
    gc.collect()
    gc.freeze()


def install_error_hooks(window, loop: asyncio.AbstractEventLoop) -> None:
    """Route exceptions nobody caught — in Qt slots (``sys.excepthook``) and in asyncio
    callbacks and tasks (the loop's exception handler) — to ``window.report_exception``: the
    traceback goes to the log, the designer sees a notice, the app keeps running."""
    previous = sys.excepthook

    def excepthook(kind, exc, tb) -> None:
        if issubclass(kind, KeyboardInterrupt):
            previous(kind, exc, tb)
            return
        try:
            window.report_exception(exc.with_traceback(tb))
        except Exception:  # the window may be gone at exit
            previous(kind, exc, tb)

    def loop_handler(the_loop, context: dict) -> None:
        exc = context.get("exception")
        if exc is None:
            the_loop.default_exception_handler(context)
            return
        excepthook(type(exc), exc, exc.__traceback__)

    sys.excepthook = excepthook
    loop.set_exception_handler(loop_handler)


def _apply_theme(app) -> None:
    from mmstudio.resources import data_dir

    qss = data_dir("ui") / "studio.qss"
    if qss.is_file():
        app.setStyleSheet(qss.read_text(encoding="utf-8"))


SCREENSHOT_SIZE = (1920, 1080)  # px: the desktop preview (1280) plus both side docks


def _schedule_screenshot(app, window, path: Path, delay_s: float) -> None:
    """Save the window (at :data:`SCREENSHOT_SIZE`, whatever geometry was remembered) once the
    preview has loaded and ``delay_s`` more seconds have passed, then quit."""
    from PySide6.QtCore import QTimer

    window.resize(*SCREENSHOT_SIZE)

    def save() -> None:
        window.grab().save(str(path))
        window.close()
        app.quit()

    def loaded(_ok: bool) -> None:
        QTimer.singleShot(int(delay_s * 1000), save)

    if window.project is None:
        QTimer.singleShot(int(delay_s * 1000), save)
    else:
        window.view.loadFinished.connect(loaded)


async def _until_quit(app) -> None:
    done = asyncio.Event()
    app.aboutToQuit.connect(done.set)
    await done.wait()


def add_screenshot_arguments(parser: argparse.ArgumentParser) -> None:
    """``--screenshot PNG``, ``--select ELEMENT_ID`` and ``--device desktop|tablet|mobile``."""
    parser.add_argument("--screenshot", help="save the window as this PNG once loaded, then quit")
    parser.add_argument("--select", metavar="ELEMENT_ID", help="select this element")
    parser.add_argument("--device", choices=list(DEVICE_WIDTHS), default="desktop")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mmstudio-gui`` script."""
    parser = argparse.ArgumentParser(prog="mmstudio-gui", description="MM Studio desktop app")
    parser.add_argument("project", nargs="?", help="project folder to open")
    add_screenshot_arguments(parser)
    args = parser.parse_args(argv)
    from mmstudio.project import ProjectError

    try:
        return run(
            Path(args.project) if args.project else None,
            Path(args.screenshot) if args.screenshot else None,
            select=args.select,
            device=args.device,
        )
    except ProjectError as exc:
        print(f"mmstudio-gui: error: {exc}", file=sys.stderr)
        return 1
