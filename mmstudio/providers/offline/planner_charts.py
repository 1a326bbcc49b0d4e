"""Charts as the prompt asks for them: one gauge per gauge it names (offline planner pass).

One pass, one job (issue 14, charts from the prompt's dataset): "three circular mini-gauges:
“ARPU”, “Payer Conversion”, and “Retention D1”" over a dataset table that also holds "Total
Revenue Today" is three gauge charts, each titled by its metric and drawn from its own row — not
one gauge showing the table's first row. Rows of that table the prompt does not name as gauges
("a large numeric highlight labeled “Total Revenue Today (USD)”") become KPI tiles of the section,
so no number of the dataset is lost and none is drawn as a dial it was not asked to be.

Runs after the dataset tables were matched to charts (``planner_data.match_chart_tables``).

Public API: :func:`split_gauges`.
"""

from __future__ import annotations

from dataclasses import replace

from mmstudio.plan import DataTable, SectionItem
from mmstudio.providers.offline import planner_data as data
from mmstudio.providers.offline.planner_elements import ElementDraft
from mmstudio.providers.offline.planner_sections import Draft


def split_gauges(drafts: list[Draft]) -> None:
    """In place: each gauge chart whose table rows include two or more metrics the prompt
    names beside it becomes one gauge per named metric (titled by it, one row of data); the
    table's other rows become KPI items (label, value) of the chart's section."""
    for draft in drafts:
        split: list[ElementDraft] = []
        for element in draft.elements:
            gauges = _gauges(element)
            if not gauges or element.data is None:  # gauges come only from a chart's table
                split.append(element)
                continue
            split.extend(gauges)
            named = {g.title.casefold() for g in gauges}
            for row in element.data.rows:
                if str(row[0]).casefold() not in named and len(row) > 1:
                    label = _take_heading(draft, str(row[0])) or str(row[0])
                    draft.add("items", SectionItem(label=label, value=_shown(row[1])))
        draft.elements = split


def _take_heading(draft: Draft, label: str) -> str:
    """The section's heading that names the KPI ("Total Revenue Today (USD)" for the row
    "Total Revenue Today"), taken out of the headings so it labels its number once; "" if none."""
    for slot in ("headings", "title"):
        values = draft.slots.get(slot, [])
        for value in values:
            if isinstance(value, str) and value.casefold().startswith(label.casefold()):
                values.remove(value)
                return value
    return ""


def _gauges(element: ElementDraft) -> list[ElementDraft]:
    """One gauge per named row of ``element``'s table, or [] when it is no such chart."""
    table = element.data
    if element.modality != "chart" or table is None or table.synthesized or len(table.rows) < 2:
        return []
    if data.chart_type(element) != "gauge":
        return []
    names = {q.strip(" ,.;").casefold() for q in [*element.quotes, element.title]}
    rows = [r for r in table.rows if str(r[0]).casefold() in names and len(r) > 1]
    if len(rows) < 2:
        return []
    return [
        replace(
            element,
            title=str(row[0]),
            quotes=[str(row[0])],
            captions=[],
            data=DataTable(columns=table.columns[:2], rows=[row[:2]], source=table.source),
        )
        for row in rows
    ]


def _shown(value: object) -> str:
    """A KPI value as the page shows it: 1938272 → "1,938,272"; text stays as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")
