"""Helpers the pilot tests share: the app on a store, waiting for it to settle, its text.
Fixtures live in conftest.py; a test module imports only from here."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path

from textual.worker import WorkerCancelled, WorkerState

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config, load_config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from synapse_tui.ui import app as app_module
from synapse_tui.ui.app import SynapseApp
from synapse_tui.ui.screens.nav import OpenFact
from tests.ui.fixtures.make_facts import TRUSTED_KEY

FIXTURES = Path(__file__).parent / "fixtures"
NOW = "2026-12-01T00:00:00Z"
SIZE = (100, 30)


def imported(folder: Path, name: str, *source: object) -> Path:
    """The store `folder/name.db` made as a user makes it, by `synapse-tui import`: of
    `source`, a list of facts (written as an interchange file first) or `--from SYSTEM DIR`
    arguments; beside it an empty config, so the machine's own never plays a part."""
    from tests.cli_run import run
    from tests.helpers import write_jsonl

    db = folder / f"{name}.db"
    (folder / f"{name}.synapse.toml").write_text("")
    if len(source) == 1 and isinstance(source[0], list):
        source = (write_jsonl(folder / f"{name}.jsonl", source[0]),)
    run("import", *source, "--db", db)
    return db


def build_store(folder: Path) -> Path:
    """memory.db with the fixture facts, its graph, and a config trusting the test key."""
    from synapse_tui.core.graph.build import update_graph

    db = folder / "memory.db"
    cfg_path = folder / "memory.synapse.toml"
    cfg_path.write_text(f'[trust]\nsigners = ["{TRUSTED_KEY}"]\n', encoding="utf-8")
    config = load_config(cfg_path)
    facts = parse_file(FIXTURES / "facts.jsonl")
    with Store.open(db, create=True) as store:
        import_facts(
            store, facts, "facts.jsonl", after_insert=lambda conn, new: update_graph(conn, new, config)
        )
    return db


def make_app(location: Path | str, now: str = NOW, config: Config | None = None) -> SynapseApp:
    """The browser on a store (a file, whose config is the one beside it, or a server's
    location with `config`), pinned in time, theme and motion for the pilot."""
    store = Store.open(location)
    if config is None:
        config = load_config(Path(location).with_name("memory.synapse.toml"))
    app = SynapseApp(store=store, config=config, clock=Clock(parse_time(now)), theme="textual-dark")
    app.animation_level = "none"
    return app


async def workers_done(app) -> None:
    """Every started worker at an end. One cancelled is at an end too (an exclusive group's
    older worker, replaced by a newer one as the app means it to be), not a failure."""
    for worker in list(app.workers):
        if worker.state != WorkerState.PENDING:
            with contextlib.suppress(WorkerCancelled):
                await worker.wait()


async def settle(pilot, delay: float = 0.0) -> None:
    """Let timers fire and workers finish, until the screen has repainted with nothing
    left to read: a worker's message may start another, and a repaint may ask for texts
    (the list paints placeholders first), however slow the machine is."""
    from synapse_tui.ui.widgets.fact_detail import FactDetail
    from synapse_tui.ui.widgets.fact_list import FactList

    if delay:
        await pilot.pause(delay)
    app = pilot.app
    for _ in range(2):
        await workers_done(app)
        await pilot.pause()
    deadline = time.monotonic() + 10  # a busy machine: wait longer, never forever
    while time.monotonic() < deadline:
        lists = app.main.query(FactList) if app.screen_stack else []
        panes = app.main.query(FactDetail) if app.screen_stack else []
        busy = (
            any(not w.is_finished for w in app.workers)
            or any(f.waiting_for_texts for f in lists)
            or any(p.pending for p in panes)  # the pane's history waits for the cursor to rest
        )
        if not busy:
            break
        await workers_done(app)
        await pilot.pause(0.02)


def screen_text(app: SynapseApp) -> str:
    """What a person sees: the plain text of every line of the current screen."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())  # noqa: SLF001


def _footer_drawn(app: SynapseApp, line: str) -> bool:
    """Whether the current screen's Footer is drawn on `line`: composed with the screen's
    keys (Textual's Footer holds none until the screen publishes its bindings) and every
    key and group name of it painted there (a Footer composed anew paints its keys a frame
    or more later: the line read in between held `cxvas ^z^y ⇧↑⇧↓` and nothing else)."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey, FooterLabel

    footers = list(app.screen.query(Footer))
    keys = [k for f in footers for k in f.query(FooterKey) if k.region.width]
    names = [str(label.content) for f in footers for label in f.query(FooterLabel) if label.region.width]
    words = [k.key_display for k in keys] + [k.description for k in keys] + names
    return bool(keys) and all(word in line for word in words)


async def footer_line(pilot, *parts: str, absent: tuple[str, ...] = (), within: float = 10.0) -> str:
    """The Footer's line (the screen's last) as a person reads it: once the current screen's
    Footer is drawn, holds every one of `parts` and none of `absent`, the same on two reads a
    pause apart. A Footer draws in steps, each after a repaint (the screen publishes its
    bindings after one, the Footer composes its keys after the next, ours measures and
    composes again for the keys that fit), which `settle` does not wait for: a loaded
    machine repaints late. After `within` seconds, the line as it stands, for the caller's
    assert to show."""

    def ready(line: str) -> bool:
        return (
            _footer_drawn(pilot.app, line)
            and all(part in line for part in parts)
            and not any(part in line for part in absent)
        )

    deadline = time.monotonic() + within
    before = None
    while True:
        line = screen_text(pilot.app).splitlines()[-1]
        if (ready(line) and line == before) or time.monotonic() > deadline:
            return line
        before = line if ready(line) else None
        await pilot.pause(0.02)


def errors(notices: list[tuple[str, str]], headline: str = "") -> list[str]:
    """The error notices of `record_notices`, those beginning with `headline` if given."""
    return [text for severity, text in notices if severity == "error" and text.startswith(headline)]


def said(app: SynapseApp) -> str:
    """What the current screen's text widgets say, each whole: a line the screen folds at
    its width (a long path) reads as one here, for a phrase that may fall across the fold."""
    from textual.widgets import Static

    return "\n".join(str(widget.content) for widget in app.screen.query(Static))


async def shown(pilot, *parts: str, within: float = 5.0) -> str:
    """The screen's text once every one of `parts` is on it (a failure's words reach the
    screen a repaint after its notice; a loaded machine repaints late), or as it stands
    after `within` seconds, for the caller's assert to show."""
    deadline = time.monotonic() + within
    text = screen_text(pilot.app)
    while not all(part in text for part in parts) and time.monotonic() < deadline:
        await pilot.pause(0.05)
        text = screen_text(pilot.app)
    return text


def record_notices(app) -> list[tuple[str, str]]:
    """(severity, message) of every notice the app shows from now on."""
    seen: list[tuple[str, str]] = []
    original = app.notify

    def notify(message, *, title="", severity="information", timeout=None, markup=True):
        seen.append((severity, f"{title}: {message}" if title else str(message)))
        original(message, title=title, severity=severity, timeout=timeout, markup=markup)

    app.notify = notify
    return seen


async def select(pilot, fact_id: str) -> None:
    pilot.app.main.go_to_fact(fact_id)
    await pilot.pause()
    assert pilot.app.main.current_fact_id() == fact_id


def trust(app, fact_id: str) -> float:
    return float(app.memory.scores.trust[app.memory.index[fact_id]])


def row_of(app, fact_id: str) -> str:
    """The list line of a fact, as a person sees it."""
    text = app.texts([app.memory.index[fact_id]])[0][:30]
    return next(line for line in screen_text(app).splitlines() if text in line)


def db_row(db: Path, fact_id: str) -> dict:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return dict(
            conn.execute("SELECT r, s, tier, supersedes FROM facts WHERE id = ?", (fact_id,)).fetchone()
        )


def audit(db: Path) -> list[dict]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("SELECT * FROM audit ORDER BY seq")]


class Harness(SynapseApp):
    """The browser, recording the facts the screens ask to open."""

    CSS_PATH = [Path(app_module.__file__).parent / path for path in SynapseApp.CSS_PATH]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.opened: list[str] = []

    def on_open_fact(self, message: OpenFact) -> None:
        message.prevent_default()  # record it instead of opening the detail view
        self.opened.append(message.fact_id)


def harness(db) -> Harness:
    store = Store.open(db)
    config = load_config(db.with_name("memory.synapse.toml"))
    app = Harness(store=store, config=config, clock=Clock(parse_time(NOW)), theme="textual-dark")
    app.animation_level = "none"
    return app


async def palette_answered(pilot) -> None:
    """Wait for the command palette to list its matches for what was typed: they come from
    a search worker, and `enter` takes the first, so wait for the search to finish too."""
    deadline = time.monotonic() + 10  # a busy machine: wait longer, never forever
    while time.monotonic() < deadline:
        found = pilot.app.screen.query("CommandList")
        if found and found.first().option_count:
            break
        await pilot.pause(0.02)
    await workers_done(pilot.app)
    await pilot.pause()


async def searched(pilot) -> None:
    """Wait for the search box's debounced search to land: the list shows what the box
    says, or the box says why it cannot (a busy machine answers later than any pause)."""
    from synapse_tui.ui.search import SearchBar

    app = pilot.app
    bar = app.main.query_one(SearchBar)
    deadline = time.monotonic() + 10  # a busy machine: wait longer, never forever
    while time.monotonic() < deadline:
        value = bar.input.value
        if app.browser.view.search.source == value:
            break
        if bar.error is not None and f"\n  {value}\n" in bar.error.plain:
            break
        await pilot.pause(0.02)
    await settle(pilot)


async def candidates_listed(pilot) -> None:
    """Wait for the supersede chooser's debounced search to land: its list title stops
    offering related facts and counts the matches (or names the query's error)."""
    title = pilot.app.screen.query_one("#sup-list-title")
    deadline = time.monotonic() + 10  # a busy machine: wait longer, never forever
    while "related facts" in title.render().plain and time.monotonic() < deadline:
        await pilot.pause(0.02)
    await settle(pilot)
