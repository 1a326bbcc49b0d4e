"""Global fixes for requirements of the brief the page fails (issues with source ``requirement``).

Offline rules a designer would apply by hand, each one Change tried on its own and kept only
when the re-evaluation with the same brief improves (see :mod:`.verdict`):
- a header the brief wants fixed scrolls away → it sticks to the top (``position: sticky``);
- a nav link the brief names is missing → a link with that label joins the page's navigation,
  pointing at the section whose heading or id carries the label when there is one;
- a short label shown with stray punctuation (“CREATIVE CAMP.”) → the punctuation goes;
- buttons in a colour outside the brief's palette (a default blue) → the brief's button colour
  with a readable ink;
- a label set other than the brief says (not bold, not at its px size, not in capitals, not
  centred …) → the elements whose whole text is the label get the declarations the failed
  requirement names (its ``css`` evidence), marked ``data-mm-type`` and styled in one block.
"""

from __future__ import annotations

import html as html_lib
import re

from mmstudio.report import Issue

from . import html_edit
from .model import Change, RefineInput

PATCH_KEY = "brief"
CODES = ("req-layout", "req-nav", "req-copy", "req-label", "req-palette", "req-font")
TYPE_KEY = "brief-type"
_DECLARATION = re.compile(r"[a-z-]{3,20}")
_VALUE = re.compile(r"[a-z0-9.# -]{1,20}")
_BUTTONS = 'button,input[type="submit"],a.btn,a.button,a[class*="btn"],a[class*="cta"],.btn'


def _sticky_header(issue: Issue, html: str) -> str | None:
    if "scrolls away" not in issue.message:
        return None
    target = issue.evidence.get("target") or issue.element
    sel = f"[data-mm-section={html_edit.css_string(target)}]" if target else "body > header"
    return (
        f"{sel},body>header{{position:sticky!important;top:0!important;z-index:50!important}}"
        "html,body{overflow-x:clip}"
    )


def _ink(background: str) -> str:
    from .page_rules import readable_ink

    return readable_ink(background, 4.5, ["#ffffff", "#111111"])


def _button_colour(issue: Issue) -> str | None:
    colour = issue.evidence.get("suggest")
    if not colour or not re.fullmatch(r"#[0-9a-fA-F]{6}", str(colour)):
        return None
    return (
        f"{_BUTTONS}{{background-color:{colour}!important;border-color:{colour}!important;"
        f"color:{_ink(colour)}!important}}"
    )


def _css(issue: Issue, html: str) -> str | None:
    if issue.code == "req-layout":
        return _sticky_header(issue, html)
    if issue.code == "req-palette" and issue.evidence.get("off"):
        return _button_colour(issue)
    return None


def _unpunctuate(html: str, shown: str, label: str) -> str:
    """``html`` with the text ``>shown<`` (an element's whole text) replaced by ``>label<``."""
    for variant in dict.fromkeys((shown, html_lib.escape(shown, quote=False))):
        target = html_lib.escape(label, quote=False)
        html = re.sub(rf">(\s*){re.escape(variant)}(\s*)<", rf">\g<1>{target}\g<2><", html)
    return html


def _add_nav_link(html: str, label: str) -> str:
    """``html`` with a link ``label`` appended to its first ``<nav>`` (in its list when the nav
    has one); the link points at the section named like the label, else the top."""
    nodes = html_edit.parse(html)
    nav = next((n for n in nodes if n.tag == "nav"), None)
    if nav is None:
        return html
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    ids = {n.attrs.get("id") for n in nodes if n.attrs.get("id")}
    href = f"#{slug}" if slug in ids else "#top"
    link = f'<a href="{href}">{html_lib.escape(label)}</a>'
    inner = [nodes[c] for c in nav.children]
    lists = [n for n in inner if n.tag in ("ul", "ol")]
    if lists:
        at = html.rfind("</", lists[0].start, lists[0].end)
        return html[:at] + f"<li>{link}</li>" + html[at:]
    at = html.rfind("</", nav.start, nav.end)
    return html[:at] + link + html[at:]


def fixable(issue: Issue) -> bool:
    """Whether one of these rules can act on ``issue`` (so a refine with nothing to try
    says so instead of starting a job)."""
    if issue.source != "requirement" or issue.code not in CODES:
        return False
    if issue.code == "req-layout":
        return "scrolls away" in issue.message
    if issue.code == "req-palette":
        return bool(issue.evidence.get("off")) and _button_colour(issue) is not None
    if issue.code == "req-nav":
        return "missing" in issue.message and _label(issue) is not None
    if issue.code == "req-font":
        return bool(_type_css(issue)) and bool(issue.evidence.get("labels"))
    return "stray punctuation" in issue.message and bool(issue.evidence.get("closest"))


def propose(inp: RefineInput) -> list[Change]:
    """One Change per kind of requirement issue these rules can mend."""
    issues = [i for i in inp.issues if fixable(i)]
    changes = []
    css = [c for c in (_css(i, inp.html) for i in issues) if c]
    if css:
        codes = sorted({i.code for i in issues if _css(i, inp.html)})
        block = "\n".join(dict.fromkeys(css))
        changes.append(
            Change(
                "global",
                None,
                codes,
                "Brief fix: " + ", ".join(codes),
                page=lambda html, b=block: html_edit.set_patch_block(html, PATCH_KEY, b),
            )
        )
    labels = [_label(i) for i in issues if i.code == "req-nav" and "missing" in i.message]
    labels = [x for x in labels if x]
    if labels:
        edit = _nav_edit(labels)
        changes.append(Change("global", None, ["req-nav"], "Nav links from the brief", page=edit))
    typed = [i for i in issues if i.code == "req-font"]
    if typed:
        changes.append(
            Change(
                "global", None, ["req-font"], "Type as the brief sets it", page=_type_edit(typed)
            )
        )
    stray = [
        (i.evidence.get("closest"), _label(i))
        for i in issues
        if i.code in ("req-copy", "req-label") and "stray punctuation" in i.message
    ]
    stray = [(s, lab) for s, lab in stray if s and lab]
    if stray:
        changes.append(
            Change("global", None, ["req-copy", "req-label"], "Labels as the brief writes them",
                   page=_stray_edit(stray))
        )  # fmt: skip
    return changes


def _label(issue: Issue) -> str | None:
    """The brief's label the issue is about: its ``asked`` evidence (the whole label), else the
    first quote of the message (a nav link's name). Never the requirement's display text, which
    is cut at 60 characters ("…across Ethiopia…")."""
    asked = issue.evidence.get("asked")
    if isinstance(asked, str) and asked:
        return asked
    m = re.search(r"\(asked: “([^”]+)”\)", issue.message) or re.search(r"“([^”]+)”", issue.message)
    if m is None or m.group(1).endswith("…"):
        return None
    return m.group(1)


def _nav_edit(labels: list[str]):
    def edit(html: str) -> str:
        for label in labels:
            html = _add_nav_link(html, label)
        return html

    return edit


def _stray_edit(pairs: list[tuple[str, str]]):
    def edit(html: str) -> str:
        for shown, label in pairs:
            html = _unpunctuate(html, shown, label)
        return html

    return edit


def _type_css(issue: Issue) -> str:
    """The issue's ``css`` evidence as declarations (model output and old reports are
    untrusted: only plain property names and short values pass)."""
    css = issue.evidence.get("css")
    if not isinstance(css, dict):
        return ""
    return "".join(
        f"{k}:{v}!important;"
        for k, v in css.items()
        if isinstance(k, str) and isinstance(v, str)
        and _DECLARATION.fullmatch(k) and _VALUE.fullmatch(v)
    )  # fmt: skip


def _type_edit(issues: list[Issue]):
    """An edit that marks the elements showing each issue's labels and styles them (one mark
    per set of labels, carrying every declaration asked of it)."""
    groups: dict[frozenset[str], str] = {}
    for issue in issues:
        key = frozenset(_fold(str(v)) for v in issue.evidence.get("labels") or [])
        groups[key] = groups.get(key, "") + _type_css(issue)

    def edit(html: str) -> str:
        rules = []
        for n, (wanted, css) in enumerate(groups.items(), 1):
            marked = False
            for _ in range(8):  # each mark shifts the offsets: parse again
                node = _unmarked(html, wanted)
                if node is None:
                    break
                html = html_edit.set_attribute(html, node, "data-mm-type", str(n))
                marked = True
            if marked:
                rules.append(f'[data-mm-type="{n}"]{{{css}}}')
        return html_edit.set_patch_block(html, TYPE_KEY, "\n".join(rules)) if rules else html

    return edit


def _unmarked(html: str, wanted: frozenset[str]):
    """The first element not yet marked whose whole text is one of ``wanted`` and none of
    whose children's is (the element itself, not its wrappers)."""
    nodes = html_edit.parse(html)
    for node in nodes:
        if node.end <= 0 or node.tag in ("script", "style", "head", "title", "html", "body"):
            continue
        if "data-mm-type" in node.attrs or _fold(html_edit.text_of(html, node)) not in wanted:
            continue
        if not any(_fold(html_edit.text_of(html, nodes[c])) in wanted for c in node.children):
            return node
    return None


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())
