"""Hand results from worker threads to the GUI thread without touching widgets that may be gone.

A worker must never emit a signal of a widget: the window can close (and Qt delete the widget)
while the worker runs, and emitting on a deleted object crashes the process. Workers call
:func:`call_soon` instead; it goes through one bridge object made on the GUI thread that lives
as long as the process, and the call runs on the GUI thread only if its target still exists.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TypeVar

import shiboken6
from PySide6.QtCore import QObject, Signal

T = TypeVar("T", bound=QObject)


class _Bridge(QObject):
    call = Signal(object)  # a no-argument callable, run on the GUI thread


_bridge: _Bridge | None = None


def install() -> None:
    """Make the bridge; call once on the GUI thread before any worker uses :func:`call_soon`
    (widgets that start workers call it in their constructor)."""
    global _bridge
    if _bridge is None:
        _bridge = _Bridge()
        _bridge.call.connect(lambda fn: fn())


def call_soon(target: T, fn: Callable[[T], None]) -> None:
    """From any thread: run ``fn(target)`` on the GUI thread if ``target`` is still alive then;
    otherwise drop it. Raises RuntimeError if :func:`install` was never called."""
    if _bridge is None:
        raise RuntimeError("gui.bridge.install() was not called on the GUI thread")
    ref = weakref.ref(target)

    def run() -> None:
        alive = ref()
        if alive is not None and shiboken6.isValid(alive):
            fn(alive)

    _bridge.call.emit(run)
