"""Nothing a source, a store or the environment holds acts on the user's terminal: every
printed field passes the one text-safety function (`textsafe.clean`), JSON escapes it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from synapse_tui.cli import main
from tests.helpers import NOW, write_jsonl

# An escape sequence (an OSC window title), a bell, a C1 control sequence introducer, and
# a right-to-left override: each acts on a terminal or on how a line reads.
ATTACKS = {"ESC": "\x1b]0;PWNED\x07", "BEL": "\x07", "C1 CSI": "\x9b31m", "U+202E": "\u202e"}
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def run(*args, env: dict | None = None, code: int = 0):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, env=env)
    assert result.exit_code == code, result.output + result.stderr
    return result


def assert_inert(text: str) -> None:
    assert not any(ch in text for ch in RAW), ascii(text)


@pytest.mark.parametrize("attack", ATTACKS.values(), ids=ATTACKS.keys())
def test_left_out_lines_show_note_content_made_visible(tmp_path, attack):
    notes = tmp_path / "notes"
    notes.mkdir()
    body = f"---\ntitle: A\n---\n\n- [fact] Maria owns it\n- supersedes [[gone{attack}note]]\n"
    (notes / "a.md").write_text(body)
    result = run("import", "--from", "basic-memory", notes, "--db", tmp_path / "m.db")
    assert "left out: a.md: 'supersedes [[gone" in result.stderr  # the line is there, made safe
    assert_inert(result.stderr + result.stdout)
    as_json = run("import", "--from", "basic-memory", notes, "--db", tmp_path / "m.db", "--json").stdout
    assert_inert(as_json)
    assert any(attack in line for line in json.loads(as_json)["left_out"])  # the data is unchanged


@pytest.mark.parametrize("attack", ATTACKS.values(), ids=ATTACKS.keys())
def test_an_undo_notice_shows_the_actor_made_visible(tmp_path, attack):
    db = tmp_path / "m.db"
    fact = {"id": "f-1", "text": "Maria owns the Payments API", "created_at": NOW}
    run("import", write_jsonl(tmp_path / "f.jsonl", [fact]), "--db", db)
    env = {"LOGNAME": f"eve{attack}", "USER": f"eve{attack}", "SYNAPSE_NOW": NOW}
    run("corroborate", db, "f-1", env=env)
    result = run("undo", db, env=env)
    assert "undid corroborate f-1 (by user:eve" in result.stdout
    assert_inert(result.stdout + result.stderr)


@pytest.mark.parametrize("attack", ATTACKS.values(), ids=ATTACKS.keys())
def test_fact_text_in_every_output_is_inert(tmp_path, attack):
    db = tmp_path / "m.db"
    fact = {"id": "f-1", "text": f"Maria{attack} owns it", "created_at": NOW, "note": f"n{attack}"}
    run("import", write_jsonl(tmp_path / "f.jsonl", [fact]), "--db", db)
    env = {"SYNAPSE_NOW": NOW}
    for args in (("score", db), ("score", db, "--json"), ("show", db, "f-1"), ("show", db, "f-1", "--json"),
                 ("export", db)):  # fmt: skip
        result = run(*args, env=env)
        assert "f-1" in result.stdout
        assert_inert(result.stdout + result.stderr)
    assert json.loads(run("export", db).stdout.splitlines()[0])["text"] == f"Maria{attack} owns it"
