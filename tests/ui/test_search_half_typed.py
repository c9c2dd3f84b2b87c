"""What the search box says of a query a person is still typing or got wrong: a filter's
name and operator with nothing after (`trust<`, `tier: auto` with a space) is read as a
word, and words of punctuation alone (`((((`) find nothing; the line under the box says
so, instead of an unexplained "no facts here". A whole filter says nothing there."""

from __future__ import annotations

import pytest

from tests.ui.helpers import SIZE, candidates_listed, searched, settle


def under_the_box(app) -> str:
    return str(app.main.query_one("#search-error").render())


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("trust<", "'trust<' is read as a word: the filter needs a number after it, e.g. trust<0.5"),
        ("tier: auto", "'tier:' is read as a word: the filter takes one of auto, human, signed"),
        ("note:", "'note:' is read as a word: the filter needs a value"),
        ("((((", "words with no letter or digit find nothing"),
    ],
)
async def test_a_half_typed_filter_or_punctuation_is_explained_under_the_box(app, typed, says):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        app.main.query_one("#search").value = typed
        await searched(pilot)
        assert says in under_the_box(app), under_the_box(app)
        app.main.query_one("#search").value = "trust<0.5"  # the filter typed whole: nothing to say
        await searched(pilot)
        assert not under_the_box(app).strip()


async def test_the_supersede_choosers_search_says_it_too(app):
    """The chooser's own search box (s) reads a query as the list's does: its list title
    says how a half-typed filter was read, beside "0 matches"."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        app.screen.query_one("#sup-search").value = "trust<"
        await candidates_listed(pilot)
        title = str(app.screen.query_one("#sup-list-title").render())
        assert "0 matches: nothing here ('trust<' is read as a word: the filter needs a number" in title, (
            title
        )
