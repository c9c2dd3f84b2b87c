"""A newcomer's commands on their own memory: what tripped them, each as the user runs it."""

from __future__ import annotations

import json

import pytest

from tests.cli_run import refused, run
from tests.helpers import write_jsonl

LONG = "claude-code:projects/payments/memory/feedback_testing.md#"  # alike for 56 characters


@pytest.fixture
def long_ids(tmp_path):
    facts = [
        {
            "id": f"{LONG}{tail}",
            "text": f"the payments ledger retries failed webhooks {n} times with backoff",
            "created_at": f"2026-11-2{n}T09:00:00Z",
        }
        for n, tail in enumerate(["a1b2c3d4", "a1b2c3e9", "ffe01234"])
    ]
    db = tmp_path / "long.db"
    run("import", write_jsonl(tmp_path / "long.jsonl", facts), "--db", db)
    return db


def test_neighbours_takes_an_id_as_the_list_shows_it(long_ids):
    """`show` and the triage commands took `…ffe01234` (as the browser shows the id);
    `neighbours` said there was no such fact."""
    out = json.loads(run("neighbours", long_ids, "…ffe01234", "--json").stdout)
    assert out["id"] == f"{LONG}ffe01234"
    assert run("neighbours", long_ids, "ffe01234").stdout.startswith(f"semantic neighbours of {LONG}ffe01234")
    line = refused("neighbours", long_ids, f"{LONG}a1b2c3")
    assert "is ambiguous: it names 2 facts" in line and f"{LONG}a1b2c3e9" in line


def test_dismiss_takes_ids_as_the_list_shows_them(long_ids):
    """`suggest` names the newer fact `…ffe01234`; `dismiss` with that id (or the older's
    tail) said there was no such fact."""
    out = run("dismiss", long_ids, "…a1b2c3d4", "…ffe01234").stdout
    assert out.startswith(f"dismissed 1 suggestion: {LONG}a1b2c3d4 by {LONG}ffe01234")
    line = refused("dismiss", long_ids, f"{LONG}a1b2c3", "…ffe01234")
    assert "is ambiguous: it names 2 facts" in line
    assert run("undo", long_ids).stdout.startswith(f"undid dismiss {LONG}a1b2c3d4")


def test_help_as_a_word_shows_the_help(tmp_path, monkeypatch):
    """`synapse-tui help` was taken for a store named help: `error: help: no such database`."""
    monkeypatch.chdir(tmp_path)
    out = run("help").stdout
    assert out.startswith("Usage: ") and "[COMMAND]" in out.splitlines()[0] and "Commands:" in out
    assert "score [OPTIONS] DB" in run("help", "score").stdout.splitlines()[0]
    # a command help does not know is a mistake to say, not the list shown with status 0
    assert "no such command 'sugest'. Did you mean 'suggest'?" in refused("help", "sugest")
    assert "no such command 'frobnicate'" in refused("help", "frobnicate")


@pytest.mark.parametrize("system", ["mcp-memory", "langgraph"])
def test_a_folder_given_for_a_file_is_called_a_folder(tmp_path, system):
    """A folder named where the source is one file said `no such file`, though it exists."""
    folder = tmp_path / "memory"
    folder.mkdir()
    line = refused("import", "--from", system, folder, "--db", tmp_path / "m.db")
    assert f"{folder}: a folder, not a file; expected" in line
    assert not (tmp_path / "m.db").exists()


def test_a_folder_imported_without_from_says_how_to_read_it(tmp_path):
    """`import --db m.db NOTES/` said only that a directory is not a JSON Lines file."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("- Deploys happen on Tuesdays\n")
    line = refused("import", "--db", tmp_path / "m.db", notes)
    assert "is a folder, not a JSON Lines file" in line and "with --from: markdown" in line
    assert not (tmp_path / "m.db").exists()


def test_a_bad_now_is_named_as_the_option_it_came_from(long_ids):
    """`error: field '--now': ...` read as if an interchange file's field were wrong."""
    assert (
        refused("score", long_ids, "--now", "yesterday")
        == "error: --now: not an RFC 3339 timestamp: 'yesterday'"
    )
    said = run("show", long_ids, "ffe01234", code=2, env={"SYNAPSE_NOW": "soon"}).stderr
    assert said == "error: SYNAPSE_NOW: not an RFC 3339 timestamp: 'soon'\n"


def test_a_markdown_file_imported_without_from_says_how_to_read_it(tmp_path):
    """`import CLAUDE.md --db m.db` (the --from forgotten) said `CLAUDE.md:1: not valid JSON
    at column 1`: now it says it is Markdown, and the command that reads its folder."""
    notes = tmp_path / "my notes"
    notes.mkdir()
    (notes / "CLAUDE.md").write_text("- Deploys happen on Tuesdays\n")
    line = refused("import", notes / "CLAUDE.md", "--db", tmp_path / "m.db")
    assert "is a Markdown file, not JSON Lines" in line
    assert f"`synapse-tui import --from markdown '{notes}' --db DB`" in line
    assert not (tmp_path / "m.db").exists()


def test_a_store_imported_without_from_is_called_a_database(tmp_path, long_ids):
    """`import memory.db --db other.db` (or mem0's history.db without --from mem0) said
    `not valid UTF-8` at line 1, naming neither what the file is nor what reads it."""
    line = refused("import", long_ids, "--db", tmp_path / "other.db")
    assert "is a SQLite database, not JSON Lines" in line and "--from mem0" in line
    assert not (tmp_path / "other.db").exists()


def test_a_missing_markdown_file_is_still_missing(tmp_path):
    line = refused("import", tmp_path / "gone.md", "--db", tmp_path / "m.db")
    assert line == f"error: {tmp_path / 'gone.md'}: cannot read: No such file or directory"


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["score", "{db}", "--limit"], "score"),
        (["suggest", "{db}", "--kind"], "suggest"),
        (["import", "--from", "markdown", "notes", "--db"], "import"),
    ],
)
def test_an_option_left_without_its_value_points_at_its_command_help(long_ids, args, command):
    """`score DB --limit` said `(see synapse-tui --help)`, a page that lists no --limit."""
    line = refused(*[a.format(db=long_ids) for a in args])
    option = args[-1]
    assert line.startswith(f"error: option {option!r} requires an argument (see ")
    assert line.endswith(f" {command} --help)")  # the program's name, then the command's


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("markdwon", "markdown"),
        ("Markdown", "markdown"),
        ("claude_code", "claude-code"),
        ("gemini", "gemini-cli"),
    ],
)
def test_a_misspelt_system_names_the_one_meant(tmp_path, typed, meant):
    """`--from markdwon` listed twelve systems and left the reader to spot the typo."""
    line = refused("import", "--from", typed, tmp_path, "--db", tmp_path / "m.db")
    assert line.startswith(f"error: --from {typed}: unknown system (did you mean {meant}?); one of mem0, ")
    assert not (tmp_path / "m.db").exists()


def test_a_system_near_no_other_is_not_guessed(tmp_path):
    line = refused("import", "--from", "notes", tmp_path, "--db", tmp_path / "m.db")
    assert "did you mean" not in line and "unknown system; one of mem0, " in line


def test_a_config_named_for_the_whole_store_name_is_refused_not_passed_over(long_ids):
    """`long.db.synapse.toml` (named as `long.db.synapse.suggest` beside it is) was passed
    over, and the store scored with the defaults, silently: the trusted signer, the
    constants it set, none of them applied."""
    misnamed = long_ids.with_name("long.db.synapse.toml")
    misnamed.write_text("[freshness]\nb0 = -1.2\n")
    line = refused("score", long_ids)
    assert line == (
        f"error: {misnamed}: not read: the config of long.db is long.synapse.toml beside it;"
        f" rename it, or pass --config {misnamed}"
    )
    assert run("score", long_ids, "--config", misnamed).stdout  # named, it is read
    misnamed.rename(long_ids.with_name("long.synapse.toml"))
    assert run("score", long_ids).stdout  # renamed, it is the store's config


def _commands(shown: str, db) -> dict[str, list[str]]:
    """The `accept:` and `dismiss:` commands `show` prints under a suggestion, DB filled in."""
    import shlex

    (line,) = [s.strip() for s in shown.splitlines() if s.strip().startswith("accept: synapse-tui ")]
    accept, dismiss = (part.split(": ", 1)[1] for part in line.split("; "))
    return {
        name: [str(db) if w == "DB" else w for w in shlex.split(cmd)[1:]]
        for name, cmd in (("accept", accept), ("dismiss", dismiss))
    }


def test_show_names_the_newer_fact_a_suggestion_points_at_and_how_to_act(tmp_path):
    """`show` said `flags: suggested_replaced` and no more: not by which fact, nor how to
    accept or dismiss it (`show --json` and MCP carry the suggestion; the table did not)."""
    facts = [
        {"id": "c1", "text": "the API rate limit is 600 requests per minute", "created_at": "2025-01-01T00:00:00Z", "note": "api"},
        {"id": "c2", "text": "the API rate limit is now 900 requests per minute", "created_at": "2025-04-01T00:00:00Z", "note": "api"},
    ]  # fmt: skip
    db = tmp_path / "s.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", facts), "--db", db)
    shown = run("show", db, "c1").stdout
    assert "  suggested: replaced by c2 (" in shown
    commands = _commands(shown, db)
    assert commands["accept"] == ["supersede", str(db), "c1", "c2"]
    run(*commands["dismiss"])  # the command as printed works
    assert "suggested:" not in run("show", db, "c1").stdout


def test_show_names_the_path_a_referent_suggestion_found_gone(tmp_path):
    from tests.core.referent_repo import NOTES, build

    repo = build(tmp_path / "repo", NOTES)
    db = tmp_path / "g.db"
    run("import", "--from", "git-notes", repo / "notes", "--db", db)
    (found,) = [json.loads(s) for s in run("suggest", db, "--kind", "referent", "--json").stdout.splitlines()]
    shown = run("show", db, found["fact"]).stdout
    assert f"  suggested: names src/auth/login.py, gone from the repository ({found['why']})" in shown
    commands = _commands(shown, db)
    assert commands["dismiss"] == [
        "dismiss",
        str(db),
        found["fact"],
        "src/auth/login.py",
        "--kind",
        "referent",
    ]
    assert "the repository no longer holds src/auth/login.py" in run(*commands["accept"]).stdout
    assert "suggested:" not in run("show", db, found["fact"]).stdout


def test_a_command_without_its_store_says_where_one_comes_from(monkeypatch):
    """`synapse-tui` opened the bundled sample; `synapse-tui score` then said only
    `missing argument 'DB'`, not what a store is nor where the sample lies."""
    monkeypatch.delenv("SYNAPSE_DB", raising=False)
    line = refused("score")
    assert line.startswith(
        "error: missing argument 'DB'. Name the store (a file or a postgresql:// location)"
    )
    assert "or set SYNAPSE_DB; `synapse-tui sample` prints the path of the bundled sample (see " in line
