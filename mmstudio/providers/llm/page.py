"""Checking a model-written page against the plan: slots, asset paths, no external URLs.

The layout model's HTML goes through the same slot validation as the offline layout
(:func:`mmstudio.plan.slot_problems`: one ``data-mm-id`` slot per planned element, one
``data-mm-section`` block per section), plus: every planned asset path appears intact, every local
reference resolves to a planned file or the vendored scripts, and nothing loads from the network.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from mmstudio.plan import DesignPlan, VideoPlan, slot_problems
from mmstudio.providers.structured import strip_thinking

_FENCED_HTML = re.compile(r"\A\s*```(?:html)?[ \t]*\n(?P<body>.*)\n```\s*\Z", re.DOTALL | re.I)
_ANY_FENCE = re.compile(r"```(?:html)?[ \t]*\n(?P<body>.*?)\n[ \t]*```", re.DOTALL | re.I)
_DOC_START = re.compile(r"<!doctype html|<html[\s>]", re.I)
_CSS_URL = re.compile(r"""url\(\s*['"]?(?P<url>[^'")\s]+)""", re.I)
_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.I)
_REFERENCE_ATTRS = {"src", "href", "poster", "data", "srcset", "action"}
_HARMLESS = re.compile(r"^(?:#|data:|mailto:|tel:|javascript:void)", re.I)


def mp4_path(element: VideoPlan) -> str:
    """The site-relative path of the video's mp4: the planned ``mp4_path``, else beside the
    webm (same stem)."""
    return element.mp4_path or element.save_path[: -len(".webm")] + ".mp4"


def with_mp4_paths(plan: DesignPlan) -> DesignPlan:
    """``plan`` with an ``mp4_path`` on every video that lacks one and whose default path is free
    (validated again, so a clash is an error, never a silent overwrite)."""
    taken = set(plan.asset_paths())
    data = plan.model_dump(mode="json")
    for video in data["videos"]:
        default = video["save_path"][: -len(".webm")] + ".mp4"
        if not video.get("mp4_path") and default not in taken:
            video["mp4_path"] = default
    return DesignPlan.model_validate(data)


def extract_html(reply: str) -> str | None:
    """The HTML document in a layout reply: the reply itself when it is a document, else a
    fenced block holding one, else the document found inside prose (from ``<!DOCTYPE html>`` or
    ``<html`` to the last ``</html>``); a leading ``<think>…</think>`` block is ignored. None
    when there is no complete document."""
    text = strip_thinking(reply).strip()
    fenced = _FENCED_HTML.match(text)
    candidates = [fenced.group("body")] if fenced else []
    candidates += [m.group("body") for m in _ANY_FENCE.finditer(text)]
    candidates.append(text)
    for candidate in candidates:
        document = _document(candidate.strip())
        if document is not None:
            return document
    return None


def _document(text: str) -> str | None:
    head = text[:200].lower()
    if head.startswith("<!doctype html") or head.startswith("<html"):
        return text + "\n"
    start = _DOC_START.search(text)
    end = text.lower().rfind("</html>")
    if start is None or end < start.start():
        return None
    return text[start.start() : end + len("</html>")] + "\n"


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if not value:
                continue
            if name == "srcset":
                self.urls += [part.strip().split(" ")[0] for part in value.split(",")]
            elif name in _REFERENCE_ATTRS:
                self.urls.append(value.strip())
            elif name == "style":
                self.styles.append(value)
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def references(html: str) -> list[str]:
    """Every URL the page loads or links: src/href/poster/srcset attributes and CSS url()."""
    parser = _References()
    parser.feed(html)
    css = [m.group("url") for block in parser.styles for m in _CSS_URL.finditer(block)]
    return parser.urls + css


def allowed_paths(plan: DesignPlan, *, with_mp4: bool) -> set[str]:
    """The local files the page may reference: planned assets (+ the mp4 beside each video
    when the provider makes them) and the vendored scripts."""
    paths = set(plan.asset_paths()) | {"index.html", "./"}
    if with_mp4:
        paths |= {mp4_path(v) for v in plan.videos}
    return paths


def page_problems(plan: DesignPlan, html: str, *, with_mp4: bool = False) -> list[str]:
    """Why ``html`` is not a valid page for ``plan`` (one line each; empty when it is)."""
    problems = slot_problems(plan, html)
    allowed = allowed_paths(plan, with_mp4=with_mp4)
    seen: set[str] = set()
    for url in references(html):
        if url in seen or _HARMLESS.match(url):
            continue
        seen.add(url)
        if _REMOTE.match(url):
            problems.append(f"the page loads {url!r} from the network; use local files only")
        elif url.split("#")[0].split("?")[0] not in allowed and not url.startswith("vendor/"):
            problems.append(f"the page references {url!r}, which is not a planned file")
    missing = [e.save_path for e in plan.elements() if e.save_path not in seen]
    problems += [f"the page never uses the asset {path!r}" for path in missing]
    return problems
