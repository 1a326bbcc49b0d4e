"""Requirements read from the designer's words, and their checks on the rendered page.

``extract(text)`` → :class:`Requirement` list (sections, copy, labels, nav links, images, videos,
charts and datasets, widgets, palette roles, fonts, layout directives, prohibitions, leaks);
``check_all(requirements, facts)`` → :class:`RequirementResult` list (pass / fail / unchecked).
"""

from .checks import check_all
from .extract import ExtractionError, extract
from .model import KINDS, Requirement, RequirementResult, Span, pass_share

__all__ = [
    "KINDS",
    "ExtractionError",
    "Requirement",
    "RequirementResult",
    "Span",
    "check_all",
    "extract",
    "pass_share",
]
