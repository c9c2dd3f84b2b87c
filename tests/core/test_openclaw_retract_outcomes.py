"""What a sync of an OpenClaw wiki claim leaves behind, on a file and on a server: a contest
the wiki took back within a backtest's window is not the fact contradicted in it (SPEC 11.4,
14), the claim's own provenance (status, confidence, entries) follows the wiki, and an
evidence entry the wiki withdrew takes its reinforcement with it, undoably."""

from __future__ import annotations

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.adapters import openclaw
from synapse_tui.core.review.backtest import backtest, history
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.core.new_sources_files import resync

FACT = "openclaw:wiki/main/entities/staging.md#staging.c0"
UPDATED = "2026-04-02T18:00:00.000Z"


def page(status: str, confidence: float = 0.8, entries: tuple[str, ...] = (UPDATED,), claims: int = 1) -> str:
    out = "---\npageType: entity\nid: entity.staging\ntitle: Staging server\nclaims:\n"
    for i in range(claims):
        out += (
            f"  - id: staging.c{i}\n    text: The staging server has property number {i}.\n"
            f"    status: {status if i == 0 else 'supported'}\n    confidence: {confidence}\n    evidence:\n"
        )
        out += "".join(
            f"      - sourceId: source.s{j}\n        updatedAt: {t}\n" for j, t in enumerate(entries)
        )
        out += f"    updatedAt: {UPDATED}\n"
    return out + "updatedAt: 2026-04-03T10:00:00.000Z\n---\n\n# Staging server\n"


def _sync_at(monkeypatch, store, vault, when: str, text: str):
    monkeypatch.setenv("SYNAPSE_NOW", when)
    (vault / "entities" / "staging.md").write_text(text)
    return resync(store, openclaw, vault)[1]


def _vault(tmp_path):
    vault = tmp_path / "main"
    (vault / "entities").mkdir(parents=True)
    return vault


def test_a_contest_taken_back_within_the_window_is_not_a_contradiction(tmp_path, new_store, monkeypatch):
    vault = _vault(tmp_path)
    with Store.open(new_store("bt"), create=True) as store:
        _sync_at(monkeypatch, store, vault, "2026-04-03T00:00:00Z", page("supported", claims=30))
        _sync_at(monkeypatch, store, vault, "2026-04-10T00:00:00Z", page("contested", claims=30))
        _sync_at(monkeypatch, store, vault, "2026-04-12T00:00:00Z", page("supported", claims=30))
        memory = Memory(store, Config(), parse_time("2026-05-15T00:00:00Z"))
        at = parse_time("2026-04-05T00:00:00Z")
        taken_back = backtest(memory, at, 30).counts()
        still_contested = backtest(memory, at, 6).counts()  # the window ends on 04-11
        samples = history(memory, 20).outcome
    assert (taken_back["contradicted"], taken_back["survived"]) == (0, 30)
    assert (still_contested["contradicted"], still_contested["survived"]) == (1, 29)
    assert not (samples == 2).any()  # no instant's window ends between the contest and its end


def test_an_undone_retraction_leaves_the_contradiction(tmp_path, new_store, monkeypatch):
    vault = _vault(tmp_path)
    with Store.open(new_store("undo"), create=True) as store:
        _sync_at(monkeypatch, store, vault, "2026-04-03T00:00:00Z", page("supported"))
        _sync_at(monkeypatch, store, vault, "2026-04-10T00:00:00Z", page("contested"))
        _sync_at(monkeypatch, store, vault, "2026-04-12T00:00:00Z", page("supported"))
        Triage(store, Clock(parse_time("2026-04-13T00:00:00Z")), "user:ada").undo()
        memory = Memory(store, Config(), parse_time("2026-05-15T00:00:00Z"))
        out = backtest(memory, parse_time("2026-04-05T00:00:00Z"), 30).counts()
    assert out["contradicted"] == 1


def test_a_withdrawn_entry_takes_its_time_in_the_retract_and_undo_gives_it_back(
    tmp_path, new_store, monkeypatch
):
    vault = _vault(tmp_path)
    two = (UPDATED, "2026-04-05T09:00:00.000Z")
    with Store.open(new_store("times"), create=True) as store:
        _sync_at(monkeypatch, store, vault, "2026-04-06T00:00:00Z", page("supported", entries=two))
        assert store.review.fields(FACT)["reinforced_at"] == ["2026-04-05T09:00:00Z"]
        _sync_at(monkeypatch, store, vault, "2026-04-08T00:00:00Z", page("supported", 0.4))
        fields = store.review.fields(FACT)
        assert (fields["reinforced_at"], fields["corroborations"]) == (None, 0)  # before: the time stayed
        assert store.imports.provenance(FACT)["x-openclaw-confidence"] == 0.4
        (entry,) = [e for e in store.audit.history(FACT) if e.action == "retract"]
        assert entry.actor == "source:openclaw" and entry.after["reinforced_at"] is None
        Triage(store, Clock(parse_time("2026-04-09T00:00:00Z")), "user:ada").undo()
        assert store.review.fields(FACT)["reinforced_at"] == ["2026-04-05T09:00:00Z"]
