"""Section names: the quoted name a prompt gives a section (offline planner pass).

One pass, one job (issue 14, copy with roles): 'a quiet “Library” section highlighting …',
'an “Excerpts from the journal” section styled like …'. The quote before the section word
names the section; it is not necessarily the heading the page shows. When the section's own
sentences give a heading ('The section heading reads “Library of calm practices”', 'the title
text “From the Journal.”'), that heading stays the section's title and the name becomes the
small label above it (the eyebrow) — unless the name is built on a component noun of
``resources/offline/section_names.json`` (“Tickets & Call to Action”): then it is the
designer's name for a part of the layout and is kept as a note, never shown. A section whose
sentences give no heading takes its name as its title.

Public API: :data:`NAME_SLOT`, :func:`heads_section`, :func:`pending`, :func:`settle_names`.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import TYPE_CHECKING

from mmstudio.providers.offline import planner_eyebrows as eyebrows
from mmstudio.resources import resource

if TYPE_CHECKING:
    from mmstudio.providers.offline.planner_sections import Draft

#: the draft slot a quoted section name waits in until :func:`settle_names`
NAME_SLOT = "name"


@cache
def _words(key: str) -> re.Pattern[str]:
    """The word list ``key`` of ``resources/offline/section_names.json`` as one pattern."""
    data = json.loads(resource("offline", "section_names.json").read_text(encoding="utf-8"))
    words = sorted(data[key], key=len, reverse=True)
    listed = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in words)
    return re.compile(rf"(?<![\w’'])(?:{listed})(?![\w’'])", re.I)


def heads_section(prefix: str) -> bool:
    """True when a title quote's sentence, up to the quote (``prefix``), names the section's
    own heading ("The section heading reads", "sits above the title text") rather than an
    item's ("each item … followed by a title", "one card titled")."""
    clause = prefix[-160:]
    return bool(_words("heading_words").search(clause)) and not _words("item_words").search(clause)


def pending(draft: Draft) -> bool:
    """True while ``draft`` holds a quoted name and no title: a title quote that is no
    section heading (:func:`heads_section`) then goes to the headings, as under a title."""
    return bool(draft.slots.get(NAME_SLOT)) and not draft.first("title")


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def settle_names(draft: Draft) -> None:
    """Move the quoted names in ``draft.slots["name"]`` to where the page shows them: the
    title when the draft has none, else the eyebrow (when it has none and the name is a short
    label, no component name), else a note. Names equal to the title are dropped; the first
    name is kept in ``draft.name``."""
    for name in draft.slots.pop(NAME_SLOT, []):
        draft.name = draft.name or name  # the kind may still read it (“Tickets & …” → pricing)
        title = draft.first("title")
        if not title:
            slot = "title"
        elif _key(name) == _key(title):
            slot = ""
        elif (
            not draft.first("eyebrow")
            and len(name.split()) <= eyebrows.MAX_WORDS
            and not _words("component_nouns").search(name)
        ):
            slot = "eyebrow"  # the quiet “Library” above “Library of calm practices”
        else:
            slot = "notes"  # “Tickets & Call to Action”: names the part, never shown
        where = draft.order.index(NAME_SLOT)  # the name keeps its place in the prose order
        if slot:
            draft.order[where] = slot
            draft.slots.setdefault(slot, []).append(name)
        else:
            del draft.order[where]
