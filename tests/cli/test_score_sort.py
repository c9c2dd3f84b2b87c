"""`score --sort` takes every name the table header and the filter language use (issue 23,
point 15): the README's `score --sort -fresh` works."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from synapse_tui.cli import main
from tests.ui.helpers import NOW, build_store


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return build_store(tmp_path_factory.mktemp("sort"))


def scores(db, sort: str) -> list[dict]:
    result = CliRunner().invoke(main, ["score", str(db), "--json", "--now", NOW, "--sort", sort])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("-fresh", "freshness"),
        ("fresh", "freshness"),
        ("-freshness", "freshness"),
        ("conf", "confidence"),
        ("-sup", "supersession"),
        ("B", "B"),
        ("-activation", "B"),
        ("depth", "k"),
    ],
)
def test_sort_takes_the_header_and_filter_names(db, name, field):
    values = [row[field] for row in scores(db, name)]
    assert values == sorted(values, reverse=name.startswith("-"))


def test_an_unknown_sort_names_the_choices(db):
    result = CliRunner().invoke(main, ["score", str(db), "--sort", "freshnes"])
    assert result.exit_code == 2
    assert "fresh" in result.output and "conf" in result.output
