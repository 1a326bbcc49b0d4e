"""Shared fixtures and the test layers. Rendering: ONE warm Chromium for the whole test session
(started lazily by the first test that needs it, on the session event loop); browser tests skip
when no Chromium exists.

Layers (``scripts/test.sh`` runs them all; ``scripts/test.sh --fast`` the unit layer):

- ``app``: the test uses Qt (a fixture of :data:`APP_FIXTURES`);
- ``browser``: the test renders (the ``renderer`` fixture, or a module marked ``browser``);
- ``slow``: end-to-end runs (the CLI in subprocesses, kill and soak tests, many prompts);
- the unit layer is everything else. It runs with ``MMSTUDIO_TEST_LAYER=unit``, under which a
  test that starts Chromium fails, naming the layer it belongs in, so the layer stays fast.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import pytest_asyncio

from mmstudio.render import Timeouts, find_browser, get_renderer

CASES = Path(__file__).parent / "cases"
#: set in the process that runs ONE app scenario (see tests/test_app_scenarios.py)
APP_SCENARIO_ENV = "MMSTUDIO_APP_SCENARIO"


def pytest_collection_modifyitems(config, items) -> None:
    """App scenarios (``@pytest.mark.app_scenario``) each run in a pytest process of their own:
    two qasync loops in one process — one after the other, or one shared — intermittently crash
    Qt (SIGSEGV in ``QApplication.exit`` when the second stops). The normal run leaves them to
    tests/test_app_scenarios.py, which starts that process with ``MMSTUDIO_APP_SCENARIO=1``."""
    if not os.environ.get(APP_SCENARIO_ENV):
        items[:] = [item for item in items if "app_scenario" not in item.keywords]
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & APP_FIXTURES:
            item.add_marker(pytest.mark.app)
        if used & BROWSER_FIXTURES or _declares_chromium(item):
            item.add_marker(pytest.mark.browser)


def _declares_chromium(item) -> bool:
    """The test skips without Chromium (``skipif(..., reason="no Chromium for Playwright…")``)."""
    return any(
        str(mark.kwargs.get("reason", "")).startswith("no Chromium")
        for mark in item.iter_markers("skipif")
    )


#: fixtures that put a test in the app layer (Qt) and in the browser layer (Chromium)
APP_FIXTURES = frozenset({"qtbot", "qapp", "qt_loop", "own_settings"})
BROWSER_FIXTURES = frozenset({"renderer"})
#: set to ``unit`` by ``scripts/test.sh --fast``
LAYER_ENV = "MMSTUDIO_TEST_LAYER"


@pytest.fixture(autouse=True)
def _unit_layer_starts_no_browser(monkeypatch, request):
    """In the unit layer, starting Chromium fails the test (even where the code under test
    catches the error): it belongs in the browser layer."""
    if os.environ.get(LAYER_ENV) != "unit":
        yield
        return
    from mmstudio.render import browser

    started: list[str] = []
    message = (
        f"{request.node.nodeid} starts Chromium: mark it browser (pytest.mark.browser) "
        "or use the renderer fixture"
    )

    async def refuse(self) -> None:
        started.append(message)
        raise RuntimeError(message)

    monkeypatch.setattr(browser.BrowserPool, "_start", refuse)
    yield
    if started:
        pytest.fail(message, pytrace=False)


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


@pytest.fixture
def own_settings(tmp_path_factory):
    """Window state, recent projects and preferences go to a temporary folder, never to the
    user's own settings (``~/.config/MM Studio``): every Qt test module uses it
    (``pytestmark = pytest.mark.usefixtures("own_settings")``)."""
    from PySide6.QtCore import QSettings

    folder = str(tmp_path_factory.mktemp("qsettings"))
    for kind in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(kind, QSettings.Scope.UserScope, folder)


@pytest.fixture(scope="session")
def qapp_args(pytestconfig):
    """The test QApplication's arguments: the preview's network lockdown flags for QtWebEngine's
    Chromium (see ``lock_down_chromium``)."""
    from mmstudio.gui.site_scheme import lock_down_chromium

    return [pytestconfig.getini("qt_qapp_name"), *lock_down_chromium()]


@pytest.fixture(scope="session")
def qt_loop(qapp):
    """The qasync loop on the test session's QApplication for an app scenario (one per process,
    see :func:`pytest_collection_modifyitems`), closed at the end of the session. Tests run
    coroutines with ``qt_loop.run_until_complete(...)`` and close what they bind to it (the
    renderer)."""
    import asyncio

    import qasync

    loop = qasync.QEventLoop(qapp)
    yield loop
    loop.close()
    asyncio.set_event_loop(None)
