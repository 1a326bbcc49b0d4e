"""Per-item claims of FronTalk conditions: "each software in the list includes its name, average
rating and a short description", "projects are displayed as cards", "each resource has a
“Download” button".

:func:`items_part` reads such a claim into one part (``checker`` ``cond.items``; ``values`` the
things every item must hold: image, title, text, date, rating, price, ``button:<label>``; ``label``
the section it is about, "" for the page). :func:`check_items` decides it on a page's HTML: the
page's repeated items are the children of one parent that share a tag (and class) — list items,
cards, articles, rows — at least two of them with words; the claim passes when some such group
(inside the named section when it names one) has every asked thing in every item, and fails
otherwise, naming the closest group and what its items lack. Without asked things it passes on
any group of two or more items.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from .condition_dom import overlap
from .condition_rules import _req
from .model import Requirement, RequirementResult
from .text import loose, quotes, strip_label

#: condition words that claim something of every item → what each item must hold
_ASKED = (
    (r"images?|photos?|pictures?|thumbnails?|photograph\w*|illustrations?", "image"),
    (r"names?|titles?|headlines?|headings?", "title"),
    (r"descriptions?|summar(?:y|ies)|excerpts?|bios?|overviews?|snippets?", "text"),
    (r"dates?", "date"),
    (r"ratings?|stars?|scores?", "rating"),
    (r"prices?|costs?", "price"),
    (r"icons?|emoji\w*", "icon"),
    (r"badges?", "badge"),
)
_EACH = re.compile(
    r"\b(?:each|every|all)\s+(?:of\s+the\s+)?[a-z]|\b(?:cards?|tiles?|entries)\b|"
    r"\b(?:displayed|presented|shown|arranged)\s+(?:as|in|within)\s+(?:a\s+)?(?:\w+\s+)?"
    r"(?:cards?|list|grid)\b",
    re.I,
)
#: words the items part reads (see :data:`~.condition_words.READ_BY`)
READS = (
    r"icons?|emoji\w*|badges?|next to|beside|alongside|each|every|all|cards?|tiles?|entr(?:y|ies)"
    r"|lists?|listings?|thumbnails?|descriptions?"
    r"|summar(?:y|ies)|excerpts?|brief|short|ratings?|stars?|images?|photos?|pictures?"
    r"|photograph\w*|illustrations?|displaying|showing|featuring|containing|includ\w*"
)
_DATE = re.compile(
    r"\b(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,4}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b",
    re.I,
)
_RATING = re.compile(r"★|☆|\b\d(?:\.\d)?\s*(?:/|out of)\s*(?:5|10)\b|\brat(?:ed|ing)\b", re.I)
_PRICE = re.compile(r"[$€£¥]\s?\d|\b\d+(?:[.,]\d\d)?\s?(?:usd|eur|gbp)\b|\bfree\b", re.I)


_BESIDE_EACH = re.compile(
    r"\b(icons?|emoji\w*|badges?)\b[^.;]{0,80}?\b(?:next to|beside|alongside)\s+"
    r"(?:each|every|all)\b",
    re.I,
)
_ICON = re.compile(r"\bicons?\b|\bemoji\w*", re.I)
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u2604\u2607-\u27bf]")  # not ★ ☆ (ratings)


def icon_part(text: str, plain: str) -> list[Requirement]:
    """A condition that names icons: the page must show some ([] when it names none)."""
    m = _ICON.search(plain)
    if m is None:
        return []
    return [_req("widget", "icon", "icons", "Icons", (m.start(), m.end()), source=text)]


def check_icon(part: Requirement, html: str, file: str) -> RequirementResult:
    """Icons in the markup: an inline ``<svg>`` or ``<img>`` named or classed as an icon, an
    element whose class names an icon, or an emoji (a large picture is no icon)."""
    from .condition_view import result

    body = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S | re.I)
    marks = re.findall(r"<(?:svg|img|i|span)\b[^>]*\b(?:class|src|alt)=\"[^\"]*\bicon\w*", body,
                       re.I)  # fmt: skip
    marks += re.findall(r"<svg\b[^>]*\bwidth=\"(?:[1-5]?\d|6[0-4])(?:px)?\"", body, re.I)
    marks += _EMOJI.findall(re.sub(r"<[^>]+>", " ", body))
    if marks:
        return result(part, "pass", f"{len(marks)} icon(s) on {file}")
    return result(part, "fail", f"no icon on {file}")


def items_part(text: str, plain: str, parts: list[Requirement]) -> list[Requirement]:
    """The per-item part of a condition that claims something of each item (see the module
    doc); [] when it claims nothing per item."""
    claim = _EACH.search(plain)
    if claim is None:
        return []
    asked: list[str] = []
    tail = plain[claim.start() :]
    for words, thing in _ASKED:
        if re.search(rf"\b(?:{words})\b", tail, re.I) and thing not in asked:
            asked.append(thing)
    for m in _BESIDE_EACH.finditer(plain):  # "icons are present next to each category title"
        thing = "badge" if m.group(1).lower().startswith("badge") else "icon"
        if thing not in asked:
            asked.append(thing)
    buttons = [p.label for p in parts if p.checker == "cond.control" and p.role == "button"]
    asked += [f"button:{b}" for b in buttons if b]
    section = next(
        (p.label for p in parts if p.checker in ("cond.text", "cond.named") and p.label
         and p.role in ("section", "copy", "")),
        "",
    )  # fmt: skip
    for inner, _start, end in quotes(text):
        if re.match(r"\W{0,3}\s*(?:section|feature|list|page|sidebar|area)\b", text[end:]):
            section = strip_label(inner)
            break
    what = ", ".join(asked) or "repeated items"
    return [
        _req("widget", "items", section or "page", f"Every item holds: {what}",
             (claim.start(), len(text)), label=section, values=asked, source=text)
    ]  # fmt: skip


@dataclass
class _Node:
    tag: str
    classes: str
    parent: int
    children: list[int] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    images: int = 0
    headings: list[str] = field(default_factory=list)
    controls: list[str] = field(default_factory=list)
    words: str = ""
    marks: set[str] = field(default_factory=set)  # icon | badge: small marks the item holds
    links: list[str] = field(default_factory=list)  # the href of every link inside
    buttons: int = 0  # <button>s inside (a script may handle them)


_VOID = {"img", "br", "hr", "input", "meta", "link", "source", "wbr", "area", "col", "embed"}


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.nodes: list[_Node] = [_Node("root", "", -1)]
        self.stack = [0]
        self.skip = 0
        self.capture: list[tuple[int, str, list[str]]] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag in ("script", "style", "template"):
            self.skip += 1
            return
        a = {k: v or "" for k, v in attrs}
        node = _Node(tag, a.get("class", ""), self.stack[-1])
        self.nodes.append(node)
        index = len(self.nodes) - 1
        self.nodes[self.stack[-1]].children.append(index)
        if tag in ("img", "svg", "picture", "video") or "background-image" in a.get("style", ""):
            for i in [*self.stack, index]:
                self.nodes[i].images += 1
        for mark in _marks(tag, a):
            for i in [*self.stack, index]:
                self.nodes[i].marks.add(mark)
        if tag in ("a", "button"):
            for i in [*self.stack, index]:
                if tag == "a" and a.get("href"):
                    self.nodes[i].links.append(a["href"])
                elif tag == "button" or a.get("onclick"):
                    self.nodes[i].buttons += 1
        if tag not in _VOID:
            self.stack.append(index)
            if re.fullmatch(r"h[1-6]|a|button|strong|b", tag) or "title" in node.classes:
                self.capture.append((index, tag, []))

    def handle_endtag(self, tag) -> None:
        if tag in ("script", "style", "template"):
            self.skip = max(0, self.skip - 1)
            return
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.nodes[self.stack[depth]].tag == tag:
                for index in self.stack[depth:]:
                    self._close(index)
                del self.stack[depth:]
                return

    def _close(self, index: int) -> None:
        while self.capture and self.capture[-1][0] >= index:
            at, tag, words = self.capture.pop()
            text = " ".join(" ".join(words).split())
            if not text:
                continue
            holders = [i for i in self.stack if i <= at] + ([at] if at not in self.stack else [])
            for i in dict.fromkeys(holders):
                if tag in ("a", "button"):
                    self.nodes[i].controls.append(text)
                else:
                    self.nodes[i].headings.append(text)

    def handle_data(self, data: str) -> None:
        if self.skip or not data.strip():
            return
        for i in self.stack:
            self.nodes[i].text.append(data)
            if _EMOJI.search(data):
                self.nodes[i].marks.add("icon")
        for _at, _tag, words in self.capture:
            words.append(data)


_ICON_MARK = re.compile(r"\bicon|\bfa-|\bbi-|material-(?:icons|symbols)", re.I)
_BADGE_MARK = re.compile(r"\bbadge|\bpill\b|\bchip\b|\bverified\b", re.I)


def _marks(tag: str, attrs: dict[str, str]) -> set[str]:
    """The small marks an element is: an icon (an svg / img / i / span classed, named or
    alt-texted as one, or an svg drawn at most 64 px wide) or a badge (classed as one)."""
    found = set()
    named = f"{attrs.get('class', '')} {attrs.get('src', '')} {attrs.get('alt', '')}"
    if tag in ("svg", "img", "i", "span") and _ICON_MARK.search(named):
        found.add("icon")
    if tag == "svg" and re.fullmatch(r"(?:[1-5]?\d|6[0-4])(?:px)?", attrs.get("width", "")):
        found.add("icon")
    if _BADGE_MARK.search(attrs.get("class", "")):
        found.add("badge")
    return found


def _tree(html: str) -> list[_Node]:
    parser = _Tree()
    parser.feed(html)
    parser.close()
    for node in parser.nodes:
        node.words = " ".join(" ".join(node.text).split())
    return parser.nodes


def _groups(nodes: list[_Node], within: set[int] | None) -> list[list[_Node]]:
    """Sibling items sharing a tag and first class, at least two holding words."""
    found = []
    for index, node in enumerate(nodes):
        if within is not None and index not in within:
            continue
        kids = [nodes[c] for c in node.children if nodes[c].tag not in ("script", "style")]
        buckets: dict[tuple[str, str], list[_Node]] = {}
        for kid in kids:
            if kid.tag in ("br", "hr", "input", "option", "source", "label", "h2", "h3", "p"):
                continue
            key = (kid.tag, (kid.classes.split() or [""])[0])
            buckets.setdefault(key, []).append(kid)
        for group in buckets.values():
            worded = [g for g in group if len(g.words) >= 3]
            if len(worded) >= 2:
                found.append(worded)
    return found


def _has(item: _Node, thing: str) -> bool:
    if thing == "image":
        return item.images > 0
    if thing == "title":
        return bool(item.headings) or bool(item.controls and len(item.words) > 20)
    if thing == "text":
        longest = max((len(t.strip()) for t in item.text), default=0)
        return longest >= 25 or len(item.words) - sum(len(h) for h in item.headings) >= 40
    if thing == "date":
        return bool(_DATE.search(item.words))
    if thing == "rating":
        return bool(_RATING.search(item.words))
    if thing == "price":
        return bool(_PRICE.search(item.words))
    if thing in ("icon", "badge"):
        return thing in item.marks
    if thing.startswith("button:"):
        want = loose(thing[7:])
        return any(want and want in loose(c) for c in item.controls)
    return False


def _scope(nodes: list[_Node], name: str) -> set[int] | None:
    """Indexes of the nodes inside the section named ``name`` (None: the whole page; an
    empty set when no section is named so)."""
    if not name:
        return None
    best, best_key = -1, (0.0, 0, 0)
    rank = {"section": 3, "article": 3, "aside": 3, "footer": 2, "div": 1, "ul": 1}
    for index, node in enumerate(nodes):
        if node.tag not in rank or not node.headings:
            continue
        # the best-named, then a landmark over a wrapper, then the smallest that holds more
        # than its heading
        score = overlap(name, node.headings[0])
        more = int(len(node.words) > len(node.headings[0]) + 3)
        key = (score, more, rank[node.tag], -len(node.words))
        if score > 0 and key > best_key:
            best, best_key = index, key
    best_score = best_key[0]
    if best < 0 or best_score < 0.6:
        return set()
    inside, todo = set(), [best]
    while todo:
        index = todo.pop()
        inside.add(index)
        todo += nodes[index].children
    return inside


def check_items(part: Requirement, html: str, file: str) -> RequirementResult:
    """The result of an items part on the page ``html`` (file name ``file`` for messages)."""
    from .condition_view import result

    nodes = _tree(html)
    scope = _scope(nodes, part.label)
    if scope is not None and not scope:
        return result(part, "fail", f"no section “{part.label}” on {file} to hold the items")
    groups = _groups(nodes, scope)
    where = f"in “{part.label}”" if part.label else f"on {file}"
    if not groups:
        return result(part, "fail", f"no repeated items {where}")
    asked = list(part.values)
    scored = []
    for group in groups:
        lacking = {t: sum(not _has(i, t) for i in group) for t in asked}
        scored.append((sum(lacking.values()), -len(group), group, lacking))
    scored.sort(key=lambda s: (s[0], s[1]))
    misses, _n, group, lacking = scored[0]
    tag = group[0].tag + (f".{group[0].classes.split()[0]}" if group[0].classes else "")
    if misses == 0:
        what = ", ".join(asked) if asked else "words"
        return result(part, "pass", f"{len(group)} {tag} items {where}, each with {what}")
    thing = next(t for t, n in lacking.items() if n)
    return result(
        part,
        "fail",
        f"{lacking[thing]} of {len(group)} {tag} items {where} have no {thing.replace(':', ' ')}",
    )


@dataclass(frozen=True)
class Entry:
    """One repeated item of a page: its title (first heading or link words), the hrefs of its
    links and how many buttons it holds."""

    title: str
    links: tuple[str, ...]
    buttons: int


def entries(html: str, section: str) -> list[Entry] | None:
    """The items of the largest repeated group of ``html`` inside the section named
    ``section`` ("" for the page); None when no section is named so, [] when it holds no
    repeated items."""
    nodes = _tree(html)
    scope = _scope(nodes, section)
    if scope is not None and not scope:
        return None
    groups = _groups(nodes, scope)
    if not groups:
        return []
    group = max(groups, key=len)
    return [
        Entry((i.headings or i.controls or [i.words[:60]])[0], tuple(i.links), i.buttons)
        for i in group
    ]
