"""SPEC 13, statement by statement, through the command line on real SQLite stores and real
git repositories built here: `suggest`'s lines (their keys, types and order), "at most one
line per OLD", "never a fact that already has a successor", "never a pair dismissed before",
the referent's path rules (`./`, `:12`, trailing punctuation, globs, a path that never was),
the rename's sentence, and "the same store, the same bytes" across processes."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest

from tests.cli_run import refused, run
from tests.core.claude_code_files import git
from tests.core.referent_repo import build
from tests.helpers import NOW, json_lines, write_jsonl

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

# two older facts in one note, each with a rewording; `o1` has two rewordings (its best one
# only), `p1` already has a successor that is not its best rewording
REPLACED = [
    {
        "id": "o1",
        "text": "the nightly backup runs at 02:00 UTC",
        "created_at": "2025-01-01T00:00:00Z",
        "note": "ops",
    },
    {
        "id": "o1-b",
        "text": "the nightly backup runs at 03:00 UTC",
        "created_at": "2025-02-01T00:00:00Z",
        "note": "ops",
    },
    {
        "id": "o1-c",
        "text": "the nightly backup now runs at 04:00 UTC",
        "created_at": "2025-03-01T00:00:00Z",
        "note": "ops",
    },
    {"id": "p1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "p1-next",
        "text": "release notes live in the wiki",
        "created_at": "2025-01-10T00:00:00Z",
        "note": "ops",
        "supersedes": "p1",
    },
    {
        "id": "p1-b",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
    {
        "id": "q1",
        "text": "the API rate limit is 600 requests per minute",
        "created_at": "2025-01-01T00:00:00Z",
        "note": "api",
    },
    {
        "id": "q2",
        "text": "the API rate limit is now 900 requests per minute",
        "created_at": "2025-04-01T00:00:00Z",
        "note": "api",
    },
    # the rewording is older than the fact: never "replaced by" an older fact
    {
        "id": "r1",
        "text": "the on-call phone is 555-0101",
        "created_at": "2025-05-01T00:00:00Z",
        "note": "team",
    },
    {
        "id": "r0",
        "text": "the on-call phone is 555-0199",
        "created_at": "2025-01-01T00:00:00Z",
        "note": "team",
    },
]


def _replaced_store(tmp_path):
    db = tmp_path / "s.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", REPLACED), "--db", db)
    return db


def _suggest(db, *args) -> list[dict]:
    return json_lines(run("suggest", db, "--json", "--now", NOW, *args).stdout)


def test_replaced_lines_have_the_contract_keys_and_types_best_first(tmp_path):
    lines = _suggest(_replaced_store(tmp_path), "--kind", "replaced")
    assert lines, "nothing suggested"
    for s in lines:
        assert list(s) == ["kind", "fact", "by", "score", "why"]
        assert s["kind"] == "replaced" and isinstance(s["fact"], str) and isinstance(s["by"], str)
        assert isinstance(s["score"], float) and isinstance(s["why"], str) and s["why"]
    scores = [s["score"] for s in lines]
    assert scores == sorted(scores, reverse=True)  # best first


def test_at_most_one_line_per_old_fact_and_its_new_fact_is_later(tmp_path):
    lines = _suggest(_replaced_store(tmp_path), "--kind", "replaced")
    olds = [s["fact"] for s in lines]
    assert len(olds) == len(set(olds))  # at most one line per OLD
    assert sum(1 for s in lines if s["fact"] == "o1") == 1
    created = {f["id"]: f["created_at"] for f in REPLACED}
    assert all(created[s["by"]] > created[s["fact"]] for s in lines)  # NEW created after OLD
    assert ("r1", "r0") not in {(s["fact"], s["by"]) for s in lines}


def test_never_for_a_fact_that_already_has_a_successor(tmp_path):
    lines = _suggest(_replaced_store(tmp_path), "--kind", "replaced")
    assert "p1" not in {s["fact"] for s in lines}  # p1-next supersedes it, whatever p1-b says


def test_never_a_pair_dismissed_before_even_after_the_store_changes(tmp_path):
    db = _replaced_store(tmp_path)
    run("dismiss", db, "q1", "q2", "--now", NOW)
    assert ("q1", "q2") not in {(s["fact"], s["by"]) for s in _suggest(db)}
    # a later import and a triage action on both sides: the pair stays dismissed
    more = [
        {
            "id": "z9",
            "text": "the wiki moved to a new host",
            "created_at": "2025-06-01T00:00:00Z",
            "note": "x",
        }
    ]
    run("import", write_jsonl(tmp_path / "g.jsonl", more), "--db", db)
    run("verify", db, "q1", "--now", NOW)
    run("corroborate", db, "q2", "--now", NOW)
    assert ("q1", "q2") not in {(s["fact"], s["by"]) for s in _suggest(db)}
    # and a new process does not bring it back either (the dismissal is in the store)
    assert ("q1", "q2") not in {(s["fact"], s["by"]) for s in json_lines(_in_a_process(db, "0"))}


def test_dismiss_is_audited_as_dismiss_and_undo_brings_the_suggestion_back(tmp_path):
    db = _replaced_store(tmp_path)
    before = _suggest(db)
    pair = (before[0]["fact"], before[0]["by"])
    run("dismiss", db, *pair, "--now", NOW)
    entries = [e for e in json_lines(run("export", db, "--audit").stdout) if e["action"] == "dismiss"]
    assert [e["id"] for e in entries] == [pair[0]] and entries[0]["actor"].startswith("user:")
    run("undo", db, "--now", NOW)
    assert _suggest(db) == before


def test_limit_keeps_the_best_lines_in_order(tmp_path):
    db = _replaced_store(tmp_path)
    every = _suggest(db)
    assert len(every) >= 2
    assert _suggest(db, "--limit", "1") == every[:1]
    assert _suggest(db, "--limit", "2") == every[:2]


def test_now_is_taken_and_a_bad_one_refused(tmp_path):
    db = _replaced_store(tmp_path)
    assert _suggest(db) == json_lines(run("suggest", db, "--json", "--now", "2031-01-01T00:00:00Z").stdout)
    assert "--now" in refused("suggest", db, "--json", "--now", "soon")


def _in_a_process(db, seed: str, *args: str, data: str | None = None) -> str:
    """`synapse-tui suggest DB --json` in a process of its own, with this hash seed (and
    this data folder: where referents checked before are kept)."""
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "PYTHONHASHSEED": seed, "SYNAPSE_NOW": NOW}
    if data is not None:
        env["SYNAPSE_DATA_DIR"] = data
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from synapse_tui.cli import main; main()",
            "suggest",
            str(db),
            "--json",
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout


def test_the_same_store_gives_the_same_bytes_in_any_process(tmp_path):
    db = _replaced_store(tmp_path)
    outs = {_in_a_process(db, seed) for seed in ("0", "1", "12345")}
    assert len(outs) == 1 and next(iter(outs)).strip()
    assert outs == {run("suggest", db, "--json").stdout}


# ---- referents -------------------------------------------------------------------------


def _referent_facts(tmp_path, facts):
    db = tmp_path / "r.db"
    run("import", write_jsonl(tmp_path / "r.jsonl", facts), "--db", db)
    return db


def _referents(db, repo, *args) -> dict[str, list[str]]:
    out = run("suggest", db, "--kind", "referent", "--repo", repo, "--json", *args).stdout
    found: dict[str, list[str]] = {}
    for s in json_lines(out):
        found.setdefault(s["fact"], []).append(s["referent"])
    return found


# src/util.py existed from c1 (2026-01-01) and was removed in c3 (2026-03-01)
WRITTEN = "2026-01-15T00:00:00Z"


@needs_git
@pytest.mark.parametrize(
    "text",
    [
        "helpers are in ./src/util.py",
        "helpers are in src/util.py:12",
        "helpers are in `src/util.py:12-40`",
        "helpers are in src/util.py.",
        "helpers are in src/util.py, mostly",
        "helpers are in (src/util.py);",
        "helpers are in `./src/util.py`!",
        "helpers are in [the helpers](src/util.py)",
        # typographic punctuation is punctuation too
        "helpers are in src/util.py\u2026 for now",
        "helpers are in src/util.py\u2014 mostly",
        "helpers are in \u201csrc/util.py\u201d",
        "\u52a9\u624b\u5728 src/util.py\u3002\u53e6\u89c1\u6587\u6863",
        "\u52a9\u624b\u5728\uff08src/util.py\uff09",
    ],
)
def test_a_path_is_found_whatever_wraps_it(tmp_path, text):
    repo = build(tmp_path / "repo")
    db = _referent_facts(tmp_path, [{"id": "f", "text": text, "created_at": WRITTEN}])
    assert _referents(db, repo) == {"f": ["src/util.py"]}, text


@needs_git
@pytest.mark.parametrize(
    "text",
    [
        "helpers are in src/*.py",  # a glob, even one that matched the removed file
        "helpers are in `src/util.*`",
        "helpers are in src/**/util.py",
        "helpers are in src/utils.py",  # never existed in the repository
        "helpers are in lib/util.py",
        "helpers are in https://example.com/src/util.py",  # a URL, not a path of the repository
    ],
)
def test_globs_urls_and_paths_that_never_existed_are_not_referents(tmp_path, text):
    repo = build(tmp_path / "repo")
    db = _referent_facts(tmp_path, [{"id": "f", "text": text, "created_at": WRITTEN}])
    assert _referents(db, repo) == {}, text


@needs_git
def test_a_bare_file_name_with_an_extension_is_a_path_from_the_root(tmp_path):
    repo = build(tmp_path / "repo")
    git(repo, "rm", "-q", "README.md")
    git(repo, "commit", "-qm", "no readme", when="2026-05-01T12:00:00Z")
    facts = [
        {"id": "bare", "text": "the front page is README.md", "created_at": "2026-04-15T00:00:00Z"},
        {"id": "word", "text": "see the Makefile and the docs", "created_at": "2026-04-15T00:00:00Z"},
    ]
    db = _referent_facts(tmp_path, facts)
    assert _referents(db, repo) == {"bare": ["README.md"]}


@needs_git
def test_only_a_path_present_at_the_facts_time_is_a_referent(tmp_path):
    """The tree at the last commit at or before `created_at`: a path added after the fact was
    written (and removed since) was not what the fact named."""
    repo = build(tmp_path / "repo")
    (repo / "late.py").write_text("x = 2\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "late", when="2026-05-01T12:00:00Z")
    git(repo, "rm", "-q", "late.py")
    git(repo, "commit", "-qm", "gone", when="2026-06-01T12:00:00Z")
    facts = [
        {"id": "before", "text": "late.py holds the setting", "created_at": "2026-04-20T00:00:00Z"},
        {"id": "during", "text": "late.py holds the setting", "created_at": "2026-05-15T00:00:00Z"},
    ]
    db = _referent_facts(tmp_path, facts)
    assert _referents(db, repo) == {"during": ["late.py"]}


@needs_git
def test_why_names_the_commit_and_date_and_a_rename_says_moved_to(tmp_path):
    repo = build(tmp_path / "repo")

    def sha(rev: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), "rev-parse", rev], capture_output=True, text=True, check=True
        ).stdout.strip()

    facts = [
        {"id": "moved", "text": "login is in `src/auth/login.py`", "created_at": WRITTEN},
        {"id": "removed", "text": "helpers are in src/util.py", "created_at": WRITTEN},
    ]
    db = _referent_facts(tmp_path, facts)
    lines = {
        s["fact"]: s
        for s in json_lines(run("suggest", db, "--kind", "referent", "--repo", repo, "--json").stdout)
    }
    for s in lines.values():
        assert list(s) == ["kind", "fact", "referent", "score", "why"] and s["score"] == 1.0
    moved = re.fullmatch(r"moved to src/login\.py in ([0-9a-f]{7,40}) on 2026-02-01", lines["moved"]["why"])
    assert moved and sha("HEAD~2").startswith(moved.group(1)), lines["moved"]["why"]
    removed = re.fullmatch(
        r"src/util\.py was removed in ([0-9a-f]{7,40}) on 2026-03-01", lines["removed"]["why"]
    )
    assert removed and sha("HEAD~1").startswith(removed.group(1)), lines["removed"]["why"]


@needs_git
def test_rev_defaults_to_the_work_trees_head(tmp_path):
    repo = build(tmp_path / "repo")
    db = _referent_facts(tmp_path, [{"id": "f", "text": "helpers are in src/util.py", "created_at": WRITTEN}])
    assert _referents(db, repo) == _referents(db, repo, "--rev", "HEAD") == {"f": ["src/util.py"]}
    assert _referents(db, repo, "--rev", "HEAD~2") == {}  # src/util.py still there two commits back


@needs_git
def test_accepting_a_referent_is_a_contradiction_by_the_repository(tmp_path):
    repo = build(tmp_path / "repo")
    db = _referent_facts(tmp_path, [{"id": "f", "text": "helpers are in src/util.py", "created_at": WRITTEN}])
    shown = json.loads(run("show", db, "f", "--json", "--now", NOW).stdout)
    assert "broken_referent" not in shown["flags"]  # no repository recorded: nothing stands yet
    run("contradict", db, "f", "--referent", "src/util.py", "--repo", repo, "--now", NOW)
    after = json.loads(run("show", db, "f", "--json", "--now", NOW).stdout)
    assert after["contradictions"] == shown["contradictions"] + 1
    entry = after["history"][-1]
    assert entry["action"] == "contradict" and re.fullmatch(r"repo:[0-9a-f]{40}", entry["actor"]), entry


@needs_git
def test_the_repository_a_claude_code_project_recorded_is_the_default(tmp_path):
    repo = build(tmp_path / "repo", {"CLAUDE.md": "# Project\n\n- The auth flow is in `src/auth/login.py`\n"})
    home = tmp_path / "home" / ".claude"
    home.mkdir(parents=True)
    (home / "CLAUDE.md").write_text("# Me\n\n- I answer in English\n")
    db = tmp_path / "cc.db"
    run("import", "--from", "claude-code", home, "--project", repo, "--db", db)
    (found,) = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    assert found["referent"] == "src/auth/login.py" and found["why"].startswith("moved to src/login.py in ")
    assert json_lines(run("suggest", db, "--json").stdout) == [found]  # every kind available: this one too


# SPEC 5 for the commands of section 13: a clear line, exit 2, no traceback, nothing changed


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("suggest", "{garbage}", "--json"), "not a SQLite database, or corrupt"),
        (("suggest", "{foreign}", "--json"), "{foreign}"),
        (("suggest", "{missing}", "--json"), "no such database"),
        (("dismiss", "{foreign}", "a", "b"), "{foreign}"),
        (("suggest", "{db}", "--kind", "stale"), "--kind"),
        (("suggest", "{db}", "--limit", "-1"), "--limit"),
        (("suggest", "{db}", "--kind", "referent", "--repo", "{missing}"), "not a folder"),
        (("dismiss", "{db}", "q1", "q2", "--kind", "stale"), "--kind"),
    ],
)
def test_bad_input_is_one_clear_line(tmp_path, args, needle):
    db = _replaced_store(tmp_path)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all " * 100)
    foreign = tmp_path / "foreign.db"  # SQLite, but another program's
    sqlite3.connect(foreign).execute("CREATE TABLE orders (id INTEGER)").connection.close()
    paths = {"db": db, "garbage": garbage, "foreign": foreign, "missing": tmp_path / "nothing.db"}
    before, foreign_bytes = run("export", db, "--audit").stdout, foreign.read_bytes()
    said = run(*(a.format(**paths) for a in args), code=2)
    assert "Traceback" not in said.output + said.stderr and said.stdout == ""
    assert needle.format(**paths) in said.stderr, said.stderr
    assert foreign.read_bytes() == foreign_bytes
    assert run("export", db, "--audit").stdout == before and not paths["missing"].exists()


@needs_git
def test_both_kinds_in_one_list_best_first_limited_and_the_same_bytes_anywhere(tmp_path):
    repo = build(
        tmp_path / "repo", {"notes/mem.md": "# Memory\n\n- The auth flow is in `src/auth/login.py`\n"}
    )
    db = tmp_path / "both.db"
    run("import", "--from", "git-notes", repo / "notes", "--db", db)
    run("import", write_jsonl(tmp_path / "f.jsonl", REPLACED), "--db", db)
    every = _suggest(db)
    assert {s["kind"] for s in every} == {"replaced", "referent"}
    scores = [s["score"] for s in every]
    assert scores == sorted(scores, reverse=True)  # one list, best first, whatever the kind
    assert _suggest(db, "--limit", "2") == every[:2]
    assert _suggest(db, "--kind", "referent") == [s for s in every if s["kind"] == "referent"]
    assert _suggest(db, "--kind", "replaced") == [s for s in every if s["kind"] == "replaced"]
    outs = {
        _in_a_process(db, "0"),
        _in_a_process(db, "99"),
        _in_a_process(db, "5", data=str(tmp_path / "fresh-data")),  # nothing kept from before
    }
    assert outs == {run("suggest", db, "--json", "--now", NOW).stdout}


@needs_git
def test_answers_kept_by_other_rules_are_checked_again(tmp_path):
    """A referent answer kept between processes is the rules' of the version that kept it:
    kept by other rules (an older release that missed `src/util.py…`), it is not served."""
    from synapse_tui.core.review import referent

    repo = build(tmp_path / "repo")
    db = _referent_facts(
        tmp_path, [{"id": "f", "text": "helpers are in src/util.py\u2026", "created_at": WRITTEN}]
    )
    assert _referents(db, repo) == {"f": ["src/util.py"]}
    (kept,) = referent.cache_root().glob("*.json")
    data = json.loads(kept.read_text())
    assert data["rules"] == referent.RULES
    data["rules"] = "older"
    for value in data["facts"].values():
        value["broken"] = []  # what the older rules said: nothing
    kept.write_text(json.dumps(data))
    referent._CACHE.clear()  # as a new process starts
    assert _referents(db, repo) == {"f": ["src/util.py"]}


@needs_git
def test_a_broken_referent_flags_the_fact_and_never_moves_its_trust(tmp_path):
    notes = {"notes/mem.md": "# Memory\n\n- The auth flow is in `src/auth/login.py`\n- The shop is in Go\n"}
    repo = build(tmp_path / "repo", notes)
    db = tmp_path / "g.db"
    run("import", "--from", "git-notes", repo / "notes", "--db", db)
    rows = {
        r["text"]: r
        for r in (
            json.loads(run("show", db, r["id"], "--json", "--now", NOW).stdout)
            for r in json_lines(run("score", db, "--json", "--now", NOW).stdout)
        )
    }
    flagged, plain = rows["The auth flow is in `src/auth/login.py`"], rows["The shop is in Go"]
    assert flagged["flags"] == ["broken_referent"] and plain["flags"] == []
    for key in ("trust", "confidence", "freshness", "supersession", "gate", "k"):
        assert flagged[key] == plain[key], key  # the same inputs, the same score: a flag, not a factor
    assert [r["id"] for r in json_lines(run("score", db, "--json", "--where", "is:suggested").stdout)] == [
        flagged["id"]
    ]


@needs_git
@pytest.mark.parametrize("committed", [False, True], ids=["in the work tree", "committed"])
def test_a_dismissed_referent_stays_dismissed_after_an_edit_that_keeps_the_path(tmp_path, committed):
    """Its record's next version (an edit made for another reason) still names the path, and
    is checked as the earlier one was: the dismissal of the earlier one stands for it."""
    repo = build(
        tmp_path / "repo", {"notes/mem.md": "# Memory\n\n- The auth flow is in `src/auth/login.py`\n"}
    )
    db = tmp_path / "g.db"
    run("import", "--from", "git-notes", repo / "notes", "--db", db)
    (found,) = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    run("dismiss", db, found["fact"], "--kind", "referent")
    note = repo / "notes" / "mem.md"
    note.write_text(note.read_text().replace("The auth flow is in", "The whole auth flow is in"))
    if committed:
        git(repo, "commit", "-qam", "reword", when="2026-05-01T12:00:00Z")
    run("sync", db)
    assert run("suggest", db, "--kind", "referent", "--json").stdout == ""
    rows = json_lines(run("score", db, "--json", "--where", "is:suggested").stdout)
    assert rows == []  # no flag either
    assert _recalled(db, "auth flow") == []  # nor in what an agent reads
    assert _queued(db) == []  # nor in the browser's queue of referents
    run("undo", db)  # the dismissal: the suggestion is back, on the version standing now
    (back,) = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    assert back["referent"] == "src/auth/login.py" and back["fact"] != found["fact"]


def _recalled(db, query: str) -> list[dict]:
    """The suggestions on the results of an agent's search, through a memory kept open."""
    from synapse_tui.core.agent import Recall
    from synapse_tui.core.base.clock import Clock
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.store.db import Store

    recall = Recall(Store.open(db), Config(), Clock.from_option(NOW))
    try:
        return [s for r in recall.search(query, 10)["results"] for s in r["suggestions"]]
    finally:
        recall.close()


def _queued(db) -> list[tuple[str, str]]:
    """The browser's referent queue (a memory kept open): (fact, path) of each line."""
    from synapse_tui.core.base.clock import parse_time
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.review.referent import queue
    from synapse_tui.core.review.suggest_state import dismissals
    from synapse_tui.core.store.db import Store

    with Store.open(db) as store:
        found, _ = queue(Memory(store, Config(), parse_time(NOW)), dismissals(store))
    return [(s.fact, s.other) for s in found]


@needs_git
def test_a_new_path_named_by_the_edit_is_not_covered_by_the_old_dismissal(tmp_path):
    repo = build(
        tmp_path / "repo", {"notes/mem.md": "# Memory\n\n- The auth flow is in `src/auth/login.py`\n"}
    )
    db = tmp_path / "g.db"
    run("import", "--from", "git-notes", repo / "notes", "--db", db)
    (found,) = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    run("dismiss", db, found["fact"], "--kind", "referent")
    note = repo / "notes" / "mem.md"
    note.write_text("# Memory\n\n- The auth flow is in `src/auth/login.py`, helpers in `README.md`\n")
    git(repo, "rm", "-q", "README.md")
    git(repo, "commit", "-qam", "readme gone", when="2026-05-01T12:00:00Z")
    run("sync", db)
    assert [
        s["referent"] for s in json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    ] == []
