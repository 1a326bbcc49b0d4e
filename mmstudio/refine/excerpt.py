"""What a context refine shows a model of the page: the element's bounded excerpt.

MM-WebAgent §3.4 (context level) and MM Studio issue 5: the request carries the element's own
markup (or its wrapper's, when that is small), a one-line path of its ancestors, only the CSS
rules that select the element or its wrapper, and its box — never the whole page (issue 8,
budget 4: a context request ≤ 1/5 of a global one for the same issue).

Rule matching is deliberately approximate and errs on the side of including a rule: the last
compound selector of each selector in a rule's list is compared with the element and its wrapper
(tag, ``#id``, ``.class``, ``[attr]``, ``[attr=value]``); pseudo-classes are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mmstudio.providers.llm.refine import ContextExcerpt

from . import html_edit
from .model import RefineInput

MAX_MARKUP = 2400  # characters of the editable span sent (longer spans are cut, not editable)
MAX_CSS = 3000  # characters of matching CSS rules sent
MAX_ANCESTORS = 6
WRAPPER_TAGS = {"div", "figure", "picture", "a", "span", "p", "li"}

_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style\s*>", re.S | re.I)
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_PSEUDO = re.compile(r"::?[\w-]+(\((?:[^()]|\([^()]*\))*\))?")
_SIMPLE = re.compile(
    r"([#.]?)([\w-]+)"  # tag, #id, .class
    r"|\[\s*([\w-]+)\s*(?:([~|^$*]?=)\s*(\"[^\"]*\"|'[^']*'|[^\]\s]+))?\s*\]"  # [attr op value]
)


@dataclass(frozen=True)
class Rule:
    """One style rule: its selector list, its body (declarations) and its ``@media`` (or "")."""

    selectors: str
    body: str
    media: str = ""

    def text(self) -> str:
        rule = f"{self.selectors}{{{self.body}}}"
        return f"{self.media}{{{rule}}}" if self.media else rule


def style_rules(html: str) -> list[Rule]:
    """Every style rule of the page's ``<style>`` blocks, in order (rules one ``@media`` or
    ``@supports`` deep included; ``@keyframes``, ``@font-face`` and the like left out)."""
    rules: list[Rule] = []
    for block in _STYLE.findall(html):
        rules += _rules(_COMMENT.sub("", block), "")
    return rules


def _rules(css: str, media: str) -> list[Rule]:
    rules, at = [], 0
    while True:
        open_at = css.find("{", at)
        if open_at < 0:
            return rules
        head = css[at:open_at].strip().rsplit(";", 1)[-1].strip()
        close_at = _matching_brace(css, open_at)
        body = css[open_at + 1 : close_at].strip()
        if head.startswith(("@media", "@supports")) and not media:
            rules += _rules(body, head)
        elif head and not head.startswith("@"):
            rules.append(Rule(" ".join(head.split()), " ".join(body.split()), media))
        at = close_at + 1


def _matching_brace(css: str, open_at: int) -> int:
    depth = 0
    for index in range(open_at, len(css)):
        depth += {"{": 1, "}": -1}.get(css[index], 0)
        if depth == 0:
            return index
    return len(css)


def _last_compound(selector: str) -> str:
    """The part of ``selector`` after its last combinator (pseudo-classes removed)."""
    bare = _PSEUDO.sub("", selector)
    depth, start = 0, 0
    for index, char in enumerate(bare):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0 and char in " >+~":
            start = index + 1
    return bare[start:].strip()


def compound_matches(compound: str, node: html_edit.Node) -> bool:
    """Whether the simple selectors of ``compound`` all hold for ``node`` (False when it has
    none: ``:root``, ``*``-only compounds match nothing here)."""
    parts = [m for m in _SIMPLE.finditer(compound) if m.group(0).strip()]
    if not parts:
        return False
    classes = set(node.attrs.get("class", "").split())
    for match in parts:
        prefix, name, attr, op, value = match.groups()
        if attr:
            holds = attr in node.attrs and (op != "=" or node.attrs[attr] == value.strip("\"'"))
        else:
            holds = {
                "#": node.attrs.get("id") == name,
                ".": name in classes,
                "": (name or "").lower() == node.tag,
            }[prefix]
        if not holds:
            return False
    return True


def matching_rules(rules: list[Rule], nodes: list[html_edit.Node]) -> list[Rule]:
    """The rules one of whose selectors ends in a compound that matches one of ``nodes``."""
    return [
        rule
        for rule in rules
        if any(
            compound_matches(_last_compound(s), node)
            for s in rule.selectors.split(",")
            for node in nodes
        )
    ]


def used_variables(css: list[str], rules: list[Rule]) -> str:
    """A ``:root{…}`` rule defining the custom properties that ``css`` reads through
    ``var(--name)``, with the page's first value of each ("" when it reads none)."""
    names = dict.fromkeys(re.findall(r"var\(\s*(--[\w-]+)", " ".join(css)))
    values: dict[str, str] = {}
    for rule in rules:
        for declaration in rule.body.split(";"):
            name, _, value = declaration.partition(":")
            if name.strip() in names and name.strip() not in values:
                values[name.strip()] = value.strip()
    found = [f"{name}: {values[name]}" for name in names if name in values]
    return ":root{" + "; ".join(found) + ";}" if found else ""


def _summary(node: html_edit.Node) -> str:
    """``tag#id.class[data-mm-section=…]`` of one node."""
    text = node.tag + (f"#{node.attrs['id']}" if node.attrs.get("id") else "")
    text += "".join(f".{c}" for c in node.attrs.get("class", "").split()[:3])
    section = node.attrs.get("data-mm-section")
    return text + (f'[data-mm-section="{section}"]' if section else "")


def _ancestors(nodes: list[html_edit.Node], node: html_edit.Node) -> str:
    chain = []
    index = node.parent
    while index >= 0 and nodes[index].tag not in ("body", "html"):
        chain.append(_summary(nodes[index]))
        index = nodes[index].parent
    return " > ".join(reversed(chain[:MAX_ANCESTORS]))


def editable_span(
    html: str, node: html_edit.Node, nodes: list[html_edit.Node]
) -> tuple[int, int, str]:
    """(start, end, "wrapper" | "element") of the span a context patch may replace: the
    element's wrapper when it is a small plain container holding no other planned element, else
    the element itself."""
    if node.parent >= 0:
        wrapper = nodes[node.parent]
        inner = html[wrapper.open_end : wrapper.end]
        small = wrapper.end - wrapper.start <= MAX_MARKUP
        plain = wrapper.tag in WRAPPER_TAGS and "data-mm-section" not in wrapper.attrs
        alone = inner.count("data-mm-id=") == 1 and "data-mm-id" not in wrapper.attrs
        if small and plain and alone:
            return wrapper.start, wrapper.end, "wrapper"
    return node.start, node.end, "element"


def _box(inp: RefineInput) -> dict:
    """The element's sizes (px): the planned slot and every ``*_px`` of its issues' evidence."""
    box: dict = {}
    spec = inp.element_plan()
    if spec is not None:
        box["planned_px"] = [spec.display_width_px, spec.display_height_px]
    for issue in inp.issues:
        box.update({k: v for k, v in issue.evidence.items() if k.endswith("_px")})
    return box


def locate(
    html: str, element_id: str, path: str = ""
) -> tuple[html_edit.Node, list[html_edit.Node]] | None:
    """The element (as :func:`html_edit.element_node` finds it) and every node of ``html``, so
    that its parent can be read; None when it is not in the page."""
    found = html_edit.element_node(html, element_id, path)
    if found is None:
        return None
    nodes = html_edit.parse(html)
    return next(n for n in nodes if n.start == found.start), nodes


def context_excerpt(inp: RefineInput) -> ContextExcerpt | None:
    """The bounded excerpt of ``inp.element`` in ``inp.html`` (None when it is not in the
    page)."""
    path = inp.element_path()
    found = locate(inp.html, inp.element or "", path)
    selector = html_edit.selector_for(inp.html, inp.element or "", path)
    if found is None or selector is None:
        return None
    node, nodes = found
    start, end, editable = editable_span(inp.html, node, nodes)
    markup = inp.html[start:end]
    if len(markup) > MAX_MARKUP:
        markup, editable = markup[:MAX_MARKUP] + "…", "none"
    targets = [node] + ([nodes[node.parent]] if node.parent >= 0 else [])
    rules = style_rules(inp.html)
    css, size = [], 0
    for rule in matching_rules(rules, targets):
        text = rule.text()
        if size + len(text) > MAX_CSS:
            break
        css.append(text)
        size += len(text)
    variables = used_variables(css, rules)
    if variables and size + len(variables) <= MAX_CSS:
        css.insert(0, variables)
    row = next((e for e in inp.report.elements if e.id == inp.element), None)
    kind = row.kind if row else node.tag
    return ContextExcerpt(
        inp.element or "", kind, selector, markup, editable,
        _ancestors(nodes, node), css, _box(inp),
    )  # fmt: skip
