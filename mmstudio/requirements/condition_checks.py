"""Checks of the parts of a :class:`~.conditions.ConditionReading` on one rendered page.

``check_part(part, view)`` gives one :class:`~.model.RequirementResult` for a part on a
:class:`~.condition_view.PageView`: named text, controls, widgets, form fields, pictures, grids
and columns, position, gradients and shadows here; colours, contrast and type in
:mod:`.condition_style`. A part no rule can decide on this page is ``unchecked``; behaviour,
page and feature parts are the judge's (:mod:`~mmstudio.feedback.condition_judge`: they may
span pages or drive the page). A picture is full-width at ≥ 90 % of the viewport; grid items
are "equal" within 12 %.
"""

from __future__ import annotations

import re
from typing import Any

from mmstudio.render.base import Box

from .checks import check_all
from .condition_dom import overlap
from .condition_style import colour_check, contrast_check, type_check
from .condition_things import check_thing
from .condition_view import CONTAINERS, PageView, result, within
from .model import Requirement, RequirementResult
from .text import loose


def check_part(part: Requirement, view: PageView) -> RequirementResult:
    """The result of one part on one page (behaviour and page parts are the judge's)."""
    if view.facts is None:
        return result(part, "unchecked", "the page's facts could not be read")
    name = part.checker.removeprefix("cond.")
    check = _CHECKS.get(name)
    if not part.checker:
        return check_all([part], view.facts)[0]
    if check is None:
        return result(part, "unchecked", "no rule reads this part")
    return check(part, view)


def _text(part: Requirement, view: PageView) -> RequirementResult:
    facts = view.facts
    if part.role == "paragraph":
        prose = [b for b in facts.blocks if b.tag == "p" and len(b.text) >= 25]
        if prose or any(len(s.text) - len(s.heading) >= 120 for s in facts.sections):
            return result(part, "pass", "a paragraph of text")
        return result(part, "fail", "no paragraph of running text on the page")
    want = loose(part.label)
    names = [*view.dom.options, *(c.text for c in view.dom.controls), *view.dom.headings]
    if want and (f" {want} " in f" {loose(facts.text)} " or any(loose(n) == want for n in names)):
        return result(part, "pass", f"“{part.label}” is on the page")
    heads = [b.text for b in facts.blocks if b.heading] + [s.heading for s in facts.sections]
    if part.role == "section":  # a section, feature or page called so: its title, or a link to it
        heads += [view.dom.title, *view.dom.headings, *(c.text for c in view.dom.controls)]
    least = 0.6 if part.role == "section" else 0.75
    close = next((h for h in heads if h and overlap(part.label, h) >= least), None)
    if close:
        return result(part, "pass", f"the heading “{close[:60]}”")
    return result(part, "fail", f"“{part.label}” is not on the page")


def matches(label: str, text: str) -> bool:
    """Whether a control's words ``text`` read as ``label`` (the same words, give or take
    punctuation, an arrow or up to two extra words)."""
    want, got = loose(label), loose(text)
    if not want or not got:
        return False
    if want == got:
        return True
    return f" {want} " in f" {got} " and len(got.split()) - len(want.split()) <= 2


def _control(part: Requirement, view: PageView) -> RequirementResult:
    facts, label, role = view.facts, part.label, part.role
    shown = [b for b in facts.blocks if (b.link or b.button) and matches(label, b.text)]
    if role == "link" and shown:
        hit = next((b for b in shown if b.header), shown[0])
        return result(part, "pass", f"a link “{hit.text[:40]}”", element=hit.owner)
    if shown:
        return result(part, "pass", f"a control “{shown[0].text[:40]}”", element=shown[0].owner)
    if role in ("option", "tab", "any"):
        if any(matches(label, o) for o in view.dom.options):
            return result(part, "pass", f"a dropdown option “{label}”")
        if any(matches(label, b.text) for b in facts.blocks):
            return result(part, "pass", f"“{label}” is shown")
    marked = [c for c in view.dom.controls if matches(label, c.text)]
    if marked:
        return result(part, "pass", f"“{label}” is in the page's menu (shown on demand)")
    if any(matches(label, b.text) for b in facts.blocks):
        return result(part, "fail", f"“{label}” is text, not a {role}")
    return result(part, "fail", f"no {role} “{label}” on the page")


def _widget(part: Requirement, view: PageView) -> RequirementResult:
    role, facts, dom = part.role, view.facts, view.dom
    names, tags = dom.names, dom.tags
    found: Any
    if role in ("header", "footer", "hero"):
        found = view.region(role)
    elif role == "select":
        found = [i for i in facts.widgets.get("inputs", []) if i.get("tag") == "select"] or (
            re.search(r"dropdown|\bselect\b|combobox|listbox", names)
        )
    elif role == "calendar":
        found = re.search(r"calendar", names) or any(f.type == "date" for f in dom.fields)
    elif role == "progress":
        found = tags.get("progress") or re.search(r"progress|stepper|steps", names)
    elif role == "sidebar":
        found = tags.get("aside") or re.search(r"sidebar|side-bar|aside", names)
    elif role == "comments":
        found = tags.get("textarea") or re.search(r"comment", names)
    elif role == "banner":
        found = view.region("banner")
    elif role == "video":
        found = facts.videos
    elif role == "radio":
        found = [f for f in dom.fields if f.type == "radio"]
    elif role == "contact":
        found = re.search(r"[\w.+-]+@[\w-]+\.\w+|\+?\d[\d ()-]{7,}\d", facts.text)
        if part.label == "address":  # a street address too: a number and a street word
            found = found and re.search(_STREET, facts.text, re.I)
    elif role == "search":  # a search input, or a text box beside a "Search" control
        texts = [f for f in dom.fields if f.tag == "input" and f.type in ("text", "search", "")]
        found = facts.widgets.get("search") or (
            texts and (re.search(r"search", names) or any("search" in c.text.lower()
                                                          for c in dom.controls))
        )  # fmt: skip
    elif role == "tabs":
        found = facts.widgets.get("tabs") or re.search(r"\btabs?\b|\btab-|-tabs?\b", names)
    elif role == "filter":  # tag buttons or a dropdown that narrow a list
        found = re.search(r"filter", names) or any(
            f.tag == "select" and len(f.options) > 1 for f in dom.fields
        )
    elif role == "carousel":
        found = facts.widgets.get("carousel") or re.search(r"carousel|slider|swiper|slide", names)
    else:
        value = facts.widgets.get(role)
        if role == "form":
            value = facts.widgets.get("form", 0) or len(facts.widgets.get("inputs", []))
        if value is None:
            return result(part, "unchecked", f"no rule reads a {role}")
        found = value
    if found:
        return result(part, "pass", f"a {role}")
    return result(part, "fail", f"no {role} on the page")


_STREET = (
    r"\b\d{1,5}\s+(?:[A-Z][\w.]*\s+){1,4}(?:street|st\.?|avenue|ave\.?|road|rd\.?|boulevard"
    r"|blvd\.?|lane|ln\.?|drive|dr\.?|way|place|square|court|hall|building|suite)\b"
)
_FIELD = {
    "email": r"email|e-mail",
    "password": r"password",
    "name": r"name",
    "username": r"user",
    "message": r"message|textarea",
    "comment": r"comment|textarea",
    "phone": r"phone|\btel\b",
    "date": r"date",
    "title": r"title",
    "description": r"descri|textarea",
    "checkbox": r"checkbox",
    "category": r"categor|select",
    "upload": r"\bfile\b|upload",
    "search": r"search",
    "address": r"address",
    "subject": r"subject",
    "rating": r"rating|star|range|radio",
    "time": r"time",
}


def _field(part: Requirement, view: PageView) -> RequirementResult:
    pattern = re.compile(_FIELD.get(part.label, re.escape(part.label)), re.I)
    shown = [
        i
        for i in view.facts.widgets.get("inputs", [])
        if pattern.search(" ".join(str(v) for v in i.values()))
    ]
    if shown:
        return result(part, "pass", f"an input for {part.label}")
    if any(pattern.search(f.words) for f in view.dom.fields):
        return result(part, "pass", f"an input for {part.label} (in a form shown on demand)")
    return result(part, "fail", f"no input for {part.label} on the page")


def _image(part: Requirement, view: PageView) -> RequirementResult:
    box = view.region(part.role) if part.role != "page" else None
    if part.role != "page" and box is None:  # whether it exists is a part of its own
        return result(part, "unchecked", f"no {part.role} on this page to look in")
    pics = [
        p
        for p in view.facts.pictures
        if p.rect.w * p.rect.h >= 4000 and (box is None or within(p.rect, box))
    ]
    if not pics and view.dom.images:
        return result(part, "unchecked", f"{len(view.dom.images)} <img> in the markup did not load")
    if not pics:
        return result(part, "fail", f"no picture in the {part.role}")
    if part.label != "full-width":
        return result(part, "pass", f"{len(pics)} picture(s)")
    widest = max(p.rect.w for p in pics)
    ok = widest >= 0.9 * view.width
    return result(
        part,
        "pass" if ok else "fail",
        f"the widest picture is {widest:.0f} px of {view.width:.0f} px",
    )


def _rows(part: Requirement, view: PageView):
    box = view.region(part.role) if part.role not in ("page", "") else None
    return [r for r in view.facts.rows if box is None or box.y - 2 <= r.y <= box.y + box.h]


def _grid(part: Requirement, view: PageView) -> RequirementResult:
    for row in _rows(part, view):
        widths = row.widths
        if row.per_row >= 2 and row.total >= 3 and max(widths) <= 1.12 * min(widths):
            return result(part, "pass", f"a grid of {row.total} equal items, {row.per_row} a row")
    return result(part, "fail", "no grid of equal items on the page")


def _columns(part: Requirement, view: PageView) -> RequirementResult:
    n = part.count or 2
    rows = [r for r in _rows(part, view) if r.per_row == n and r.width >= 600]
    if rows:
        return result(part, "pass", f"a {n}-column row {rows[0].widths}")
    return result(part, "fail", f"no {n}-column row on the page")


_ELEMENTS = ("button", "nav-links", "subheading", "headline", "headings", "text", "search", "map")


def _position(part: Requirement, view: PageView) -> RequirementResult:
    subject = _box_of(part.role, view)
    if subject is None:
        return result(part, "unchecked", f"{part.role} has no box on the page")
    how = part.label
    if how in ("below", "above"):
        other = _box_of(part.values[0], view) if part.values else None
        if other is None:
            return result(part, "unchecked", f"{part.values} has no box on the page")
        loose_pair = "@" not in part.role and part.values[0] in _ELEMENTS
        if other == subject or (loose_pair and part.role.split(":")[0] in _ELEMENTS):
            return result(part, "unchecked", f"{part.role} and {part.values[0]} cannot be told "
                          "apart on the page")  # fmt: skip
        ok = (
            subject.y >= other.y + other.h * 0.5
            if how == "below"
            else subject.y + subject.h * 0.5 <= other.y
        )
        return result(
            part,
            "pass" if ok else "fail",
            f"{part.role} at y {subject.y:.0f}, {part.values[0]} at y {other.y:.0f}",
        )
    centre = subject.x + subject.w / 2
    if how == "top":
        ok = subject.y < 800
    elif how in ("left", "right"):
        ok = centre < view.width / 2 if how == "left" else centre > view.width / 2
    else:
        holder = view.region(part.role.partition("@")[2] or "page") or Box(w=view.width)
        ok = abs(centre - (holder.x + holder.w / 2)) <= 0.08 * holder.w
    return result(
        part,
        "pass" if ok else "fail",
        f"{part.role} at x {subject.x:.0f}, y {subject.y:.0f} ({subject.w:.0f} px wide)",
    )


def _box_of(subject: str, view: PageView) -> Box | None:
    element = subject.partition("@")[0]
    if element in CONTAINERS or element.startswith("section:"):
        return view.region(element)
    blocks = view.blocks(subject)
    return blocks[0].rect if blocks else None


def _styled(part: Requirement, view: PageView) -> RequirementResult:
    kind = part.checker.removeprefix("cond.")
    found = view.facts.styles.gradients if kind == "gradient" else view.facts.styles.box_shadows
    if not found:
        return result(part, "fail", f"no {kind} on the page")
    words = [w for w in re.split(r"[^a-z]+", part.role.split("@")[-1].lower()) if len(w) > 3]
    hit = next(
        (g for g in found if any(w in str(g.get("selector", "")).lower() for w in words)), None
    )
    if hit is not None or part.role == "page":
        where = hit.get("selector") if hit else found[0].get("selector")
        return result(part, "pass", f"a {kind} on {where}")
    return result(
        part, "unchecked", f"{len(found)} {kind}(s) on the page, none clearly on {part.role}"
    )


_CHECKS = {
    "text": _text,
    "control": _control,
    "widget": _widget,
    "field": _field,
    "colour": colour_check,
    "contrast": contrast_check,
    "font": type_check,
    "weight": type_check,
    "size": type_check,
    "image": _image,
    "grid": _grid,
    "columns": _columns,
    "position": _position,
    "gradient": _styled,
    "shadow": _styled,
    "thing": check_thing,
}
