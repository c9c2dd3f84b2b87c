"""The browser on a store file damaged where only reading rows reaches (a page of its word
index or of its facts another program overwrote), and on one SQLite itself refuses to write
(its -wal file immutable): one line naming the file, as a statement's own errors are
(test_sqlite_store_state_ui.py), and the browser goes on or exits as the failure asks."""

from __future__ import annotations

from tests.sqlite_files import damage, immutable, leaves, many_facts, overwrite, read_only_wal
from tests.ui.helpers import (
    SIZE,
    audit,
    db_row,
    errors,
    make_app,
    record_notices,
    row_of,
    said,
    searched,
    select,
    settle,
    trust,
)


async def test_a_search_reaching_a_page_damaged_under_the_browser_names_the_file(tmp_path):
    db = many_facts(tmp_path)
    index = leaves(db, "facts_fts_data")  # the word index, read by a search only
    app = make_app(db)
    try:
        async with app.run_test(size=SIZE) as pilot:
            notices = record_notices(app)
            await settle(pilot)
            overwrite(db, index[-1])  # another program's bytes, after the browser opened it
            await pilot.press("slash", *"words")
            await searched(pilot)
            assert app.is_running
            assert errors(notices) == [f"Could not search: {damage(db)}"]
            assert f"could not search: {damage(db)}" in said(app)
    finally:
        app.store.close()


async def test_a_store_whose_facts_are_damaged_past_the_first_page_exits_naming_the_file(tmp_path, capfd):
    db = many_facts(tmp_path)
    overwrite(db, leaves(db)[-1])  # the load reads the first facts, then reaches it
    app = make_app(db)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
        assert app.return_code == 2
        # what the terminal shows on the way out, folded at its width (a fold may fall inside
        # the path, whose length is the test folder's): compared without the white space
        shown = capfd.readouterr().err
        assert "".join(shown.split()) == "".join(f"error: {damage(db)}".split())
    finally:
        app.store.close()


async def test_a_triage_key_on_a_store_whose_wal_cannot_be_written_is_not_saved(db):
    with read_only_wal(db):
        app = make_app(db)  # opened for writing: the file and its folder can be written
        try:
            async with app.run_test(size=SIZE) as pilot:
                notices = record_notices(app)
                await settle(pilot)
                await select(pilot, "f-pay-03")
                before = (trust(app, "f-pay-03"), row_of(app, "f-pay-03"), db_row(db, "f-pay-03"), audit(db))
                await pilot.press("c")
                await settle(pilot)
                assert app.is_running
                assert errors(notices) == [
                    f"Not saved: corroborate f-pay-03: {db}: the store cannot be written (attempt to write"
                    " a readonly database: a read-only file or folder?); nothing was written"
                ]
                after = (trust(app, "f-pay-03"), row_of(app, "f-pay-03"), db_row(db, "f-pay-03"), audit(db))
                assert after == before
        finally:
            app.store.close()


async def test_a_store_file_that_cannot_be_written_turns_triage_off_saying_why(db):
    with immutable(db):
        app = make_app(db)
        try:
            async with app.run_test(size=SIZE) as pilot:
                notices = record_notices(app)
                await settle(pilot)
                await select(pilot, "f-pay-03")
                before = (trust(app, "f-pay-03"), row_of(app, "f-pay-03"))
                await pilot.press("c")
                await settle(pilot)
                assert notices[-1] == ("warning", f"read-only: {db} cannot be written; triage is off")
                assert (trust(app, "f-pay-03"), row_of(app, "f-pay-03")) == before
        finally:
            app.store.close()
