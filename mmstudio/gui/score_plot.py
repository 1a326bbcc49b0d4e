"""The score plot (matplotlib) of the page's scores across versions, drawn off the GUI thread.

Drawing the figure costs 70–80 ms on a 2-core machine — most of a 100 ms stall budget — so the
plot is rendered with matplotlib's Agg canvas in a worker thread (each render builds its own
``Figure``: nothing is shared between threads) and shown as a pixmap. Invariants: the latest
request wins (an older render that finishes late is dropped); identical data is not redrawn; a
resize redraws once the size has settled.
"""

from __future__ import annotations

import threading
from io import BytesIO

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QLabel, QSizePolicy

from mmstudio.gui import bridge
from mmstudio.project.versions import Version
from mmstudio.report import DIMENSIONS

Series = tuple[tuple[str, tuple[float | None, ...]], ...]


def series_of(versions: list[Version]) -> Series:
    """(dimension, scores per version oldest first) for overall and each dimension present."""
    out = []
    for name in ("overall", *DIMENSIONS):
        ys = tuple(v.scores.get(name) for v in versions)
        if any(y is not None for y in ys):
            out.append((name, ys))
    return tuple(out)


def render_png(series: Series, count: int, size: QSize, dpi: float = 100.0) -> bytes:
    """The plot of ``series`` over ``count`` versions as PNG bytes of ``size`` px (thread-safe:
    a figure of its own, the Agg canvas, no Qt)."""
    figure = Figure(figsize=(size.width() / dpi, size.height() / dpi), dpi=dpi)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    if not count:
        axes.set_axis_off()
        axes.text(0.5, 0.5, "no versions yet", ha="center", va="center", color="#8A9099")
    else:
        xs = list(range(1, count + 1))
        for name, ys in series:
            axes.plot(
                xs,
                [float("nan") if y is None else y for y in ys],
                marker="o",
                markersize=3.5,
                linewidth=2.2 if name == "overall" else 1.0,
                label=name,
            )
        axes.set_ylim(0, 1.05)
        axes.set_xticks(xs if count <= 12 else xs[:: max(1, count // 10)])
        axes.set_xlabel("version", fontsize=8)
        axes.tick_params(labelsize=7)
        if series:
            axes.legend(fontsize=6, loc="lower right", ncols=2)
    figure.tight_layout(pad=0.4)
    buffer = BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


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
        request, series, count = self._request, self._series, self._count

        def work() -> None:
            png = render_png(series, count, size)
            bridge.call_soon(self, lambda plot: plot.show_png(request, png))

        threading.Thread(target=work, name="score-plot", daemon=True).start()

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
