"""The browser under an agent's role (docs/postgres.md): the moves the role may not make
show dimmed in the Footer, a press says why, the help lists them, and the subtitle names
the role (never a password). The store's owner sees every key as on a file."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets._footer import FooterKey

from synapse_tui.ui.app import SynapseApp
from tests.helpers import run
from tests.postgres.browsing import ui_store_on_server
from tests.postgres.roles import scout_login
from tests.ui.helpers import SIZE, footer_line, make_app, record_notices, screen_text, select, settle

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def stores(tmp_path_factory, new_database):
    """(the owner's URL, the agent scout's URL with a password in it, the config)."""
    _, url, config = ui_store_on_server(tmp_path_factory.mktemp("roles-browser"), new_database)
    return url, scout_login(url, password="hunter2"), config


def footer(app: SynapseApp) -> dict[str, bool]:
    """{action: shown dimmed} of the Footer's triage keys."""
    return {
        key.action: key.has_class("-disabled")
        for key in app.screen.query(FooterKey)
        if key.action.startswith("triage(")
    }


async def what_scout_sees(app: SynapseApp, fact_id: str):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, fact_id)
        await settle(pilot)
        await footer_line(pilot, "triage")  # drawn: its keys composed from the screen's bindings
        keys = footer(app)
        first = screen_text(app)
        notices = record_notices(app)
        await pilot.press("a")
        await pilot.press("s")
        await settle(pilot)
        pressed = list(notices)
        on_top = type(app.screen).__name__
        await pilot.press("question_mark")
        await settle(pilot)
        helped = screen_text(app)
        return keys, first, pressed, on_top, helped


def test_an_agents_browser_dims_what_its_role_may_not_do(stores):
    url, as_scout, config = stores
    before = run("export", url, "--audit").stdout
    keys, first, pressed, on_top, helped = asyncio.run(
        what_scout_sees(make_app(as_scout, config=config), "f-pay-03")
    )

    assert keys["triage('accept')"] is True and keys["triage('supersede')"] is True  # shown, dimmed
    assert keys["triage('corroborate')"] is False and keys["triage('verify')"] is False
    title = first.splitlines()[0]
    assert "role scout: no accept, supersede" in title
    assert "hunter2" not in first + helped and "scout@" in title

    # a dimmed key still answers: why, in one notice each, and nothing was tried
    assert len(pressed) == 2 and all(severity == "warning" for severity, _ in pressed)
    assert "role scout lacks UPDATE on facts.tier" in pressed[0][1]
    assert "supersede" in pressed[1][1] and on_top == "MainScreen"  # no supersede picker opened
    assert run("export", url, "--audit").stdout == before

    said = " ".join(helped.split())
    assert "NOT FOR THIS LOGIN (role scout)" in said
    assert "accept: role scout lacks UPDATE on facts.tier: accept is a person's" in said


async def owners_keys(app: SynapseApp, fact_id: str):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, fact_id)
        await settle(pilot)
        await footer_line(pilot, "triage")  # drawn: its keys composed from the screen's bindings
        keys = footer(app)
        await pilot.press("question_mark")
        await settle(pilot)
        return keys, screen_text(app)


def test_the_owner_sees_every_move(stores):
    url, _, config = stores
    keys, helped = asyncio.run(owners_keys(make_app(url, config=config), "f-pay-03"))
    assert keys and not any(keys.values())
    assert "NOT FOR THIS LOGIN" not in helped and "role postgres" not in helped
