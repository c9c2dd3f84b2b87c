"""UI fixtures: a small store built from tests/ui/fixtures/facts.jsonl, a pinned clock,
a fixed theme and no animation, so pilot tests and snapshots are deterministic."""

from __future__ import annotations

import asyncio
import inspect
import shutil
import time
from pathlib import Path

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import load_config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from synapse_tui.ui.app import SynapseApp

from .fixtures.make_facts import TRUSTED_KEY

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run `async def` tests on a fresh event loop (no async plugin needed for the UI suite)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        names = pyfuncitem._fixtureinfo.argnames  # noqa: SLF001
        kwargs = {name: pyfuncitem.funcargs[name] for name in names}
        asyncio.run(pyfuncitem.obj(**kwargs))
        return True
    return None


NOW = "2026-12-01T00:00:00Z"
SIZE = (100, 30)


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


@pytest.fixture(scope="session")
def template_db(tmp_path_factory) -> Path:
    return build_store(tmp_path_factory.mktemp("template"))


@pytest.fixture
def db(template_db: Path, tmp_path: Path) -> Path:
    """A fresh copy per test (tests may write config or triage)."""
    folder = tmp_path / "store"
    folder.mkdir()
    for f in template_db.parent.iterdir():
        shutil.copy(f, folder / f.name)
    return folder / "memory.db"


def make_app(db: Path, now: str = NOW) -> SynapseApp:
    store = Store.open(db)
    config = load_config(db.with_name("memory.synapse.toml"))
    app = SynapseApp(store=store, config=config, clock=Clock(parse_time(now)), theme="textual-dark")
    app.animation_level = "none"
    return app


@pytest.fixture
def app(db: Path) -> SynapseApp:
    application = make_app(db)
    yield application
    application.store.close()


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
        await app.workers.wait_for_complete()
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
        await app.workers.wait_for_complete()
        await pilot.pause(0.02)


def screen_text(app: SynapseApp) -> str:
    """What a person sees: the plain text of every line of the current screen."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())  # noqa: SLF001
