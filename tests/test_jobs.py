"""The job manager: outcomes, per-element locks, exclusive page jobs, latest-wins, cancel."""

from __future__ import annotations

import asyncio

from mmstudio.studio.jobs import JobManager


async def test_outcomes_are_states_not_exceptions():
    manager = JobManager()

    async def ok(ctx):
        ctx.progress(0.5, "half")
        return 42

    async def boom(ctx):
        raise RuntimeError("model said no\nsecond line")

    good = manager.submit("evaluate", ok)
    bad = manager.submit("refine", boom, element="chart_a")
    await manager.wait_all()
    assert (good.state, good.result, good.progress) == ("done", 42, 1.0)
    assert (bad.state, bad.error) == ("failed", "model said no")


async def test_different_elements_run_together_same_element_queues():
    manager = JobManager()
    running, peak = set(), []

    def job(name, seconds=0.05):
        async def run(ctx):
            running.add(name)
            peak.append(len(running))
            await asyncio.sleep(seconds)
            running.discard(name)

        return run

    manager.submit("refine", job("a1"), element="a")
    manager.submit("refine", job("b1"), element="b")
    manager.submit("refine", job("a2"), element="a")
    await manager.wait_all()
    assert max(peak) == 2  # a1 with b1, never a1 with a2


async def test_page_job_is_exclusive():
    manager = JobManager()
    log = []

    def job(name):
        async def run(ctx):
            log.append(f"{name}+")
            await asyncio.sleep(0.03)
            log.append(f"{name}-")

        return run

    manager.submit("refine", job("x"), element="x")
    manager.submit("refine-global", job("page"))
    manager.submit("refine", job("y"), element="y")
    await manager.wait_all()
    start, end = log.index("page+"), log.index("page-")
    assert end == start + 1, log  # nothing ran while the page job held the page


async def test_latest_request_for_a_slot_wins():
    manager = JobManager()
    gate = asyncio.Event()

    async def slow(ctx):
        await gate.wait()
        return "old"

    async def fast(ctx):
        return "new"

    old = manager.submit("evaluate", slow, slot="evaluate")
    await asyncio.sleep(0)
    new = manager.submit("evaluate", fast, slot="evaluate")
    await manager.wait_all()
    assert (old.state, new.state, new.result) == ("cancelled", "done", "new")


async def test_cancel_and_listeners():
    manager = JobManager()
    seen = []
    unsubscribe = manager.subscribe(lambda job: seen.append((job.id, job.state)))

    async def forever(ctx):
        await asyncio.sleep(3600)

    job = manager.submit("generate", forever)
    await asyncio.sleep(0.01)
    assert manager.cancel(job.id)
    await manager.wait(job.id)
    assert job.state == "cancelled"
    assert [s for i, s in seen if i == job.id] == ["queued", "running", "cancelled"]
    assert not manager.cancel(job.id)
    unsubscribe()
    manager.submit("generate", lambda ctx: asyncio.sleep(0))
    await manager.wait_all()
    assert len(seen) == 3


async def test_a_job_cancelled_before_it_starts_ends_cancelled():
    """Cancelled in the same loop step as its submit, the job's body never runs; it still ends
    "cancelled" (not "queued" for ever) and its listeners hear it."""
    manager = JobManager()
    seen = []
    manager.subscribe(lambda job: seen.append(job.state))
    ran = []

    async def work(ctx):
        ran.append(True)

    job = manager.submit("refine", work, element="e0")
    assert manager.cancel(job.id)
    final = await manager.wait(job.id)
    assert (final.state, final.outcome, ran) == ("cancelled", "cancelled before it started", [])
    assert final.finished_at is not None
    assert seen == ["queued", "cancelled"]
    assert not manager.cancel(job.id)
