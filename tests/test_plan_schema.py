"""The DesignPlan contract: valid plans round-trip; unsafe or inconsistent plans are rejected."""

from __future__ import annotations

import copy
import json

import pytest
from pydantic import ValidationError

from mmstudio.plan import DesignPlan, slot_problems


def minimal_plan() -> dict:
    return {
        "title": "Pixel Pop",
        "layout": {
            "palette": [{"role": "background", "hex": "#FFFFFF"}],
            "typography": {"heading": "serif", "body": "sans-serif"},
        },
        "sections": [
            {"id": "hero", "kind": "hero", "title": "Hi", "element_ids": ["hero_image"]},
            {"id": "stats", "kind": "charts", "element_ids": ["chart_sales", "loop"]},
        ],
        "images": [
            {
                "id": "hero_image",
                "save_path": "assets/hero_image.webp",
                "context": {"section": "hero", "role": "hero background"},
                "prompt": "a sunrise",
                "display_width_px": 1200,
                "display_height_px": 600,
            }
        ],
        "videos": [
            {
                "id": "loop",
                "save_path": "assets/loop.webm",
                "poster_path": "assets/loop-poster.webp",
                "context": {"section": "stats", "role": "ambient loop"},
                "prompt": "steam",
                "display_width_px": 640,
                "display_height_px": 360,
            }
        ],
        "charts": [
            {
                "id": "chart_sales",
                "save_path": "assets/chart_sales.html",
                "context": {"section": "stats", "role": "trend"},
                "prompt": "sales by month",
                "display_width_px": 600,
                "display_height_px": 320,
                "source_data": {"columns": ["Month", "Sales"], "rows": [["Jan", 3], ["Feb", 5]]},
            }
        ],
    }


def test_valid_plan_round_trips():
    plan = DesignPlan.model_validate(minimal_plan())
    again = DesignPlan.model_validate_json(plan.model_dump_json())
    assert again == plan
    assert [e.id for e in plan.elements()] == ["hero_image", "loop", "chart_sales"]
    assert plan.charts[0].option_path == "assets/chart_sales.json"
    assert "assets/loop-poster.webp" in plan.asset_paths()


@pytest.mark.parametrize(
    "save_path",
    [
        "../evil.webp",
        "assets/../../evil.webp",
        "/etc/passwd.webp",
        "~/x.webp",
        "C:/x.webp",
        "c:x.webp",
        "assets\\x.webp",
        "assets/%2e%2e/x.webp",
        "file:///tmp/x.webp",
        "https://cdn.example/x.webp",
        "images/x.webp",
        "assets/",
    ],
)
def test_traversal_and_outside_paths_are_errors(save_path):
    data = minimal_plan()
    data["images"][0]["save_path"] = save_path
    with pytest.raises(ValidationError, match="save_path"):
        DesignPlan.model_validate(data)


def test_wrong_extension_is_an_error():
    data = minimal_plan()
    data["charts"][0]["save_path"] = "assets/chart_sales.png"
    with pytest.raises(ValidationError, match=r"\.html"):
        DesignPlan.model_validate(data)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["charts"][0].update(id="hero_image"), "duplicate ids"),
        (lambda d: d["sections"][0]["element_ids"].append("loop"), "two sections"),
        (lambda d: d["sections"][0]["element_ids"].remove("hero_image"), "must be listed"),
        (lambda d: d["images"][0]["context"].update(section="nowhere"), "unknown section"),
        (lambda d: d["sections"][1]["element_ids"].append("ghost"), "unknown elements"),
        (lambda d: d["images"][0].update(size="800x600"), "size"),
        (lambda d: d["videos"][0].update(seconds=5), "seconds"),
        (lambda d: d["images"][0].update(extra_key=1), "extra"),
        (lambda d: d["layout"]["palette"][0].update(hex="red"), "hex"),
        (lambda d: d["charts"][0]["source_data"]["rows"].append([1]), "cells"),
        (lambda d: d.update(title=""), "title"),
        (lambda d: d["images"][0].update(id="Bad Id!"), "id"),
    ],
)
def test_malformed_plans_are_rejected(mutate, message):
    data = copy.deepcopy(minimal_plan())
    mutate(data)
    with pytest.raises(ValidationError, match=message):
        DesignPlan.model_validate(data)


def test_truncated_and_huge_json_are_rejected():
    text = json.dumps(minimal_plan())
    with pytest.raises(ValidationError):
        DesignPlan.model_validate_json(text[: len(text) // 2])
    data = minimal_plan()
    data["sections"][0]["tags"] = ["x"] * 10_000
    with pytest.raises(ValidationError, match="tags"):
        DesignPlan.model_validate(data)


def test_slot_problems_counts_slots():
    plan = DesignPlan.model_validate(minimal_plan())
    good = (
        '<section data-mm-section="hero"><img data-mm-id="hero_image"></section>'
        '<section data-mm-section="stats"><iframe data-mm-id="chart_sales"></iframe>'
        '<video data-mm-id="loop"></video></section>'
    )
    assert slot_problems(plan, good) == []
    doubled = good + '<img data-mm-id="hero_image">'
    assert slot_problems(plan, doubled) == [
        "element 'hero_image' has 2 slots in the page, expected 1"
    ]
    missing = good.replace('<video data-mm-id="loop"></video>', "")
    assert "element 'loop' has 0 slots" in slot_problems(plan, missing)[0]
    extra = good + '<img data-mm-id="stray">'
    assert slot_problems(plan, extra) == ["page has element 'stray', which is not in the plan"]
