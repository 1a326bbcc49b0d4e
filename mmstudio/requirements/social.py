"""Social-platform icons the brief asks for ("three icon-only buttons … standing in for social
platforms", "small circular icons for social platforms"): that many small icons in the section
the brief describes them in (usually the footer).

Read from ``social_icons`` of ``resources/requirements/vocabulary.json``; checked on the small
marks of the page facts (inline svg, small pictures: :attr:`PageFacts.icons`).
"""

from __future__ import annotations

import re

from mmstudio.render.facts import PageFacts

from .model import Requirement, RequirementResult
from .structure import negated, number_word, section_at
from .text import sentence_bounds, span, vocabulary, without_quotes, words_pattern

_COUNT = re.compile(r"\b(two|three|four|five|six|2|3|4|5|6)\s+(?:[\w-]+,?\s+){0,3}$", re.I)


def extract_social_icons(text: str, source: str = "prompt") -> list[Requirement]:
    """One ``widget`` requirement (role ``social-icons``) per sentence that puts icons and a
    social word together; ``count`` the number before the icons (default 2), ``label`` the
    section the paragraph describes ("" = anywhere on the page)."""
    vocab = vocabulary()["social_icons"]
    plain = without_quotes(text)
    social = words_pattern(vocab["social_words"])
    found: list[Requirement] = []
    sentences: set[int] = set()
    for m in words_pattern(vocab["icon_nouns"]).finditer(plain):
        start, end = sentence_bounds(plain, m.start())
        if start in sentences or not social.search(plain[start:end]) or _negated(plain, m.start()):
            continue
        sentences.add(start)
        lead = plain[max(start, m.start() - 40) : m.start()]
        count = _COUNT.search(lead)
        phrase_start = m.start() - len(lead) + count.start() if count else m.start()
        words = plain[phrase_start : m.end()]
        label, titles = section_at(text, m.start())
        if not label:  # "The footer is a dark band. … On the right, three small icons …"
            para = plain[plain.rfind("\n", 0, m.start()) + 1 : m.start()]
            anchor = re.search(r"\b(footer|header)\b", para, re.I)
            label = anchor.group(1).lower() if anchor else ""
        found.append(
            Requirement(
                id="",
                kind="widget",
                key=words.strip(),
                role="social-icons",
                checker="social",
                label=label,
                values=titles,
                count=number_word(count.group(1)) if count else 2,
                text=f"Social icons ({words.strip()})" + (f" in the {label}" if label else ""),
                span=span(text, phrase_start, m.end(), source),
                severity="minor",
            )
        )
    return found


def _negated(plain: str, at: int) -> bool:
    """The icons, or one of the three words before them, sit in a negation ("no social media
    icons", "instead of social icons")."""
    starts = [at] + [at - len(w) for w in _words_before(plain[max(0, at - 40) : at])]
    return any(negated(plain, k) for k in starts)


def _words_before(lead: str) -> list[str]:
    """The tails of ``lead`` that start at each of its last three words ("media ", "social
    media ")."""
    words = re.findall(r"[\w-]+[^\w-]*", lead)[-3:]
    return ["".join(words[i:]) for i in range(len(words) - 1, -1, -1)]


def check_social_icons(req: Requirement, facts: PageFacts) -> RequirementResult:
    """At least ``count`` small icons in the section (unchecked when the section is not on the
    page: the section requirement reports it)."""
    from .checks import find_section

    scope = find_section(req.label, facts, req.values) if req.label else None
    if req.label and scope is None:
        return RequirementResult.of(req, "unchecked", "the section is not on the page")
    icons = facts.icons
    if scope is not None:
        top, bottom = scope.rect.y, scope.rect.y + scope.rect.h
        icons = [i for i in icons if top <= i.rect.y + i.rect.h / 2 < bottom]
    n = req.count or 2
    where = f"the {req.label}" if req.label else "the page"
    if len(icons) >= n:
        return RequirementResult.of(req, "pass", f"{len(icons)} icons in {where}")
    msg = f"{len(icons)} icon{'s' if len(icons) != 1 else ''} in {where}, {n} social icons asked"
    element = scope.id if scope is not None and scope.id else None
    return RequirementResult.of(req, "fail", msg, element=element, found=len(icons))
