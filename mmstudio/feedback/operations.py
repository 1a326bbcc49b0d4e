"""Offline operations as element-scoped page edits (no model needed): text change, colour, hide /
show, move up / down among siblings, bigger / smaller, add a note, style words.

Each turn's CSS goes into its own labelled block ``<style data-mm-patch="fb-t<turn>">`` (later
turns come later in ``<head>``, so they win ties — which is exactly how a later turn can undo an
earlier one). The repair pass writes the rules of failed requirements into ``fb-repair``, moved
to the end of ``<head>``, with selectors boosted by ``:root:root`` so they outrank any turn's
rule. Patches are idempotent: a rule replaces every earlier feedback rule (plain or boosted, in
any ``fb-*`` block) for the same selector and property, so retrying or repairing an operation on
an element leaves one rule per property, not a growing pile. Every edit leaves bytes outside its
span unchanged (see :mod:`mmstudio.refine.html_edit`) and the result passes the refine
guardrails before it is written. Operations that change assets or the plan (chart type, insert
from a sketch) are in :mod:`mmstudio.feedback.assets`.
"""

from __future__ import annotations

import html as htmllib
import re

from mmstudio.refine import html_edit

from .requirements import Requirement

REPAIR_KEY = "fb-repair"
SCALE = {"bigger": 1.25, "smaller": 0.8}  # size factor per resize word
DARK_BG, DARK_TEXT = "#24201c", "#f4efe6"
LIGHT_BG, LIGHT_TEXT = "#fbf8f3", "#1d1a17"
FILTERS = {
    "darker": "brightness(.78)",
    "brighter": "brightness(1.15)",
    "warmer": "sepia(.3) saturate(1.5)",
    "cooler": "saturate(.8) hue-rotate(-18deg) brightness(1.02)",
    "calmer": "saturate(.6) contrast(.92)",
    "bolder": "saturate(1.45) contrast(1.12)",
}
_TEXT_TAGS = ":is(h1,h2,h3,h4,h5,h6,p,li,a,span,strong,em,blockquote,figcaption,small,label)"


class OperationError(ValueError):
    """An operation cannot be applied to this page (one line for the ledger)."""


def selector(req: Requirement) -> str:
    """The CSS selector of the requirement's target (``html`` for the page)."""
    if req.target is None:
        return "html"
    if req.target_kind == "section":
        return f"[data-mm-section={html_edit.css_string(req.target)}]"
    if req.target_kind == "text":
        return f"[id={html_edit.css_string(req.target)}]"
    return f"[data-mm-id={html_edit.css_string(req.target)}]"


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", htmllib.unescape(re.sub(r"<[^>]+>", " ", text))).strip()


def text_node(page: str, req: Requirement) -> html_edit.Node | None:
    """The element a text requirement targets: by its HTML id, else by its anchor text."""
    node = html_edit.find(page, "id", req.target or "")
    if node is not None or not req.anchor:
        return node
    tag = (req.target or "").split("-")[-2] if (req.target or "").count("-") >= 2 else ""
    anchor = _normal(req.anchor)[:50]
    for node in html_edit.parse(page):
        if tag and node.tag != tag:
            continue
        inner = _normal(page[node.open_end : node.end])
        if inner and inner.startswith(anchor):
            return node
    return None


def ensure_target(page: str, req: Requirement) -> str:
    """``page`` with the text target carrying its id (written once, on first use)."""
    if req.target_kind != "text" or html_edit.find(page, "id", req.target or ""):
        return page
    node = text_node(page, req)
    if node is None:
        raise OperationError(f"cannot find the text block {req.target} on the page")
    return html_edit.set_attribute(page, node, "id", req.target)


def css_for(req: Requirement, font_px: float = 16.0) -> str:
    """The CSS rules that apply ``req`` ("" for non-CSS operations)."""
    sel = selector(req)
    if req.op == "hide":
        return f"{sel}{{display:none!important}}"
    if req.op == "show":
        return f"{sel}{{visibility:visible!important;opacity:1!important}}"
    if req.op == "colour":
        prop = "color" if req.target_kind == "text" else "background-color"
        return f"{sel}{{{prop}:{req.value}!important}}"
    if req.op == "resize":
        factor = SCALE[req.value]
        if req.target_kind == "text":
            return f"{sel}{{font-size:{font_px * factor:.1f}px!important}}"
        return _resize_box(req, sel, factor)
    if req.op == "tone":
        return _tone_css(req, sel)
    return ""


def _resize_box(req: Requirement, sel: str, factor: float) -> str:
    """Width (and height for frames) × ``factor`` from the measured box; its parent may grow."""
    if len(req.baseline) < 2 or req.baseline[0] <= 0:
        return f"{sel}{{zoom:{factor}}}"
    w, h = req.baseline[0] * factor, req.baseline[1] * factor
    height = (
        f"height:{h:.0f}px!important" if req.target_kind in ("chart", "video") else "height:auto"
    )
    return (
        f"{sel}{{width:{w:.0f}px!important;max-width:none!important;{height};"
        f"aspect-ratio:auto!important}}\n*:has(> {sel}){{max-width:none!important}}"
    )


def _tone_css(req: Requirement, sel: str) -> str:
    if req.target_kind == "section" and req.value in ("darker", "brighter"):
        bg, fg = _section_tone(req)
        # a legible recolour: the section's text follows its new background
        return (
            f"{sel}{{background-color:{bg}!important}}\n{sel} {_TEXT_TAGS}{{color:{fg}!important}}"
        )
    return f"{sel}{{filter:{FILTERS[req.value]}!important}}"


def _section_tone(req: Requirement) -> tuple[str, str]:
    """(background, text) hex for a section made darker / brighter: its measured colour
    (``req.baseline``, RGB 0–255) scaled toward black by 40 % or toward white by 55 %, with
    light or dark text, whichever reads on it; the fixed dark / light pair when nothing was
    measured."""
    if len(req.baseline) < 3:
        return (DARK_BG, DARK_TEXT) if req.value == "darker" else (LIGHT_BG, LIGHT_TEXT)
    base = [min(255.0, max(0.0, float(c))) for c in req.baseline[:3]]
    target, share = (0.0, 0.4) if req.value == "darker" else (255.0, 0.55)
    rgb = [c + (target - c) * share for c in base]
    luma = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    bg = "#" + "".join(f"{round(c):02x}" for c in rgb)
    return bg, DARK_TEXT if luma < 140 else LIGHT_TEXT


def boosted(css: str) -> str:
    """``css`` with every rule's selector prefixed by ``:root:root`` (outranks turn rules)."""
    return "\n".join(
        f":root:root {line}" if line and not line.startswith(":root") else line
        for line in css.splitlines()
    )


def set_text(page: str, req: Requirement) -> str:
    """The target's text replaced by ``req.value`` (an element holding ids is refused)."""
    node = html_edit.find(page, "id", req.target or "") or text_node(page, req)
    if node is None:
        raise OperationError(f"cannot find the text block {req.target} on the page")
    inner = page[node.open_end : node.end]
    close = inner.rfind("</")
    inner = inner[:close] if close >= 0 else inner
    if "data-mm-" in inner:
        raise OperationError(f"{req.target} holds other elements; its text is left alone")
    return (
        page[: node.open_end]
        + htmllib.escape(req.value, quote=False)
        + page[node.open_end + len(inner) :]
    )


def _target_node(page: str, req: Requirement) -> html_edit.Node | None:
    if req.target_kind == "section":
        return html_edit.find(page, "data-mm-section", req.target or "")
    if req.target_kind == "text":
        return html_edit.find(page, "id", req.target or "")
    return html_edit.element_node(page, req.target or "")


def _wrapper(page: str, node: html_edit.Node) -> html_edit.Node:
    """The element that swaps places for ``node``: the outermost ancestor that is its parent's
    only child element (a figure around an image), so the move is visible."""
    nodes = html_edit.parse(page)
    index = next(i for i, n in enumerate(nodes) if n.start == node.start and n.tag == node.tag)
    while nodes[index].parent >= 0 and len(nodes[nodes[index].parent].children) == 1:
        index = nodes[index].parent
    return nodes[index]


def move(page: str, req: Requirement) -> str:
    """The target swapped with its previous (up) or next (down) sibling element."""
    node = _target_node(page, req)
    if node is None:
        raise OperationError(f"cannot find {req.target} on the page")
    node = _wrapper(page, node)
    nodes = html_edit.parse(page)
    me = next(i for i, n in enumerate(nodes) if n.start == node.start)
    siblings = nodes[nodes[me].parent].children if nodes[me].parent >= 0 else []
    at = siblings.index(me) if me in siblings else -1
    other = at - 1 if req.value == "up" else at + 1
    if at < 0 or not 0 <= other < len(siblings):
        raise OperationError(
            f"{req.target} is already at the {'top' if req.value == 'up' else 'bottom'}"
        )
    a, b = sorted((nodes[me], nodes[siblings[other]]), key=lambda n: n.start)
    return (
        page[: a.start] + page[b.start : b.end] + page[a.end : b.start]
        + page[a.start : a.end] + page[b.end :]
    )  # fmt: skip


def add_text(page: str, req: Requirement, note_id: str) -> str:
    """A note paragraph ``note_id`` with ``req.value`` after the target (inside a section: at the
    end of its first inner block)."""
    if html_edit.find(page, "id", note_id):
        return page
    node = _target_node(page, req) if req.target else None
    markup = f'\n<p id="{note_id}" class="mm-note">{htmllib.escape(req.value, quote=False)}</p>\n'
    if node is None:
        body = re.search(r"</body\s*>", page, re.I)
        at = body.start() if body else len(page)
        return page[:at] + markup + page[at:]
    if req.target_kind == "section":
        nodes = html_edit.parse(page)
        first = next(
            (nodes[c] for n in nodes if n.start == node.start for c in n.children[:1]), node
        )
        close = page.rfind("</", first.open_end, first.end)
        return page[:close] + markup + page[close:]
    return page[: node.end] + markup + page[node.end :]


def move_block_last(page: str, key: str) -> str:
    """``page`` with the ``data-mm-patch=key`` block moved to the end of ``<head>``."""
    css = html_edit.patch_css(page, key)
    if not css:
        return page
    pattern = re.compile(rf'<style data-mm-patch="{re.escape(key)}">(.*?)</style>\n?', re.S)
    return html_edit.set_patch_block(pattern.sub("", page, count=1), key, css)


_RULE = re.compile(r"^(?P<sel>[^{}]+)\{(?P<body>[^{}]*)\}$")
_BOOST = ":root:root "


def _rule(line: str) -> tuple[str, list[tuple[str, str]]] | None:
    """(selector without the repair boost, [(property, declaration)]) of one rule line."""
    match = _RULE.match(line.strip())
    if match is None:
        return None
    decls = [d.strip() for d in match.group("body").split(";") if d.strip()]
    return match.group("sel").strip().removeprefix(_BOOST), [
        (d.split(":", 1)[0].strip().lower(), d) for d in decls
    ]


def _rewrite_blocks(page: str, edit) -> str:
    """``page`` with every line of every feedback patch block passed through ``edit(line)``
    (None drops the line)."""
    for key in re.findall(r'<style data-mm-patch="(fb-[^"]+)">', page):
        lines = html_edit.patch_css(page, key).splitlines()
        kept = [new for line in lines if (new := edit(line)) is not None]
        if kept != lines:
            pattern = re.compile(
                rf'(<style data-mm-patch="{re.escape(key)}">\n?)(.*?)(</style>)', re.S
            )
            body = "\n".join(kept) + "\n"
            page = pattern.sub(lambda m, body=body: m.group(1) + body + m.group(3), page)
    return page


def _drop_rule(page: str, rule: str) -> str:
    """``page`` without ``rule`` (plain or boosted) in any feedback patch block."""
    return _rewrite_blocks(page, lambda line: None if line.removeprefix(_BOOST) == rule else line)


def replace_rules(page: str, css: str) -> str:
    """``page`` without the declarations of earlier feedback rules that ``css`` sets again (same
    selector, same property; plain or boosted); a rule left empty is dropped."""
    wanted: dict[str, set[str]] = {}
    for line in css.splitlines():
        parsed = _rule(line)
        if parsed:
            wanted.setdefault(parsed[0], set()).update(p for p, _ in parsed[1])

    def edit(line: str) -> str | None:
        parsed = _rule(line)
        if parsed is None or parsed[0] not in wanted:
            return line
        kept = [d for p, d in parsed[1] if p not in wanted[parsed[0]]]
        if len(kept) == len(parsed[1]):
            return line
        head = line.strip().split("{", 1)[0]
        return f"{head}{{{';'.join(kept)}}}" if kept else None

    return _rewrite_blocks(page, edit)


def note_id(req: Requirement) -> str:
    """The id of the note block an add_text requirement writes."""
    return f"fb-note-{req.id.replace('.', '-')}"


def apply(page: str, req: Requirement, key: str, font_px: float = 16.0, repair=False) -> str:
    """``page`` with ``req`` applied; CSS rules go to block ``key`` (boosted in repair). Raises
    OperationError when the target cannot be found or the operation does not fit it."""
    page = ensure_target(page, req)
    if req.op == "text":
        return set_text(page, req)
    if req.op == "move":
        return move(page, req)
    if req.op == "add_text":
        return add_text(page, req, note_id(req))
    if req.op == "show":
        page = _drop_rule(page, f"{selector(req)}{{display:none!important}}")
    css = css_for(req, font_px)
    if not css:
        raise OperationError(f"no offline operation for: {req.text}")
    page = replace_rules(page, css)
    return html_edit.set_patch_block(page, key, boosted(css) if repair else css)
