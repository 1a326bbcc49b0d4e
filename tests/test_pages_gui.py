"""The preview of a multi-page site (issue 16): a page switcher, and selecting an element of
another page shows that page."""

from __future__ import annotations

import asyncio
import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
pytest.importorskip("PySide6.QtWebEngineWidgets")  # must be imported before the QApplication

from mmstudio.gui.preview import Preview, site_pages
from mmstudio.gui.site_scheme import register_scheme
from mmstudio.pipeline.generate import build_site
from mmstudio.providers.offline.designer import OfflineDesigner
from mmstudio.providers.offline.planner import plan_from_prompt

register_scheme()  # before pytest-qt creates the QApplication
pytestmark = pytest.mark.usefixtures("own_settings")

BRIEF = "A site for Nove, a cafe in Porto, with a hero photo, an about page and a contact page."


@pytest.fixture
def project(tmp_path):
    plan = plan_from_prompt(BRIEF)
    (tmp_path / "plan.json").write_text(plan.model_dump_json())
    site = tmp_path / "site"
    site.mkdir()
    asyncio.run(build_site(plan, OfflineDesigner(), site))
    return plan, site


def test_site_pages_lists_a_multi_page_site_only(project, tmp_path):
    plan, site = project
    assert site_pages(site) == [(p.path, p.label) for p in plan.site_pages()]
    (site / "contact.html").unlink()
    assert [path for path, _ in site_pages(site)] == ["index.html", "about.html"]
    assert site_pages(tmp_path / "elsewhere") == []


def test_the_switcher_shows_each_page_and_a_selection_finds_its_page(qtbot, project):
    plan, site = project
    preview = Preview()
    qtbot.addWidget(preview)
    try:
        with qtbot.waitSignal(preview.view.loadFinished, timeout=30_000):
            preview.show_site(site)
        assert not preview.pages_bar.isHidden()
        assert [preview.pages.itemData(i) for i in range(preview.pages.count())] == [
            "index.html",
            "about.html",
            "contact.html",
        ]
        with (
            qtbot.waitSignal(preview.page_changed, timeout=5_000) as changed,
            qtbot.waitSignal(preview.view.loadFinished, timeout=30_000),
        ):
            preview.pages.activated.emit(1)
        assert changed.args == ["about.html"] and preview.current_page == "about.html"
        assert preview.view.url().path().endswith("/about.html")
        form = next(s for s in plan.page_sections("contact") if s.kind == "form")
        with qtbot.waitSignal(preview.view.loadFinished, timeout=30_000):
            preview.highlight(form.id)
        assert preview.current_page == "contact.html"
        assert preview.pages.currentData() == "contact.html"
        header = next(s for s in plan.sections if s.kind == "header")
        preview.highlight(header.id)  # the shared frame is on this page too: no switch
        assert preview.current_page == "contact.html"
        with qtbot.waitSignal(preview.view.loadFinished, timeout=30_000):
            preview.show_site(site)  # a reload of the same site keeps the page shown
        assert preview.current_page == "contact.html"
    finally:
        preview.release()


def test_a_one_page_site_has_no_switcher(qtbot, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>One</title><p>One page</p>")
    preview = Preview()
    qtbot.addWidget(preview)
    try:
        with qtbot.waitSignal(preview.view.loadFinished, timeout=30_000):
            preview.show_site(site)
        assert preview.pages_bar.isHidden() and preview.pages.count() == 0
        assert preview.current_page == "index.html"
    finally:
        preview.release()
