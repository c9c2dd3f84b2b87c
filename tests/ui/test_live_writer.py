"""Beside a live agent: another process writes to the store while the browser is open."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from tests.ui.helpers import SIZE, audit, record_notices, screen_text, select, settle, trust

WRITER = textwrap.dedent(
    """
    import json, sys, tempfile, time
    from pathlib import Path
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.store.db import Store

    db, batches = sys.argv[1], int(sys.argv[2])
    with Store.open(db) as store:
        for b in range(batches):
            src = Path(tempfile.mkdtemp()) / "agent.jsonl"
            src.write_text("".join(
                json.dumps({"id": f"agent-{b}-{i}", "text": f"agent note {b} {i} payments",
                            "created_at": "2026-11-30T00:00:00Z"}) + "\\n"
                for i in range(5)
            ))
            import_facts(store, parse_file(src), str(src))
            print("wrote", b, flush=True)
            time.sleep(0.3)
    print("ok")
    """
)


async def test_a_writer_process_alongside_the_browser(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-deploy")
        assert "All 30" in screen_text(app)
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), "4"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout.readline().startswith("wrote 0")
        # triage while the agent writes: both sides wait for each other, neither fails
        for key in ("c", "v", "x"):
            await pilot.press(key)
            await pilot.pause(0.2)
        await settle(pilot)
        out, err = writer.communicate(timeout=30)
        assert writer.returncode == 0, err
        assert "locked" not in err
        deadline = time.monotonic() + 6  # the browser polls data_version every 2 s
        while "All 50" not in screen_text(app) and time.monotonic() < deadline:
            await pilot.pause(0.2)
        await settle(pilot)
        assert "All 50" in screen_text(app)
        assert app.main.current_fact_id() == "f-deploy"  # the user's place is kept
        assert not [n for n in notices if n[0] == "error"], notices
        assert [r["action"] for r in audit(db)] == ["corroborate", "verify", "contradict"]
        assert f"{trust(app, 'f-deploy'):.2f}" in screen_text(app)
        await pilot.press("ctrl+z")  # undo still works on the grown store
        await settle(pilot)
        assert not [n for n in notices if n[0] == "error"], notices
        assert "agent-3-4" in app.memory.index
