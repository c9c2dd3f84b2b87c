"""`score --where` with a filter's name and operator but no value (`trust<`, `tier: auto`
with a space), or words of punctuation alone (`((((`): read as words (SPEC 6: a filter term
has a value), and a `note:` line on stderr says so, so 0 facts is not left unexplained;
stdout (and --json) stays as it was."""

from __future__ import annotations

import pytest

from tests.cli_run import run


@pytest.mark.parametrize(
    ("where", "says"),
    [
        ("trust<", "'trust<' is read as a word: the filter needs a number after it, e.g. trust<0.5"),
        ("maria fresh>", "'fresh>' is read as a word: the filter needs a number after it"),
        ("tier: signed", "'tier:' is read as a word: the filter takes one of auto, human, signed"),
        ("prov:", "'prov:' is read as a word: the filter needs a value, e.g. prov:x-mem0-user-id=alice"),
        ("((((", "words with no letter or digit find nothing"),
    ],
)
def test_a_valueless_filter_or_punctuation_is_said_on_stderr(db, where, says):
    result = run("score", db, "--where", where)
    assert result.stderr.startswith(f"note: {says}"), result.stderr
    assert "Traceback" not in result.stderr
    assert not run("score", db, "--where", where, "--json").stdout.startswith("note")


def test_a_whole_filter_or_a_plain_word_says_nothing_more(db):
    for where in ("tier:signed", "maria", "Hint: maria"):
        assert run("score", db, "--where", where).stderr == ""
