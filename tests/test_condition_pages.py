"""Which page a FronTalk condition is about (mmstudio/feedback/condition_judge.page_target), on
the words of dev dialogue 422c9ecd (Amsterdam Eats) and a site shaped like its reference."""

from __future__ import annotations

import pytest

from mmstudio.feedback.condition_judge import page_target
from mmstudio.requirements.condition_dom import SiteDom
from mmstudio.requirements.conditions import read_condition

HOME = """<!doctype html><html><head><title>Amsterdam Eats</title></head><body>
<header><h1>Amsterdam Eats</h1><nav><a href="index.html">Home</a>
<a href="owner-portal.html">Restaurant Owner Portal</a></nav></header>
<main><h2>Discover Amsterdam's Finest Restaurants</h2>
<ul><li><a href="restaurant1.html">Restaurant 1</a></li>
<li><a href="restaurant2.html">Restaurant 2</a></li></ul></main></body></html>"""
PORTAL = """<!doctype html><html><head><title>Restaurant Owner Portal - Amsterdam Eats</title>
</head><body><h1>Restaurant Owner Portal</h1><h2>Profile Settings</h2>
<h2>Feedback Responses</h2></body></html>"""


def _restaurant(n: int) -> str:
    return (
        f"<!doctype html><html><head><title>Restaurant {n} - Amsterdam Eats</title></head>"
        f"<body><h1>Restaurant {n}</h1><h2>User Reviews &amp; Ratings</h2></body></html>"
    )


@pytest.fixture
def site(tmp_path):
    (tmp_path / "index.html").write_text(HOME)
    (tmp_path / "owner-portal.html").write_text(PORTAL)
    (tmp_path / "restaurant1.html").write_text(_restaurant(1))
    (tmp_path / "restaurant2.html").write_text(_restaurant(2))
    return SiteDom(tmp_path)


@pytest.mark.parametrize(
    ("condition", "page"),
    [
        (
            "Verify the presence of a sorting dropdown menu above the list of reviews on a "
            "restaurant's profile page in the User Reviews and Ratings section.",
            "restaurant1.html",
        ),
        (
            "The accolades section is positioned near the top of the restaurant profile page.",
            "restaurant1.html",
        ),
        (
            'The "Popular Dishes" section within each restaurant\'s profile page displays up to '
            "five dishes with descriptions and placeholder images.",
            "restaurant1.html",
        ),
        (
            "The sidebar menu on the Restaurant Owner Portal page displays icons representing "
            "different sections.",
            "owner-portal.html",
        ),
    ],
)
def test_a_page_name_resolves_to_the_page_it_means(site, condition, page):
    reading = read_condition(condition)
    assert reading.where == "page", reading
    target = page_target(site, reading.page)
    assert target is not None and target.file == page, (reading.page, target)


def test_with_no_page_per_item_the_name_is_resolved_as_before(tmp_path):
    (tmp_path / "index.html").write_text(HOME.replace("restaurant1.html", "#top"))
    (tmp_path / "owner-portal.html").write_text(PORTAL)
    dom = SiteDom(tmp_path)
    assert page_target(dom, "restaurant's profile") == dom.resolve("restaurant's profile")
