"""An unknown id on a triage command reads as it does on `show`: the id and the store it
is not in, so a person with several stores sees which one they asked."""

from __future__ import annotations

import pytest

from tests.helpers import run


def error_line(*args) -> str:
    result = run(*args, ok=False)
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    return line


@pytest.mark.parametrize(
    "args",
    [
        ("corroborate", "nope"),
        ("contradict", "nope"),
        ("verify", "nope"),
        ("accept", "nope"),
        ("supersede", "nope", "a"),
        ("supersede", "a", "nope"),
        ("dismiss", "nope"),
    ],
)
def test_a_triage_command_names_the_store_an_unknown_id_is_not_in(db, monkeypatch, args):
    monkeypatch.chdir(db.parent)  # the store as the user typed it, a relative path
    verb, *ids = args
    said = error_line(verb, db.name, *ids)
    assert said == error_line("show", db.name, "nope") == f"error: no fact with id 'nope' in {db.name}"
