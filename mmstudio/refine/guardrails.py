"""Guardrails every refiner's result passes before it is even rendered (MM Studio issue 5).

A candidate page is rejected when it drops or duplicates a ``data-mm-id`` / ``data-mm-section``
the page had, stops referencing a local asset the page referenced, leaves an element with an id
unclosed, introduces an absolute URL the page did not have, or when a written file lies outside
the site folder. Each problem is one line, for the attempt record and the user.

Scripts are confined, not forbidden (MM Studio issue 16): a page may gain ``<script src>``
elements loading local files of the site under ``assets/js/`` (or the shipped ``vendor/``), never
an inline script, an ``on…=`` handler attribute or a ``javascript:`` URL; a script file a change
writes (``.js`` / ``.mjs``) may hold no external URL, no ``eval`` / ``Function`` / string timer
(code built from strings), and no storage or document access outside the page's own origin
(``document.domain``, cookies for another domain, ``top`` / ``parent`` / ``opener`` storage).
Files identical to shipped ones (``resources/vendor``, ``resources/behaviours``) are trusted.
What a script then does is contained by the renderer's sandbox (no network, no file outside the
site, endless loops interrupted) and reported from its console errors.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

from mmstudio.resources import resource

from . import html_edit

#: where page scripts live in a site (``vendor/`` holds shipped libraries such as ECharts)
SCRIPT_DIRS = ("assets/js/", "vendor/")
_DATA_SCRIPT_TYPES = ("application/json", "application/ld+json")
_SCRIPT_URL_ATTRS = ("href", "src", "action", "formaction", "data")
_JS_RULES = (
    (
        re.compile(r"\b(?:https?|wss?|ftp)://(?!www\.w3\.org/)[^\s'\"`)]+", re.I),
        "loads or names an external URL",
    ),
    (re.compile(r"[\"'`]//[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"), "names an external URL"),
    (re.compile(r"(?<![\w$.])eval\s*\("), "runs code from a string (eval)"),
    (re.compile(r"\bFunction\s*\("), "builds code from a string (Function)"),
    (
        re.compile(r"\b(?:setTimeout|setInterval)\s*\(\s*[\"'`]"),
        "runs code from a string (a string timer)",
    ),
    (re.compile(r"\bimportScripts\s*\("), "imports scripts into a worker"),
    (re.compile(r"\bdocument\s*\.\s*domain\s*="), "widens the page's origin (document.domain)"),
    (re.compile(r"cookie[^\n]*domain\s*=", re.I), "sets a cookie for another domain"),
    (
        re.compile(
            r"\b(?:top|parent|opener)\s*\.\s*(?:localStorage|sessionStorage|indexedDB|document)"
        ),
        "reaches storage or documents outside the page",
    ),
)


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
    problems += script_problems(before, after)
    return problems


def script_problems(before: str, after: str) -> list[str]:
    """Why the scripts ``after`` adds to ``before`` are not confined (empty list: they are):
    a ``<script src>`` outside :data:`SCRIPT_DIRS` or not a ``.js`` / ``.mjs`` file, an inline
    script (JSON data blocks excepted), an ``on…=`` handler attribute or a ``javascript:`` URL
    that ``before`` did not have."""
    old, new = _active(before), _active(after)
    problems = []
    for (kind, value), count in new.items():
        if old.get((kind, value), 0) >= count:
            continue
        if kind == "src":
            path = html_edit.norm_path(value)
            if not path:
                problems.append(f"the patch loads a script from outside the site: {value[:80]}")
            elif not path.startswith(SCRIPT_DIRS) or not path.endswith((".js", ".mjs")):
                problems.append(f"the patch loads a script outside assets/js/: {path[:80]}")
        elif kind == "inline":
            problems.append("the patch adds an inline script (page scripts are assets/js/ files)")
        elif kind == "handler":
            problems.append(f"the patch adds an event handler attribute ({value[:40]})")
        else:
            problems.append(f"the patch adds a javascript: URL ({value[:40]})")
    return problems[:3]


def _active(html: str) -> Counter:
    """(kind, value) of each script, handler attribute and ``javascript:`` URL in ``html``."""
    found: Counter = Counter()
    for node in html_edit.parse(html):
        for name, value in node.attrs.items():
            if name.startswith("on") and len(name) > 2:
                found["handler", f"{node.tag} {name}"] += 1
            elif name in _SCRIPT_URL_ATTRS and value.strip().lower().startswith("javascript:"):
                found["url", value.strip()[:80]] += 1
        if node.tag != "script":
            continue
        if node.attrs.get("src"):
            found["src", node.attrs["src"].strip()] += 1
        elif node.attrs.get("type", "").strip().lower() not in _DATA_SCRIPT_TYPES:
            body = html[node.open_end : node.end]
            found["inline", hashlib.sha1(body.encode()).hexdigest()] += 1
    return found


def code_problems(path: str, text: str) -> list[str]:
    """Why the script file at ``path`` (site-relative) is not confined (see the module
    docstring); empty list: it is. At most three lines, each naming the file and line."""
    problems = []
    for pattern, why in _JS_RULES:
        match = pattern.search(text)
        if match:
            line = text.count("\n", 0, match.start()) + 1
            problems.append(f"the script {path} {why} (line {line}: {match.group(0)[:40]})")
    return problems[:3]


@functools.cache
def _shipped_digests() -> frozenset[str]:
    """SHA-256 of every shipped front-end file (vendored libraries, the behaviour kit)."""
    digests = set()
    for folder in ("vendor", "behaviours"):
        root = resource(folder)
        if root.is_dir():
            digests |= {
                hashlib.sha256(p.read_bytes()).hexdigest() for p in root.glob("*.js") if p.is_file()
            }
    return frozenset(digests)


def file_problems(files: Iterable[str] | Mapping[str, bytes]) -> list[str]:
    """Why a refiner may not write these site-relative paths (outside the site, or the page);
    given a mapping path → bytes, also why a script file among them is not confined
    (:func:`code_problems`; shipped files are trusted)."""
    problems = []
    for path in files:
        parts = PurePosixPath(path).parts
        if not parts or path.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
            problems.append(f"the refiner writes outside the site folder: {path}")
        elif path == "index.html":
            problems.append("the refiner rewrites index.html as a file (use a page patch)")
        elif isinstance(files, Mapping) and path.lower().endswith((".js", ".mjs")):
            data = files[path]
            if hashlib.sha256(data).hexdigest() in _shipped_digests():
                continue
            problems += code_problems(path, data.decode("utf-8", "replace"))
    return problems
