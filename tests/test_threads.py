"""``run_to_end``: a worker thread that a cancellation cannot orphan; ``run_cpu`` /
``run_pure``: the same in a worker process once the front end offloads to processes."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from mmstudio.threads import (
    ProcessPool,
    offload_to_processes,
    offloading,
    run_cpu,
    run_pure,
    run_to_end,
    stop_offloading,
)


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


# --- worker processes (the desktop app's run_cpu / run_pure) ---------------------------------


def _pid_and_sum(a: int, *, b: int) -> tuple[int, int]:
    return os.getpid(), a + b


def _refuse(what: str) -> None:
    raise ValueError(f"bad {what}")


def _write_late(path: Path, delay_s: float) -> str:
    time.sleep(delay_s)
    path.write_text("written")
    return "done"


def _die_in_a_worker(parent: int) -> int:
    if os.getpid() != parent:
        os._exit(3)  # a worker killed mid-call (out of memory, kill -9)
    return os.getpid()


@pytest.fixture(scope="module")
def offloaded():
    """One worker process for this module's tests (a spawn costs seconds on a loaded machine)."""
    offload_to_processes(1)
    try:
        yield
    finally:
        stop_offloading()


async def test_without_offloading_run_cpu_and_run_pure_use_this_process():
    assert not offloading()
    assert await run_cpu(_pid_and_sum, 1, b=2) == (os.getpid(), 3)
    assert await run_pure(_pid_and_sum, 2, b=2) == (os.getpid(), 4)


def test_offloading_needs_a_worker():
    with pytest.raises(ValueError, match="at least 1"):
        offload_to_processes(0)
    assert not offloading()


async def test_offloaded_work_runs_in_another_process_and_its_errors_come_back(offloaded):
    assert offloading()
    pid, total = await run_cpu(_pid_and_sum, 1, b=2)
    assert (pid != os.getpid(), total) == (True, 3)
    assert (await run_pure(_pid_and_sum, 3, b=4))[1] == 7
    with pytest.raises(ValueError, match="bad input"):
        await run_cpu(_refuse, "input")
    with pytest.raises(ValueError, match="bad plan"):
        await run_pure(_refuse, "plan")


async def test_a_cancelled_caller_waits_for_its_worker_process(offloaded, tmp_path):
    await run_cpu(_pid_and_sum, 0, b=0)  # the worker is up
    target = tmp_path / "out.txt"
    task = asyncio.ensure_future(run_cpu(_write_late, target, 0.5))
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert target.read_text() == "written"  # cancelled only once the process's write was done


async def test_a_cancelled_pure_call_returns_at_once(offloaded, tmp_path):
    await run_cpu(_pid_and_sum, 0, b=0)
    task = asyncio.ensure_future(run_pure(_write_late, tmp_path / "late.txt", 1.0))
    await asyncio.sleep(0.1)
    started = time.perf_counter()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.perf_counter() - started < 0.5


async def test_a_worker_that_dies_fails_no_call_and_the_next_pool_starts(offloaded):
    me = os.getpid()
    assert await run_cpu(_die_in_a_worker, me) == me  # ran again here, in a thread
    assert await run_pure(_die_in_a_worker, me) == me
    pid, _ = await run_cpu(_pid_and_sum, 1, b=1)
    assert pid != me  # a fresh pool took over


def test_a_process_pool_starts_once_and_a_broken_one_is_dropped_for_a_fresh_one():
    """The shared lazily started pool of the job workers and of the score plot."""
    pool = ProcessPool(1, nice=3)
    first = pool.get()
    assert pool.get() is first  # started once, on first use
    assert first.submit(os.nice, 0).result(timeout=60) == min(19, os.nice(0) + 3)
    with pytest.raises(BrokenProcessPool):
        first.submit(_die_in_a_worker, os.getpid()).result(timeout=60)
    pool.drop(first)
    second = pool.get()
    assert second is not first
    assert second.submit(_pid_and_sum, 1, b=1).result(timeout=60)[1] == 2
    pool.drop(first)  # a late drop of the broken pool leaves its successor alone
    assert pool.get() is second
    pool.close(wait=True)
    with pytest.raises(ValueError, match="at least 1"):
        ProcessPool(0)
