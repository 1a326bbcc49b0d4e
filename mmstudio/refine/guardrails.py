"""Guardrails every refiner's result passes before it is even rendered (MM Studio issue 5).

A candidate page is rejected when it drops or duplicates a ``data-mm-id`` / ``data-mm-section``
the page had, stops referencing a local asset the page referenced, leaves an element with an id
unclosed, introduces an absolute URL the page did not have, or when a written file lies outside
the site folder. Each problem is one line, for the attempt record and the user.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from . import html_edit


def page_problems(before: str, after: str) -> list[str]:
    """Why ``after`` may not replace ``before`` (empty list: it may)."""
    problems: list[str] = []
    old, new = html_edit.ids(before), html_edit.ids(after)
    for key, count in old.items():
        if new.get(key, 0) < count:
            kind, name = key.split(":", 1)
            problems.append(f"the patch drops the {kind} {name!r}")
        elif new.get(key, 0) > count:
            problems.append(f"the patch duplicates {key.replace(':', ' ')!r}")
    lost = sorted(html_edit.local_refs(before) - html_edit.local_refs(after))
    problems += [f"the patch drops the asset path {path}" for path in lost[:5]]
    problems += html_edit.unclosed(after)[:3]
    added = sorted(html_edit.external_urls(after) - html_edit.external_urls(before))
    problems += [f"the patch introduces the external URL {url[:80]}" for url in added[:3]]
    return problems


def file_problems(paths: list[str]) -> list[str]:
    """Why a refiner may not write these site-relative paths (outside the site, or the page)."""
    problems = []
    for path in paths:
        parts = PurePosixPath(path).parts
        if not parts or path.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
            problems.append(f"the refiner writes outside the site folder: {path}")
        elif path == "index.html":
            problems.append("the refiner rewrites index.html as a file (use a page patch)")
    return problems
