"""Shared fixtures. Rendering: ONE warm Chromium for the whole test session (started lazily by the
first test that needs it, on the session event loop); browser tests skip when no Chromium exists."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_asyncio

from mmstudio.render import Timeouts, find_browser, get_renderer

CASES = Path(__file__).parent / "cases"


def _no_browser_reason() -> str | None:
    info = find_browser()
    return None if info.executable else f"no Chromium for Playwright: {info.problem}"


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def renderer():
    """The process-wide renderer with test-sized timeouts (an endless script costs ~2 s)."""
    if _no_browser_reason():
        pytest.skip(_no_browser_reason())
    shared = get_renderer()
    shared.timeouts = Timeouts(load_s=2.0, step_s=4.0, settle_assets_s=1.0, total_s=40.0)
    yield shared
    await shared.close()


@pytest.fixture
def cases() -> Path:
    """The folder of deliberately broken pages (``tests/cases/<case>/index.html``)."""
    return CASES
