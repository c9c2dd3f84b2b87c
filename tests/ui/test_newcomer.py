"""A newcomer's first session on their own memory: what tripped them, each as a pilot
test on a real store file."""

from __future__ import annotations

from tests.ui.helpers import make_app, screen_text, settle

LONG = "claude-code:projects/payments/memory/feedback_testing.md#"  # ids alike but for their ends
TEXTS = [
    "the payments service retries failed webhooks three times",
    "the payments service retries failed webhooks five times with backoff",
    "webhooks with backoff are retried by the queue worker nightly",
    "payments webhooks are signed with HMAC",
]


def _long_ids(tmp_path):
    """A store of facts whose ids differ only in their last characters, similar enough in
    their words to be each other's neighbours (and neighbours' neighbours)."""
    from tests.cli_run import run
    from tests.helpers import write_jsonl

    facts = [
        {"id": f"{LONG}{n:08x}", "text": text, "created_at": "2026-11-20T09:00:00Z"}
        for n, text in enumerate(TEXTS)
    ]
    db = tmp_path / "long.db"
    run("import", write_jsonl(tmp_path / "long.jsonl", facts), "--db", db)
    return db


async def test_a_narrow_neighbour_view_names_the_fact_reached_through_and_the_walk(tmp_path):
    """At 80 columns the `via` column folds into the text: it read `via …laude-code:projects/…`
    (the part every id shares) for every two-hop row; and the walked line, holding the whole
    id, wrapped its hint out of sight."""
    app = make_app(_long_ids(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        text = screen_text(app)
        hop = next(line for line in text.splitlines() if line.lstrip().startswith("2 hops"))
        assert "via …0001" in hop, hop
        assert "laude-code" not in hop
        walked = next(line for line in text.splitlines() if "walked:" in line)
        assert "(enter walks to a fact)" in walked, walked
    app.store.close()
