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

from mmstudio.plan import DataTable, SectionItem
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab
from mmstudio.providers.offline.planner_sections import Draft

if TYPE_CHECKING:
    from mmstudio.providers.offline.planner_elements import ElementDraft
    from mmstudio.providers.offline.planner_sections import Draft

_STOP = {"the", "and", "for", "with", "from", "this", "that", "chart", "graph", "table", "data"}
_MATCH_MIN = 0.3
_MAX_TABLES = 40  # a dataset with more tables than a page can show is cut here
_WEEK = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

Cell = float | int | str | None
"""One cell of a :class:`~mmstudio.plan.DataTable` row (a number, text, or None when empty)."""


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


def chart_data(table: pt.Table, title: str = "") -> DataTable:
    """A chart's source table: the label column first (a leading "Rank" column moves to the
    end), then the numeric columns — only the one the chart's ``title`` names when it names
    one ("Average Drag …" → ``Avg_Drag_N``) — with number cells as numbers."""
    columns, rows = list(table.columns), [list(r) for r in table.rows]
    if (
        len(columns) > 2
        and all(pt.to_number(r[0]) is not None for r in rows)
        and not all(pt.to_number(r[1]) is not None for r in rows)
    ):
        columns = columns[1:] + columns[:1]
        rows = [r[1:] + r[:1] for r in rows]
    numeric = [
        i for i in range(1, len(columns)) if all(pt.to_number(r[i]) is not None for r in rows)
    ]
    named = [i for i in numeric if _overlap(columns[i].replace("_", " "), title) > 0]
    keep = [0] + (named[:1] if len(numeric) > 2 and len(named) == 1 else numeric or [1])
    cells: list[list[Cell]] = [[r[0], *(_number(r[i]) for i in keep[1:])] for r in rows]
    return DataTable(
        columns=[pt.column_label(columns[i]) for i in keep][:50],
        rows=cells[:5000],
        source=pt.display_title(table.title)[:400],
    )


def _number(cell: str) -> float | int | str:
    value = pt.to_number(cell)
    return cell if value is None else value


def match_chart_tables(drafts: list[Draft], tables: list[pt.Table]) -> list[pt.Table]:
    """Give each chart the dataset table that fits it best (greedy by score); charts left
    without one try their inline numbers. Returns the tables no chart took (at most
    :data:`_MAX_TABLES` tables are read)."""
    tables = tables[:_MAX_TABLES]
    charts = [(e, d) for d in drafts for e in d.elements if e.modality == "chart"]
    pairs = sorted(
        (
            (_score(t, e.title or d.first("title"), e.text + " " + d.text), -ti, -ci)
            for ti, t in enumerate(tables)
            for ci, (e, d) in enumerate(charts)
        ),
        reverse=True,
    )
    used_tables, used_charts = set(), set()
    for score, ti, ci in pairs:
        single = len(tables) == 1 and len(charts) == 1
        if (score >= _MATCH_MIN or single) and -ti not in used_tables and -ci not in used_charts:
            used_tables.add(-ti)
            used_charts.add(-ci)
            element, draft = charts[-ci]
            element.data = chart_data(tables[-ti], element.title or draft.first("title"))
    for element, _ in charts:
        element.data = (
            element.data
            or prose_data(element.text)
            or inline_data(element)
            or listed_data(element.lead)
        )
    return [t for i, t in enumerate(tables) if i not in used_tables]


_NUM = r"[-+]?\d(?:[\d,]*\d)?(?:\.\d+)?"
_GROUP = re.compile(r"([^()]{1,80})\(([^()]{3,200})\)")
_MEASURE = re.compile(
    rf"^\s*(?:and\s+)?([A-Za-z][\w'’ -]{{0,30}}?)\s*(?:[:=]|\bat\b|\bof\b)?\s*({_NUM})"
    r"\s*(?:%|/\s*\d+|[a-z]{0,3})?\s*$"
)
_SIMPLE = re.compile(
    rf"(?:^|[,;:(]\s*|\s)[“\"]?([A-Z][\w&'’/ -]{{0,40}}?)[”\"]?\s*"
    rf"(?::|=|\bat\b|–|—|\()\s*({_NUM})\s*(%|k|m)?\)?(?=[\s,;.)]|$)"
)
_COUNTED = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s+([a-z]{3,20}?)(ies|s)\b", re.I
)


def prose_data(text: str) -> DataTable | None:
    """A chart's numbers written in its sentences: "Ethiopia Guji (sweetness 8, acidity 9, body
    5), Colombia Huila (…)" → columns ``[Origin, Sweetness, Acidity, Body]`` (the label column
    named by a counted noun, "our three origins", else "Category"); "Cardio: 12, Yoga: 30" or
    "Cardio at 45%" → ``[Category, Value]``. None when fewer than two rows are found."""
    records = _grouped_records(text)
    if len(records) >= 2:
        keys = list(records[0][1])
        rows: list[list[Cell]] = [[label, *(values[k] for k in keys)] for label, values in records]
        columns = [_label_column(text), *(k[:1].upper() + k[1:] for k in keys)]
        return DataTable(columns=columns, rows=rows, source="numbers in the prompt")
    found = [(m.group(1).strip(), pt.to_number(m.group(2))) for m in _SIMPLE.finditer(text)]
    pairs = [(label, value) for label, value in found if value is not None and len(label) > 1]
    if len(pairs) < 2:
        return None
    rows = [[label, value] for label, value in pairs[:24]]
    return DataTable(
        columns=[_label_column(text), "Value"], rows=rows, source="numbers in the prompt"
    )


_PAIR = re.compile(
    rf"([A-Z][\w&'’/-]*(?: [\w&'’/-]+){{0,3}}?)\s+([£$€]?)({_NUM})(\s*(?:%|k|m)\b|%)?"
)
_PAIR_GAP = re.compile(r"^\s*(?:,\s*(?:and\s+)?|and\s+)$")


def listed_pairs(text: str) -> list[tuple[str, str]]:
    """``[(label, value as written)]`` of the first run of "Label number" pairs in ``text``
    joined by commas or "and" ("Revenue $12,480, Orders 318 and Conversion 3.2%" →
    ``[("Revenue", "$12,480"), ("Orders", "318"), ("Conversion", "3.2%")]``); [] when the run
    has fewer than two pairs."""
    pairs: list[tuple[str, str]] = []
    end = -1
    for match in _PAIR.finditer(text):
        if pairs and not _PAIR_GAP.match(text[end : match.start()]):
            if len(pairs) >= 2:
                break
            pairs = []
        shown = match.group(2) + match.group(3) + (match.group(4) or "").strip()
        pairs.append((match.group(1), shown))
        end = match.end()
    return pairs if len(pairs) >= 2 else []


def listed_data(text: str) -> DataTable | None:
    """``[Category, Value]`` rows from :func:`listed_pairs` of ``text`` ("with data Jan 40,
    Feb 52, Mar 61" → Jan 40, Feb 52, Mar 61); None when fewer than two pairs."""
    rows: list[list[Cell]] = []
    for label, shown in listed_pairs(text)[:24]:
        value = pt.to_number(shown.lstrip("£$€").rstrip("%"))
        if value is not None:
            rows.append([label, value])
    if len(rows) < 2:
        return None
    return DataTable(
        columns=[_label_column(text), "Value"], rows=rows, source="numbers in the prompt"
    )


def _grouped_records(text: str) -> list[tuple[str, dict[str, float | int | None]]]:
    """``[(label, {measure: number})]`` for "Label (m1 8, m2 9)" groups sharing one key set
    (a measure whose number :func:`~.prompt_text.to_number` cannot read is None)."""
    records: list[tuple[str, dict[str, float | int | None]]] = []
    for match in _GROUP.finditer(text):
        label = re.split(r"[:;,.]|\band\b|\bor\b", match.group(1))[-1].strip(" “”\"'")
        values: dict[str, float | int | None] = {}
        for part in re.split(r"[,;]|\band\b", match.group(2)):
            measure = _MEASURE.match(part)
            if not part.strip():
                continue
            if not measure:
                values = {}
                break
            values[measure.group(1).strip().lower()] = pt.to_number(measure.group(2))
        if label and len(label.split()) <= 6 and len(values) >= 1:
            if records and set(values) != set(records[0][1]):
                continue
            records.append((label, values))
    return records


def _label_column(text: str) -> str:
    """The name of a chart's label column: the noun a count names ("three origins" → Origin)."""
    match = _COUNTED.search(text)
    if not match or match.group(1).lower() in ("time", "number", "value", "score", "bar", "line"):
        return "Category"
    stem = match.group(1) + ("y" if match.group(2).lower() == "ies" else "")
    return stem[:1].upper() + stem[1:].lower()


def inline_data(element: ElementDraft) -> DataTable | None:
    """``[label, value]`` rows from quotes in the chart's sentences: its quoted labels paired in
    order with its quoted numbers (“82%”), axis ends (“0%” … “100%”) left out; None when fewer
    than two pairs."""
    quotes = [q.text for q in pt.find_quotes(element.text) if q.text != element.title]
    numbers = [n for n in (pt.to_number(q) for q in quotes) if n is not None]
    if len(numbers) > 2 and numbers[0] == 0 and numbers[1] in (1, 10, 100, 1000):
        numbers = numbers[2:]
    labels = [q for q in quotes if pt.to_number(q) is None and len(q) <= 60]
    count = min(len(labels), len(numbers))
    if count < 2:
        return None
    pairs = zip(labels[:count], numbers[-count:], strict=True)
    rows: list[list[Cell]] = [[label, value] for label, value in pairs]
    return DataTable(columns=["Category", "Value"], rows=rows, source="numbers in the prompt")


def chart_type(element: ElementDraft) -> str:
    """bar|line|area|pie|donut|… from the words of the mention (then its sentence)."""
    found = pt.first_key(element.mention.replace("-", " "), vocab.CHART_TYPES)
    found = found or pt.first_key(element.lead[:200].replace("-", " "), vocab.CHART_TYPES)
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
    series = (
        ["Series A", "Series B"] if kind in ("grouped-bar", "stacked-bar", "radar") else ["Value"]
    )
    rows: list[list[Cell]] = [[c, *(rng.randint(20, 100) for _ in series)] for c in categories]
    return DataTable(
        columns=["Category", *series],
        rows=rows,
        synthesized=True,
        source="synthesised by the offline planner",
    )


def _section_score(table: pt.Table, draft: Draft) -> float:
    names = " ".join([draft.first("title"), *draft.slots.get("headings", [])])
    title_words = table.title.lower()
    hint = 0.0
    if draft.kind == "stats" and re.search(r"kpi|tiles?|cards?|highlight|summary", title_words):
        hint = 0.3
    if draft.kind == "table" and re.search(r"leaderboard|ranking|top\b|list", title_words):
        hint = 0.3
    return _overlap(table.title, names) + hint + 0.6 * _label_share(table, draft.text)


def attach_tables(drafts: list[Draft], tables: list[pt.Table]) -> list[Draft]:
    """Put each leftover table in the section it fits (label/value tables become items), or in a
    new table section (after the one it nearly fits, else before the footer). Returns the
    (possibly longer) list of drafts."""
    drafts = list(drafts)
    for table in tables:
        scored = [(_section_score(table, d), -i) for i, d in enumerate(drafts)]
        best, index = max(scored) if scored else (0.0, 0)
        draft = drafts[-index] if best >= _MATCH_MIN else None
        if (
            draft is not None
            and len(table.columns) <= 3
            and (draft.kind == "stats" or _labels_placed(draft, table) >= 0.5)
        ):
            merge_items(draft, table)
        elif draft is not None and draft.table is None:
            draft.table = table
            draft.kind = "table" if draft.kind == "content" else draft.kind
        else:
            title = pt.display_title(table.title)
            new = Draft("table", slots={"title": [title]} if title else {})
            new.table = table
            at = next((i for i, d in enumerate(drafts) if d.kind == "footer"), len(drafts))
            drafts.insert(-index + 1 if draft is not None else at, new)
    return drafts


def _labels_placed(draft: Draft, table: pt.Table) -> float:
    """Share of a table's row labels the section already shows as tags, headings or items."""
    shown = {_loose(t) for name in ("tags", "headings") for t in draft.slots.get(name, [])}
    shown |= {_loose(i.label or i.title) for i in draft.slots.get("items", [])}
    labels = [_loose(r[0]) for r in table.rows if r]
    return sum(label in shown for label in labels) / len(labels) if labels else 0.0


def merge_items(draft: Draft, table: pt.Table) -> None:
    """Fill a section's items from a label/value table: a row whose label matches an existing
    item, tag or heading (ignoring case and punctuation) gives it its value (a tag or heading
    becomes an item, keeping its verbatim text); other rows are appended."""
    labels = {_loose(r[0]) for r in table.rows if r}
    for name in ("tags", "headings"):
        moved = [t for t in draft.slots.get(name, []) if _loose(t) in labels]
        draft.slots[name] = [t for t in draft.slots.get(name, []) if t not in moved]
        draft.slots.setdefault("items", []).extend(SectionItem(label=t) for t in moved)
    items: list[SectionItem] = draft.slots.setdefault("items", [])
    by_key = {_loose(i.label or i.title): i for i in items}
    for row in table.rows:
        value, meta = (row[1] if len(row) > 1 else ""), " · ".join(row[2:])
        item = by_key.get(_loose(row[0]))
        if item is None:
            items.append(SectionItem(label=row[0][:200], value=value[:120], meta=meta[:400]))
        else:
            item.value = item.value or value[:120]
            item.meta = item.meta or meta[:400]


def fill_values(drafts: list[Draft], tables: list[pt.Table]) -> None:
    """Give a KPI tile that has a label but no value the number the dataset gives for it: the
    first numeric cell of the first table row labelled like the tile (ignoring case and
    punctuation), with "%" when the row's unit column says percent. Tiles the dataset does not
    mention keep no value."""
    rows: dict[str, str] = {}
    for table in tables:
        unit_at = next(
            (i for i, c in enumerate(table.columns) if c.strip().lower() in ("unit", "units")),
            None,
        )
        for row in table.rows:
            number = next((c for c in row[1:] if pt.to_number(c) is not None), None)
            if not row or number is None:
                continue
            unit = row[unit_at].strip().lower() if unit_at is not None else ""
            shown = number.strip() + ("%" if unit in ("percent", "%") and "%" not in number else "")
            rows.setdefault(_loose(row[0]), shown)
    for draft in drafts:
        for item in draft.slots.get("items", []):
            if isinstance(item, SectionItem) and item.label and not item.value:
                item.value = rows.get(_loose(item.label), "")[:120]


def _loose(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()
