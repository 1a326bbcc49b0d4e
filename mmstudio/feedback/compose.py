"""A turn's marks put into words, so a model (and the ledger) cannot miss a small note in a dense
drawing (FronTalk's visual interpretation gap): "mark 2: rectangle over the image `hero_photo`
in the hero section — note: 'warmer, less busy'"."""

from __future__ import annotations

from .annotation import SHAPE_WORDS
from .elements import PageElement, by_id
from .resolve import Mark

_RELATION = {"arrow": "pointing at", "text": "on", "pen": "around"}


def target_words(element_id: str, elements: list[PageElement]) -> str:
    """ "the image `hero_photo` in the hero section" (the id alone when unknown)."""
    element = by_id(elements, element_id)
    if element is None:
        return f"`{element_id}`"
    where = (
        f" in the {element.section} section"
        if element.section and element.kind != "section"
        else ""
    )
    if element.kind == "text":
        return f"the {element.tag} text “{element.text[:40]}” `{element.id}`{where}"
    return f"{element.label.removesuffix(' section')} `{element.id}`{where}"


def mark_line(mark: Mark, elements: list[PageElement]) -> str:
    """One mark as one line of words ("mark 2: rectangle in free space in the charts section —
    note: 'image: a lighthouse at dusk'" for a box over no element)."""
    relation = _RELATION.get(mark.shape.kind, "over")
    shape = SHAPE_WORDS[mark.shape.kind]
    if mark.free:  # a box over no element marks a place, where a new element may go
        section = next((t for t in mark.targets if getattr(by_id(elements, t), "kind", "") ==
                        "section"), None)  # fmt: skip
        relation = "in"
        targets = f"free space in the {section} section" if section else "free space"
    elif mark.targets:
        targets = " and ".join(target_words(t, elements) for t in mark.targets)
    else:
        targets = "free space (no element)"
    line = f"mark {mark.number}: {shape} {relation} {targets}"
    if mark.notes:
        line += " — note: " + "; ".join(_quoted(n) for n in mark.notes)
    return line


def _quoted(note: str) -> str:
    return note if note[:1] in "'\"“‘" and note[-1:] in "'\"”’" else f"'{note}'"


def compose(text: str, marks: list[Mark], elements: list[PageElement], width: int = 1280) -> str:
    """The turn as the words sent with the image: the instruction, then one line per mark."""
    lines = [f"Instruction: {text.strip() or '(none: see the marks)'}"]
    if marks:
        lines.append(f"Marks on the screenshot (page px at {width} px wide):")
        lines += [f"- {mark_line(m, elements)}" for m in marks]
    return "\n".join(lines)
