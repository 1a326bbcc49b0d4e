"""Hierarchical reflection (MM-WebAgent §3.4): local (the asset), context (how the page embeds
it) and global (the page) refiners, guardrails, the trial-and-install editor and the loop's
routing.

Public API: :func:`route` (report → refiner targets), :func:`propose` (target → Change),
:class:`SiteEditor` (try, verify and commit a Change through the project's edit transaction,
:mod:`mmstudio.project.workspace`), :class:`Reflection`,
:func:`get_refiners` (the offline rules, or a model with the rules as its fallback)."""

from .apply import Evaluator, SiteEditor, render_and_score
from .loop import ROUNDS, Reflection, Target, better, measured_issues, propose, route
from .model import Change, Outcome, RefineInput
from .registry import Refiners, RuleRefiners, get_refiners

__all__ = [
    "ROUNDS",
    "Change",
    "Evaluator",
    "Outcome",
    "RefineInput",
    "Refiners",
    "Reflection",
    "RuleRefiners",
    "SiteEditor",
    "Target",
    "better",
    "get_refiners",
    "measured_issues",
    "propose",
    "render_and_score",
    "route",
]
