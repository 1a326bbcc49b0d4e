"""The score plot's drawing, Qt-free: run in a process of its own by
:mod:`mmstudio.gui.score_plot`.

Drawing the figure takes 70–80 ms of CPU on a 2-core machine, nearly all of it Python holding
the GIL (matplotlib's artists, Agg and FreeType calls that never release it). In a thread of
the app the GUI loop waits for the GIL at each Qt call it makes meanwhile — measured 60 ms at
the 99th percentile and up to 300 ms under load with the loop itself idle — so the plot is drawn
in one spawned worker process (:func:`plot_pool`), which shares no GIL with the app. Nothing
here imports Qt: the worker imports this module, matplotlib and nothing of the window.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from io import BytesIO

Series = tuple[tuple[str, tuple[float | None, ...]], ...]

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()


def render_png(series: Series, count: int, width: int, height: int, dpi: float = 100.0) -> bytes:
    """The plot of ``series`` (dimension, score 0–1 or None per version, oldest first) over
    ``count`` versions as PNG bytes of ``width`` × ``height`` px. A figure of its own, the Agg
    canvas: safe in any thread or process."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
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


def _warm() -> int:
    """Import matplotlib in the worker (its first figure pays the font cache); its pid."""
    render_png((), 0, 200, 140)
    return os.getpid()


def plot_pool() -> ProcessPoolExecutor:
    """The one worker process of this app that draws plots (spawned, not forked: the app has
    threads and Qt). Started on first use and warmed there; shut down at exit."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            _pool.submit(_warm)
        return _pool


def drop_pool(pool: ProcessPoolExecutor) -> None:
    """Forget ``pool`` (it broke: its process died); the next :func:`plot_pool` starts another."""
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)
