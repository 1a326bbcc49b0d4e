"""Blocking work in a worker thread that a cancellation cannot orphan.

``asyncio.to_thread`` cannot stop its thread: when the awaiting task is cancelled, the await ends
at once while the thread keeps running — and writing. A caller that then lets go of a lock,
deletes a folder or reports "cancelled" would race that thread.

Invariants of :func:`run_to_end`:
- The thread always runs to its end before the caller goes on, cancelled or not.
- A cancellation that lands meanwhile is re-raised once the thread has finished (the thread's
  own error, if any, is dropped then: the caller asked to stop).
- The function runs in a plain worker thread: it must not touch asyncio objects (locks, events,
  futures) nor the event loop; thread-safe project writes and pure computations only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def run_to_end(func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``func(*args, **kwargs)`` run in a worker thread to its end, even when the caller is
    cancelled meanwhile (the cancellation is re-raised afterwards); returns its result."""
    task = asyncio.ensure_future(asyncio.to_thread(func, *args, **kwargs))
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
        except Exception:
            break  # the thread's own error: ``task.result()`` raises it below
    if cancelled:
        if not task.cancelled():
            task.exception()  # retrieved: a thread's error after a cancel is not "never seen"
        raise asyncio.CancelledError
    return task.result()
