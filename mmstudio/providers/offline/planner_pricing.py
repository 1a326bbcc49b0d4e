"""Pricing plans as cards: each plan's name, price, line and features in one item (planner pass).

One pass, one job (issue 14, grouped content): a pricing section describes its plans one after
the other — "titled “Solo” … the price … “$19 / month”. Below the price: “For individual
founders …”. Benefits: “Access to all tutorials”, “Weekly founder prompts” … The right card is
labeled “Studio (up to 5 seats)” with the price “$49 / month” …". The quote placer alone turns
that into loose headings, tags and list items (a designer sees prices under the wrong plans).
This pass reads the section's quotes in order: a price (a currency amount, "/ month", "Free")
with a short name just before it starts a plan; the quotes after the price — until the next
plan's name — are its line (a sentence) and its features (short quotes); "below the cards"
ends the plans. Buttons stay the section's. A section with fewer than two such plans is left as
it was.

Runs after the quote placer, on the drafts of kind ``pricing``.

Public API: :class:`PricingPlan`, :func:`read_plans`, :func:`group_plans`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mmstudio.plan import SectionItem
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline.planner_labels import label_text
from mmstudio.providers.offline.planner_sections import Draft

PRICE = re.compile(
    r"^(?:[$€£¥₹]\s?\d[\d,.]*(?:\s?[kK])?(?:\s*(?:/|per)\s*\w+)?(?:\s+\w+)?|"
    r"\d[\d,.]*\s?(?:€|EUR|USD|GBP|kr)(?:\s*(?:/|per)\s*\w+)?|"
    r"\d[\d,.]*\s*(?:/|per)\s*(?:mo|month|year|yr|week|seat|user)\b.*|free|free forever)$",
    re.I,
)
#: at most this many characters between a plan's name and its price
NAME_GAP = 160
_AFTER_PLANS = re.compile(
    r"\b(?:below|beneath|under|after|underneath)\s+(?:the|these|all|both)\s+(?:\w+\s+)?"
    r"(?:cards|plans|tiers|columns|options)\b",
    re.I,
)
_BUTTON = re.compile(
    r"\b(?:button|cta|link)\b[^.;“”\"]{0,90}?(?:says|reads|reading|labell?ed|that says|with)?"
    r"\s*:?\s*$",
    re.I,
)


@dataclass
class PricingPlan:
    """One pricing plan as the prompt describes it."""

    name: str
    price: str
    line: str = ""
    features: list[str] = field(default_factory=list)

    def item(self) -> SectionItem:
        """The plan as a section item: title, value (price), text (line) and points."""
        return SectionItem(
            title=self.name, value=self.price, text=self.line, points=self.features[:30]
        )


def read_plans(text: str, skip: set[str] | None = None) -> list[PricingPlan]:
    """The plans of a pricing section's ``text`` (its sentences), in order; ``skip`` holds
    texts that are not plan fields (the section's title). [] when fewer than two plans."""
    skip = {s.casefold() for s in skip or set()}
    quotes = [
        q for q in pt.find_all_quotes(text) if label_text(q.text, "tag").casefold() not in skip
    ]
    plans: list[PricingPlan] = []
    pending: list[pt.Quote] = []  # quotes since the last price: the next plan's name is among them
    previous_end = 0
    for quote in quotes:
        shown = label_text(quote.text, "tag")
        if plans and _AFTER_PLANS.search(text[previous_end : quote.start]):
            break  # "Below the cards, a large button …": the plans are over
        previous_end = quote.end
        if _is_button(text, quote):
            continue
        if PRICE.match(shown):
            name = _name(text, pending, quote)
            if name is None:
                return []  # a price with no name right before it: not the shape we read
            if plans:
                _fill(plans[-1], [q for q in pending if q is not name])
            plans.append(PricingPlan(name=label_text(name.text, "tag"), price=shown))
            pending = []
            continue
        pending.append(quote)
    if plans:
        _fill(plans[-1], pending)
    return plans if len(plans) >= 2 else []


def _is_button(text: str, quote: pt.Quote) -> bool:
    return bool(_BUTTON.search(pt.blank_quotes(text[max(0, quote.start - 110) : quote.start])))


def _name(text: str, pending: list[pt.Quote], price: pt.Quote) -> pt.Quote | None:
    """The plan name before ``price``: the last short quote within :data:`NAME_GAP` chars."""
    for quote in reversed(pending):
        if price.start - quote.end > NAME_GAP:
            return None
        if len(quote.text.split()) <= 6 and not quote.text.rstrip().endswith((".", "!", "?")):
            return quote
    return None


def _fill(plan: PricingPlan, quotes: list[pt.Quote]) -> None:
    """A plan's line (its first sentence-like quote) and features (the short ones)."""
    for quote in quotes:
        shown = label_text(quote.text, "tag")
        if not plan.line and not plan.features and len(shown.split()) > 5:
            plan.line = shown
        else:
            plan.features.append(shown)


def group_plans(draft: Draft) -> None:
    """In place: a pricing draft whose sentences describe two or more plans gets one item per
    plan, and the plans' strings leave its headings, tags, paragraphs and loose items."""
    if draft.kind != "pricing":
        return
    plans = read_plans(draft.text, {draft.first("title")})
    if not plans:
        return
    used = {s.casefold() for p in plans for s in (p.name, p.price, p.line, *p.features) if s}
    for slot in ("headings", "tags", "paragraphs"):
        values = draft.slots.get(slot, [])
        draft.slots[slot] = [v for v in values if label_text(str(v), "tag").casefold() not in used]
    items = draft.slots.get("items", [])
    kept = [i for i in items if not _item_used(i, used)]
    draft.slots["items"] = [p.item() for p in plans] + kept


def _item_used(item: SectionItem, used: set[str]) -> bool:
    texts = [t for t in (item.title, item.text, item.value, item.label) if t]
    return bool(texts) and all(label_text(t, "tag").casefold() in used for t in texts)
