"""A memory-wiki claim's own evidence follows the wiki at every `sync` (it was read once, at
the first import: a claim later contested stayed "supported" with s = 0).

Pages are written as the memory-wiki plugin renders them (extensions/memory-wiki: a page's
YAML front matter, block style, timestamps unquoted; each claim's id, text, status,
confidence, evidence entries of sourceId / path / lines / updatedAt, updatedAt). Statuses
the plugin names: none or supported, contested, contradicted, refuted, superseded."""

from __future__ import annotations

import shutil

import pytest

from tests.cli.openclaw_pages import (
    ONE,
    PAGE,
    REBUILD,
    REGION,
    TWO,
    counts,
    page,
    rebuild,
    region,
    shown,
    vault,
)
from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.helpers import json_lines


def test_a_claim_contested_later_is_disputed_after_sync_and_undo_takes_it_back(tmp_path):
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("supported", ONE), rebuild("supported", TWO)))
    run("import", "--from", "openclaw", folder, "--db", db)
    assert counts(db, REGION) == (0, 0, "uncertain")
    run("contradict", db, REBUILD)  # a person's triage, before the wiki changes
    vault(tmp_path, page(region("contested", TWO), rebuild("supported", ONE)))
    out = run("sync", db).stdout
    assert "2 re-asserted" in out  # both claims' evidence changed
    r, s, guidance = counts(db, REGION)
    assert (r, s) == (1, 1) and guidance == "disputed"  # before: (0, 0), "uncertain"
    info = shown(db, REGION)
    assert info["provenance"]["x-openclaw-status"] == "contested"
    assert "2026-04-05T09:00:00Z" in (info["reinforced_at"] or [])  # the new entry's time
    by = {(h["action"], h["actor"]) for h in info["history"]}
    assert {("corroborate", "source:openclaw"), ("contradict", "source:openclaw")} <= by
    # the evidence entry the wiki removed is taken back; the person's contradiction stays
    assert counts(db, REBUILD)[:2] == (0, 1)
    history = [(h["action"], h["actor"].split(":")[0]) for h in shown(db, REBUILD)["history"]]
    assert history == [("contradict", "user"), ("retract", "source")]

    assert "0 re-asserted" in run("sync", db).stdout  # nothing new: nothing written
    run("undo", db)  # the sync, one step: the retraction on REBUILD, REGION's changes
    assert counts(db, REBUILD)[:2] == (1, 1) and counts(db, REGION)[:2] == (0, 0)
    run("sync", db)
    assert counts(db, REBUILD)[:2] == (1, 1) and counts(db, REGION)[:2] == (0, 0)  # undone stays undone


def test_a_contest_resolved_at_the_source_is_withdrawn_and_a_persons_contradiction_survives(tmp_path):
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("contested", ONE)))
    run("import", "--from", "openclaw", folder, "--db", db)
    assert counts(db, REGION)[:2] == (0, 1)
    run("contradict", db, REGION)  # a person agrees it is wrong
    assert counts(db, REGION)[:2] == (0, 2)
    vault(tmp_path, page(region("supported", ONE)))
    run("sync", db)
    assert counts(db, REGION)[:2] == (0, 1)  # the source's contest gone, the person's kept
    history = shown(db, REGION)["history"]
    assert [(h["action"], h["actor"].split(":")[0]) for h in history] == [
        ("contradict", "user"),
        ("retract", "source"),
    ]
    vault(tmp_path, page(region("refuted", ONE)))
    run("sync", db)
    assert counts(db, REGION)[:2] == (0, 2)  # contested again at the source


def test_undoing_the_sources_contest_then_withdrawing_it_never_eats_a_persons(tmp_path):
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("supported", ONE)))
    run("import", "--from", "openclaw", folder, "--db", db)
    vault(tmp_path, page(region("contradicted", ONE)))
    run("sync", db)
    assert counts(db, REGION)[:2] == (0, 1)
    run("undo", db)  # a person disagrees with the wiki's contest
    run("contradict", db, REGION)  # ... then finds evidence of their own
    vault(tmp_path, page(region("supported", ONE)))
    run("sync", db)
    assert counts(db, REGION)[:2] == (0, 1)  # the source had no share left to take


def test_bad_claim_data_is_named_and_the_rest_is_read(tmp_path):
    db = tmp_path / "m.db"
    odd = (
        "  - id: odd.status\n    text: Staging has 4 GB of RAM.\n    status:\n      - contested\n"
        "    evidence: source.chat\n"
        "  - id: odd.entry\n    text: Staging uses Debian.\n    evidence:\n      - just a string\n"
        "      - sourceId: source.daily\n"
        "  - id: no.text\n    status: contested\n"
        "  - plain string claim\n"
    )
    folder = vault(tmp_path, page(region("supported", ONE), odd))
    out = run("import", "--from", "openclaw", folder, "--db", db).output
    assert "claim 2 (odd.status): status is not text" in out
    assert "claim 2 (odd.status): evidence is not a list" in out
    assert "claim 3 (odd.entry): evidence entry 1 not a mapping" in out
    assert "claim 4 (no.text): no text; not read" in out
    assert "claim 5: not a mapping; not read" in out
    ids = {r["id"] for r in json_lines(run("score", db, "--json").stdout)}
    assert ids == {REGION, f"openclaw:wiki/main/{PAGE}#odd.status", f"openclaw:wiki/main/{PAGE}#odd.entry"}
    assert counts(db, f"openclaw:wiki/main/{PAGE}#odd.status")[:2] == (0, 0)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_vault_kept_in_git_carries_each_change_once(tmp_path):
    """A vault in a git work tree is replayed commit by commit: a claim contested in one
    commit, a second evidence entry in the next, counts once each, as the wiki stands."""
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("supported", ONE)))
    git(folder, "init", "-q")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "wiki", when="2026-04-03T10:00:00+00:00")
    run("import", "--from", "openclaw", folder, "--db", db)
    vault(tmp_path, page(region("contested", ONE)))
    git(folder, "commit", "-q", "-am", "contest", when="2026-04-04T10:00:00+00:00")
    vault(tmp_path, page(region("contested", TWO)))
    git(folder, "commit", "-q", "-am", "evidence", when="2026-04-05T10:00:00+00:00")
    run("sync", db)
    assert counts(db, REGION)[:2] == (1, 1)
    run("sync", db)
    assert counts(db, REGION)[:2] == (1, 1)
    fresh = tmp_path / "fresh.db"  # a first import reads the claim as it stands too
    run("import", "--from", "openclaw", folder, "--db", fresh)
    assert counts(fresh, REGION)[:2] == (1, 1)


def test_a_claim_superseded_later_is_flagged_invalidated_and_back_again(tmp_path):
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("supported", ONE)))
    run("import", "--from", "openclaw", folder, "--db", db)

    def flags() -> list[str]:
        rows = {r["id"]: r for r in json_lines(run("score", db, "--json").stdout)}
        return rows[REGION]["flags"]

    assert "invalidated" not in flags()
    vault(tmp_path, page(region("superseded", ONE)))
    run("sync", db)
    assert "invalidated" in flags() and counts(db, REGION)[:2] == (0, 0)
    vault(tmp_path, page(region("supported", ONE)))
    run("sync", db)
    assert "invalidated" not in flags()


def test_a_new_evidence_entry_reinforces_once_at_its_own_time(tmp_path):
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("supported", TWO)))
    run("import", "--from", "openclaw", folder, "--db", db)
    assert shown(db, REGION)["reinforced_at"] == ["2026-04-05T09:00:00Z"]
    vault(tmp_path, page(region("supported", [*TWO, ("source.standup", "2026-04-07T08:30:00.000Z")])))
    run("sync", db)
    info = shown(db, REGION)
    assert info["corroborations"] == 2
    assert info["reinforced_at"] == ["2026-04-05T09:00:00Z", "2026-04-07T08:30:00Z"]  # none twice
