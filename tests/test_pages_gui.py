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


def test_the_plan_tree_shows_each_page_with_its_sections(qtbot, project):
    from mmstudio.gui.plan_tree import ID_ROLE, PAGE_ROLE, PlanTree

    plan, _site = project
    tree = PlanTree()
    qtbot.addWidget(tree)
    tree.show_plan(plan, None)
    rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    pages = [r for r in rows if r.data(0, PAGE_ROLE)]
    assert [r.data(0, PAGE_ROLE) for r in pages] == ["index.html", "about.html", "contact.html"]
    for row in pages:
        page = plan.page_at(row.data(0, PAGE_ROLE))
        held = [row.child(i).data(0, ID_ROLE) for i in range(row.childCount())]
        own = [s.id for s in plan.page_sections(page.id) if not plan.is_shared(s)]
        assert held == own and own  # each page holds its own sections, in plan order
    shared = [s.id for s in plan.sections if plan.is_shared(s)]
    assert shared and all(tree._items[s].parent() is None for s in shared)  # the frame: on top
    with qtbot.waitSignal(tree.site_page_selected, timeout=2_000) as picked:
        tree.setCurrentItem(pages[1])
    assert picked.args == ["about.html"]


def test_a_one_page_plan_has_no_page_rows(qtbot):
    from mmstudio.gui.plan_tree import PAGE_ROLE, PlanTree

    plan = plan_from_prompt("A landing page for a bike repair shop in Leeds.")
    assert not plan.multi_page
    tree = PlanTree()
    qtbot.addWidget(tree)
    tree.show_plan(plan, None)
    rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    assert not any(r.data(0, PAGE_ROLE) for r in rows)
    assert {s.id for s in plan.sections} <= set(tree._items)
