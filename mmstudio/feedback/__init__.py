"""Visual feedback over many turns (MM Studio issue 7; FronTalk, AceCoder): annotations in page
px resolved to elements, turns put into words, requirements split and kept in a ledger, applied
with the narrowest tool, and a critic that re-checks every requirement of every turn so far, then
one repair pass and a committed version. Offline operations: page edits in :mod:`.operations`,
chart type and insert-from-sketch (assets + plan) in :mod:`.assets`, where a new element goes in
:mod:`.placement`. With a model, what no offline operation applies goes to the local / context /
global refiners (:mod:`.refiners`), and behaviour requirements are proven by driving the trial
page (:mod:`.functional`).

Public API: :class:`Annotation`, :class:`Shape`, :func:`resolve`, :func:`compose`,
:class:`Requirement`, :func:`split_offline`, :class:`Ledger`, :class:`FeedbackTurn`."""

from .annotation import Annotation, Shape, load, save
from .compose import compose
from .elements import PageElement, page_elements
from .ledger import Ledger, Verdict
from .requirements import Requirement, split_offline
from .resolve import Mark, resolve
from .turn import FeedbackTurn, TurnResult

__all__ = [
    "Annotation",
    "FeedbackTurn",
    "Ledger",
    "Mark",
    "PageElement",
    "Requirement",
    "Shape",
    "TurnResult",
    "Verdict",
    "compose",
    "load",
    "page_elements",
    "resolve",
    "save",
    "split_offline",
]
