"""Keys that match the Footer, a help screen that tells the truth.

A modal screen (help, the legend, a confirmation, as of, the supersede chooser) has a
Footer naming its own keys, not the keys of the screen underneath (they do nothing while
it is open); `?` opens help from the supersede chooser as from every other view, also
from an empty search box, while a `?` after words is part of the query; a key that could
never act on the view (`y`, copy the fact's id, on the `F` count) is neither in its help
nor its Footer, and the letters a text box takes are not listed as triage keys there."""

from __future__ import annotations

import pytest

from synapse_tui.ui.screens.as_of import AsOfScreen
from synapse_tui.ui.screens.confirm import ConfirmScreen
from synapse_tui.ui.screens.frequency import FrequencyScreen
from synapse_tui.ui.screens.help import HelpScreen, binding_rows
from synapse_tui.ui.screens.legend import LegendScreen
from synapse_tui.ui.screens.main import MainScreen
from synapse_tui.ui.screens.path import PathScreen
from synapse_tui.ui.screens.supersede import SupersedeScreen
from tests.ui.helpers import footer_line, record_notices, screen_text, searched, settle

SIZES = [(80, 24), (120, 40)]
LIST_KEYS = ("find", "open", "nbr", "sort", "triage", "queue")  # the fact list's Footer words


def listed(app) -> dict[str, str]:
    """What help lists on the view under it: key -> what it does."""
    return dict(app.screen.rows)


async def opened(pilot, key: str) -> None:
    await pilot.press(key)
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
async def test_the_help_footer_names_closing_and_scrolling_not_the_list_keys(app, size):
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert "find" in await footer_line(pilot, "find")  # the list's own Footer, before
        await opened(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = await footer_line(pilot, "esc close", "↑↓ scroll", "pgup pgdn page", absent=LIST_KEYS)
        assert "esc close" in shown and "↑↓ scroll" in shown and "pgup pgdn page" in shown, shown
        assert not any(word in shown for word in LIST_KEYS), shown
        top = screen_text(app)
        await opened(pilot, "pagedown")  # what the Footer says scrolls the help
        assert screen_text(app) != top
        await opened(pilot, "up")
        await opened(pilot, "escape")
        assert isinstance(app.screen, MainScreen) and "find" in await footer_line(pilot, "find")


@pytest.mark.parametrize("size", SIZES)
async def test_the_legend_and_the_dialogs_have_their_own_footer(app, size):
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await opened(pilot, "L")
        assert isinstance(app.screen, LegendScreen)
        shown = await footer_line(pilot, "esc close", absent=("find",))
        assert "esc close" in shown and "find" not in shown, shown
        await opened(pilot, "escape")
        app.action_as_of()
        await settle(pilot)
        assert isinstance(app.screen, AsOfScreen)
        shown = await footer_line(pilot, "esc cancel", absent=("find",))
        assert "esc cancel" in shown and "find" not in shown, shown
        await opened(pilot, "escape")
        await opened(pilot, "M")  # every fact of the list: more than a bulk move does unasked
        await opened(pilot, "c")
        assert isinstance(app.screen, ConfirmScreen)
        shown = await footer_line(pilot, "y yes", "n no", absent=("find",))
        assert "y yes" in shown and "n no" in shown and "find" not in shown, shown
        await opened(pilot, "n")


@pytest.mark.parametrize("size", SIZES)
async def test_question_mark_in_the_supersede_chooser_opens_its_help(app, size):
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await opened(pilot, "s")
        chooser = app.screen
        assert isinstance(chooser, SupersedeScreen)
        box = chooser.query_one("#sup-search")
        shown = await footer_line(pilot, "? help")
        assert app.focused is box and "? help" in shown, shown
        await opened(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen), box.value
        assert box.value == ""  # not typed
        text = screen_text(app)
        assert "Keys: supersede" in text
        keys = listed(app)
        assert "(in the preview)" in keys["y"]  # how to apply, and when
        assert "? in the empty box is this help" in keys["type"]
        # the app's keys do not reach the chooser: help does not offer them there
        assert not {"c", "x", "v", "a", "s", "^z", "q"} & set(keys), keys
        await opened(pilot, "escape")
        assert app.screen is chooser and app.focused is box and box.value == ""
        # once words are typed, `?` is part of the query, and the Footer no longer offers help
        await pilot.press(*"payments", "question_mark")
        await settle(pilot, 0.3)
        assert app.screen is chooser and box.value == "payments?"
        shown = await footer_line(pilot, absent=("? help",))
        assert "? help" not in shown, shown
        await pilot.press("ctrl+u", *"payments")  # to the candidates: `?` is help there too
        await settle(pilot, 0.3)
        await opened(pilot, "enter")
        assert app.focused is chooser.query_one("#sup-candidates")
        shown = await footer_line(pilot, "? help")
        assert "? help" in shown, shown
        await opened(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "Preview the highlighted fact" in listed(app)["⏎"]
        await opened(pilot, "escape")
        assert app.screen is chooser and box.value == "payments"


async def test_question_mark_in_the_empty_list_search_opens_help_and_types_after_words(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await opened(pilot, "slash")
        box = app.main.query_one("#search")
        shown = await footer_line(pilot, "? help", absent=("/ find",))
        assert app.focused is box and "? help" in shown, shown
        assert "/ find" not in shown  # `/` is typed there (note:a/b), not a key
        await opened(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen) and box.value == ""
        keys = listed(app)
        assert keys["↓ ↵"] == "To the facts the search found" and "type" in keys, keys
        await opened(pilot, "escape")
        assert app.focused is box
        await pilot.press(*"payments", "question_mark")
        await searched(pilot)
        assert isinstance(app.screen, MainScreen) and box.value == "payments?"
        shown = await footer_line(pilot, absent=("? help",))
        assert "? help" not in shown, shown


@pytest.mark.parametrize("size", SIZES)
async def test_the_count_view_does_not_offer_copying_a_fact_id(app, size):
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await opened(pilot, "F")
        assert isinstance(app.screen, FrequencyScreen)
        assert "y" not in dict(binding_rows(app.screen))
        shown = await footer_line(pilot, "esc close")
        assert " y " not in f" {shown} "
        notices = record_notices(app)
        await opened(pilot, "y")
        assert notices == [] and app.clipboard == ""
        await opened(pilot, "question_mark")
        assert "y" not in listed(app)
        assert "Copy the id" not in screen_text(app)


async def test_the_path_views_id_box_lists_no_triage_letters(app):
    """In the path view's id box the letters are typed: help does not call them triage keys."""
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await opened(pilot, "n")
        await opened(pilot, "P")
        assert isinstance(app.screen, PathScreen)
        box = app.screen.query_one("#path-to")
        assert app.focused is box
        await opened(pilot, "question_mark")
        keys = listed(app)
        assert not {"c", "x", "v", "a", "s"} & set(keys), keys
        assert "Find the strongest chain" in keys["⏎"]
        await opened(pilot, "escape")
        await opened(pilot, "c")
        assert box.value == "c" and isinstance(app.screen, PathScreen)
