"""The session log names a sync's one undo step by every action in it, as `undo` names it
(`corroborate+retract`): it named the batch by its first action alone, so a row read
"corroborate" for a step that also took evidence back."""

from __future__ import annotations

from tests.cli.openclaw_pages import ONE, TWO, page, rebuild, region, vault
from tests.cli_run import run
from tests.ui.helpers import make_app, screen_text, settle


async def test_a_syncs_mixed_step_is_named_by_all_its_actions(tmp_path):
    db = tmp_path / "m.db"
    folder = vault(tmp_path, page(region("contested", ONE), rebuild("supported", ONE)))
    run("import", "--from", "openclaw", folder, "--db", db)
    app = make_app(db)
    try:
        async with app.run_test(size=(160, 30)) as pilot:
            await settle(pilot)
            # the wiki resolves one contest and gains an entry: corroborate + retract, one step
            vault(tmp_path, page(region("supported", TWO), rebuild("supported", ONE)))
            run("sync", db)  # a writer alongside the browser
            await pilot.press("l")
            await settle(pilot)
            text = screen_text(app)
            rows = [line for line in text.splitlines() if "source:openclaw" in line and "#" in line]
            assert len(rows) == 1, text
            row = rows[0]
            assert "corroborate+retract" in row, row  # before: "corroborate" alone
            assert "◀ undo" in row, row
            said = run("undo", db).stdout
            assert said.startswith("undid corroborate+retract"), said
    finally:
        app.store.close()
