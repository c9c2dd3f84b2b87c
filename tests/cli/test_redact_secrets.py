"""No libpq secret of a location reaches any output, whatever the location's shape (issue
37, point 8): a password in a URL's user info (percent-encoded or holding `?` or `@`), in
its query (`password`, `sslpassword`, `oauth_client_secret`, a key spelled with `%XX`),
in a `key=value` connection string, and in a malformed URL (an IPv6 host left open)."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.location import locate, redact
from tests.cli_run import run

SECRET = "hunter2"
PORT = "127.0.0.1:1"  # nothing listens: the connection is refused at once

LOCATIONS = {
    "user info": f"postgresql://eve:{SECRET}@{PORT}/memory",
    "percent-encoded": f"postgresql://eve:{SECRET}%21x@{PORT}/memory",
    "question mark": f"postgresql://eve:{SECRET}?x@{PORT}/memory",
    "at sign": f"postgresql://eve:{SECRET}@x@{PORT}/memory",
    "query password": f"postgresql://eve@{PORT}/memory?password={SECRET}",
    "sslpassword": f"postgresql://eve@{PORT}/memory?sslpassword={SECRET}&sslmode=disable",
    "oauth secret": f"postgresql://eve@{PORT}/memory?oauth_client_secret={SECRET}",
    "encoded key": f"postgresql://eve@{PORT}/memory?pass%77ord={SECRET}",
    "malformed IPv6": f"postgresql://eve:{SECRET}@[::1/memory",
    "malformed IPv6, query": f"postgresql://eve@[::1/memory?sslpassword={SECRET}",
    "service": f"service=team sslpassword={SECRET}",
    "service, quoted": f"service=team password='{SECRET} x'",
}


@pytest.mark.parametrize("location", LOCATIONS.values(), ids=LOCATIONS.keys())
def test_shown_never_holds_a_secret(location):
    assert SECRET not in locate(location).shown
    assert SECRET not in redact(f"could not connect: {location!r} refused")


@pytest.mark.parametrize("location", LOCATIONS.values(), ids=LOCATIONS.keys())
def test_no_output_holds_a_secret(location, monkeypatch):
    pytest.importorskip("psycopg")
    monkeypatch.setenv("PGSERVICEFILE", "/nonexistent")
    for args in (("score", location), ("show", location, "a"), ("sync", location)):
        result = run(*args, code=2)
        assert SECRET not in result.output + result.stderr, (args, result.stderr)
        assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1
