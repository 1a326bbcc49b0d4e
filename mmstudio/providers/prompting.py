"""Prompt templates (``prompts/*.j2``): loaded once, filled with named placeholders.

Templates are data: the wording lives in ``prompts/``, the code only fills placeholders. A
missing placeholder is an error (``StrictUndefined``), never an empty string sent to a model.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2

from mmstudio.resources import data_dir


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("prompts"))),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # prompts are plain text, not HTML
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_prompt(name: str, **values: Any) -> str:
    """The template ``prompts/<name>`` filled with ``values``; raises jinja2.TemplateNotFound or
    jinja2.UndefinedError (a missing placeholder)."""
    return _environment().get_template(name).render(**values).strip() + "\n"
