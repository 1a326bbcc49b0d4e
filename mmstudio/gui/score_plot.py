"""The score plot (matplotlib) of the page's scores across versions, drawn off the GUI process.

The figure is drawn by :func:`mmstudio.gui.score_render.render_png` in the app's plot process
(:data:`~mmstudio.gui.score_render.PLOTS`): drawing it holds the GIL for 70–80 ms, which a
thread of the app would take from the GUI loop. The PNG comes back to the GUI thread and is shown
as a pixmap. Invariants: the latest request wins (an older render that finishes late is
dropped); identical data is not redrawn; a resize redraws once the size has settled; if the plot
process cannot be used (it died, or cannot start), the render runs in a thread instead, with a
log line — the plot is never left undrawn.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from concurrent.futures import Future

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QLabel, QSizePolicy

from mmstudio.gui import bridge
from mmstudio.gui.score_render import PLOTS, Series, render_png
from mmstudio.project.errors import one_line
from mmstudio.project.versions import Version
from mmstudio.report import DIMENSIONS

log = logging.getLogger(__name__)


def series_of(versions: list[Version]) -> Series:
    """(dimension, scores per version oldest first) for overall and each dimension present."""
    out = []
    for name in ("overall", *DIMENSIONS):
        ys = tuple(v.scores.get(name) for v in versions)
        if any(y is not None for y in ys):
            out.append((name, ys))
    return tuple(out)


class ScorePlot(QLabel):
    """Overall and per-dimension scores (0–1) of each version, oldest first."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("score-plot")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setMinimumSize(200, 140)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._series: Series = ()
        self._count = 0
        self._request = 0
        self._drawn: tuple | None = None
        bridge.install()
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(150)
        self._settle.timeout.connect(self._render)
        self.show_versions([])

    def show_versions(self, versions: list[Version]) -> None:
        """Plot ``versions`` (drawn in the background; a no-op for the data already shown)."""
        self._series, self._count = series_of(versions), len(versions)
        self._render()

    def _render(self) -> None:
        size = self.size() if self.width() > 50 else QSize(320, 200)
        key = (self._series, self._count, size.width(), size.height())
        if key == self._drawn:
            return
        self._drawn = key
        self._request += 1
        args = (self._series, self._count, size.width(), size.height())
        request = self._request

        def deliver(png: bytes) -> None:  # any thread
            with contextlib.suppress(RuntimeError):  # the app is closing: nowhere to show it
                bridge.call_soon(self, lambda plot: plot.show_png(request, png))

        def in_thread() -> None:
            threading.Thread(
                target=lambda: deliver(render_png(*args)), name="score-plot", daemon=True
            ).start()

        def drawn(future: Future) -> None:  # the pool's thread
            if future.cancelled():
                return
            problem = future.exception()
            if problem is None:
                deliver(future.result())
                return
            log.warning("the score plot's process failed (%s); drawing in a thread",
                        one_line(problem))  # fmt: skip
            PLOTS.drop(pool)
            in_thread()

        try:
            pool = PLOTS.get()
            pool.submit(render_png, *args).add_done_callback(drawn)
        except (OSError, RuntimeError) as exc:  # no process (or it broke): a thread, as before
            log.warning("no process for the score plot (%s); drawing in a thread", one_line(exc))
            in_thread()

    def show_png(self, request: int, png: bytes) -> None:
        """Show a finished render unless a newer one was requested since."""
        if request != self._request:
            return  # a newer render is on its way
        pixmap = QPixmap()
        pixmap.loadFromData(png, "PNG")
        self.setPixmap(pixmap)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._settle.start()
