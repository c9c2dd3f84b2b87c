"""A first word that is no command, no option and no file, followed by more arguments
(`synapse-tui referents DB`), is a command a newcomer guessed, not a store to open: one
`error:` line says there is no such command (and which one does it, for the browser's
queue words), not "unexpected extra argument ... (see synapse-tui open --help)"."""

from __future__ import annotations

import pytest

from tests.cli_run import refused


@pytest.mark.parametrize(
    ("word", "meant"),
    [
        ("referents", "; did you mean `synapse-tui suggest DB --kind referent`?"),
        ("search", "; did you mean `synapse-tui score DB --where WORDS`?"),
        ("frob", ""),
    ],
)
def test_a_guessed_command_is_named_as_no_command(db, word, meant):
    said = refused(word, db)
    assert said.startswith(f"error: no such command {word!r}{meant} (see "), said
    assert "open --help" not in said


def test_a_store_that_is_not_there_is_still_named_as_a_store(tmp_path):
    assert refused(tmp_path / "gone.db") == f"error: {tmp_path / 'gone.db'}: no such database"
    assert refused("nosuch") == "error: nosuch: no such database"


@pytest.mark.parametrize("args", [["--limit", "3"], ["--limit"], ["--limit=3"]])
def test_an_option_the_command_does_not_take_is_named_as_no_option(db, args):
    """`neighbours DB ID --limit 3` (score's option, not neighbours'): no such option, not
    "got unexpected extra arguments (--limit 3)" as if it were an id."""
    said = refused("neighbours", db, "a", *args)
    assert said.startswith("error: no such option '--limit' (see ") and said.endswith(" neighbours --help)")
