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
