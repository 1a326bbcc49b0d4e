"""``run_to_end``: a worker thread that a cancellation cannot orphan."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from mmstudio.threads import run_to_end


async def test_a_cancelled_caller_waits_for_its_thread_then_is_cancelled():
    started, finished = threading.Event(), threading.Event()

    def write() -> str:
        started.set()
        time.sleep(0.2)
        finished.set()
        return "written"

    task = asyncio.ensure_future(run_to_end(write))
    while not started.is_set():
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert finished.is_set()  # the cancellation went on only after the thread's end


async def test_result_and_error_come_back():
    assert await run_to_end(lambda a, *, b: a + b, 1, b=2) == 3

    def fail() -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        await run_to_end(fail)
