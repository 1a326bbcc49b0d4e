"""Stage 1 of generation: the prompt becomes a plan (the global plan with a local plan per
image, video and chart — MM-WebAgent's hierarchical planning).

The planning itself is the designer's: the rule-based planner offline
(``providers/offline/planner*.py``) or the model's (``providers/llm/designer.py``); this stage
times it and hands the plan on.
"""

from __future__ import annotations

import time

from mmstudio.plan import DesignPlan
from mmstudio.providers.base import Designer


async def plan_page(prompt: str, designer: Designer) -> tuple[DesignPlan, float]:
    """Plan ``prompt`` with ``designer``; returns the plan and the seconds it took. Raises what
    the designer raises (DesignerError for a plan it cannot make)."""
    started = time.perf_counter()
    plan = await designer.plan(prompt)
    return plan, time.perf_counter() - started
