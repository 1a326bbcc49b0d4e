"""Blocking work in a worker thread that a cancellation cannot orphan; CPU-heavy work in a
worker process where the front end asks for it (:func:`run_cpu`, :func:`offload_to_processes`).

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
import atexit
import importlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

log = logging.getLogger(__name__)


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


# --- CPU-heavy work in worker processes (the desktop app) ---------------------------------------
#
# A worker thread that runs Python holds the GIL for as long as the interpreter lets it, and the
# GUI loop's thread waits for it at each Qt call: the measured checks of one page (~0.3–0.5 s of
# pure Python), the offline planner, Pillow's painting and the video's frames made the app's
# loop wait up to 100–350 ms. A process shares no GIL with the app. The front end that needs it
# (the desktop app) calls :func:`offload_to_processes` once; everyone else (the CLI, tests) keeps
# the plain worker threads, which cost no start-up and no pickling.
#
# Invariants of :func:`run_cpu` and :func:`run_pure`:
# - ``func`` is a module-level function and its arguments and result can be pickled (pydantic
#   models, paths, bytes, str); it touches no asyncio object and needs no state of this process
#   beyond what it is given (caches, monkeypatches and loggers of this process do not reach it).
# - :func:`run_cpu` runs ``func`` to its end before the caller goes on, cancelled or not, as
#   :func:`run_to_end` does (a function that writes files never outlives its caller's cleanup);
#   :func:`run_pure` is for functions that write nothing: a cancelled caller goes on at once and
#   the result is dropped.
# - A worker process that dies (killed, out of memory) fails no job: the pool is dropped and the
#   call runs again in a worker thread; the next call starts a fresh pool.

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()
_workers = 0
_warm: tuple[str, ...] = ()


def _worker_start(parent: int, names: tuple[str, ...]) -> None:
    """A worker process's start: import ``names`` (so the first call pays no import) and end
    this process once ``parent`` is gone (a killed app leaves no worker behind)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    for name in names:
        importlib.import_module(name)


def offload_to_processes(workers: int = 2, warm: tuple[str, ...] = ()) -> None:
    """Run :func:`run_cpu` / :func:`run_pure` work in ``workers`` spawned worker processes from
    now on (spawned, not forked: the app has threads and Qt); they start now and import the
    modules named in ``warm``. ``workers`` < 1 raises ValueError. Shut down at exit."""
    global _workers, _warm
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    with _pool_lock:
        _workers, _warm = workers, tuple(warm)
    _ensure_pool()


def stop_offloading() -> None:
    """Back to worker threads; the worker processes end once their running calls have."""
    global _workers, _pool
    with _pool_lock:
        pool, _pool, _workers = _pool, None, 0
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=False)


def offloading() -> bool:
    """Whether :func:`run_cpu` work runs in worker processes (:func:`offload_to_processes`)."""
    return _workers > 0


def _ensure_pool() -> ProcessPoolExecutor | None:
    global _pool
    with _pool_lock:
        if _pool is None and _workers > 0:
            _pool = ProcessPoolExecutor(
                _workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_start,
                initargs=(os.getpid(), _warm),
            )
            for _ in range(_workers):  # one call each: all of them start now
                _pool.submit(os.getpid)
        return _pool


def _drop_pool(pool: ProcessPoolExecutor) -> None:
    global _pool
    with _pool_lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


@atexit.register
def _shutdown_pool() -> None:
    with _pool_lock:
        pool = _pool
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def _submit(
    func: Callable[..., T], args: tuple, kwargs: dict
) -> tuple[asyncio.Future[T], ProcessPoolExecutor] | None:
    """``func`` submitted to the worker processes, and their pool (None: no pool, or it broke
    or shut down meanwhile)."""
    pool = _ensure_pool()
    if pool is None:
        return None
    try:
        return asyncio.wrap_future(pool.submit(func, *args, **kwargs)), pool
    except (BrokenProcessPool, RuntimeError):  # a dead worker, or shut down meanwhile
        _drop_pool(pool)
        return None


def _broken(func: Callable, pool: ProcessPoolExecutor) -> None:
    log.warning("a worker process died; %s runs in a thread", getattr(func, "__name__", func))
    _drop_pool(pool)


async def run_cpu(func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``func(*args, **kwargs)`` run to its end in a worker process (once the front end called
    :func:`offload_to_processes`; else in a worker thread, as :func:`run_to_end`), even when the
    caller is cancelled meanwhile (the cancellation is re-raised afterwards); returns its result
    or raises its error. See the invariants above."""
    submitted = _submit(func, args, kwargs)
    if submitted is None:
        return await run_to_end(func, *args, **kwargs)
    future, pool = submitted
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled = True
        except Exception:
            break
    if cancelled:
        if not future.cancelled():
            future.exception()
        raise asyncio.CancelledError
    try:
        return future.result()
    except BrokenProcessPool:
        _broken(func, pool)
        return await run_to_end(func, *args, **kwargs)


async def run_pure(func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``func(*args, **kwargs)`` — a function that writes nothing — in a worker process (once
    :func:`offload_to_processes` was called; else a worker thread); a cancelled caller goes on
    at once (the result is dropped). Returns its result or raises its error."""
    submitted = _submit(func, args, kwargs)
    if submitted is None:
        return await asyncio.to_thread(func, *args, **kwargs)
    future, pool = submitted
    try:
        return await future
    except BrokenProcessPool:
        _broken(func, pool)
        return await asyncio.to_thread(func, *args, **kwargs)
