"""The charts a design prompt asks for and the datasets it gives, read independently of the
planner (an evaluator sharing the planner's reading agrees with its mistakes): ``extract_data``
→ one ``kind="chart"`` requirement per chart (``role`` its type, ``values`` its categories,
``numbers`` its first series) and one ``checker="data"`` widget per dataset no chart draws;
``check_data`` → their status on the page's live ECharts instances and visible text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mmstudio.render.facts import ChartFact, PageFacts

from . import datasets as ds
from .datasets import Table
from .model import Requirement, RequirementResult, Span

_TYPE = (
    r"multi[- ]?(?:line|series(?: line)?)|stacked[- ](?:area|bar|column)|(?:grouped|clustered|"
    r"side[- ]by[- ]side)[- ](?:bar|column)|(?:horizontal|vertical)[- ](?:bar|column)|bar|"
    r"column|line|area|do(?:ugh)?nut|ring|pie|radar|spider|scatter|bubble|funnel|heat[- ]?map|"
    r"gauge|treemap|sankey|candlestick|waterfall|polar|sunburst|histogram|gantt|trend|bullet"
)
_INTL = (
    r"堆叠柱状图|柱状图|条形图|折线图|饼图|环形图|圆环图|面积图|雷达图|散点图|漏斗图|热力图|仪表盘|"
    r"gráficos? de (?:barras|líneas|lineas|área|area|pastel|torta|dona|anillo|radar|dispersión)|"
    r"graphiques? (?:en |à |de )?(?:barres|lignes|courbes|aires|secteurs|anneau|radar)|"
    r"diagrammes? (?:circulaires?|en barres|en bâtons|radar)|"
    r"(?:balken|säulen|linien|kreis|torten|donut|ring|flächen|radar|streu)diagramme?n?"
)
_MENTION = re.compile(
    rf"\b(?P<type>{_TYPE})(?:\s*\([^()\n]{{0,30}}\))?[- ](?:chart|graph|plot)(?P<pl>s)?\b"
    r"|\b(?P<solo>(?:mini[- ])?gauge|heat[- ]?map|sparkline)(?P<spl>s)?\b"
    rf"|(?P<intl>{_INTL})",
    re.I,
)
_ROLE_WORDS = (  # role=words of the asked type; the first that matches wins
    "multi-line=multi|multiple;stacked-area=stacked[- ]area;stacked-bar=stacked|堆叠;grouped-bar="
    "grouped|clustered|side;horizontal-bar=horizontal|条形;bar=bar|column|histogram|柱|barras|"
    "barres|bâtons|balken|säulen;area=area|面积|área|aires|flächen;line=line|trend|sparkline|折线|"
    "líneas|lineas|lignes|courbes|linien;donut=do(?:ugh)?nut|ring|环|dona|anillo|anneau;pie=pie|"
    "饼|pastel|torta|secteurs|circulaire|kreis|torten;radar=radar|spider|雷达;scatter=scatter|"
    "bubble|散点|dispersión|streu;funnel=funnel|漏斗;heatmap=heat|热力;gauge=gauge|仪表"
)
_ROLES = [(r, re.compile(w, re.I)) for r, w in (x.split("=") for x in _ROLE_WORDS.split(";"))]
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_REFERS = {"the", "this", "that", "these", "those", "its", "their", "each", "every", "same"}
_NEW = {"a", "an", "another", "one", "second", "new"}
_DET = re.compile(rf"(?i)\b({'|'.join(_NEW | _REFERS | set(_NUMBERS))}|\d)\b")
_NEGATED = re.compile(r"\b(no|not|without|nor|never|none|avoid|instead of|rather than)\b", re.I)
_NO_CHARTS = re.compile(r"(?i)\b(no|without|nor)\b[^.;]{,60}?\b(charts?|graphs?|visuali[sz]ation)")
_FAKE_BEFORE = re.compile(r"(?i)icon|glyph|emoji|logo|sticker|(shaped|looks?) like|resembl|illustr")
_FAKE_AFTER = re.compile(r"^[- ]?(style|like|icon|glyph|emoji|shaped)", re.I)
_Q = r"[“\"«„「『]([^”\"»“」』\n]{2,120}?)[,.;:]?[”\"»“」』]"
_TITLED = re.compile(
    r"(?i)^[^“”\"\n.;]{0,60}?(?:titled|entitled|labell?ed|called|named|headed|"
    r"captioned|titulad[oa]|intitulée?|标题为?|名为|题为|titel)\s*:?\s*" + _Q
)
_LIST = r"(?!\s*(?:[,;&]|and\b|or\b)?\s*(?:and\s+)?[“\"«„])"  # not the first of a list
_OF = re.compile(r"^\s*(?:representing|showing|of|about|on)\s+" + _Q + _LIST, re.I)
_BEFORE = re.compile(_Q + r"\s*(?:[\w-]+\s+){0,2}$")
_TITLE_NOUN = re.compile(r"\btitled?\b[^“”\"\n]{0,80}?" + _Q, re.I)
#: "a bar chart of students per month (Jan 6, …)": what an untitled chart shows, in words
_SUBJECT = re.compile(
    r"^\s*(?:of|showing|comparing|tracking|for|about|on)\s+(?:the\s+)?([a-z][a-z0-9 '’&/-]{2,60}?)"
    r"\s*(?=[(.,;:\n]|$|\s(?:with|from|in|over|across|by)\s)",
    re.I,
)
_COUNTER = re.compile(r"kpi|tile|stat|snapshot|counter|summary|pod|card|metric|scorecard", re.I)


@dataclass
class _Ask:
    role: str
    start: int
    end: int
    phrase: str
    window: str  # the words that describe it, up to the next chart or paragraph
    title: str = ""
    count: int = 1
    reference: bool = False


def _role(phrase: str) -> str:
    return next((r for r, p in _ROLES if p.search(phrase)), (ds.norm(phrase) or "chart").split()[0])


def _family(role: str) -> str:
    lines = {"donut": "pie", "multi-line": "line", "area": "line", "stacked-area": "line"}
    return lines.get(role, "bar" if role.endswith("bar") else role)


def _title(text: str, m: re.Match, lo: int, hi: int) -> tuple[str, int]:
    """The title a chart mention names, and where it ends: "… chart titled “T”", "“T”
    mini-gauge", "The chart title … reads “T”" after it, "a panel titled “T” … bar chart"."""
    after = text[m.end() : min(hi, m.end() + 160)]
    if found := _TITLED.match(after):
        return found.group(1).strip(), m.end() + found.end()
    if before := _BEFORE.search(text[max(lo, m.start() - 160) : m.start()]):
        return before.group(1).strip(), m.end()
    ahead = _TITLE_NOUN.search(text, m.end(), min(hi, m.end() + 700))
    if ahead and not ahead.group(0).lower().startswith("titled"):
        return ahead.group(1).strip(), m.end()
    if behind := list(_TITLE_NOUN.finditer(text, max(lo, m.start() - 450), m.start())):
        return behind[-1].group(1).strip(), m.end()
    weak = _OF.match(after)
    return (weak.group(1).strip(), m.end() + weak.end()) if weak else ("", m.end())


def _asks(text: str, tables: list[Table]) -> list[_Ask]:
    """Every chart the text asks for, in order: not negated ("no charts"), not an icon ("a bar
    chart icon"), not a look ("chart-style list"), not in a dataset heading ("(Radar Chart)")."""
    found = []
    no_charts = bool(_NO_CHARTS.search(text))
    for m in _MENTION.finditer(text):
        clause = re.split(r"[.;!?\n]", text[max(0, m.start() - 70) : m.start()])[-1]
        if (any(t.start <= m.start() < t.end for t in tables) or _NEGATED.search(clause[-50:])
                or _FAKE_BEFORE.search(clause[-30:]) or (m.group("solo") and no_charts)
                or _FAKE_AFTER.match(text[m.end() : m.end() + 10])):  # fmt: skip
            continue
        found.append((m, clause))
    asks: list[_Ask] = []
    for k, (m, clause) in enumerate(found[:60]):  # no page asks for more
        lo = max(found[k - 1][0].end(), asks[-1].end) if k else 0
        hi = found[k + 1][0].start() if k + 1 < len(found) else len(text)
        para = text.find("\n\n", m.end(), hi)
        window = text[m.end() : min(hi, m.end() + 700, para if para >= 0 else hi)]
        phrase = m.group("type") or m.group("solo") or m.group("intl") or ""
        title, end = _title(text, m, lo, hi)
        dets = _DET.findall(" ".join(clause.split()[-6:]))
        det = dets[-1].lower() if dets else ""
        plural = bool(m.group("pl") or m.group("spl"))
        count = (int(det) if det.isdigit() else _NUMBERS.get(det, 1)) if plural else 1
        ref = det in _REFERS
        asks.append(_Ask(_role(phrase), m.start(), end, phrase, window, title, count, ref))
    return asks


def _same(seen: _Ask, a: _Ask) -> bool:
    """Is ``a`` the chart ``seen`` again: the same title, or "the bar chart" after a bar chart."""
    if a.title and ds.norm(ds.strip_aside(seen.title)) == ds.norm(ds.strip_aside(a.title)):
        return True
    return a.reference and not (a.title and seen.title) and _family(seen.role) == _family(a.role)


def _merge(asks: list[_Ask]) -> list[_Ask]:
    """One ask per chart: "the bar chart" and a repeated title are one seen before; "three
    mini-gauges: “ARPU”, “Payer Conversion” and “Retention D1”" are three gauges."""
    out: list[_Ask] = []
    for a in asks:
        if same := [o for o in out if _same(o, a)]:
            same[-1].title = same[-1].title or a.title
            same[-1].window += " " + a.window
        else:
            out.append(a)
    split = []
    for a in out:
        items = ds.quoted_list(a.window[:300]) if a.count > 1 and not a.title else []
        parts = [_Ask(a.role, a.start, a.end, a.phrase, a.window, item) for item in items]
        split += parts if len(items) == a.count else [a]
    return split


def _table_for(a: _Ask, tables: list[Table]) -> tuple[Table | None, list[str]]:
    """The dataset a chart draws (and the rows, when it draws only some): the table whose heading
    matches its title, else one whose rows are its title or quoted labels, else one whose heading
    names its type ("(Radar Chart)", "Gauges"), else an untitled one."""
    free = [t for t in tables if not t.used]
    if a.title:
        scored = [(max(ds.similarity(t.title, a.title), ds.similarity(ds.strip_aside(t.title),
                   a.title)), k) for k, t in enumerate(free) if t.title]  # fmt: skip
        best = max(scored, default=(0.0, -1))
        if best[0] >= 0.6:
            return free[best[1]], []
    want = ds.quoted_list(a.window[:400]) if a.count > 1 and not a.title else []
    want = want or ([a.title] if a.title else [])
    for t in sorted(tables, key=lambda t: t.used):
        if want and all(ds.labels_found(want, t.labels())):
            return t, want
    for t in free:
        if _family(a.role) in {_family(_role(w)) for w in ds.words(t.title) if _role(w) != w}:
            return t, []
    return next(((t, []) for t in free if not t.title), (None, []))


def _requirement(a: _Ask, n: int, tables: list[Table], text: str, source: str) -> Requirement:
    table, rows = _table_for(a, tables)
    role = a.role
    if table is not None:
        table.pick_labels(a.window)
        col = table.best_series(a.title)
        values = table.labels(totals=False)
        numbers = table.series(col, totals=False) if col is not None else []
        if rows:
            keep = [i for i, hit in enumerate(ds.labels_found(values, rows)) if hit]
            numbers = [numbers[i] for i in keep if i < len(numbers)]
            values = [values[i] for i in keep]
            table.taken.update(values)
        table.used = table.used or not rows
        if role == "line" and len(table.series_indices) >= 2:
            role = "multi-line"
    else:
        values, numbers = ds.inline_pairs(a.window)
        values = values or ds.quoted_list(a.window, a.title)
    if role == "bar" and re.search(r"grouped|clustered|side[- ]by[- ]side", a.window[:300], re.I):
        role = "grouped-bar"
    shown = "Vertical bar" if re.match("vertical", a.phrase, re.I) else role
    shown = shown.replace("-", " ").capitalize().replace("Multi line", "Multi-line")
    label = f" “{a.title}”" if a.title else ""
    excerpt = " ".join(text[a.start : a.end].split())[:160]
    subject = "" if a.title else _subject(text, a.end)
    label = label or (f" of {subject}" if subject else "")
    return Requirement(
        id=f"chart-{n}", kind="chart", key=a.title or role, text=f"{shown} chart{label}",
        subject=subject,
        span=Span(source=source, start=a.start, end=a.end, excerpt=excerpt),
        severity="major" if "spark" in a.phrase else "critical", role=role, label=a.title,
        values=values[:200], numbers=numbers[:200], count=a.count if a.count > 1 else None,
    )  # fmt: skip


def _subject(text: str, end: int) -> str:
    """The words after a chart mention that say what it shows, or "" (quoted words are titles,
    read by :func:`_title`; a number or a dataset heading is no subject)."""
    m = _SUBJECT.match(text[end : end + 120])
    if m is None:
        return ""
    subject = m.group(1).strip(" -/")
    return subject if len(ds.words(subject)) >= 1 and not re.search(r"\d", subject) else ""


def _dataset(t: Table, n: int, text: str, source: str) -> Requirement | None:
    """A dataset no chart draws: KPI tiles (``counter``) or a table / list / leaderboard."""
    labels, col = t.labels(), t.best_series()
    rows = [i for i, label in enumerate(labels) if label not in t.taken]
    if t.used or not rows:
        return None
    numbers = t.series(col) if col is not None else []
    counter = bool(_COUNTER.search(t.title)) or ds.norm(t.columns[0]) in ("metric", "kpi")
    title = t.title or f"Dataset {n}"
    at = text.find(ds.strip_aside(title), 0, t.start) if t.title else -1
    start, end = (at, at + len(ds.strip_aside(title))) if at >= 0 else (t.start, t.end)
    return Requirement(
        id=f"data-{n}", kind="widget", key=title, severity="major", checker="data",
        text=f"{'KPI values' if counter else 'Dataset'} “{title}” ({len(rows)} rows)",
        span=Span(source=source, start=start, end=end, excerpt=text[start:end][:160]),
        role="counter" if counter else "table", label=t.title,
        values=[labels[i] for i in rows][:200],
        numbers=[x for i, x in enumerate(numbers) if i in rows][:200],
    )  # fmt: skip


def extract_data(text: str, source: str = "prompt") -> list[Requirement]:
    """Chart and dataset requirements of ``text`` (see the module docstring); never raises."""
    try:
        text = text or ""
        tables = ds.find_tables(text)
        asks = _merge(_asks(text, tables))
        reqs = [_requirement(a, k + 1, tables, text, source) for k, a in enumerate(asks)]
        for t in tables:
            if found := _dataset(t, sum(r.checker == "data" for r in reqs) + 1, text, source):
                reqs.append(found)
        return reqs
    except Exception:  # a reading must never stop an evaluation
        return []


# --- the page ---------------------------------------------------------------------------------

_ACCEPTS = "line=line area multi-line;pie=pie donut;area=area pictorialbar;gauge=gauge donut"
_ACCEPT = {k: set(v.split()) for k, v in (x.split("=") for x in _ACCEPTS.split(";"))}
_ORDER = [role for role, _ in _ROLES]  # the most specific first


def page_types(c: ChartFact) -> set[str]:
    """What a page chart draws, read from its option: a pie with an inner radius is a donut…"""
    out: set[str] = set()
    bars = [s for s in c.series if s.type in ("bar", "pictorialBar")]
    cat = [a.type == "category" for a in c.y_axis], [a.type == "category" for a in c.x_axis]
    horizontal = any(cat[0]) and not any(cat[1])
    for s in c.series:
        t = {"effectScatter": "scatter", "pictorialBar": "pictorialbar"}.get(s.type, s.type.lower())
        out.add(t)
        if t == "pie":
            inner = s.radius[0] if isinstance(s.radius, list) and len(s.radius) > 1 else 0
            out.add("pie" if ds.parse_number(inner) in (None, 0.0) else "donut")
        if t == "line" and s.area_style:
            out.add("stacked-area" if s.stack else "area")
        if t in ("bar", "pictorialbar"):
            out |= {"bar"} | ({"horizontal-bar"} if horizontal else set())
            if s.stack and sum(b.stack == s.stack for b in bars) > 1:
                out.add("stacked-bar")
    if sum(s.type == "line" for s in c.series) > 1:
        out.add("multi-line")
    if sum(not b.stack for b in bars) > 1:
        out.add("grouped-bar")
    return out


def _type_ok(req: Requirement, types: set[str]) -> bool:
    if req.role == "bar" and req.text.startswith("Vertical") and "horizontal-bar" in types:
        return False
    return bool(_ACCEPT.get(req.role, {req.role}) & types)


def _captions(c: ChartFact, facts: PageFacts) -> list[str]:
    """The chart's own title, its section's heading and the short texts above it or inside it."""
    out = [t for t in (c.title, *(s.heading for s in facts.sections if s.id == c.section)) if t]
    r = c.rect
    for b in facts.blocks:
        br = b.rect
        overlap = min(r.x + r.w, br.x + br.w) - max(r.x, br.x)
        near = (r.y - 160 <= br.y and br.y + br.h <= r.y + 40) or r.y <= br.y <= r.y + r.h
        if len(b.text) <= 120 and ((b.owner and b.owner == c.owner)
                                   or (overlap > 0.3 * min(r.w, br.w) and near)):  # fmt: skip
            out.append(b.text)
    return out


def _match(req: Requirement, c: ChartFact, captions: list[str]) -> dict:
    """How page chart ``c`` fits ``req``; ``score`` 0 when only the type fits, named otherwise."""
    caps = list(captions)
    if req.role == "gauge":
        caps += [str(d.get("name")) for s in c.series for d in s.data if isinstance(d, dict)]
    title = max((ds.similarity(req.label, t) for t in caps), default=0.0) if req.label else 0.0
    said = req.subject and max((ds.similarity(req.subject, t) for t in caps), default=0.0)
    names, numbers, types = ds.chart_names(c), ds.chart_series(c), page_types(c)
    named_cats = names and req.role != "gauge" and (req.role != "radar" or ds.radar_labels(c))
    hits = ds.labels_found(req.values, names) if named_cats else []
    cats = sum(hits) / len(hits) if hits else None
    rows = [[x for r in numbers for x in r]] if req.role == "gauge" else numbers
    expected = [[e] for e in req.numbers] if req.role == "gauge" else [req.numbers]
    scored = [(max(ds.number_share(e, r) for e in expected), k) for k, r in enumerate(rows)]
    if req.role in ("pie", "donut", "funnel") and sum(req.numbers) > 0:  # shares, not totals
        shares = [100 * x / sum(req.numbers) for x in req.numbers]
        scored += [(ds.number_share(shares, [100 * x / sum(r) for x in r]), k)
                   for k, r in enumerate(rows) if sum(r) > 0]  # fmt: skip
    nums, best = max(scored, default=(None, -1)) if req.numbers else (None, -1)
    ok = _type_ok(req, types) if c.readable else None
    named = bool(req.label and [t for t in caps if len(t) >= 3])
    eligible = title >= 0.5 or (cats or 0) >= 0.5 or (nums or 0) >= 0.6 or (ok and not named)
    found = {v for v, h in zip(req.values, hits, strict=False) if h}
    legend = {str(s.name) for s in c.series}
    extra = [n for n in dict.fromkeys(names) if n not in legend
             and not ds.labels_found([n], req.values)[0]][:12]  # fmt: skip
    return {
        "score": 2 * title + 1.5 * (cats or 0) + (nums or 0) + 0.6 * bool(ok) if eligible else 0,
        "title_share": round(title, 2), "type_ok": ok,
        "subject_share": round(said, 2) if req.subject else None, "title": c.title or None,
        "caption": max(caps, key=lambda t: ds.similarity(req.label, t), default="")[:80] or None,
        "found_type": next((t for t in _ORDER if t in types), min(types, default="?")),
        "category_share": None if cats is None else round(cats, 2),
        "categories_missing": [v for v in req.values if v not in found][:12] if hits else None,
        "categories_extra": extra or None,
        "number_share": None if nums is None else round(nums, 2),
        "numbers_found": rows[best][:12] if best >= 0 else None,
    }  # fmt: skip


def _verdict(req: Requirement, c: ChartFact, m: dict) -> RequirementResult:
    name = f"“{req.label}”" if req.label else f"the {req.role} chart"
    ev = {k: v for k, v in m.items() if k not in ("score", "type_ok")}
    ev |= {"element": c.owner, "expected_type": req.role, "numbers_expected": req.numbers[:12]}
    if not c.readable:
        msg = f"{name}: a chart is there but its ECharts option cannot be read"
        return RequirementResult.of(req, "unchecked", msg, **(ev | {"found_type": None}))
    problems = []
    if not c.shown or c.rect.area < 1600:
        problems.append(f"{name} is on the page but not shown")
    if not m["type_ok"]:
        problems.append(f"{name} should be a {req.role} chart; the page draws {m['found_type']}")
    if m["category_share"] is not None and m["category_share"] < 0.8:
        miss, extra = ", ".join(m["categories_missing"][:5]), m["categories_extra"] or []
        shows = f"; the page shows {', '.join(extra[:4])}" if extra else ""
        share = m["category_share"]
        problems.append(f"data not from the prompt: missing {miss} ({share:.0%}){shows}")
    if m["number_share"] is not None and m["number_share"] < 0.8:
        exp = ", ".join(f"{x:g}" for x in req.numbers[:4])
        got = ", ".join(f"{x:g}" for x in (m["numbers_found"] or [])[:4]) or "none"
        problems.append(f"values differ from the prompt: expected {exp}…, found {got}…")
    shown = m["title"] or m["caption"]
    named = f"it reads “{shown}”" if shown else "it has no title"
    said = len(problems)
    if req.label and m["title_share"] < 0.5 and not problems:
        problems.append(f"{name} is drawn but nothing on or above it says so ({named})")
    if m["subject_share"] is not None and m["subject_share"] < 0.34:
        problems.append(f"nothing on or above the chart says it shows {req.subject} ({named})")
    if problems and m["title_share"] < 0.5 and m["caption"] and len(problems) == said:
        problems.append(f"(matched the chart under “{m['caption']}”)")
    if problems:
        return RequirementResult.of(req, "fail", "; ".join(problems), **ev)
    msg = f"{name}: drawn as {m['found_type']} with its data"
    return RequirementResult.of(req, "pass", msg, **ev)


def check_data(reqs: list[Requirement], facts: PageFacts) -> list[RequirementResult]:
    """The status on a page of the chart requirements (each matched to at most one page chart,
    best first) and the dataset (``checker="data"``) requirements of ``reqs``."""
    charts = [r for r in reqs if r.kind == "chart"]
    caps = [_captions(c, facts) for c in facts.charts]
    fits = [[_match(r, c, caps[j]) for j, c in enumerate(facts.charts)] for r in charts]
    pairs = [(m["score"], -i, -j, i, j, m) for i, row in enumerate(fits)
             for j, m in enumerate(row) if m["score"] > 0]  # fmt: skip
    pairs.sort(key=lambda p: p[:3], reverse=True)  # best first; ties: prompt and page order
    taken: dict[int, tuple[int, dict]] = {}
    used: set[int] = set()
    for *_, i, j, m in pairs:
        if i not in taken and j not in used:
            taken[i] = (j, m)
            used.add(j)
    results: dict[str, RequirementResult] = {}
    for i, r in enumerate(charts):
        if i in taken:
            results[r.id] = _verdict(r, facts.charts[taken[i][0]], taken[i][1])
        elif lost := [j for j, c in enumerate(facts.charts) if j not in used and not c.readable]:
            used.add(j := lost[0])
            results[r.id] = _verdict(r, facts.charts[j], _match(r, facts.charts[j], caps[j]))
        elif kin := [j for j, c in enumerate(facts.charts)
                     if j not in used and _type_ok(r, page_types(c))]:  # fmt: skip
            # a chart of the asked type that fits nothing else is this one drawn wrong (made-up
            # data, another title): its own problems say what, not "missing"
            used.add(j := kin[0])
            results[r.id] = _verdict(r, facts.charts[j], _match(r, facts.charts[j], caps[j]))
        else:
            free = [_match(r, c, [])["found_type"] for j, c in enumerate(facts.charts)
                    if j not in used]  # fmt: skip
            name = f"“{r.label}” ({r.role})" if r.label else f"({r.role})"
            ev = {"expected_type": r.role, "unmatched": free or None}
            results[r.id] = RequirementResult.of(r, "fail", f"missing chart {name}", **ev)
    missing = [r for r in charts if results[r.id].message.startswith("missing chart")]
    free = [j for j, c in enumerate(facts.charts) if j not in used and c.readable]
    if len(missing) == 1 and len(free) == 1:  # the one chart asked and the one drawn, all wrong
        r, j = missing[0], free[0]
        results[r.id] = _verdict(r, facts.charts[j], _match(r, facts.charts[j], caps[j]))
    for r in reqs:
        if r.checker == "data":
            results[r.id] = ds.check_table(r, facts)
    return [results[r.id] for r in reqs if r.id in results]
