"""The pages of a site folder: which page files exist, which links lead nowhere, and removing a
page so that no link to it is left behind.

A multi-page site (:attr:`mmstudio.plan.DesignPlan.pages`) is one HTML file per page in the site
folder itself (``index.html``, ``about.html`` …), linked by the shared navigation. These helpers
work on any site folder — a project's ``site/`` or a draft's copy of it — with plain file
operations (every write atomic).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

from mmstudio.plan import DesignPlan, remove_page
from mmstudio.project import atomic


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.hrefs.append(href)


def page_links(html: str) -> list[str]:
    """The page files ``html``'s links lead to, in order (``about.html`` for
    ``href="about.html#team"``; links to anchors, other files and URLs are left out)."""
    parser = _Links()
    parser.feed(html)
    files = []
    for href in parser.hrefs:
        local = unquote(href.split("#", 1)[0].split("?", 1)[0]).removeprefix("./")
        external = re.match(r"^[a-z][a-z0-9+.-]*:|^/", local, re.I)
        if local and not external and local.lower().endswith((".html", ".htm")):
            files.append(local)
    return files


def dangling_links(site_dir: Path) -> list[str]:
    """One line per link of a page in ``site_dir`` (its top-level ``*.html``) to a page file
    that does not exist, e.g. ``"index.html → about.html"``; empty when every link resolves."""
    site_dir = Path(site_dir)
    problems = []
    for page in sorted(site_dir.glob("*.html")):
        html = page.read_text(encoding="utf-8", errors="replace")
        for target in page_links(html):
            if not (page.parent / target).is_file():
                problems.append(f"{page.name} → {target}")
    return problems


def unlink_page(html: str, path: str) -> str:
    """``html`` without links to page file ``path``: a list item that holds only such a link
    (a navigation entry) goes; any other such link becomes its plain text."""
    target = re.escape(path)
    pattern = re.compile(
        r"(<li\b[^>]*>\s*)?<a\b[^>]*?\bhref\s*=\s*([\"'])(?:\./)?" + target
        + r"(?:[#?][^\"']*)?\2[^>]*>(.*?)</a>(\s*</li>)?",
        re.I | re.S,
    )  # fmt: skip

    def replace(match: re.Match[str]) -> str:
        if match.group(1) and match.group(4):
            return ""
        return (match.group(1) or "") + match.group(3) + (match.group(4) or "")

    return pattern.sub(replace, html)


def drop_page(site_dir: Path, plan: DesignPlan, page_id: str) -> DesignPlan:
    """Remove page ``page_id`` from the site folder ``site_dir`` and from ``plan``: its file and
    its elements' asset files are deleted, every other page loses its links to it
    (:func:`unlink_page`), and the plan loses the page, its sections and elements, and the nav
    items naming it (:func:`mmstudio.plan.remove_page`). Returns the new plan (the caller writes
    it). Raises KeyError for an unknown page, ValueError for the home page."""
    site_dir = Path(site_dir)
    page = plan.page(page_id)
    after = remove_page(plan, page_id)
    kept = set(after.asset_paths())
    for asset in plan.asset_paths():
        if asset not in kept:
            (site_dir / asset).unlink(missing_ok=True)
    (site_dir / page.path).unlink(missing_ok=True)
    for other in after.site_pages():
        file = site_dir / other.path
        if not file.is_file():
            continue
        html = file.read_text(encoding="utf-8")
        changed = unlink_page(html, page.path)
        if changed != html:
            atomic.write_text(file, changed)
    return after
