"""What one `sync` of an OpenClaw wiki did to the facts already here is one `undo`: a claim
whose contest the wiki resolved while it gained an evidence entry gets the source's
`corroborate` and `retract` in one sync, and one `undo` gives every fact back as `score
--json` and `show --json` showed it before the sync (it took two undos, the first leaving
the corroboration standing). The counts line names a claim the wiki invalidated."""

from __future__ import annotations

from tests.cli.openclaw_pages import ONE, REBUILD, REGION, TWO, page, rebuild, region, shown, vault
from tests.cli_run import run
from tests.helpers import json_lines

CLOCK = {"SYNAPSE_NOW": "2026-05-01T00:00:00Z"}  # the scores compared are read at one instant


def state(db) -> tuple[list[dict], dict]:
    """`score --json`, and `show --json` of both claims less their history (the sync and its
    undo are in it) and provenance (the source's record: what it said stays said)."""
    scores = json_lines(run("score", db, "--json", env=CLOCK).stdout)
    shows = {
        fid: {k: v for k, v in shown(db, fid).items() if k not in ("history", "provenance")}
        for fid in (REGION, REBUILD)
    }
    return scores, shows


def test_one_undo_takes_back_the_whole_sync_exactly(tmp_path):
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("contested", ONE), rebuild("supported", ONE)))
    run("import", "--from", "openclaw", folder, "--db", db, env=CLOCK)
    run("corroborate", db, REBUILD, env=CLOCK)  # a person's triage before the sync
    before = state(db)
    # the contest resolved and a second entry, on one claim; the other contested
    vault(tmp_path, page(region("supported", TWO), rebuild("contested", ONE)))
    out = run("sync", db, env=CLOCK).stdout
    assert "2 re-asserted" in out
    history = shown(db, REGION)["history"]
    assert [(h["action"], h["actor"]) for h in history] == [
        ("corroborate", "source:openclaw"),
        ("retract", "source:openclaw"),
    ]
    assert state(db) != before

    said = run("undo", db, env=CLOCK).stdout
    assert state(db) == before  # before the fix: the corroboration stood until a second undo
    assert said.startswith("undid corroborate+contradict+retract 2 facts (by source:openclaw")
    assert "0 re-asserted" in run("sync", db, env=CLOCK).stdout
    assert state(db) == before  # undone stays undone
    run("undo", db, env=CLOCK)  # the next undo is the person's corroboration, not the sync's rest
    assert shown(db, REBUILD)["corroborations"] == 0


def test_the_counts_line_names_a_claim_invalidated_and_valid_again(tmp_path):
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("supported", ONE), rebuild("supported", ONE)))
    run("import", "--from", "openclaw", folder, "--db", db)
    vault(tmp_path, page(region("superseded", ONE), rebuild("supported", ONE)))
    result = run("sync", db)
    # before: "0 re-asserted, 2 unchanged", the invalidation not said
    assert result.stdout.rstrip().endswith(
        "0 added, 0 newly deleted, 0 re-asserted, 1 unchanged, 1 invalidated at the source"
    )
    (counts,) = json_lines(run("sync", db, "--json").stdout)
    assert (counts["invalidated"], counts["unchanged"]) == (0, 2)  # said once, when it happened
    vault(tmp_path, page(region("supported", ONE), rebuild("supported", ONE)))
    (counts,) = json_lines(run("sync", db, "--json").stdout)
    assert (counts["valid_again"], counts["invalidated"], counts["unchanged"]) == (1, 0, 1)
