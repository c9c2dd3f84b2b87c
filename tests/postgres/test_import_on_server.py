"""Writes of facts on a server (issue 25, points 1 and 4): `import FILE`, `import --from`,
`sync` and the MCP `remember` give a store on a server the answers the same writes give a
file, all or nothing, and two imports into one server take turns."""

from __future__ import annotations

import json
import threading
import time

import pytest

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.location import locate
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from tests.core.basic_memory_files import write
from tests.core.mcp_memory_files import ENTITIES, save
from tests.helpers import NOW, base_facts, run, write_jsonl
from tests.postgres.server_reads import READS, more_facts, same_reads

pytestmark = pytest.mark.postgres


def test_an_import_and_a_second_one_answer_as_on_a_file(tmp_path, new_database):
    file, url = tmp_path / "memory.db", new_database()
    first = write_jsonl(tmp_path / "first.jsonl", base_facts() + more_facts(60))
    second = write_jsonl(tmp_path / "second.jsonl", more_facts(30, start=60))
    for target in (file, url):
        assert "imported 65 facts" in run("import", first, "--db", target).stdout
    same_reads(file, url)
    for target in (file, url):  # the graph extended, not rebuilt; the word index follows
        run("import", second, "--db", target)
    same_reads(file, url)
    for args in [("score", "--where", "payments runbook", "--json", "--now", NOW)]:
        assert run(args[0], url, *args[1:]).stdout == run(args[0], file, *args[1:]).stdout


def test_an_import_into_a_server_names_it_without_its_password(tmp_path, new_database):
    url = new_database().replace("postgres:@", "postgres:hunter2@")
    facts = write_jsonl(tmp_path / "f.jsonl", more_facts(3))
    result = run("import", facts, "--db", url, "--json")
    assert "hunter2" not in result.output and json.loads(result.stdout)["db"].startswith(
        "postgresql://postgres@"
    )


def test_a_bad_line_or_a_clash_changes_nothing_on_the_server(tmp_path, new_database):
    url = new_database()
    run("import", write_jsonl(tmp_path / "good.jsonl", more_facts(20)), "--db", url)
    before = [run(*args[:1], url, *args[1:]).stdout for args in READS]
    with Store.open(url) as store:
        (changes,) = store._conn.run("SELECT count(*) FROM facts_changes").fetchone()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(more_facts(1, start=20)[0]) + "\n{not json\n")
    clash = write_jsonl(tmp_path / "clash.jsonl", more_facts(5, start=21) + more_facts(1))  # f0 is there
    for source in (bad, clash):
        result = run("import", source, "--db", url, ok=False)
        assert result.exit_code == 2 and result.stderr.startswith("error: ")
    assert [run(*args[:1], url, *args[1:]).stdout for args in READS] == before
    with Store.open(url) as store:
        assert store._conn.run("SELECT count(*) FROM facts_changes").fetchone() == (changes,)


def test_a_failure_inside_the_import_leaves_nothing(tmp_path, new_database):
    """The graph's hook fails after the rows went in: the transaction takes them back."""
    url = new_database()
    facts = parse_file(str(write_jsonl(tmp_path / "f.jsonl", more_facts(10))))

    def fail(store, positions):
        raise InputError("the hook refused")

    with Store.open(url, create=True) as store:
        with pytest.raises(InputError):
            import_facts(store, facts, "f.jsonl", after_insert=fail)
        assert store._conn.run("SELECT count(*) FROM facts").fetchone() == (0,)


def test_two_imports_take_turns(tmp_path, new_database):
    """The store's advisory lock: an import waits for another writer's transaction to end
    instead of interleaving with it, and then sees its rows (a clash is refused)."""
    url = new_database()
    run("import", write_jsonl(tmp_path / "a.jsonl", more_facts(5)), "--db", url)
    facts = parse_file(str(write_jsonl(tmp_path / "b.jsonl", more_facts(5, start=5))))
    landed: list[float] = []
    with Store.open(url) as holder, Store.open(url) as other:
        with holder.transaction():
            thread = threading.Thread(
                target=lambda: landed.append((import_facts(other, facts, "b.jsonl"), time.monotonic())[1])
            )
            thread.start()
            time.sleep(1.0)
            assert not landed  # waiting on the lock
            released = time.monotonic()
        thread.join(30)
        assert landed and landed[0] >= released
        clash = parse_file(str(write_jsonl(tmp_path / "c.jsonl", more_facts(1, start=5))))
        with pytest.raises(InputError, match="already in the store"):
            import_facts(holder, clash, "c.jsonl")


def test_import_from_a_system_and_sync_answer_as_on_a_file(tmp_path, new_database):
    memory = save(tmp_path / "memory.jsonl")
    project = tmp_path / "shop"
    write(project, "CLAUDE.md", "- Run `make test` before pushing\n")
    file, url = tmp_path / "memory.db", new_database()
    for target in (file, url):
        run("import", "--from", "mcp-memory", memory, "--db", target)
        run("import", "--from", "claude-code", "--project", project, "--db", target)
    same_reads(file, url, None)

    def sync(target, *args) -> str:
        return run("sync", target, *args).stdout.replace(locate(str(target)).shown, "STORE")

    assert sync(url) == sync(file) and "0 added" in sync(file)  # nothing new
    save(
        memory,
        [{**ENTITIES[0], "observations": [*ENTITIES[0]["observations"], "Moved to Lyon"]}, *ENTITIES[1:]],
    )
    (project / "CLAUDE.md").write_text("- Run `make test` before pushing\n")  # unchanged
    on_file, on_server = sync(file, "--json"), sync(url, "--json")
    assert on_server == on_file and json.loads(on_file.splitlines()[0])["added"] == 1
    same_reads(file, url, None)


def test_a_syncs_read_of_its_facts_is_the_files(tmp_path, new_database):
    """`Imports.from_source` is PgStore's own (typed values out of the provenance): it gives
    what SQLite's json_extract gives, for each JSON type an adapter may record."""
    ids = ["s1", 7, 2.5, True, None, {"k": [1, "é"]}]
    facts = [
        {
            "id": f"x{i}",
            "text": f"fact {i}",
            "created_at": NOW,
            "provenance": {
                "x-source": "notes",
                "x-source-id": sid,
                **({"x-source-version": i} if i % 2 else {}),
            },
            **({"supersedes": "x0"} if i == 3 else {}),
        }
        for i, sid in enumerate(ids)
    ] + [{"id": "y", "text": "other", "created_at": NOW, "provenance": {"x-source": 5}}]
    source = write_jsonl(tmp_path / "f.jsonl", facts)
    file, url = tmp_path / "memory.db", new_database()
    answers = []
    for target in (file, url):
        run("import", source, "--db", target)
        with Store.open(target, readonly=True) as store:
            answers.append([store.imports.from_source(s) for s in ("notes", "5")])
    assert answers[1] == answers[0] and len(answers[0][0]) == 6 and answers[0][1] == []


def test_flagging_deleted_records_the_same_instants(tmp_path, new_database):
    file, url = tmp_path / "memory.db", new_database()
    source = write_jsonl(tmp_path / "f.jsonl", more_facts(4))
    exports = []
    for target in (file, url):
        run("import", source, "--db", target)
        with Store.open(target) as store, store.transaction():
            assert store.imports.flag_deleted(["f0", "f1", "f1", "nope"], 1.5e9, {"f1": 1234.25}, ["f0"]) == 2
        exports.append(run("export", target).stdout)
    assert exports[1] == exports[0]
    assert '"deleted": "2017-07-14T02:40:00Z"' in exports[0]  # now, for a fact not given a time
    assert '"deleted": "1970-01-01T00:20:34.250000Z"' in exports[0]
