"""The DesignPlan the pages of the broken-page corpus (``tests/cases/``) were written for."""

from __future__ import annotations

from mmstudio.plan import DesignPlan


def corpus_plan(**overrides) -> DesignPlan:
    """The plan of the broken-page corpus pages (`tests/cases/`): a hero image and a chart;
    ``overrides`` replace top-level fields."""
    data = {
        "title": "Harbor Rowing Club",
        "layout": {
            "palette": [
                {"role": "primary", "hex": "#2c5282"},
                {"role": "accent", "hex": "#e6a03c"},
            ],
            "typography": {"heading": "DejaVu Sans", "body": "DejaVu Sans"},
        },
        "sections": [
            {"id": "hero", "kind": "hero", "element_ids": ["hero_image"]},
            {"id": "stats", "kind": "charts", "element_ids": ["visits_chart"]},
        ],
        "images": [
            {
                "id": "hero_image",
                "save_path": "assets/hero.png",
                "context": {"section": "hero", "role": "hero"},
                "prompt": "a boat",
                "display_width_px": 480,
                "display_height_px": 300,
            }
        ],
        "charts": [
            {
                "id": "visits_chart",
                "save_path": "assets/visits_chart.html",
                "context": {"section": "stats", "role": "chart"},
                "prompt": "visitors",
                "title": "Visitors per month",
                "display_width_px": 640,
                "display_height_px": 320,
                "source_data": {
                    "columns": ["month", "visits"],
                    "rows": [["Jan", 3], ["Feb", 5], ["Mar", 4], ["Apr", 7]],
                },
            }
        ],
    }
    data.update(overrides)
    return DesignPlan.model_validate(data)
