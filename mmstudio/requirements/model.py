"""Requirements read from a brief (or a turn, or a test condition) and their status on a page.

A :class:`Requirement` is one checkable demand of the designer's words: a quoted line of copy, a
nav link, a section, a chart type or dataset, a palette colour with its role, a font, a layout
directive, a prohibition, something that must not be printed as copy. Each keeps the span of the
text it was read from, so that a designer can see *why* the page is judged wrong.

Source: MM-WebAgent (arXiv 2604.15309) — its layout / style judges compare the page with the
user's prompt, and its extraction + completeness step (prompts 17–20) lists every element the
prompt implies and scores a missing one 0.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from mmstudio.report import RequirementKind as Kind
from mmstudio.report import RequirementResult, Severity, Span

KINDS: tuple[str, ...] = Kind.__args__  # type: ignore[attr-defined]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Requirement(_Model):
    """One checkable demand. ``key`` is the short thing it is about (a label, a hex colour, a
    font, a section name, a chart type) — the same words as the brief. ``text`` is what a
    designer reads in the report ("Nav link “Speakers”")."""

    id: str
    kind: Kind
    key: str
    text: str
    span: Span = Field(default_factory=Span)
    severity: Severity = "major"
    role: str = ""
    label: str = ""
    values: list[str] = Field(default_factory=list)
    numbers: list[float] = Field(default_factory=list)
    count: int | None = None
    ratio: list[float] = Field(default_factory=list)
    order: int | None = None
    checker: str = ""  # which check family reads it ("" = the one of its kind; "data": datasets)
    subject: str = ""  # an unquoted "what it shows" ("a bar chart of students per month")
    #: the sentence punctuation the brief put inside the quotes and the label drops (“Contact.”)
    punct: str = ""
    #: the period inside the quotes ends the brief's sentence, not the copy: a title
    #: (“Closing Circle & Take-Home Guide.”) or the last of a list whose other items have none
    sentence_end: bool = False
    #: the hex code the brief gives a colour word ("forest green (#1F5C4D)"), when it does
    hex: str = ""


def pass_share(results: list[RequirementResult]) -> float | None:
    """Passed / checked (0–1); None when nothing could be checked."""
    checked = [r for r in results if r.status != "unchecked"]
    if not checked:
        return None
    return round(sum(r.status == "pass" for r in checked) / len(checked), 4)
