"""The datasets a design prompt gives, read independently of the planner: markdown tables (with
their ``**Title**`` headings), CSV blocks and inline "label: value" lists; how their labels and
numbers show up on a page ("74,215" / "74 215" / "74.2k", "Mon" for "Monday", "00:00" for "0");
and the check of a dataset drawn as tiles, a table or a list. Linear in the text; never raises.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass, field

from mmstudio.render.facts import ChartFact, PageFacts

from .model import Requirement, RequirementResult

_CELL = re.compile(  # a number opening a cell: sign, thousands separators, decimals, suffix
    r"^[$€£¥₹]?\s*([+\-−])?\s*(\d{1,3}(?:[,\u00a0\u202f ]\d{3})+|\d+)(?:[.,](\d+))?"
    r"\s*(%|[kKmMbB](?![a-zA-Z]))?(.*)$"
)
_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9}
_RANK = re.compile(r"^(rank|#|no\.?|pos(ition)?|place|id)$", re.I)
_TOTAL = re.compile(r"^(total|sum|overall|all)\b", re.I)
_HEADING = re.compile(r"^\s*(?:#{1,6}\s*(.+?)\s*#*|\*\*(.+?)\*\*:?|__(.+?)__|([^|`]{2,100}):)\s*$")
_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_GENERIC = {"dataset", "datasets", "data", "data set", "data sets", "sample data", "the data"}
_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_HOUR = re.compile(r"^(\d{1,2})(?:[:.h]00)?\s*(h|am|pm)?$")
_STOP = frozenset(re.findall(r"\w+", "a an the of by for and in on to per vs with at this that"))


def norm(text: str) -> str:
    """Lower case, NFKC, punctuation as spaces, spaces collapsed."""
    text = unicodedata.normalize("NFKC", text or "").lower()
    return " ".join(re.sub(r"[^\w%]+|_", " ", text).split())


def words(text: str) -> set[str]:
    return {w for w in norm(text).replace("%", " ").split() if w not in _STOP}


def similarity(a: str, b: str) -> float:
    """Dice overlap of two titles' content words (0–1); 1 when the shorter's ≥ 2 words are all
    in the longer."""
    wa, wb = words(a), words(b)
    common = len(wa & wb)
    if common >= 2 and common == min(len(wa), len(wb)):
        return 1.0
    return 2 * common / (len(wa) + len(wb)) if wa and wb else 0.0


def strip_aside(title: str) -> str:
    """ "Game Health Profile (Radar Chart)" → "Game Health Profile"."""
    return re.sub(r"\s*\([^()]*\)\s*", " ", title).strip() or title


def parse_number(cell: object) -> float | None:
    """ "65,980" → 65980, "98.4%" → 98.4, "+1.2%" → 1.2, "1.2M" → 1200000; None for "00:00",
    "2024-01", "SF-01", "Q1", ""."""
    if isinstance(cell, bool) or cell is None:
        return None
    if isinstance(cell, int | float):
        return float(cell)
    m = _CELL.match(str(cell).strip()[:60])
    if not m or m.group(5)[:1] in (":", "/", "-", "–") or re.match(r"^\s*\d", m.group(5)):
        return None  # not a number, or a time, a date, a range, two numbers
    sign, whole, frac, suffix, _ = m.groups()
    value = float(re.sub(r"\D", "", whole) + ("." + frac if frac else ""))
    value *= _SUFFIX.get((suffix or "").lower(), 1)
    return -value if sign in ("-", "−") else value


@dataclass
class Table:
    """One dataset: a title (maybe ""), headers, rows; ``start``/``end`` are offsets into the
    prompt, the heading included. ``used`` / ``taken``: drawn by a chart (wholly / these rows)."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    start: int = 0
    end: int = 0
    used: bool = False
    taken: set[str] = field(default_factory=set)
    label_col: int | None = None

    def numeric(self, i: int) -> bool:
        cells = [r[i] for r in self.rows if i < len(r) and r[i].strip()]
        return bool(cells) and sum(parse_number(c) is not None for c in cells) >= 0.7 * len(cells)

    @property
    def label_index(self) -> int:
        """The column naming the rows: the first, unless it is a rank and a text column follows."""
        if self.label_col is not None:
            return self.label_col
        if len(self.columns) > 1 and _RANK.match(self.columns[0].strip()):
            return next((i for i in range(1, len(self.columns)) if not self.numeric(i)), 0)
        return 0

    @property
    def series_indices(self) -> list[int]:
        return [i for i in range(len(self.columns)) if i != self.label_index and self.numeric(i)
                and not _RANK.match(self.columns[i].strip())]  # fmt: skip

    def _keep(self, row: list[str], totals: bool) -> bool:
        li = self.label_index
        return li < len(row) and bool(row[li].strip()) and (totals or not _TOTAL.match(row[li]))

    def labels(self, totals: bool = True) -> list[str]:
        return [r[self.label_index].strip() for r in self.rows if self._keep(r, totals)]

    def series(self, i: int, totals: bool = True) -> list[float]:
        cells = [
            parse_number(r[i]) if i < len(r) else None for r in self.rows if self._keep(r, totals)
        ]
        return [x for x in cells if x is not None]

    def best_series(self, title: str = "") -> int | None:
        """The numeric column whose header shares most words with ``title``, else the first."""
        want, cols = words(title), self.series_indices
        return (
            max((len(words(self.columns[i]) & want), -k, i) for k, i in enumerate(cols))[2]
            if cols
            else None
        )

    def pick_labels(self, window: str) -> None:
        """Name the rows by the text column of distinct cells that ``window`` quotes most."""
        text, cols = norm(window), [i for i in range(len(self.columns)) if not self.numeric(i)]
        cells = {i: {norm(r[i]) for r in self.rows if i < len(r)} for i in cols}
        distinct = [i for i in cols if len(cells[i]) == len(self.rows)]
        hits = max(((sum(c in text for c in cells[i]), i) for i in distinct), default=(0, 0))
        if len(cols) > 1 and hits[0] > 0:
            self.label_col = hits[1]


def _cells(line: str) -> list[str]:
    s = line.strip().removeprefix("|").removesuffix("|")
    return [c.strip().strip("*").strip() for c in s.split("|")]


def _title_before(lines: list[tuple[int, str]], k: int) -> tuple[str, int]:
    """The heading on the first non-empty line above line ``k``, and where it starts."""
    j = next((j for j in range(k - 1, max(-1, k - 6), -1) if lines[j][1].strip()), -1)
    m = _HEADING.match(lines[j][1]) if j >= 0 else None
    if not m:
        return "", lines[k][0]
    title = next(g for g in m.groups() if g).strip().strip("*").strip()
    return ("" if norm(title) in _GENERIC else title[:120]), lines[j][0]


def find_tables(text: str) -> list[Table]:
    """Every markdown table and CSV block of ``text``, in order (≤ 200 rows each)."""
    lines, pos = [], 0
    for line in text.split("\n"):
        lines.append((pos, line))
        pos += len(line) + 1
    tables: list[Table] = []
    k = 0
    while k < len(lines):
        stripped, j, rows = lines[k][1].strip(), k + 1, []
        if stripped.startswith("|") and stripped.count("|") >= 2:
            j = k
            while j < len(lines) and lines[j][1].strip().startswith("|"):
                if not _SEPARATOR.match(lines[j][1].strip()):
                    rows.append(_cells(lines[j][1]))
                j += 1
        elif stripped.startswith("```") and ("csv" in stripped.lower() or stripped == "```"):
            while j < len(lines) and not lines[j][1].strip().startswith("```"):
                j += 1
            body = [t for _, t in lines[k + 1 : j] if t.strip()]
            if len(body) >= 2 and all("," in b for b in body[:5]):
                rows = [[c.strip() for c in r] for r in csv.reader(body[:201])]
            j += 1
        rows = [r for r in rows if any(r)]
        if len(rows) >= 2 and max(len(r) for r in rows) >= 2:
            title, start = _title_before(lines, k)
            end = lines[min(j, len(lines)) - 1][0] + len(lines[min(j, len(lines)) - 1][1])
            tables.append(Table(title, rows[0], rows[1:201], start, end))
        k = max(j, k + 1)
    return tables


_QUOTED = r"[“\"«„「『]([^”\"»“」』\n]{1,60}?)[,.;:]?[”\"»“」』]"
_QLIST = re.compile(_QUOTED + r"(?:\s*(?:,|;|and|or|&|、|et|und|y)?\s*(?:and\s+)?" + _QUOTED + ")+")
_QONE = re.compile(_QUOTED)
_PAIR = re.compile(
    r"(?:[“\"«]([^”\"»\n]{1,40})[”\"»]|\b([A-Z][\w’'&.-]*(?: [A-Z][\w’'&.-]*){0,2}))"
    r"(?::\s*|\s*\(\s*|\s+)(\d[\d,]*(?:\.\d+)?)\s*(%|[kKmM]\b)?"
)


def quoted_list(window: str, skip: str = "") -> list[str]:
    """The first list of ≥ 2 quoted words in ``window`` that are not mostly numbers."""
    for m in _QLIST.finditer(window):
        items = [
            i
            for q in _QONE.finditer(m.group(0))
            if (i := q.group(1).strip()) and norm(i) != norm(skip)
        ]
        if len(items) >= 2 and sum(parse_number(i) is None for i in items) >= len(items) / 2:
            return items[:40]
    return []


def inline_pairs(window: str) -> tuple[list[str], list[float]]:
    """ "Monday 55, Tuesday 62, …", "Mon: 30, Tue: 45", "“ARPU” (80%), …": the longest run of
    ≥ 3 label–number pairs in ``window``."""
    best: list[tuple[str, float]] = []
    run: list[tuple[str, float]] = []
    last = -1
    for m in _PAIR.finditer(window):
        label, value = (
            (m.group(1) or m.group(2) or "").strip(),
            parse_number(m.group(3) + (m.group(4) or "")),
        )
        if value is None or not label:
            continue
        if last < 0 or m.start() - last > 12 or re.search(r"[.!?]", window[last : m.start()]):
            run = []
        run.append((label, value))
        last = m.end()
        best = list(run) if len(run) > len(best) else best
    return ([b[0] for b in best], [b[1] for b in best]) if len(best) >= 3 else ([], [])


def label_keys(label: object) -> set[str]:
    """Ways one category can be written: "Monday" ≈ "Mon", "0" ≈ "00:00" ≈ "12 AM"."""
    n = norm(str(label))
    keys = {n, n.replace(" ", "")} if n else set()
    if n[:3] in _DAYS and (len(n) <= 3 or n.endswith("day") or n.startswith(n[:3] + " ")):
        keys.add("day:" + n[:3])
    if n[:3] in _MONTHS and len(n.split()[0]) <= 9:
        keys.add("month:" + n[:3])
    if m := _HOUR.match(n.replace(" ", "") if "m" in n else n):
        hour = (
            int(m.group(1)) % 12 + (12 if m.group(2) == "pm" else 0)
            if m.group(2) in ("am", "pm")
            else int(m.group(1)) % 24
        )
        keys.add(f"hour:{hour}")
    return keys


def labels_found(expected: list[str], seen: list[object]) -> list[bool]:
    """For each expected label: is it among ``seen`` (short forms allowed, and labels that hold
    one another: "Steps Goal" in "Steps Goal 92%")."""
    seen_keys = {k for s in seen[:2000] for k in label_keys(s)}
    seen_norm = [n for s in seen[:2000] if len(n := norm(str(s))) >= 3]
    out = []
    for e in expected:
        n = norm(e)
        out.append(bool(label_keys(e) & seen_keys) or (len(n) >= 3 and any(
            n in s or (len(s) >= 4 and s in n) for s in seen_norm)))  # fmt: skip
    return out


def close(a: float, b: float) -> bool:
    """Equal up to rounding (1 %, or 0.05 for small numbers)."""
    return abs(a - b) <= max(0.011 * abs(a), 0.051)


def number_share(expected: list[float], found: list[float]) -> float:
    """The share of ``expected`` met in ``found`` at the best scale (as given, ×/÷ 1000, 10⁶,
    100): a chart may plot "420" for "420 k USD" or 0.92 for 92 %."""
    if not expected or not found:
        return 0.0 if expected else 1.0
    scales = (1.0, 1e3, 1e-3, 1e6, 1e-6, 100.0, 0.01)
    return max(sum(any(close(e, f * s) for f in found) for e in expected) for s in scales) / len(
        expected
    )


_SHOWN = re.compile(
    r"(?<![\w.])([+\-−]?)(\d{1,3}(?:(?:,|\u00a0|\u202f| |’|')\d{3})+|\d+)(?:[.,](\d+))?"
    r"(?:\s?([kKmMbB])(?![a-zA-Z]))?"
)


def shown_numbers(text: str) -> list[tuple[float, int, float]]:
    """The numbers a visitor reads in ``text`` as (value, decimals, multiplier): "74,215",
    "74 215", "74.2k", "58.3", "2M"; a 3-digit fraction both ways ("74.215" may be German)."""
    out: set[tuple[float, int, float]] = set()
    for m in _SHOWN.finditer(text[:400_000]):
        sign, whole, frac, suffix = m.groups()
        neg, mult = (-1.0 if sign in ("-", "−") else 1.0), _SUFFIX.get((suffix or "").lower(), 1.0)
        digits = re.sub(r"\D", "", whole)
        out.add((neg * float(digits + "." + (frac or "0")), len(frac or ""), mult))
        if frac and len(frac) == 3:
            out.add((neg * float(digits + frac), 0, mult))
        if not whole.isdigit():  # "30 450" may be two numbers
            out |= {(neg * float(p), 0, 1.0) for p in re.split(r"\D", whole) if p}
    return list(out)


def number_shown(value: float, shown: list[tuple[float, int, float]]) -> bool:
    """Is ``value`` readable among ``shown``, exactly or rounded as printed ("58.3" for 58.27,
    "74.2k" or "74k" for 74,215; not "0" for 0.4)."""
    for v, decimals, mult in shown:
        if mult == 1.0 and decimals == 0 and abs(value) < 10 and value != round(value):
            continue
        if abs(round(value / mult, decimals) - v) < 1e-9 or abs(value / mult - v) < 1e-9:
            return True
    return False


def chart_names(c: ChartFact) -> list[str]:
    """Category labels a page chart shows: axis data, data item names, series names, dataset."""
    out = [str(d.get("name") if isinstance(d, dict) else d) for a in [*c.x_axis, *c.y_axis]
           for d in a.data]  # fmt: skip
    out += [
        str(d["name"]) for s in c.series for d in s.data if isinstance(d, dict) and d.get("name")
    ]
    out += [str(s.name) for s in c.series if s.name] + radar_labels(c)
    for src in (s for s in c.dataset if isinstance(s, list) and s):
        out += [str(r[0] if isinstance(r, list) else next(iter(r.values()), "")) for r in src
                if isinstance(r, list | dict) and r]  # fmt: skip
        out += [str(x) for x in (src[0] if isinstance(src[0], list) else [])]
    return [x for x in out if x and x != "None"]


def radar_labels(c: ChartFact) -> list[str]:
    """Radar indicators, legend entries and axis names, where facts carry them (``labels``)."""
    return [str(x) for x in getattr(c, "labels", None) or [] if x][:200]


def chart_series(c: ChartFact) -> list[list[float]]:
    """Each series' numbers (a radar item's values are a series of their own; a dataset's
    columns too)."""
    out: list[list[float]] = []
    for s in c.series:
        row: list[float] = []
        for d in s.data:
            v = d.get("value") if isinstance(d, dict) else d
            if isinstance(v, list) and (s.type == "radar" or len(v) > 2):
                out.append([x for x in map(parse_number, v) if x is not None])
                continue
            v = v[-1] if isinstance(v, list) and v else v
            if (x := parse_number(v) if isinstance(v, int | float | str) else None) is not None:
                row.append(x)
        out.append(row)
    for src in (s for s in c.dataset if isinstance(s, list)):
        rows = [r for r in src if isinstance(r, list)]
        for i in range(1, max((len(r) for r in rows), default=0)):
            out.append([x for r in rows if i < len(r) and (x := parse_number(r[i])) is not None])
    return [r for r in out if r]


def check_table(req: Requirement, facts: PageFacts) -> RequirementResult:
    """A dataset shown as tiles, a table or a list: pass when the page shows ≥ 80 % of its row
    labels and numbers, as visible text or drawn in a chart (axis labels, series data)."""
    text, shown = f" {norm(facts.text)} ", shown_numbers(facts.text)
    names = [n for c in facts.charts for n in chart_names(c)]
    drawn = [x for c in facts.charts for row in chart_series(c) for x in row]
    in_text = [f" {norm(v)} " in text for v in req.values]
    in_chart = labels_found(req.values, names) if names else [False] * len(req.values)
    labels = [a or b for a, b in zip(in_text, in_chart, strict=True)]
    nums = [number_shown(x, shown) or any(close(x, y) for y in drawn) for x in req.numbers]
    marks = labels + nums
    share = sum(marks) / len(marks) if marks else 1.0
    missing = [v for v, ok in zip(req.values, labels, strict=True) if not ok]
    missing += [f"{x:g}" for x, ok in zip(req.numbers, nums, strict=True) if not ok]
    drawn_only = sum(b and not a for a, b in zip(in_text, in_chart, strict=True))
    ev = {"share": round(share, 2), "expected": len(marks), "missing": missing[:12] or None,
          "in_chart": drawn_only or None}  # fmt: skip
    name, got = f"“{req.label}”" if req.label else req.key, f"{sum(marks)}/{len(marks)}"
    if share >= 0.8:
        return RequirementResult.of(req, "pass", f"{name}: {got} labels and numbers shown", **ev)
    lost = ", ".join(missing[:8])
    return RequirementResult.of(req, "fail", f"{name}: only {got} shown; missing {lost}", **ev)
