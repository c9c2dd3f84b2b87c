"""SPEC 8, statement by statement, through the command line on a real SQLite store: each verb
prints the new trust, `--json` the object of `show --json`; exit 2 with one `error:` line for
an unknown id, a read-only store and a refused supersession, for every verb."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli_run import refused, run
from tests.helpers import NOW, write_jsonl

FACTS = [
    {"id": "a", "text": "the API key rotates monthly", "created_at": "2026-10-01T00:00:00Z"},
    {
        "id": "b",
        "text": "the API key rotates weekly",
        "created_at": "2026-11-01T00:00:00Z",
        "supersedes": "a",
    },
    {"id": "c", "text": "the office opens at nine", "created_at": "2026-09-01T00:00:00Z"},
    {"id": "d", "text": "the office opens at ten", "created_at": "2026-11-10T00:00:00Z"},
]
VERBS = [
    ("corroborate", "c"),
    ("contradict", "c"),
    ("verify", "c"),
    ("accept", "c"),
    ("supersede", "c", "d"),
]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "m.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", FACTS), "--db", path)
    return path


def _show(db, fid) -> dict:
    return json.loads(run("show", db, fid, "--json", "--now", NOW).stdout)


def _state(db) -> tuple[str, str]:
    return run("export", db).stdout, run("export", db, "--audit").stdout


@pytest.mark.parametrize("verb", VERBS, ids=[v[0] for v in VERBS])
def test_each_verb_prints_the_new_trust_and_json_is_the_object_of_show(db, verb):
    before = _show(db, verb[1])
    said = run(*verb[:1], db, *verb[1:], "--now", NOW).stdout
    after = _show(db, verb[1])
    assert f"trust {before['trust']:.2f} -> {after['trust']:.2f}" in said, said
    run("undo", db, "--now", NOW)
    printed = json.loads(run(*verb[:1], db, *verb[1:], "--json", "--now", NOW).stdout)
    assert printed == _show(db, verb[1])


def test_undo_prints_the_fact_it_gave_back_and_json_is_its_show_object(db):
    run("corroborate", db, "c", "--now", NOW)
    printed = json.loads(run("undo", db, "--json", "--now", NOW).stdout)
    assert printed == _show(db, "c") and printed["corroborations"] == 0


@pytest.mark.parametrize(
    "args",
    [
        ("corroborate", "zz"),
        ("contradict", "zz"),
        ("verify", "zz"),
        ("accept", "zz"),
        ("supersede", "zz", "b"),
        ("supersede", "c", "zz"),
    ],
    ids=lambda a: "-".join(a),
)
def test_an_unknown_id_is_one_error_line_exit_2_and_changes_nothing(db, args):
    before = _state(db)
    line = refused(args[0], db, *args[1:], "--now", NOW)
    assert "no fact with id 'zz'" in line
    assert _state(db) == before


def test_a_supersession_cycle_is_refused_for_a_chain_too(db):
    run("supersede", db, "b", "d", "--now", NOW)  # a <- b <- d
    before = _state(db)
    assert "supersession cycle" in refused("supersede", db, "d", "a", "--now", NOW)
    assert _state(db) == before


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """The store's file made unwritable: 0444, or for root (who writes a 0444 file) immutable."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)]).returncode:
            pytest.skip("root, and the file cannot be made immutable here")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        return
    path.chmod(0o444)
    try:
        yield
    finally:
        path.chmod(0o644)


@pytest.mark.parametrize("verb", [*VERBS, ("undo",)], ids=[v[0] for v in [*VERBS, ("undo",)]])
def test_a_read_only_store_is_one_error_line_for_every_verb(db, verb):
    run("verify", db, "a", "--now", NOW)  # something to undo
    before = _state(db)
    with read_only(db):
        line = refused(verb[0], db, *verb[1:], "--now", NOW)
    assert "read-only" in line
    assert _state(db) == before


def test_every_entry_names_its_actor_as_user_login(db):
    for verb in VERBS:
        run(*verb[:1], db, *verb[1:], "--now", NOW)
    run("undo", db, "--now", NOW)
    for fid in ("c", "d"):
        for entry in _show(db, fid)["history"]:
            assert {"at", "action", "actor", "score_before"} <= set(entry)
            assert re.fullmatch(r"user:\S+", entry["actor"]), entry
