"""A wiki claim's own evidence at each sync, on a file and on a server: a status contested
later adds a contradiction audited by `source:openclaw`, a contest resolved takes back only
the source's share (a person's contradiction stays), and `undo` takes a source's change
back for good. The page is written as the memory-wiki plugin writes one (YAML front
matter, block style)."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.ingest.adapters import openclaw
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.core.new_sources_files import resync

FACT = "openclaw:wiki/main/entities/staging.md#staging.region"


def page(status: str) -> str:
    return (
        "---\npageType: entity\nid: entity.staging\ntitle: Staging server\nclaims:\n"
        "  - id: staging.region\n    text: The staging server runs in eu-west-2.\n"
        f"    status: {status}\n    confidence: 0.8\n    evidence:\n"
        "      - sourceId: source.daily\n        updatedAt: 2026-04-02T18:00:00.000Z\n"
        "    updatedAt: 2026-04-02T18:00:00.000Z\nupdatedAt: 2026-04-03T10:00:00.000Z\n---\n\n"
        "# Staging server\n"
    )


@pytest.fixture
def store(new_store):
    with Store.open(new_store("claims"), create=True) as s:
        yield s


def test_a_contest_comes_and_goes_with_the_wiki_and_a_persons_stays(tmp_path, store):
    path = tmp_path / "main" / "entities" / "staging.md"
    path.parent.mkdir(parents=True)
    path.write_text(page("supported"))
    resync(store, openclaw, tmp_path / "main")
    path.write_text(page("refuted"))
    _, result = resync(store, openclaw, tmp_path / "main")
    assert result.reasserted == 1
    assert store.review.fields(FACT)["contradictions"] == 1
    Triage(store, Clock.from_option(None), "user:ada").apply("contradict", [FACT])
    path.write_text(page("supported"))
    resync(store, openclaw, tmp_path / "main")
    assert store.review.fields(FACT)["contradictions"] == 1  # the person's
    assert [(e.actor, e.action) for e in store.audit.history(FACT)] == [
        ("source:openclaw", "contradict"),
        ("user:ada", "contradict"),
        ("source:openclaw", "retract"),
    ]
    Triage(store, Clock.from_option(None), "user:ada").undo()  # the retraction
    assert store.review.fields(FACT)["contradictions"] == 2
    _, again = resync(store, openclaw, tmp_path / "main")
    assert again.reasserted == 0 and store.review.fields(FACT)["contradictions"] == 2
