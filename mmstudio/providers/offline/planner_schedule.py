"""Schedules as rows: each time with its session and subline in one item (offline planner pass).

One pass, one job (issue 14, grouped content): "at “19:00” the text reads “DOORS OPEN …”; a
smaller subline beneath it: “The main hall becomes …”. At “20:00” the row text: “TALK: …” …
22:00: “LIVE 3D PRINT DEMO …”" is a schedule; the quote placer alone scatters its times into
headings and its sessions into chips (times under the wrong sessions). This pass reads a section's
sentences for a time (quoted or not: "19:00", "6:30 pm") followed closely by a quoted session,
and a subline quote right after the session ("subline", "beneath", "smaller text", "with …
text"). Three or more such rows make the section's items (``meta`` the time, ``title`` the
session, ``text`` the subline); their strings leave the section's headings, tags and paragraphs.

Public API: :class:`Row`, :func:`read_rows`, :func:`group_rows`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mmstudio.plan import SectionItem
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline.planner_labels import label_text
from mmstudio.providers.offline.planner_sections import Draft

#: a clock time: 19:00, 9.30, 6:30 pm
TIME = re.compile(r"(?<![\d:.])(\d{1,2}[:.]\d{2}(?:\s?[ap]\.?m\.?)?)(?![\d])", re.I)
#: at most this many characters between a time and its session's opening quote
TIME_GAP = 60
#: at most this many characters between a session and its subline
SUB_GAP = 120
MIN_ROWS = 3
_SUBLINE = re.compile(
    r"\b(?:subline|sub-line|subtext|sub-text|beneath|below|under(?:neath)?|smaller|description|"
    r"caption|text|line)\b",
    re.I,
)


_SCHEDULE = re.compile(
    r"\b(?:schedule|agenda|programme|program|line-?up|timetable|itinerary)\b", re.I
)


@dataclass(frozen=True)
class Row:
    """One schedule row: a time, its session and (maybe) a subline."""

    time: str
    title: str
    text: str = ""

    def item(self) -> SectionItem:
        """The row as a section item: ``meta`` the time, ``title`` the session, ``text``."""
        return SectionItem(meta=self.time, title=self.title, text=self.text)


def read_rows(text: str) -> list[Row]:
    """The schedule rows of a section's ``text``, in order; [] when fewer than :data:`MIN_ROWS`."""
    quotes = [q for q in pt.find_all_quotes(text) if not TIME.fullmatch(q.text.strip(" ,.;:"))]
    rows: list[Row] = []
    for match in TIME.finditer(text):
        if any(q.start < match.start() < q.end for q in quotes):
            continue  # a time inside a session's own words ("Tomorrow 07:00 — @ken_ja")
        session = next((q for q in quotes if q.start >= match.end()), None)
        if session is None or session.start - match.end() > TIME_GAP:
            continue
        gap = text[match.end() : session.start]
        if TIME.search(gap) or re.search(r"[.;]\s", gap):
            continue  # another time, or a new sentence, before the quote: not this time's
        title = label_text(session.text, "heading")
        rows.append(Row(match.group(1), title, _subline(text, quotes, session)))
    return rows if len(rows) >= MIN_ROWS else []


def _subline(text: str, quotes: list[pt.Quote], session: pt.Quote) -> str:
    """The quote right after ``session`` that the prompt calls its subline, else ""."""
    after = next((q for q in quotes if q.start > session.end), None)
    if after is None or after.start - session.end > SUB_GAP:
        return ""
    gap = text[session.end : after.start]
    if TIME.search(gap) or not _SUBLINE.search(gap):
        return ""
    return label_text(after.text, "paragraph")


def group_rows(draft: Draft) -> None:
    """In place: a timeline draft (or one that says schedule / agenda / programme …) whose
    sentences hold a schedule gets one item per row; the rows' strings leave its headings,
    tags, paragraphs and loose items."""
    if draft.kind != "timeline" and not _SCHEDULE.search(draft.text):
        return
    rows = read_rows(draft.text)
    if not rows:
        return
    used = {s.casefold() for r in rows for s in (r.time, r.title, r.text) if s}
    for slot in ("headings", "tags", "paragraphs"):
        values = draft.slots.get(slot, [])
        draft.slots[slot] = [v for v in values if label_text(str(v), "tag").casefold() not in used]
    kept = [
        i
        for i in draft.slots.get("items", [])
        if not any(label_text(t, "tag").casefold() in used for t in (i.title, i.text) if t)
    ]
    draft.slots["items"] = [r.item() for r in rows] + kept
