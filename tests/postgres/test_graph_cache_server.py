"""A small import into a large store on a server extends its graph from files in this
user's cache, as a file's does from the folder beside it, and reads the server's rows
instead whenever another client wrote the graph since: either way every answer is the one
the same imports give a file."""

from __future__ import annotations

import pytest

from synapse_tui.core.graph import cache as graphcache
from tests.helpers import run, write_jsonl
from tests.postgres.server_reads import more_facts, same_reads

pytestmark = pytest.mark.postgres


@pytest.fixture
def small_spaces(monkeypatch):
    """Files for a space of any size (a test store is far below MIN_ROWS), and a record of
    whether each update found them."""
    monkeypatch.setattr(graphcache, "MIN_ROWS", 10)
    found: list[tuple[str, bool]] = []
    load, load_npmi = graphcache.load, graphcache.load_npmi

    def spy(conn, kind, stored, k):
        got = load(conn, kind, stored, k)
        found.append((kind, got is not None))
        return got

    def spy_npmi(conn, stored):
        got = load_npmi(conn, stored)
        found.append(("npmi", got is not None))
        return got

    monkeypatch.setattr(graphcache, "load", spy)
    monkeypatch.setattr(graphcache, "load_npmi", spy_npmi)
    return found


def test_an_update_on_a_server_uses_its_files_only_while_they_are_its_own(
    tmp_path, new_database, small_spaces
):
    import psycopg

    file, url = tmp_path / "memory.db", new_database()
    batches = [write_jsonl(tmp_path / f"b{i}.jsonl", more_facts(10, start=40 + 10 * i)) for i in range(3)]
    first = write_jsonl(tmp_path / "first.jsonl", more_facts(40))
    for where in (file, url):
        run("import", first, "--db", where)
    assert list(graphcache.server_root().glob("*-graph/lexical.json")), "files in the user's cache"

    small_spaces.clear()
    run("import", batches[0], "--db", url)
    assert ("lexical", True) in small_spaces and ("npmi", True) in small_spaces
    run("import", batches[0], "--db", file)
    same_reads(file, url)

    # another client writes the graph's state again: the same value, another transaction
    with psycopg.connect(url, autocommit=True) as other:
        other.execute("UPDATE meta SET value = value WHERE key LIKE 'graph.%'")
    small_spaces.clear()
    run("import", batches[1], "--db", url)
    assert ("lexical", False) in small_spaces and ("npmi", False) in small_spaces  # read the rows
    run("import", batches[1], "--db", file)
    same_reads(file, url)

    small_spaces.clear()  # and the update that read the rows left files for the next
    run("import", batches[2], "--db", url)
    assert ("lexical", True) in small_spaces
    run("import", batches[2], "--db", file)
    same_reads(file, url)
