"""Usage and cost: tokens, images and video seconds of every provider call.

Each call appends one :class:`UsageRecord` (stage, element, model, counts, USD) to a
:class:`UsageLog`; :meth:`UsageLog.totals` sums them per stage, model or element. Prices are data
(``resources/prices.json``: USD per 1M tokens, per image by size, per video second); a model missing
from the table costs 0 and is reported as unpriced, never guessed.

Concurrency: records are appended from many tasks of one event loop (and possibly worker threads);
one lock guards the list, and readers get copies.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from mmstudio.project.runs import UsageSummary, UsageTotals
from mmstudio.resources import resource


@dataclass(frozen=True)
class UsageRecord:
    """One call: ``stage`` (plan, layout, image, video, chart, judge, repair…), ``element`` id
    (or ""), ``model``, tokens in/out, ``images`` made, ``video_seconds`` (s), ``cost_usd``
    (None when the model is not in the price table)."""

    stage: str
    element: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    images: int = 0
    video_seconds: float = 0.0
    cost_usd: float | None = None


@cache
def price_table() -> dict[str, dict[str, Any]]:
    """``{model: prices}`` from ``resources/prices.json``."""
    data = json.loads(resource("prices.json").read_text(encoding="utf-8"))
    return data["models"]


def _prices(model: str) -> dict[str, Any] | None:
    table = price_table()
    if model in table:
        return table[model]
    # dated snapshots ("gpt-5.1-2025-11-13") are priced as their family
    family = max((name for name in table if model.startswith(name + "-")), key=len, default=None)
    return table[family] if family else None


def cost(
    model: str, *, input_tokens: int = 0, output_tokens: int = 0, images: int = 0,
    image_size: str = "", video_seconds: float = 0.0,
) -> float | None:  # fmt: skip
    """USD for one call, or None when ``model`` has no price."""
    prices = _prices(model)
    if prices is None:
        return None
    usd = input_tokens / 1e6 * prices.get("input_per_mtok", 0.0)
    usd += output_tokens / 1e6 * prices.get("output_per_mtok", 0.0)
    if images and not (input_tokens or output_tokens):
        usd += images * prices.get("per_image", {}).get(image_size, 0.0)
    usd += video_seconds * prices.get("per_video_second", 0.0)
    return round(usd, 6)


class UsageLog:
    """The usage records of one run (a designer, a judge)."""

    def __init__(self) -> None:
        self._records: list[UsageRecord] = []
        self._lock = threading.Lock()

    def add(self, record: UsageRecord) -> None:
        with self._lock:
            self._records.append(record)

    def records(self) -> list[UsageRecord]:
        with self._lock:
            return list(self._records)

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)

    def since(self, start: int) -> UsageLog:
        """A new log of the records added after the first ``start`` (one run's share of a log
        that several runs fill: ``mark = len(log)`` … ``log.since(mark)``)."""
        part = UsageLog()
        for record in self.records()[start:]:
            part.add(record)
        return part

    def totals(self, by: str = "stage") -> dict[str, UsageTotals]:
        """Sums per ``by`` (stage | model | element): tokens, images, video seconds, USD and
        ``unpriced`` calls."""
        sums: dict[str, UsageTotals] = {}
        for record in self.records():
            row = sums.setdefault(getattr(record, by) or "-", _empty())
            _accumulate(row, record)
        return sums

    def summary(self) -> UsageSummary:
        """``{calls, total: {...}, by_stage: {...}, by_model: {...}}`` for the CLI and history."""
        total = _empty()
        for record in self.records():
            _accumulate(total, record)
        return {
            "calls": len(self.records()),
            "total": total,
            "by_stage": self.totals("stage"),
            "by_model": self.totals("model"),
        }

    def as_rows(self) -> list[dict[str, Any]]:
        """Every record as a dict (for a history database or a JSON log)."""
        return [asdict(r) for r in self.records()]


def _empty() -> UsageTotals:
    return UsageTotals(calls=0, input_tokens=0, output_tokens=0, images=0, video_seconds=0,
                       cost_usd=0, unpriced=0)  # fmt: skip


def _accumulate(row: UsageTotals, record: UsageRecord) -> None:
    row["calls"] += 1
    row["input_tokens"] += record.input_tokens
    row["output_tokens"] += record.output_tokens
    row["images"] += record.images
    row["video_seconds"] += record.video_seconds
    if record.cost_usd is None:
        row["unpriced"] += 1
    else:
        row["cost_usd"] = round(row["cost_usd"] + record.cost_usd, 6)
