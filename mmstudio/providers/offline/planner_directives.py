"""Page-level layout directives written anywhere in a prompt (offline planner pass).

One pass, one job (issue 14, layout directives): "Beneath the header, the page body begins with a
main content area split into two columns: the left column occupies roughly 65% of the width, the
right column 35%" sets the page's column ratio even though it is written in the header's
paragraph, not in the opening sentences the style rules read. A sentence counts when it talks
about the page body (the page, its body, the main content area, the layout, the dashboard) and
gives a ratio (``prompt_text.column_ratio``); a section's own "the left column of this card …"
stays that section's.

Public API: :func:`page_ratio`.
"""

from __future__ import annotations

import re

from mmstudio.providers.offline import prompt_text as pt

_PAGE_BODY = re.compile(
    r"\b(?:page body|body of the page|main content(?: area)?|main area|content area|main body|"
    r"(?:page|overall|main|dashboard|site) (?:layout|grid|structure)|the page is (?:split|divided)|"
    r"the (?:rest of the )?page (?:below|beneath|under)|below the header, the page|"
    r"page (?:is )?(?:split|divided) into)\b",
    re.I,
)


def page_ratio(units: list[pt.Unit]) -> list[int]:
    """The column ratio (``[65, 35]``) the first page-body sentence gives, else []."""
    for unit in units:
        text = pt.blank_quotes(unit.text)
        if _PAGE_BODY.search(text):
            ratio = pt.column_ratio(text)
            if len(ratio) == 2:
                return ratio
    return []
