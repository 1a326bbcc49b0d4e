"""Screenshots of editing the plan in the tree, each step checked (the real window, qasync).

    .venv/bin/python scripts/plan_edit_shots.py [OUT] [--work DIR] [--format jpg]

OUT (default ``resources/screenshots/plan_edit``) receives one picture per step and
``steps.json`` (as ``scripts/gui_walkthrough.py`` writes them): an offline project (evaluated) →
the image's context menu → its subject edited (the Jobs dock runs ``edit-image``) → the new
picture in the preview → the chart's "Chart type ▸" menu → the chart as a line → a palette
colour changed (the page and the chart recoloured) → Undo. The dialogs that ask for the words
and the colour are answered by the script (they would block it); an open menu is drawn onto
the window's picture where it pops up. Under X when ``DISPLAY`` is set, offscreen otherwise.
Exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from gui_walkthrough import StallProbe, Walk, finish, notices, settle, wait_for  # noqa: E402

PROMPT = (
    "A landing page for a small coffee roastery: a hero photo of roasted beans, a section "
    "'Our process' with a short video of pouring coffee, and a bar chart of monthly sales."
)
SUBJECT = "a red bicycle leaning on a brick wall"
COLOUR = ("primary", "#7a3e1d")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def site_digests(project) -> dict[str, str]:
    site = project.site_dir
    return {p.relative_to(site).as_posix(): digest(p) for p in site.rglob("*") if p.is_file()}


def with_menu(window, item, actions, submenu: str | None = None):
    """The window's picture with the context menu of ``item`` (and ``submenu`` opened) drawn
    where it pops up; the menus are closed again."""
    from PySide6.QtGui import QPainter

    tree = window.tree
    rect = tree.visualItemRect(item)
    at = tree.viewport().mapTo(window, rect.center())
    menu = tree.context_menu(actions)
    menu.popup(window.mapToGlobal(at))
    shots = [(at, menu.grab())]
    if submenu is not None:
        action = next(a for a in menu.actions() if a.text() == submenu)
        sub = action.menu()
        geometry = menu.actionGeometry(action)
        sub_at = at + geometry.topRight()
        sub.popup(window.mapToGlobal(sub_at))
        shots.append((sub_at, sub.grab()))
        sub.close()
    menu.close()
    picture = window.grab()
    painter = QPainter(picture)
    for where, pixmap in shots:
        painter.drawPixmap(where, pixmap)
    painter.end()
    return picture


async def shown_picture(window, element_id: str) -> str | None:
    """A fingerprint of the picture the preview shows for ``element_id`` now (drawn at 48 × 32
    on a canvas, as a data URL); None while it is not loaded."""
    script = (
        f"(() => {{ const i = document.querySelector('[data-mm-id={element_id}]');"
        " if (!i || !i.complete || !i.naturalWidth) return null;"
        " const c = document.createElement('canvas'); c.width = 48; c.height = 32;"
        " c.getContext('2d').drawImage(i, 0, 0, 48, 32); return c.toDataURL(); })()"
    )
    answer = asyncio.get_running_loop().create_future()
    window.page.runJavaScript(script, 0, lambda value: answer.done() or answer.set_result(value))
    value = await asyncio.wait_for(answer, 10)
    return hashlib.sha256(value.encode()).hexdigest()[:12] if value else None


class MenuWalk(Walk):
    def picture(self, picture, name: str, seen: dict, checks: dict[str, bool]) -> None:
        """A step whose picture is given (a window with a menu drawn on it)."""

        class Given:
            def grab(self):
                return picture

        self.shot(Given(), name, seen, checks)


async def path(window, walk: MenuWalk, work: Path) -> None:
    from mmstudio.studio.create import new_project

    made = await new_project(work / "roastery", PROMPT, rounds=0)
    project_root = made.project.root
    window.open_project(project_root)
    await wait_for(lambda: window.snapshot is not None, 120)
    await settle(window, 3.0)
    project = window.session.project
    plan = window.snapshot.plan
    image, chart = plan.images[0], plan.charts[0]
    tree = window.tree
    walk.shot(
        window,
        "project",
        {"badges": window.badges.pills["overall"].text()},
        {"project open": project is not None, "tree shows the image": image.id in tree._items},
    )

    tree.select(image.id)
    row = tree._items[image.id]
    walk.picture(
        with_menu(window, row, tree.edit_actions(row)),
        "image-context-menu",
        {"menu": [label for label, _ in tree.edit_actions(row)]},
        {"edit subject offered": [a for a, _ in tree.edit_actions(row)] == ["Edit subject…"]},
    )

    from PySide6.QtWidgets import QInputDialog

    dialog = QInputDialog(tree)  # what "Edit subject…" asks, shown without blocking the script
    dialog.setOption(QInputDialog.InputDialogOption.UsePlainTextEditForTextInput)
    dialog.setWindowTitle("Edit subject")
    dialog.setLabelText(f"What {image.id} shows (its image is made again):")
    dialog.setTextValue(SUBJECT)
    dialog.show()
    await asyncio.sleep(0.5)
    walk.shot(dialog, "subject-dialog", {"text": dialog.textValue()}, {"asks": dialog.isVisible()})
    dialog.close()

    before = site_digests(project)
    shown_before = await shown_picture(window, image.id)
    tree.ask_text = lambda *a: SUBJECT  # the dialog's answer
    tree.edit_item(row)
    await wait_for(lambda: any(j.kind == "edit-image" for j in window.session.jobs.jobs.values()))
    await asyncio.sleep(0.3)
    table = window.jobs_panel.table
    kinds = [table.item(r, 1).text() for r in range(table.rowCount())]
    walk.shot(
        window, "subject-edit-running", {"jobs": kinds}, {"job listed": "edit-image" in kinds}
    )
    await settle(window, 3.0)
    after = site_digests(project)
    changed = sorted(p for p in before if before[p] != after.get(p))
    shown_after = await shown_picture(window, image.id)
    walk.shot(
        window,
        "subject-edited",
        {
            "changed files": changed,
            "notice": (notices(window) or [""])[-1],
            "preview picture": [shown_before, shown_after],
        },
        {
            "the preview shows the new picture": None not in (shown_before, shown_after)
            and shown_before != shown_after,
            "only the image and the page's alt": set(changed) <= {image.save_path, "index.html"}
            and image.save_path in changed,
            "plan has the subject": project.read_plan().element(image.id).prompt == SUBJECT,
        },
    )

    tree.select(chart.id)
    chart_row = tree._items[chart.id]
    walk.picture(
        with_menu(window, chart_row, tree.edit_actions(chart_row), "Chart type"),
        "chart-type-menu",
        {"menu": [label for label, _ in tree.edit_actions(chart_row)]},
        {"chart type offered": "Chart type" in [a for a, _ in tree.edit_actions(chart_row)]},
    )
    before = site_digests(project)
    types = dict(tree.edit_actions(chart_row))["Chart type"]
    dict(types)["line"]()
    await asyncio.sleep(0.5)
    await settle(window, 3.0)
    after = site_digests(project)
    changed = sorted(p for p in before if before[p] != after.get(p))
    walk.shot(
        window,
        "chart-as-line",
        {"changed files": changed, "row": tree._items[chart.id].text(0)},
        {
            "only the chart (and its alt)": set(changed) - {"index.html"}
            == {chart.save_path, chart.option_path},
            "tree says line": "(line)" in tree._items[chart.id].text(0),
        },
    )

    before = site_digests(project)
    swatch = next(
        tree.topLevelItem(0).child(i)
        for i in range(tree.topLevelItem(0).childCount())
        if tree.topLevelItem(0).child(i).text(0).startswith(f"{COLOUR[0]}:")
    )
    tree.ask_colour = lambda hex_colour, role: COLOUR[1]
    tree.setCurrentItem(swatch)
    tree.edit_item(swatch)
    await asyncio.sleep(0.5)
    await settle(window, 3.0)
    after = site_digests(project)
    changed = sorted(p for p in before if before[p] != after.get(p))
    page = (project.site_dir / "index.html").read_text()
    walk.shot(
        window,
        "palette-edited",
        {"changed files": changed},
        {
            "page recoloured": f"--color-{COLOUR[0]}: {COLOUR[1]}" in page,
            "chart remade": chart.option_path in changed,
            "pictures kept": image.save_path not in changed,
        },
    )

    window.commands["undo"].trigger()
    await asyncio.sleep(0.5)
    await settle(window, 3.0)
    page = (project.site_dir / "index.html").read_text()
    walk.shot(
        window,
        "undo-palette",
        {"head": project.manifest.head},
        {"colour back": f"--color-{COLOUR[0]}: {COLOUR[1]}" not in page},
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=str(ROOT / "resources/screenshots/plan_edit"))
    parser.add_argument("--work", help="folder for the project (default: a temporary one)")
    parser.add_argument("--format", choices=("png", "jpg"), default="png", help="picture format")
    args = parser.parse_args(argv)
    work = Path(args.work or tempfile.mkdtemp(prefix="mmstudio-plan-edit-"))
    os.environ.setdefault("XDG_CONFIG_HOME", str(work / "config"))  # never the user's settings
    from mmstudio.gui.app import create_application, install_error_hooks

    app = create_application()
    import qasync

    from mmstudio.gui.main_window import MainWindow
    from mmstudio.studio.evaluation import close_renderer

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow()
    install_error_hooks(window, loop)
    window.resize(1920, 1080)
    window.show()
    probe = StallProbe()
    walk = MenuWalk(Path(args.out), probe, args.format)

    async def everything() -> None:
        try:
            await path(window, walk, work)
        finally:
            await close_renderer()

    with loop:
        loop.run_until_complete(everything())
    _, failed = finish(walk, probe)
    print(f"{len(walk.steps)} steps, {len(failed)} failed; pictures in {walk.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
