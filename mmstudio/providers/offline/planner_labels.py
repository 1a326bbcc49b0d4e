"""Label text of a quoted string: the words the page shows, without the prompt's sentence marks.

One pass, one job (issue 14): English puts a sentence's comma — and a short label's full stop —
inside the closing quote (three links: “Story,” “Collection,” and “Contact.”). That punctuation
belongs to the prompt's sentence, not to the label, so a nav link, button, tag, KPI, form field,
card title or heading drops it; a label's colon stays (“PRIMARY LANGUAGE:” precedes its value).
Copy (paragraphs, testimonial quotes, captions) keeps its own full stop unless it is as short as
a label ("30 min."); nothing keeps a dangling comma or semicolon. An initial's full stop ("Avery
P.") and an ellipsis ("Loading...") are part of the words and stay.

Public API: :func:`label_text`.
"""

from __future__ import annotations

import re

#: at most this many words, a label's trailing full stop is the sentence's (sitecheck's rule)
SHORT_LABEL_WORDS = 3
#: nav links and buttons never end with a full stop, up to this many words
ACTION_LABEL_WORDS = 6

_INITIAL = re.compile(r"(?:^|\s)[A-Z]\.$")  # "Jana L." — a name's initial keeps its full stop
_TRAIL = re.compile(r"[\s,;]+$")


def label_text(raw: str, slot: str) -> str:
    """The text a page shows for quote ``raw`` placed in ``slot`` (a planner slot name).

    Outer spaces and a trailing comma / semicolon always go. A full stop goes when the text is
    short (≤ :data:`SHORT_LABEL_WORDS` words; nav and button ≤ :data:`ACTION_LABEL_WORDS`),
    unless it ends an initial or an ellipsis. Returns ``raw`` stripped when nothing is left."""
    text = _TRAIL.sub("", raw.strip())
    limit = ACTION_LABEL_WORDS if slot in ("nav", "button") else SHORT_LABEL_WORDS
    if _sentence_stop(text) and len(text.split()) <= limit:
        text = text[:-1].rstrip(" ,;")
    return text or raw.strip()


def _sentence_stop(text: str) -> bool:
    """True when ``text`` ends with a single full stop that is no initial's or ellipsis's."""
    return text.endswith(".") and not text.endswith("..") and not _INITIAL.search(text)
