"""What `show` says of a wiki claim after a sync: the provenance the wiki owns (status,
confidence, entry count) as the wiki has it now, and no freshness from an evidence entry
the wiki withdrew (SPEC 9: what the source never recorded is not invented), taken back in the
source's `retract` and given back by `undo`."""

from __future__ import annotations

from tests.cli.openclaw_pages import ONE, REGION, TWO, page, region, shown, vault
from tests.cli_run import run


def test_sync_refreshes_the_claims_confidence_status_and_entries(tmp_path):
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("supported", TWO)))
    run("import", "--from", "openclaw", folder, "--db", db)
    run("contradict", db, REGION)  # a person's triage, kept
    assert shown(db, REGION)["provenance"]["x-openclaw-confidence"] == 0.7
    vault(tmp_path, page(region("supported", TWO).replace("confidence: 0.7", "confidence: 0.35")))
    run("sync", db)
    info = shown(db, REGION)
    assert info["provenance"]["x-openclaw-confidence"] == 0.35  # before: 0.7 stayed
    assert (info["corroborations"], info["contradictions"]) == (1, 1)
    vault(tmp_path, page(region("contested", ONE).replace("confidence: 0.7", "confidence: 0.2")))
    run("sync", db)
    prov = shown(db, REGION)["provenance"]
    assert (
        prov["x-openclaw-confidence"],
        prov["x-openclaw-status"],
        prov["x-openclaw-evidence-entries"],
    ) == (
        0.2,
        "contested",
        1,
    )


def test_a_withdrawn_entry_takes_its_reinforcement_with_it_and_undo_gives_it_back(tmp_path):
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("supported", TWO)))
    run("import", "--from", "openclaw", folder, "--db", db)
    assert shown(db, REGION)["reinforced_at"] == ["2026-04-05T09:00:00Z"]
    run("corroborate", db, REGION)  # a person's reinforcement stays
    mine = shown(db, REGION)["reinforced_at"][-1]
    vault(tmp_path, page(region("supported", ONE)))
    run("sync", db)
    info = shown(db, REGION)
    assert info["reinforced_at"] == [mine]  # before: the withdrawn entry's time stayed
    assert [(h["action"], h["actor"].split(":")[0]) for h in info["history"]][-1] == ("retract", "source")
    run("undo", db)
    assert shown(db, REGION)["reinforced_at"] == ["2026-04-05T09:00:00Z", mine]
    run("sync", db)
    assert shown(db, REGION)["reinforced_at"] == ["2026-04-05T09:00:00Z", mine]  # undone stays undone


def test_a_time_an_undo_gave_back_stays_when_another_entry_goes(tmp_path):
    db = tmp_path / "m.db"
    three = [*TWO, ("source.review", "2026-04-06T09:00:00.000Z")]
    folder = vault(tmp_path, page(region("supported", three)))
    run("import", "--from", "openclaw", folder, "--db", db)
    vault(tmp_path, page(region("supported", TWO)))  # the review entry goes
    run("sync", db)
    assert shown(db, REGION)["reinforced_at"] == ["2026-04-05T09:00:00Z"]
    run("undo", db)  # a person keeps that freshness
    vault(tmp_path, page(region("supported", ONE)))  # then the ops-chat entry goes too
    run("sync", db)
    assert shown(db, REGION)["reinforced_at"] == ["2026-04-06T09:00:00Z"]


STANDUP = ("source.standup", "2026-04-07T08:30:00.000Z")


def test_an_entry_replaced_by_another_moves_the_reinforcement_to_the_new_ones_time(tmp_path):
    """One entry removed and another added in one sync: r is unchanged, and the fact's
    reinforcement times are those a fresh import of the page gives (the old entry's time
    stayed, the new one's never came)."""
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("supported", TWO)))
    run("import", "--from", "openclaw", folder, "--db", db)
    run("corroborate", db, REGION)  # a person's reinforcement stays
    mine = shown(db, REGION)["reinforced_at"][-1]
    vault(tmp_path, page(region("supported", [*ONE, STANDUP])))  # ops-chat's entry replaced
    run("sync", db)
    fresh = tmp_path / "fresh.db"
    run("import", "--from", "openclaw", folder, "--db", fresh)
    imported = shown(fresh, REGION)["reinforced_at"]
    assert imported == ["2026-04-07T08:30:00Z"]
    info = shown(db, REGION)
    assert sorted(info["reinforced_at"]) == [*imported, mine]  # before: ["2026-04-05T09:00:00Z", mine]
    assert info["corroborations"] == 2  # one entry after the first, and the person's
    assert info["provenance"] == shown(fresh, REGION)["provenance"]
    assert [(h["action"], h["actor"]) for h in info["history"]][1:] == [
        ("corroborate", "source:openclaw"),
        ("retract", "source:openclaw"),
    ]
    run("undo", db)  # one step
    assert sorted(shown(db, REGION)["reinforced_at"]) == ["2026-04-05T09:00:00Z", mine]
    run("sync", db)
    assert sorted(shown(db, REGION)["reinforced_at"]) == ["2026-04-05T09:00:00Z", mine]  # undone stays undone
    # the wiki then re-dates the standup entry: the new time replaces the old again
    vault(tmp_path, page(region("contested", [*ONE, ("source.standup", "2026-04-09T07:00:00.000Z")])))
    run("sync", db)
    info = shown(db, REGION)
    assert sorted(info["reinforced_at"]) == ["2026-04-05T09:00:00Z", "2026-04-09T07:00:00Z", mine]
    assert (info["corroborations"], info["contradictions"]) == (2, 1)


def test_a_store_of_an_earlier_release_moves_a_replaced_entry_too(tmp_path):
    """A store whose claims recorded no entry times (an earlier release): an entry replaced
    at its next sync moves the reinforcement as well, and the times are recorded."""
    import sqlite3

    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("supported", TWO)))
    run("import", "--from", "openclaw", folder, "--db", db)
    run("corroborate", db, REGION)  # a person's reinforcement stays
    mine = shown(db, REGION)["reinforced_at"][-1]
    with sqlite3.connect(db) as conn:  # as an earlier release wrote it
        conn.execute(
            "UPDATE facts SET provenance = json_remove(provenance, '$.\"x-openclaw-evidence-times\"')"
        )
    assert "x-openclaw-evidence-times" not in shown(db, REGION)["provenance"]
    vault(tmp_path, page(region("supported", [*ONE, STANDUP])))
    run("sync", db)
    info = shown(db, REGION)
    assert sorted(info["reinforced_at"]) == ["2026-04-07T08:30:00Z", mine]
    assert info["provenance"]["x-openclaw-evidence-times"] == "2026-04-02T18:00:00Z, 2026-04-07T08:30:00Z"
    run("undo", db)
    assert sorted(shown(db, REGION)["reinforced_at"]) == ["2026-04-05T09:00:00Z", mine]
