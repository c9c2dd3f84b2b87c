"""The browser's store file changed under it by another program (a column renamed, its disk
full): a triage key's notice is one line naming the file once, in the words a server's store
uses for the same state, and the store, the list and the audit log stay as they were."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from tests.disk_full import fill, small_disk
from tests.ui.helpers import (
    SIZE,
    audit,
    db_row,
    errors,
    make_app,
    record_notices,
    row_of,
    select,
    settle,
    trust,
)


async def test_a_column_renamed_under_a_triage_key_is_not_saved_naming_the_file(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-03")
        with sqlite3.connect(db, isolation_level=None) as other:  # another program's change
            other.execute("ALTER TABLE audit RENAME COLUMN actor TO actor_elsewhere")
        before = (trust(app, "f-pay-03"), row_of(app, "f-pay-03"), db_row(db, "f-pay-03"), audit(db))
        await pilot.press("c")
        await settle(pilot)
        assert app.is_running
        cause = f"{db}: the store could not be read or written (no such column: actor: a column renamed or dropped by hand?)"
        said = errors(notices)
        assert f"Not saved: corroborate f-pay-03: {cause}; nothing was written" in said
        # the schema change is another program's write: when the watch for them ticks
        # meanwhile (a loaded machine), it says the same of its own reading, and nothing else
        assert all(
            e == f"Could not update the memory (external): {cause}" for e in said if "Not saved" not in e
        )
        after = (trust(app, "f-pay-03"), row_of(app, "f-pay-03"), db_row(db, "f-pay-03"), audit(db))
        assert after == before


async def test_a_full_disk_under_a_triage_key_is_not_saved_naming_the_file(template_db, tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        for f in template_db.parent.iterdir():
            shutil.copy(f, disk / f.name)
        db = disk / Path(template_db).name
        app = make_app(db)
        try:
            async with app.run_test(size=SIZE) as pilot:
                notices = record_notices(app)
                await settle(pilot)
                await select(pilot, "f-pay-03")
                before = (trust(app, "f-pay-03"), row_of(app, "f-pay-03"), db_row(db, "f-pay-03"), audit(db))
                fill(disk)
                await pilot.press("c")
                await settle(pilot)
                assert app.is_running
                assert errors(notices) == [
                    f"Not saved: corroborate f-pay-03: {db}: the store could not be read or written"
                    " (database or disk is full); nothing was written"
                ]
                (disk / "filler").unlink()
                after = (trust(app, "f-pay-03"), row_of(app, "f-pay-03"), db_row(db, "f-pay-03"), audit(db))
                assert after == before
        finally:
            app.store.close()
