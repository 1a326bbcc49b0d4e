"""Chart and table data of a planned page (offline planner helper).

Dataset tables go to the chart whose title (≈ the table's bold title) or described labels they
match best; tables left over fill the section they name (KPI tiles → items, leaderboards and lists
→ ``table``) or a new table section. A chart with no table takes numbers quoted in its own
sentences (“82%” next to its labels); failing that its data is synthesised, deterministically per
chart id, and flagged ``synthesized=True``.
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import TYPE_CHECKING

from mmstudio.plan import DataTable
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab

if TYPE_CHECKING:
    from mmstudio.providers.offline.planner import Draft
    from mmstudio.providers.offline.planner_elements import ElementDraft

_STOP = {"the", "and", "for", "with", "from", "this", "that", "chart", "graph", "table", "data"}
_MATCH_MIN = 0.3
_WEEK = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def tokens(text: str) -> set[str]:
    """Lower-case words of ≥ 3 letters, minus a few stop words."""
    return {w for w in re.findall(r"[a-z0-9]{3,}", text.lower()) if w not in _STOP}


def _overlap(a: str, b: str) -> float:
    ta, tb = tokens(a), tokens(b)
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


def _label_share(table: pt.Table, text: str) -> float:
    """Share of the table's row labels (first column) written in ``text``."""
    lowered = text.lower()
    labels = [r[0].strip().lower() for r in table.rows if r and r[0].strip()]
    return sum(label in lowered for label in labels) / len(labels) if labels else 0.0


def _score(table: pt.Table, title: str, text: str) -> float:
    return _overlap(table.title, title) + 0.6 * _label_share(table, text)


def chart_data(table: pt.Table) -> DataTable:
    """A chart's source table: the label column first (a leading "Rank" column moves to the end),
    number cells as numbers."""
    columns, rows = list(table.columns), [list(r) for r in table.rows]
    if len(columns) > 2 and all(pt.to_number(r[0]) is not None for r in rows) and not all(
        pt.to_number(r[1]) is not None for r in rows):  # fmt: skip
        columns = columns[1:] + columns[:1]
        rows = [r[1:] + r[:1] for r in rows]
    cells = [[r[0]] + [_number(c) for c in r[1:]] for r in rows]
    return DataTable(columns=columns[:50], rows=cells[:5000], source=table.title[:400])


def _number(cell: str) -> float | int | str:
    value = pt.to_number(cell)
    return cell if value is None else value


def match_chart_tables(drafts: list[Draft], tables: list[pt.Table]) -> list[pt.Table]:
    """Give each chart the dataset table that fits it best (greedy by score); charts left
    without one try their inline numbers. Returns the tables no chart took."""
    charts = [(e, d) for d in drafts for e in d.elements if e.modality == "chart"]
    pairs = sorted(
        ((_score(t, e.title or d.first("title"), e.text + " " + d.text), -ti, -ci)
         for ti, t in enumerate(tables) for ci, (e, d) in enumerate(charts)), reverse=True,
    )  # fmt: skip
    used_tables, used_charts = set(), set()
    for score, ti, ci in pairs:
        single = len(tables) == 1 and len(charts) == 1
        if (score >= _MATCH_MIN or single) and -ti not in used_tables and -ci not in used_charts:
            used_tables.add(-ti)
            used_charts.add(-ci)
            charts[-ci][0].data = chart_data(tables[-ti])
    for element, _ in charts:
        element.data = element.data or inline_data(element)
    return [t for i, t in enumerate(tables) if i not in used_tables]


def inline_data(element: ElementDraft) -> DataTable | None:
    """``[label, value]`` rows from quotes in the chart's sentences when its quoted labels and
    quoted numbers (“82%”) pair up one to one; None otherwise."""
    quotes = [q.text for q in pt.find_quotes(element.text) if q.text != element.title]
    numbers = [pt.to_number(q) for q in quotes if pt.to_number(q) is not None]
    labels = [q for q in quotes if pt.to_number(q) is None and len(q) <= 60]
    if len(numbers) < 2 or len(labels) < len(numbers):
        return None
    labels = labels[-len(numbers) :] if len(labels) > len(numbers) + 1 else labels[: len(numbers)]
    rows = [[label, value] for label, value in zip(labels, numbers, strict=False)]
    return DataTable(columns=["Category", "Value"], rows=rows, source="numbers in the prompt")


def chart_type(element: ElementDraft) -> str:
    """bar|line|area|pie|donut|… from the words of the mention (then its sentence)."""
    found = pt.first_key(element.mention, vocab.CHART_TYPES)
    found = found or pt.first_key(element.lead[:200], vocab.CHART_TYPES)
    if found == "bar" and element.data is not None and len(element.data.columns) > 2:
        return "grouped-bar"
    return found or "bar"


def synthesize(element_id: str, kind: str, element: ElementDraft) -> DataTable:
    """Plausible data for a chart the prompt gave no numbers for, seeded by ``element_id``."""
    rng = random.Random(int(hashlib.sha256(element_id.encode()).hexdigest()[:12], 16))
    labels = [q for q in element.quotes if pt.to_number(q) is None and len(q) <= 40]
    text = element.text.lower()
    if len(labels) >= 3:
        categories = [q.rstrip(",.;") for q in labels[:8]]
    elif "hour" in text:
        categories = [f"{h:02d}:00" for h in range(0, 24, 2)]
    elif "month" in text or "year" in text:
        categories = _MONTHS
    elif re.search(r"\b(?:week|day|daily)\b", text):
        categories = _WEEK
    else:
        categories = ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6"]
    series = ["Series A", "Series B"] if kind in ("grouped-bar", "stacked-bar", "radar") else ["Value"]
    rows = [[c] + [rng.randint(20, 100) for _ in series] for c in categories]
    return DataTable(columns=["Category", *series], rows=rows, synthesized=True,
                     source="synthesised by the offline planner")  # fmt: skip


def _section_score(table: pt.Table, draft: Draft) -> float:
    names = " ".join([draft.first("title"), *draft.slots.get("headings", [])])
    title_words = table.title.lower()
    hint = 0.0
    if draft.kind == "stats" and re.search(r"kpi|tiles?|cards?|highlight|summary", title_words):
        hint = 0.3
    if draft.kind == "table" and re.search(r"leaderboard|ranking|top\b|list", title_words):
        hint = 0.3
    return _overlap(table.title, names) + hint + 0.6 * _label_share(table, draft.text)


def attach_tables(drafts: list[Draft], section_ids: list[str], tables: list[pt.Table],
                  ids) -> tuple[list[Draft], list[str]]:  # fmt: skip
    """Put each leftover table in the section it fits (label/value tables become items), or in a
    new table section before the footer. Returns the (possibly longer) drafts and ids."""
    from mmstudio.providers.offline.planner import Draft as DraftClass
    from mmstudio.providers.offline.planner_assembly import merge_items

    drafts, section_ids = list(drafts), list(section_ids)
    for table in tables:
        scored = [(_section_score(table, d), -i) for i, d in enumerate(drafts)]
        best, index = max(scored) if scored else (0.0, 0)
        draft = drafts[-index] if best >= _MATCH_MIN else None
        if draft is not None and (len(table.columns) <= 3 and draft.kind == "stats"):
            merge_items(draft, table)
        elif draft is not None and draft.table is None:
            draft.table = table
            draft.kind = "table" if draft.kind == "content" else draft.kind
        else:
            new = DraftClass("table", slots={"title": [table.title]} if table.title else {})
            new.table = table
            at = next((i for i, d in enumerate(drafts) if d.kind == "footer"), len(drafts))
            at = -index + 1 if draft is not None else at
            drafts.insert(at, new)
            section_ids.insert(at, ids.take(f"table_{table.title}" if table.title else "table"))
    return drafts, section_ids
