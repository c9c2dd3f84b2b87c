"""UI fixtures: a small store built from tests/ui/fixtures/facts.jsonl, a pinned clock,
a fixed theme and no animation, so pilot tests and snapshots are deterministic."""

from __future__ import annotations

import asyncio
import inspect
import shutil
from pathlib import Path

import pytest

from synapse_tui.ui.app import SynapseApp
from tests.ui.helpers import build_store, make_app


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run `async def` tests on a fresh event loop (no async plugin needed for the UI suite)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        names = pyfuncitem._fixtureinfo.argnames  # noqa: SLF001
        kwargs = {name: pyfuncitem.funcargs[name] for name in names}
        asyncio.run(pyfuncitem.obj(**kwargs))
        return True
    return None


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


@pytest.fixture
def app(db: Path) -> SynapseApp:
    application = make_app(db)
    yield application
    application.store.close()
