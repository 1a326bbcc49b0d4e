"""Screenshots of a FronTalk dev dialogue replayed offline, opened in the app, each step checked.

    .venv/bin/python -m mmstudio bench --frontalk DIALOGUES.jsonl -o RUN   # the replay
    .venv/bin/python scripts/frontalk_shots.py RUN/projects/<id> [OUT] [--format jpg]

OUT (default ``resources/screenshots/frontalk``) receives one picture of the window per step and
``steps.json`` (as ``scripts/gui_walkthrough.py`` writes them): the replayed project open (the
plan tree lists the site's pages, each with its sections; the last version is evaluated, so
the badges and the score plot show its scores) → a page row picked (the preview
shows that page) → the page switcher back to the homepage → a behaviour driven in the preview
(a keyword typed into the search the replay built: the list filters and says how many match)
→ the last page, shown from the switcher. Under X when ``DISPLAY`` is set
(``Xvfb :99 & DISPLAY=:99 QT_QPA_PLATFORM=xcb …``), offscreen otherwise. Exits 1 when a check
fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from gui_walkthrough import StallProbe, Walk, finish, settle, wait_for  # noqa: E402


async def run_js(window, script: str):
    """The value of the expression ``script`` run in the preview's page (through JSON: the
    bridge passes strings reliably, not objects)."""
    answer = asyncio.get_running_loop().create_future()
    window.page.runJavaScript(
        f"JSON.stringify({script})", 0, lambda value: answer.done() or answer.set_result(value)
    )
    text = await asyncio.wait_for(answer, 10)
    return json.loads(text) if isinstance(text, str) and text else None


async def loaded(window, page: str) -> bool:
    """Wait until the preview shows ``page`` and its document has loaded."""
    ok = await wait_for(lambda: window.preview.view.url().path().endswith(f"/{page}"), 30)
    for _ in range(100):
        if await run_js(window, "document.readyState") == "complete":
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.8)  # the kit's scripts run on load
    return ok


async def path(window, walk: Walk, project_root: Path) -> None:
    from mmstudio.gui.plan_tree import PAGE_ROLE

    window.open_project(project_root)
    await wait_for(lambda: window.snapshot is not None, 120)
    await settle(window, 3.0)
    plan = window.snapshot.plan
    tree = window.tree
    rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    pages = [r for r in rows if r.data(0, PAGE_ROLE)]
    for row in pages:
        row.setExpanded(True)
    files = [r.data(0, PAGE_ROLE) for r in pages]
    report = window.snapshot.report
    scores = report.scores.model_dump() if report is not None else {}
    walk.shot(
        window,
        "replayed-project",
        {"pages": files, "switcher": [window.preview.pages.itemText(i)
                                      for i in range(window.preview.pages.count())],
         "scores": {k: round(v, 2) for k, v in scores.items() if v is not None}},
        {
            "the last version is evaluated (badges, score plot)": bool(scores.get("overall")),
            "the plan has several pages": plan.multi_page,
            "the tree lists every page": files == [p.path for p in plan.site_pages()],
            "each page row holds its sections": all(r.childCount() for r in pages),
            "the preview has a page switcher": not window.preview.pages_bar.isHidden(),
        },
    )  # fmt: skip

    other = pages[1]
    tree.setCurrentItem(other)
    shown = await loaded(window, other.data(0, PAGE_ROLE))
    title = await run_js(window, "document.title")
    walk.shot(
        window,
        "page-row-picked",
        {"page": window.preview.current_page, "title": title},
        {"the preview shows the picked page": shown
         and window.preview.current_page == other.data(0, PAGE_ROLE)},
    )  # fmt: skip

    home = window.preview.pages.findData("index.html")
    window.preview.pages.setCurrentIndex(home)
    window.preview.pages.activated.emit(home)
    shown = await loaded(window, "index.html")
    before = await run_js(
        window,
        "(() => { const f = document.querySelector('[data-mm-behaviour=filter]');"
        " if (!f) return null; const items = [...f.querySelectorAll('[data-mm-item]')];"
        " return {items: items.length, shown: items.filter(i => !i.hidden).length,"
        " words: items.map(i => (i.querySelector('h3, h4') || i).textContent.trim())}; })()",
    )
    where = await run_js(
        window, "[location.href, document.querySelectorAll('[data-mm-behaviour]').length]"
    )
    walk.shot(
        window,
        "home-from-the-switcher",
        {"page": window.preview.current_page, "filter": before, "url": where},
        {"back on the homepage": shown, "the replay built a search": bool(before)},
    )
    if not before:
        return
    word = before["words"][0]  # the first entry's title: it, not every entry
    await run_js(
        window,
        "(() => { const f = document.querySelector('[data-mm-behaviour=filter]');"
        " f.scrollIntoView({block: 'center'});"
        " const i = f.querySelector('[data-mm-filter-input]'); i.focus();"
        f" i.value = {json.dumps(word)}; i.dispatchEvent(new Event('input', {{bubbles: true}}));"
        " })()",
    )
    await asyncio.sleep(0.8)
    after = await run_js(
        window,
        "(() => { const f = document.querySelector('[data-mm-behaviour=filter]');"
        " const items = [...f.querySelectorAll('[data-mm-item]')];"
        " const c = f.querySelector('[data-mm-filter-count]');"
        " return {shown: items.filter(i => !i.hidden && i.offsetParent !== null).length,"
        " count: c ? c.textContent : ''}; })()",
    )
    walk.shot(
        window,
        "search-filters-the-list",
        {"typed": word, "before": before["shown"], "after": after},
        {
            "fewer items are shown": 0 < after["shown"] < before["items"],
            "the count says so": str(after["shown"]) in after["count"],
        },
    )

    last = pages[-1].data(0, PAGE_ROLE)
    index = window.preview.pages.findData(last)
    window.preview.pages.setCurrentIndex(index)
    window.preview.pages.activated.emit(index)
    shown = await loaded(window, last)
    heads = await run_js(
        window, "[...document.querySelectorAll('main h2')].map(h => h.textContent)"
    )
    walk.shot(
        window,
        "last-page",
        {"page": window.preview.current_page, "headings": heads},
        {"the switcher shows the page": shown and window.preview.current_page == last},
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", help="a replayed project (RUN/projects/<id>)")
    parser.add_argument("out", nargs="?", default=str(ROOT / "resources/screenshots/frontalk"))
    parser.add_argument("--format", choices=("png", "jpg"), default="png", help="picture format")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="mmstudio-frontalk-shots-"))
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
    walk = Walk(Path(args.out), probe, args.format)

    async def everything() -> None:
        try:
            await path(window, walk, Path(args.project).resolve())
        finally:
            await close_renderer()

    with loop:
        loop.run_until_complete(everything())
    _, failed = finish(walk, probe)
    print(f"{len(walk.steps)} steps, {len(failed)} failed; pictures in {walk.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
