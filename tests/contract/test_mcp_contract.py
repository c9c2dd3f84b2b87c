"""SPEC 10, statement by statement: `synapse-tui mcp DB` in a subprocess, driven by the SDK's
stdio client, over a real SQLite store holding a superseded fact, a suggested replacement and
a fact naming a path gone from a real git repository. `search`'s results carry every field of
`score --json` plus `text`, `stale` and `review_due`; `show` and `neighbours` are the CLI's
objects; `suggestions` and `stale_premise` have the contract's keys."""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

from synapse_tui.mcp_server import tidy
from tests.core.referent_repo import NOTES, build
from tests.helpers import json_lines, run, write_jsonl

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

NOW = "2026-12-01T00:00:00Z"
SCORE_KEYS = ("id", "trust", "band", "confidence", "freshness", "supersession", "gate", "b", "d", "u")
SCORE_KEYS += ("guidance", "k", "B", "tier", "flags")
FACTS = [
    {
        "id": "port-old",
        "text": "the staging API listens on port 8080 behind the load balancer",
        "created_at": "2026-01-01T00:00:00Z",
        "note": "infra",
    },
    {
        "id": "port-new",
        "text": "the staging API listens on port 9443 with TLS",
        "created_at": "2026-06-01T00:00:00Z",
        "note": "infra",
        "supersedes": "port-old",
    },
    {"id": "d1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "d2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
    {"id": "w1", "text": "the wiki lives on the intranet", "created_at": "2026-11-25T00:00:00Z"},
    # a chain: the premise's current fact is the head, not the next link
    {"id": "ttl-1", "text": "the session cache TTL is 60 seconds", "created_at": "2026-01-01T00:00:00Z"},
    {
        "id": "ttl-2",
        "text": "the session cache TTL is 120 seconds",
        "created_at": "2026-02-01T00:00:00Z",
        "supersedes": "ttl-1",
    },
    {
        "id": "ttl-3",
        "text": "the session cache TTL is 300 seconds in production",
        "created_at": "2026-03-01T00:00:00Z",
        "supersedes": "ttl-2",
    },
]


def _build(tmp_path):
    path = tmp_path / "m.db"
    if shutil.which("git"):  # a git Markdown source recorded: its repository checks referents
        repo = build(tmp_path / "repo", NOTES)
        run("import", "--from", "git-notes", repo / "notes", "--db", path)
    run("import", write_jsonl(tmp_path / "f.jsonl", FACTS), "--db", path)
    return path


@pytest.fixture
def db(tmp_path):
    return _build(tmp_path)


QUESTIONS = {
    "all": ("search", {"query": "", "limit": 100}),
    "two": ("search", {"query": "", "limit": 2}),
    "show d1": ("show", {"id": "d1"}),
    "near d1": ("neighbours", {"id": "d1"}),
    "deploys": ("search", {"query": "deploys", "limit": 10}),
    "auth flow": ("search", {"query": "auth flow"}),
    "superseded": ("search", {"query": "does the staging API listen on port 8080 behind the load balancer?"}),
    "suggested": ("search", {"query": "do deploys run on Fridays?"}),
    "current": ("search", {"query": "the staging API listens on port 9443 with TLS"}),
    "other": ("search", {"query": "where does the wiki live"}),
    "chain": ("search", {"query": "is the session cache TTL 60 seconds?"}),
}


@pytest.fixture(scope="module")
def asked(tmp_path_factory):
    """The store, and the read-only calls' answers, from one server's session (built before
    conftest's per-test environment exists: this one isolates itself the same way)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SYNAPSE_NOW", NOW)
        env.setenv("SYNAPSE_DATA_DIR", str(tmp_path_factory.mktemp("data")))
        env.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        env.delenv("SYNAPSE_CONFIG", raising=False)
        env.delenv("SYNAPSE_DB", raising=False)
        path = _build(tmp_path_factory.mktemp("asked"))
        referent = []
        if shutil.which("git"):
            (found,) = json_lines(run("suggest", path, "--kind", "referent", "--json").stdout)
            referent = [("show", {"id": found["fact"]})]
        answers = _ask(path, [*QUESTIONS.values(), *referent])
    return path, dict(zip([*QUESTIONS, *(["referent"] if referent else [])], answers, strict=True))


async def _session(db, scenario):
    server = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from synapse_tui.cli import main; main()", "mcp", str(db)],
        env={"SYNAPSE_NOW": NOW, **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}},
    )
    with anyio.fail_after(120):
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await scenario(session)


def _ask(db, calls: list[tuple[str, dict]]) -> list:
    async def scenario(session):
        out = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            assert not result.is_error, (name, arguments, result.content)
            out.append(result.structured_content)
        return out

    return anyio.run(_session, db, scenario)


def test_search_results_carry_every_score_field_text_stale_and_review_due(asked):
    db, seen = asked
    found = seen["all"]
    cli = {r["id"]: r for r in json_lines(run("score", db, "--json", "--now", NOW).stdout)}
    assert set(found) >= {"results"} and {r["id"] for r in found["results"]} == set(cli)
    for r in found["results"]:
        for key in (*SCORE_KEYS, "text", "stale", "review_due"):
            assert key in r, (key, r["id"])
        assert {k: r[k] for k in SCORE_KEYS} == tidy({k: cli[r["id"]][k] for k in SCORE_KEYS})
        assert r["stale"] is (cli[r["id"]]["freshness"] < 0.5)  # review.threshold's default
    assert any(r["stale"] for r in found["results"]) and not all(r["stale"] for r in found["results"])


def test_limit_caps_the_results(asked):
    assert len(asked[1]["two"]["results"]) == 2


def test_show_and_neighbours_are_the_clis_objects(asked):
    db, seen = asked
    shown, near = seen["show d1"], seen["near d1"]
    cli = json.loads(run("show", db, "d1", "--json", "--now", NOW).stdout)
    assert {k: v for k, v in shown.items() if k in cli} == tidy(cli)
    cli_near = tidy(json.loads(run("neighbours", db, "d1", "--json", "--now", NOW).stdout))
    assert set(near) >= set(cli_near) and near["id"] == "d1" and near["entities"] == cli_near["entities"]
    # each neighbour as the CLI gives it (the server adds the neighbour's score beside)
    assert [{k: n[k] for k in c} for n, c in zip(near["semantic"], cli_near["semantic"], strict=True)] == (
        cli_near["semantic"]
    )


def test_show_and_search_carry_the_standing_suggestions_with_the_contract_keys(asked):
    shown, found = asked[1]["show d1"], asked[1]["deploys"]
    (suggestion,) = shown["suggestions"]
    assert set(suggestion) == {"kind", "by", "why"} and suggestion["kind"] == "replaced"
    assert suggestion["by"] == "d2" and isinstance(suggestion["why"], str) and suggestion["why"]
    row = next(r for r in found["results"] if r["id"] == "d1")
    assert row["suggestions"] == shown["suggestions"]
    assert next(r for r in found["results"] if r["id"] == "d2")["suggestions"] == []


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_broken_referent_is_a_suggestion_with_the_path(asked):
    db, seen = asked
    (found,) = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    shown, searched = seen["referent"], seen["auth flow"]
    assert shown["suggestions"] == [{"kind": "referent", "referent": found["referent"], "why": found["why"]}]
    row = next(r for r in searched["results"] if r["id"] == found["fact"])
    assert row["suggestions"] == shown["suggestions"]


def test_stale_premise_names_the_matched_and_the_current_fact_and_why(asked):
    seen = asked[1]
    superseded, suggested, current, other = (seen[k] for k in ("superseded", "suggested", "current", "other"))
    cases = ((superseded, "port-old", "port-new"), (suggested, "d1", "d2"), (seen["chain"], "ttl-1", "ttl-3"))
    for found, matched, now_current in cases:
        premise = found["stale_premise"]
        assert set(premise) == {"matched", "current", "why"}, premise
        assert (premise["matched"], premise["current"]) == (matched, now_current)
        assert isinstance(premise["why"], str) and premise["why"]
    assert "stale_premise" not in current and current["results"][0]["id"] == "port-new"
    assert "stale_premise" not in other


def test_writes_are_audited_under_the_agents_name_and_scored_at_the_instant(db):
    async def scenario(session):
        done = {}
        for verb in ("corroborate", "contradict", "verify"):
            done[verb] = (await session.call_tool(verb, {"id": "w1"})).structured_content
        arguments = {
            "text": "the wiki moved to the cloud",
            "note": "it",
            "entities": ["wiki"],
            "supersedes": "w1",
        }
        done["remember"] = (await session.call_tool("remember", arguments)).structured_content
        return done

    done = anyio.run(_session, db, scenario)
    history = json.loads(run("show", db, "w1", "--json", "--now", NOW).stdout)["history"]
    assert [h["action"] for h in history] == ["corroborate", "contradict", "verify", "supersede"]
    assert all(h["actor"].startswith("agent:") and h["at"] == NOW for h in history)
    assert all("clock_skew" not in d["flags"] for d in done.values())
    assert done["verify"]["corroborations"] == 1 and done["verify"]["contradictions"] == 1
    new = done["remember"]
    cli = json.loads(run("show", db, new["id"], "--json", "--now", NOW).stdout)
    # the new fact as `show` (which space embeds it is known once the graph is next built)
    assert {k: v for k, v in new.items() if k in cli and k != "embedding"} == {
        k: v for k, v in tidy(cli).items() if k != "embedding"
    }
    assert (new["declared_tier"], new["tier"], new["note"], new["supersedes"]) == ("auto", "auto", "it", "w1")
    assert new["entities"] == ["wiki"] and new["created_at"] == NOW
    assert any(k.startswith("x-ai-agent") for k in new["provenance"])  # names the agent
