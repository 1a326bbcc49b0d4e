"""Arrangement requirements read from real brief excerpts: a testimonial's signature, stacked
items, a picture beside the text, column shares in words (fast: no browser)."""

from __future__ import annotations

from mmstudio.requirements import extract
from mmstudio.requirements.pairs import extract_pairs

# MM-WebGEN-Bench dev prompt 073 (tests/calibration/pages/073/prompt.txt)
QUOTES_073 = (
    "The quote text: “I never thought I could grow anything on my tiny balcony. Now I have "
    "basil, chives, and more — and new friends, too.” Beneath the quote, a small line reads "
    "“— Maya, first-time gardener” in a smaller sans-serif. The top right of the card has a "
    "small stamp illustration: a square with a tiny tomato drawing. The second testimonial "
    "card in the center is terracotta with a cream interior, with the quote: “The weekend felt "
    "like a mini retreat in the middle of the city. I left with soil under my nails and a "
    "calmer mind.” At the bottom: “— Jamal, yoga teacher.” The third, on the right, is pale "
    "mustard with the quote: “The facilitators made everything feel so approachable. I finally "
    "understand my plants’ needs!” signed “— Lina, plant parent in training.”"
)
# prompt 027
QUOTES_027 = (
    "The top small card reads: “We replaced our endless ‘strategy’ meetings with one hour of "
    "Seedline a week. The difference was immediate.” followed by “— Amir, product lead at "
    "Atlas & Co”. The bottom small card reads: “The prompts made it easy to discuss scary "
    "topics like pricing and positioning without getting stuck.” followed by “— Lina, solo "
    "founder”."
)


def _pairs(text: str) -> set[tuple[str, str]]:
    return {(r.values[0][:20], r.values[1]) for r in extract_pairs(text)}


def test_each_quote_is_paired_with_its_own_signature_across_sentences():
    pairs = _pairs(QUOTES_073)
    assert ("I never thought I co", "— Maya, first-time gardener") in pairs
    assert ("The weekend felt lik", "— Jamal, yoga teacher") in pairs
    assert ("The facilitators mad", "— Lina, plant parent in training") in pairs
    # a signature ends its testimonial: Jamal's is not paired with Lina's quote
    assert not [p for p in pairs if p[0].startswith("— Jamal")]
    assert ("We replaced our endl", "— Amir, product lead at Atlas & Co") in _pairs(QUOTES_027)


def test_a_signed_quote_is_checked_as_one_item():
    reqs = [r for r in extract(QUOTES_027) if r.kind == "pairing"]
    signed = [r for r in reqs if r.values[1].startswith("— Amir")]
    assert len(signed) == 1 and signed[0].severity == "major"
    assert "signed" in signed[0].text
