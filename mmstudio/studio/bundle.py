"""The edge where a provider name becomes a model bundle: the CLI, the app's session, the
benchmarks and the FronTalk replay call :func:`open_models` once and hand the
:class:`~mmstudio.providers.models.Models` (or None: offline) to every service they run —
generation and its reflection, evaluation (the judge), refinement (the model refiners, trials
scored by the judged evaluator) and feedback turns (the splitter, the judge, the refiners).
Below this module no code asks which provider it is: a service gets a bundle or None.

The bundle's HTTP client belongs to the event loop that first uses it: open and close it in
that loop (:func:`using_models` does both). Its usage log sums every call of every role, so
one line (:func:`usage_line`) says what a command spent — on success and on failure.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from mmstudio.project.runs import UsageSummary
from mmstudio.providers.registry import PROVIDERS
from mmstudio.providers.settings import Settings

if TYPE_CHECKING:
    from mmstudio.providers.models import Models


def open_models(provider: str = "offline", settings: Settings | None = None) -> Models | None:
    """The bundle of ``provider``: None for ``offline``; for ``openai`` one
    :class:`~mmstudio.providers.models.Models` over ``settings`` (default: the config file and
    environment). Raises ValueError for an unknown provider or a bad setting. The caller closes
    it (``await models.aclose()``)."""
    if provider == "offline":
        return None
    if provider != "openai":
        raise ValueError(f"unknown provider {provider!r}; choose one of: {', '.join(PROVIDERS)}")
    from mmstudio.providers.models import Models

    return Models.from_settings(settings)


@asynccontextmanager
async def using_models(
    provider: str = "offline", settings: Settings | None = None
) -> AsyncIterator[Models | None]:
    """:func:`open_models` for the body of an ``async with``, closed at its end. An exception
    leaving the body carries what the models spent until then as ``exc.usage`` (a
    :meth:`~mmstudio.providers.usage.UsageLog.summary`, unless it already has one), so the CLI
    prints it with the error line."""
    models = open_models(provider, settings)
    try:
        yield models
    except BaseException as exc:
        if models is not None and getattr(exc, "usage", None) is None:
            with contextlib.suppress(AttributeError):  # a type that takes no attributes
                exc.usage = models.usage.summary()  # type: ignore[attr-defined]
        raise
    finally:
        if models is not None:
            await models.aclose()


def usage_summary(models: Models | None) -> UsageSummary | None:
    """What ``models`` spent (:meth:`~mmstudio.providers.usage.UsageLog.summary`), or None
    offline."""
    return None if models is None else models.usage.summary()


def usage_line(summary: UsageSummary | None) -> str:
    """``"calls 5, input_tokens 1200, …, cost_usd 0.01"`` from a usage summary ("" when no
    call was made); see :func:`totals_line`."""
    if not summary or not summary.get("calls"):
        return ""
    return totals_line(summary["total"], summary.get("by_model"))


def totals_line(total: Mapping[str, Any], by_model: Mapping[str, Any] | None = None) -> str:
    """One line of usage totals (``calls``, tokens, ``images``, ``video_seconds`` in s): the
    counts that are not zero, then ``cost_usd`` always (USD, from ``resources/prices.json``),
    then ``unpriced N`` naming the models ``by_model`` (model → totals) counts as unpriced —
    their calls are in no cost, never guessed."""
    skip = ("cost_usd", "unpriced")
    parts = [f"{k} {v}" for k, v in total.items() if v and k not in skip]
    parts.append(f"cost_usd {round(float(total.get('cost_usd') or 0), 4):g}")
    unpriced = int(total.get("unpriced") or 0)
    if unpriced:
        names = sorted(m for m, row in (by_model or {}).items() if (row or {}).get("unpriced"))
        why = f" ({', '.join(names)}: not in prices.json)" if names else ""
        parts.append(f"unpriced {unpriced}{why}")
    return ", ".join(parts)
