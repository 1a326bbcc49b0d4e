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
import contextlib
import importlib
import logging
import multiprocessing
import os
import threading
import time
import weakref
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


class ProcessPool:
    """A pool of ``workers`` spawned worker processes (spawned, not forked: the app has threads
    and Qt), started on first use (:meth:`get`) and forgotten once broken (:meth:`drop`): the
    next :meth:`get` starts a fresh one. Each worker runs ``initializer(*initargs)`` as it
    starts, at scheduling priority ``nice`` (added to this process's: background work yields
    the cores to the GUI thread), then ``warm()`` once, so that all of them start at once and
    pay their imports before the first call. Thread-safe; every pool still open is shut down
    at exit."""

    def __init__(
        self,
        workers: int,
        *,
        initializer: Callable[..., object] | None = None,
        initargs: tuple = (),
        warm: Callable[[], object] = os.getpid,
        nice: int = 0,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.workers, self.nice = workers, nice
        self._start = (nice, initializer, initargs)
        self._warm = warm
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        _open_pools.add(self)

    def get(self) -> ProcessPoolExecutor:
        """The running pool, started now if there is none; raises OSError (or RuntimeError)
        when no process can be started."""
        with self._lock:
            if self._pool is None:
                pool = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker,
                    initargs=self._start,
                )
                for _ in range(self.workers):  # one call each: all of them start now
                    pool.submit(self._warm)
                self._pool = pool
            return self._pool

    def drop(self, pool: ProcessPoolExecutor) -> None:
        """Forget ``pool`` (it broke: a worker died) unless another already replaced it; its
        queued calls are cancelled, its live workers end once their running calls have."""
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self, wait: bool = False) -> None:
        """Shut the pool down (``wait``: until its workers ended, queued calls cancelled; else
        they end once their running calls have); a later :meth:`get` starts another."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=wait)


_open_pools: weakref.WeakSet[ProcessPool] = weakref.WeakSet()


def _start_worker(nice: int, initializer: Callable[..., object] | None, initargs: tuple) -> None:
    if nice:
        with contextlib.suppress(OSError):  # not allowed here: the worker runs at our priority
            os.nice(nice)
    if initializer is not None:
        initializer(*initargs)


@atexit.register
def _close_pools() -> None:
    for pool in list(_open_pools):
        pool.close(wait=True)


#: scheduling priority the job workers run at, relative to the app (see :class:`ProcessPool`)
WORKER_NICE = 10

_jobs: ProcessPool | None = None
_jobs_lock = threading.Lock()


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


def offload_to_processes(
    workers: int = 2, warm: tuple[str, ...] = (), nice: int = WORKER_NICE
) -> None:
    """Run :func:`run_cpu` / :func:`run_pure` work in ``workers`` spawned worker processes from
    now on (:class:`ProcessPool`, at priority ``nice``); they start now and import the modules
    named in ``warm``. ``workers`` < 1 raises ValueError. Shut down at exit."""
    global _jobs
    pool = ProcessPool(
        workers, initializer=_worker_start, initargs=(os.getpid(), tuple(warm)), nice=nice
    )
    with _jobs_lock:
        old, _jobs = _jobs, pool
    if old is not None:
        old.close()
    pool.get()


def stop_offloading() -> None:
    """Back to worker threads; the worker processes end once their running calls have."""
    global _jobs
    with _jobs_lock:
        pool, _jobs = _jobs, None
    if pool is not None:
        pool.close()


def offloading() -> bool:
    """Whether :func:`run_cpu` work runs in worker processes (:func:`offload_to_processes`)."""
    return _jobs is not None


def _submit(
    func: Callable[..., T], args: tuple, kwargs: dict
) -> tuple[asyncio.Future[T], tuple[ProcessPool, ProcessPoolExecutor]] | None:
    """``func`` submitted to the worker processes, and their pool (None: no pool, or it broke
    or shut down meanwhile)."""
    jobs = _jobs
    if jobs is None:
        return None
    try:
        pool = jobs.get()
    except (OSError, RuntimeError) as exc:  # no process can start here: a thread, as without
        log.warning("no worker process (%s); %s runs in a thread", exc, _name(func))
        return None
    try:
        return asyncio.wrap_future(pool.submit(func, *args, **kwargs)), (jobs, pool)
    except (BrokenProcessPool, RuntimeError):  # a dead worker, or shut down meanwhile
        jobs.drop(pool)
        return None


def _name(func: Callable) -> str:
    return getattr(func, "__name__", repr(func))


def _broken(func: Callable, owner: tuple[ProcessPool, ProcessPoolExecutor]) -> None:
    log.warning("a worker process died; %s runs in a thread", _name(func))
    owner[0].drop(owner[1])


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
