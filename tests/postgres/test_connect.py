"""Connecting as libpq does: a service from pg_service.conf, libpq's environment, and the
location's own parameters, which ours never override."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from synapse_tui.core.base.location import locate
from synapse_tui.core.store.postgres.connect import connect, pool
from tests.helpers import run

pytestmark = pytest.mark.postgres


@pytest.fixture
def service(new_database, tmp_path, monkeypatch) -> str:
    """A service `synapse_test` naming a new database, in a pg_service.conf of its own."""
    parts = urlsplit(new_database())
    conf = tmp_path / "pg_service.conf"
    conf.write_text(
        f"[synapse_test]\nhost={parse_qs(parts.query)['host'][0]}\ndbname={parts.path.lstrip('/')}\nuser=postgres\n"
    )
    monkeypatch.setenv("PGSERVICEFILE", str(conf))
    return "synapse_test"


def test_a_service_name_is_a_store_location(db, service, tmp_path):
    run("copy", db, f"service={service}")
    run("copy", f"service={service}", tmp_path / "back.db")
    assert run("export", tmp_path / "back.db").stdout == run("export", db).stdout


def test_an_empty_url_takes_the_server_from_libpq_s_environment(db, service, tmp_path, monkeypatch):
    monkeypatch.setenv("PGSERVICE", service)
    out = run("copy", db, "postgresql://").stdout
    assert out.endswith("to postgresql://\n")
    run("copy", "postgresql://", tmp_path / "back.db")
    assert run("export", tmp_path / "back.db").stdout == run("export", db).stdout


def test_the_location_s_parameters_pass_through(pg_url):
    with connect(locate(pg_url + "&application_name=team-review&connect_timeout=3")) as conn:
        assert conn.execute("SHOW application_name").fetchone() == ("team-review",)
        assert conn.info.get_parameters()["connect_timeout"] == "3"
    with connect(locate(pg_url)) as conn:
        assert conn.execute("SHOW application_name").fetchone() == ("synapse-tui",)


def test_a_pool_lends_connections_to_the_server(pg_url):
    with pool(locate(pg_url), max_size=2) as shared, shared.connection() as conn:
        assert conn.execute("SELECT current_database()").fetchone()[0] == urlsplit(pg_url).path.lstrip("/")
