"""The score plot's drawing, Qt-free: run in a process of its own by
:mod:`mmstudio.gui.score_plot`.

Drawing the figure takes 70–80 ms of CPU on a 2-core machine, nearly all of it Python holding
the GIL (matplotlib's artists, Agg and FreeType calls that never release it). In a thread of
the app the GUI loop waits for the GIL at each Qt call it makes meanwhile — measured 60 ms at
the 99th percentile and up to 300 ms under load with the loop itself idle — so the plot is drawn
in one spawned worker process (:data:`PLOTS`), which shares no GIL with the app. Nothing
here imports Qt: the worker imports this module, matplotlib and nothing of the window.
"""

from __future__ import annotations

import os
from io import BytesIO

from mmstudio.threads import WORKER_NICE, ProcessPool

Series = tuple[tuple[str, tuple[float | None, ...]], ...]


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


#: the one worker process of this app that draws plots: started on first use and warmed there
#: (matplotlib's import and font cache), forgotten when broken, shut down at exit
PLOTS = ProcessPool(1, warm=_warm, nice=WORKER_NICE)
