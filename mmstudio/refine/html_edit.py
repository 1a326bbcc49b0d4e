"""Small, position-exact edits of a page's HTML: find an element's span, add or replace a labelled
``<style data-mm-patch="KEY">`` block, set an attribute, reorder sibling sections.

Every edit returns a new string and leaves every byte outside the edited span unchanged, so a
patch touches only what it names (MM-WebAgent §3.4: context fixes are scoped to one element).
The parser is the standard library's tolerant ``html.parser``; spans of elements a page leaves
unclosed end where their parent ends.
"""

from __future__ import annotations

import html as htmllib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import unquote

from mmstudio.plan import ChartPlan, ElementPlan, ImagePlan

VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr",
}  # fmt: skip
_URL_ATTRS = ("src", "href", "poster", "data")
_EXTERNAL = re.compile(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"'<>)]*")
_PATCH_BLOCK = r'<style data-mm-patch="{key}">(.*?)</style>\n?'


@dataclass
class Node:
    """One element: ``start``/``end`` are character offsets of its whole markup (start tag to the
    end of its end tag), ``open_end`` the end of its start tag, ``parent`` an index or -1."""

    tag: str
    attrs: dict[str, str]
    start: int
    open_end: int
    end: int = -1
    parent: int = -1
    children: list[int] = field(default_factory=list)


class _Spans(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=False)
        self.html = html
        self.lines = [0] + [m.end() for m in re.finditer("\n", html)]
        self.nodes: list[Node] = []
        self.stack: list[int] = []

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        text = self.get_starttag_text() or ""
        node = Node(tag, {k: v or "" for k, v in attrs}, start, start + len(text))
        node.parent = self.stack[-1] if self.stack else -1
        self.nodes.append(node)
        index = len(self.nodes) - 1
        if node.parent >= 0:
            self.nodes[node.parent].children.append(index)
        if tag in VOID or text.endswith("/>"):
            node.end = node.open_end
        else:
            self.stack.append(index)

    def handle_endtag(self, tag: str) -> None:
        if not any(self.nodes[i].tag == tag for i in self.stack):
            return
        at = self._offset()
        close = self.html.find(">", at)
        end = len(self.html) if close < 0 else close + 1
        while self.stack:
            index = self.stack.pop()
            self.nodes[index].end = end if self.nodes[index].tag == tag else at
            if self.nodes[index].tag == tag:
                break

    def finish(self) -> list[Node]:
        self.feed(self.html)
        self.close()
        for index in self.stack:
            self.nodes[index].end = len(self.html)
        return self.nodes


def parse(html: str) -> list[Node]:
    """Every element of ``html`` in document order."""
    return _Spans(html).finish()


def find(html: str, attr: str, value: str) -> Node | None:
    """The first element whose ``attr`` equals ``value``, or None."""
    return next((n for n in parse(html) if n.attrs.get(attr) == value), None)


def norm_path(src: str) -> str:
    """A local URL as a site-relative path of a page at the site's root (``./a/b.png?x`` →
    ``a/b.png``; ``../`` above the root stays at the root, as URLs resolve); "" for other
    URLs."""
    if not src or _EXTERNAL.match(src) or re.match(r"^[a-z][a-z0-9+.-]*:", src, re.I):
        return ""
    parts: list[str] = []
    for segment in unquote(src.split("#")[0].split("?")[0]).split("/"):
        if segment == "..":
            parts = parts[:-1]
        elif segment not in ("", "."):
            parts.append(segment)
    return "/".join(parts)


def element_node(html: str, element_id: str, path: str = "") -> Node | None:
    """The element with ``data-mm-id=element_id``, else the media element whose src (or first
    ``<source>``) is the site-relative ``path`` (discovered elements have no id attribute)."""
    nodes = parse(html)
    for node in nodes:
        if node.attrs.get("data-mm-id") == element_id:
            return node
    if not path:
        return None
    for node in nodes:
        if node.tag in ("img", "iframe", "video", "embed", "object"):
            srcs = [node.attrs.get("src", ""), node.attrs.get("data", "")]
            srcs += [nodes[c].attrs.get("src", "") for c in node.children]
            if path in {norm_path(s) for s in srcs}:
                return node
    return None


def css_string(value: str) -> str:
    """``value`` as a double-quoted CSS string."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def selector_for(html: str, element_id: str, path: str = "") -> str | None:
    """A CSS selector that matches the element (``[data-mm-id="…"]`` or ``tag[src="…"]``)."""
    node = element_node(html, element_id, path)
    if node is None:
        return None
    if node.attrs.get("data-mm-id") == element_id:
        return f"[data-mm-id={css_string(element_id)}]"
    if node.attrs.get("src"):
        return f"{node.tag}[src={css_string(node.attrs['src'])}]"
    name = path.rsplit("/", 1)[-1]
    return f"{node.tag}:has(> source[src$={css_string(name)}])"


def patch_key(key: str) -> str:
    """``key`` as it is written in ``data-mm-patch="…"``: characters that could end the attribute
    or the tag (a discovered element's id comes from the page) become ``-``."""
    return re.sub(r"[^\w.:-]", "-", key)


def safe_css(css: str) -> str:
    """``css`` that cannot end its ``<style>`` block: ``</`` becomes ``<\\/`` (the same text in
    CSS strings and selectors), so markup inside a rule never reaches the page."""
    return css.replace("</", "<\\/")


def patch_css(html: str, key: str) -> str:
    """The CSS of the ``data-mm-patch=key`` block ("" when the page has none)."""
    match = re.search(_PATCH_BLOCK.format(key=re.escape(patch_key(key))), html, re.S)
    return match.group(1).strip() if match else ""


def set_patch_block(html: str, key: str, css: str) -> str:
    """``html`` with the ``<style data-mm-patch="key">`` block holding the block's earlier rules
    plus ``css`` (later rules win); the block sits at the end of ``<head>`` (or the start)."""
    key, css = patch_key(key), safe_css(css)
    old = patch_css(html, key)
    lines = [line for line in (old + "\n" + css.strip()).splitlines() if line.strip()]
    merged = "\n".join(dict.fromkeys(lines))
    block = f'<style data-mm-patch="{key}">\n{merged}\n</style>\n'
    pattern = re.compile(_PATCH_BLOCK.format(key=re.escape(key)), re.S)
    if pattern.search(html):
        return pattern.sub(lambda _m: block, html, count=1)
    head_end = re.search(r"</head\s*>", html, re.I)
    if head_end:
        return html[: head_end.start()] + block + html[head_end.start() :]
    body = re.search(r"<body[^>]*>", html, re.I)
    at = body.end() if body else 0
    return html[:at] + block + html[at:]


def set_attribute(html: str, node: Node, name: str, value: str) -> str:
    """``html`` with attribute ``name="value"`` on ``node``'s start tag (replaced if present)."""
    tag = html[node.start : node.open_end]
    escaped = value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    pattern = re.compile(rf"(\s){re.escape(name)}\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.I)
    if pattern.search(tag):
        new = pattern.sub(lambda m: f'{m.group(1)}{name}="{escaped}"', tag, count=1)
    else:
        cut = len(tag) - (2 if tag.endswith("/>") else 1)
        new = f'{tag[:cut].rstrip()} {name}="{escaped}"{tag[cut:]}'
    return html[: node.start] + new + html[node.open_end :]


def insert_after_open(html: str, node: Node, markup: str) -> str:
    """``html`` with ``markup`` as the first child of ``node``."""
    return html[: node.open_end] + markup + html[node.open_end :]


def reorder_sections(html: str, planned: list[str]) -> str:
    """``html`` with sibling ``data-mm-section`` blocks put in ``planned`` order. Sections that
    share a parent trade places among their own spans; text between them stays where it was."""
    nodes = parse(html)
    by_parent: dict[int, list[Node]] = {}
    for node in nodes:
        if node.attrs.get("data-mm-section") in planned:
            by_parent.setdefault(node.parent, []).append(node)
    edits: list[tuple[int, int, str]] = []
    for group in by_parent.values():
        ordered = sorted(group, key=lambda n: planned.index(n.attrs["data-mm-section"]))
        for slot, node in zip(group, ordered, strict=True):
            if slot is not node:
                edits.append((slot.start, slot.end, html[node.start : node.end]))
    for start, end, text in sorted(edits, reverse=True):
        html = html[:start] + text + html[end:]
    return html


def ids(html: str) -> Counter[str]:
    """How often each ``data-mm-id`` / ``data-mm-section`` value occurs (keys ``id:…``,
    ``section:…``)."""
    found: Counter[str] = Counter()
    for node in parse(html):
        for attr, prefix in (("data-mm-id", "id:"), ("data-mm-section", "section:")):
            if node.attrs.get(attr):
                found[prefix + node.attrs[attr]] += 1
    return found


def local_refs(html: str) -> set[str]:
    """Site-relative paths the page references (src, href, poster, data of every element)."""
    refs = set()
    for node in parse(html):
        for attr in _URL_ATTRS:
            path = norm_path(node.attrs.get(attr, ""))
            if path and not path.startswith("#"):
                refs.add(path)
    return refs


def external_urls(html: str) -> set[str]:
    """Every absolute or protocol-relative URL written anywhere in ``html``."""
    return set(_EXTERNAL.findall(html))


def unclosed(html: str) -> list[str]:
    """Elements with an id that the parser could not close before the end of the document."""
    problems = []
    for node in parse(html):
        named = node.attrs.get("data-mm-id") or node.attrs.get("data-mm-section")
        at_end = node.end >= len(html) and node.tag not in VOID and node.tag != "html"
        if named and at_end and not re.search(rf"</{node.tag}\s*>", html[node.open_end :], re.I):
            problems.append(f"<{node.tag}> {named} is never closed")
    return problems


def media_page_edit(
    old: ElementPlan, new: ElementPlan, *, error: type[Exception] = ValueError
) -> Callable[[str], str] | None:
    """The page edit for an element planned anew (``old`` → ``new``): alt text / aria-label, a
    chart's iframe title and its visible ``.chart-title`` heading (None when the page needs
    none). The edit raises ``error`` when the page shows no such element."""
    alt_attr = "alt" if isinstance(new, ImagePlan) else "aria-label"
    new_alt = new.alt if new.alt != old.alt else None
    new_title = None
    if isinstance(new, ChartPlan) and isinstance(old, ChartPlan) and new.title != old.title:
        new_title = new.title
    if new_alt is None and new_title is None:
        return None

    def edit(page: str) -> str:
        node = element_node(page, new.id, old.save_path)
        if node is None:
            raise error(f"the page shows no {new.kind} {new.id}")
        if new_alt is not None:
            page = set_attribute(page, node, alt_attr, new_alt)
            node = element_node(page, new.id, old.save_path) or node
        if new_title is None or not isinstance(old, ChartPlan):
            return page
        heading = chart_heading(page, node, old.title)
        if heading is not None and heading.start > node.start:  # the later span first
            page = with_text(page, heading, new_title)
            heading = None
        page = set_attribute(page, node, "title", new_title)
        if heading is not None:  # before the iframe: its offsets did not move
            page = with_text(page, heading, new_title)
        return page

    return edit


def chart_heading(page: str, iframe: Node, old_title: str) -> Node | None:
    """The ``.chart-title`` heading in the chart's figure showing ``old_title`` (None: the page
    shows the title elsewhere, or not at all)."""
    nodes = parse(page)
    index = next(i for i, n in enumerate(nodes) if n.start == iframe.start)
    parent = nodes[index].parent
    while parent >= 0 and nodes[parent].tag != "figure":
        parent = nodes[parent].parent
    if parent < 0:
        return None
    figure = nodes[parent]
    for node in nodes:
        inside = figure.start < node.start < figure.end
        titled = "chart-title" in node.attrs.get("class", "").split()
        if inside and titled and text_of(page, node) == old_title:
            return node
    return None


def text_of(page: str, node: Node) -> str:
    inner = page[node.open_end : node.end]
    inner = re.sub(r"</[^>]*>\s*$", "", inner)
    return htmllib.unescape(re.sub(r"<[^>]+>", "", inner)).strip()


def with_text(page: str, node: Node, text: str) -> str:
    """``page`` with the text inside ``node`` replaced by ``text`` (escaped); an only child
    element (``<h1><a class="brand">…</a></h1>``) keeps its tag."""
    nodes = parse(page)
    here = next(n for n in nodes if n.start == node.start)
    while len(here.children) == 1:
        child = nodes[here.children[0]]
        before = page[here.open_end : child.start].strip()
        after = page[child.end : here.end]
        after = re.sub(r"</[^>]*>\s*$", "", after).strip()
        if before or after:
            break
        here = child
    close = page.rfind("</", here.open_end, here.end)
    end = close if close >= 0 else here.end
    return page[: here.open_end] + htmllib.escape(text, quote=False) + page[end:]
