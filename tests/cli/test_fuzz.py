"""Hostile input, generated: every command ends in exit 0, or exit 2 with one `error:` line.

`import` gets arbitrary JSON in every field and arbitrary bytes as lines: after exit 0
every fact is readable by `show`, `show --json`, `neighbours`, `export` and `edges`
(strict JSON) and the browser's detail; after exit 2 the store is byte-identical, or
absent if it was new. `score --where` and every option get arbitrary strings. In-process
through click's runner, so a few hundred runs take seconds.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from rich.console import Console

from synapse_tui.cli import main
from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.explanation import Explanation
from synapse_tui.ui.widgets import explain as xp
from tests.helpers import NOW, write_jsonl

# SYNAPSE_FUZZ_SCALE=10 runs ten times the examples, for a deeper search than CI's
SCALE = int(os.environ.get("SYNAPSE_FUZZ_SCALE", "1"))
FUZZ = settings(
    max_examples=60 * SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# every character, lone surrogates included (json.dumps writes them as \ud800 escapes)
TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=12)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([2**63 - 1, 2**63, -(2**63), 10**9 - 1, 10**9, 0, -1, 1])
    | st.floats(allow_nan=True, allow_infinity=True)
    | TEXT
    | st.sampled_from(
        ["2026-11-01T00:00:00Z", "8999-12-31T23:59:59Z", "9999-12-31T23:59:59Z", "auto", "human"]
    )
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=10,
)
TIMES = st.sampled_from(
    [
        "2026-11-01T00:00:00Z",
        "2026-12-02T00:00:00+14:00",
        "0001-01-01T00:00:00Z",
        "8999-12-31T23:59:59.999999Z",
    ]
)
NAME = TEXT.filter(lambda t: t.strip())
# per field, a value that may well pass (so the views get exercised), or any JSON at all
PLAUSIBLE = {
    "id": NAME,
    "text": NAME | st.just("x" * 2000),
    "created_at": TIMES,
    "tier": st.sampled_from(["auto", "human", "signed"]),
    "corroborations": st.integers(0, 10**9 - 1),
    "contradictions": st.integers(0, 10**9 - 1),
    "reinforced_at": st.lists(TIMES, max_size=3),
    "reinforcement_count": st.integers(1, 10**9 - 1),
    "supersedes": st.sampled_from(["seed", "f0-0", "f1-1", "f2-2", "missing"]) | NAME,
    "entities": st.lists(NAME, max_size=3),
    "note": NAME,
    "provenance": st.dictionaries(TEXT, JSON, max_size=3),
    "signature": st.fixed_dictionaries({"alg": st.just("ed25519"), "key": TEXT, "sig": TEXT}),
    "embedding": st.lists(st.floats(-1e300, 1e300) | st.integers(-(10**30), 10**30), min_size=3, max_size=3),
}


@st.composite
def facts(draw) -> dict:
    n = draw(st.integers(0, 2))
    fact = {"id": f"f{n}-{draw(st.integers(0, 3))}", "text": "a fact", "created_at": "2026-11-01T00:00:00Z"}
    for key in draw(st.lists(st.sampled_from(sorted(PLAUSIBLE)) | TEXT, max_size=4)):
        fact[key] = draw(PLAUSIBLE[key] | JSON if key in PLAUSIBLE else JSON)
    return fact


def line_of(fact: dict, ascii_only: bool) -> bytes:
    text = json.dumps(fact, ensure_ascii=ascii_only)  # NaN and Infinity written bare, as Python does
    return text.encode("utf-8", "surrogatepass")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def one_error(result, max_lines: int = 1) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output, result.stderr)
    lines = result.stderr.splitlines()
    assert 1 <= len(lines) <= max_lines and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output + result.stderr


def strict(line: str):
    def refuse(name):
        raise ValueError(f"{name} in exported JSON")

    return json.loads(line, parse_constant=refuse)


def browser_detail(db: Path, fact_id: str) -> str:
    """What the browser's detail view renders, through the same functions."""
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, Config(), parse_time(NOW))
        ex = Explanation.from_show(memory.explain(fact_id))
    colours = xp.palette({})
    out = io.StringIO()
    console = Console(file=out, width=400)
    threshold, now = memory.config.review.threshold, memory.scores.now
    for part in (
        xp.header_lines(ex, colours),
        xp.factor_lines(ex, colours, threshold, now),
        xp.opinion_lines(ex, colours),
        xp.review_lines(ex, threshold, now),
        xp.what_if_lines(ex, colours),
        xp.provenance_lines(ex, colours),
        xp.history_lines(ex, colours),
    ):
        console.print(part)
    return out.getvalue()


def every_view_reads(db: Path, ids: list[str]) -> None:
    exported = [strict(line) for line in run("export", db).stdout.splitlines()]
    assert {e["id"] for e in exported} >= set(ids)
    for fid in ids:
        assert run("show", db, fid).exit_code == 0
        shown = run("show", db, fid, "--json")
        assert shown.exit_code == 0 and strict(shown.stdout)["id"] == fid
        assert clean(fid) in browser_detail(db, fid)
        assert run("neighbours", db, fid).exit_code == 0
        assert strict(run("neighbours", db, fid, "--json").stdout)
    assert run("score", db, "--limit", "0").exit_code == 0
    assert all(strict(line) for line in run("edges", db, "--json", "--lexical").stdout.splitlines())


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A small store that each example copies, so the refused ones can be compared byte for byte."""
    folder = tmp_path_factory.mktemp("template")
    src = write_jsonl(
        folder / "seed.jsonl",
        [
            {"id": "seed", "text": "the deploy runs on Fridays", "created_at": "2026-10-01T00:00:00Z"},
            {"id": "f0-0", "text": "an id the fuzz may repeat", "created_at": "2026-10-02T00:00:00Z"},
        ],
    )
    db = folder / "m.db"
    assert run("import", src, "--db", db).exit_code == 0
    return db


def import_and_check(template: Path, lines: list[bytes], into_existing: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        src = folder / "in.jsonl"
        src.write_bytes(b"\n".join(lines) + b"\n")
        db = folder / "m.db"
        if into_existing:
            shutil.copy(template, db)
        before = db.read_bytes() if into_existing else None
        names = sorted(p.name for p in folder.iterdir())
        result = run("import", src, "--db", db, "--now", NOW)
        event(f"import exit {result.exit_code}")  # pytest --hypothesis-show-statistics
        if result.exit_code == 0:
            decoded = []
            for raw in lines:
                try:
                    decoded.append(json.loads(raw.removeprefix(b"\xef\xbb\xbf")))
                except ValueError:
                    continue
            ids = [obj["id"] for obj in decoded if isinstance(obj, dict)]
            every_view_reads(db, ids)
        else:
            one_error(result)
            assert sorted(p.name for p in folder.iterdir()) == names
            if into_existing:
                assert db.read_bytes() == before


@FUZZ
@given(fact_list=st.lists(facts(), min_size=1, max_size=3), ascii_only=st.booleans(), existing=st.booleans())
def test_import_of_arbitrary_json_in_every_field(template, fact_list, ascii_only, existing):
    import_and_check(template, [line_of(f, ascii_only) for f in fact_list], existing)


@FUZZ
@given(
    lines=st.lists(
        st.binary(max_size=40) | st.builds(line_of, facts(), st.booleans()).map(lambda b: b[:-3] + b"\xff}"),
        min_size=1,
        max_size=3,
    ),
    existing=st.booleans(),
)
def test_import_of_arbitrary_bytes_as_lines(template, lines, existing):
    import_and_check(template, [b.replace(b"\n", b" ") for b in lines], existing)


@settings(
    max_examples=150 * SCALE, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    where=st.text(st.characters(codec="utf-8"), max_size=20)
    | st.lists(
        st.sampled_from(
            [
                "trust",
                "-",
                "<",
                "<=",
                "=",
                "!=",
                ">",
                ":",
                "tier",
                "is",
                "nan",
                "0.3",
                "1e400",
                "fresh",
                "band",
                "-band:",
                "inf",
                " ",
                "junk",
                '"',
                "*",
                "(",
                "AND",
                "NEAR",
            ]
        ),
        max_size=6,
    ).map("".join)
)
def test_score_where_over_arbitrary_strings(template, where):
    result = run("score", template, "--where", where)
    event(f"score exit {result.exit_code}")
    if result.exit_code != 0:
        one_error(result, max_lines=3)  # a filter error adds its query and a caret


OPTION_COMMANDS = [
    ["score", "{db}", "--sort", "{v}"],
    ["score", "{db}", "--limit", "{v}"],
    ["score", "{db}", "--now", "{v}"],
    ["score", "{db}", "--config", "{v}"],
    ["score", "{db}", "--where", "{v}", "--json"],
    ["score", "{v}"],
    ["show", "{db}", "{v}"],
    ["show", "{db}", "{v}", "--json"],
    ["neighbours", "{db}", "{v}"],
    ["neighbours", "{db}", "{v}", "--json"],
    ["edges", "{db}", "--kind", "{v}"],
    ["calibrate", "{db}", "--now", "{v}"],
    ["calibrate", "{db}", "--config", "{v}"],
    ["export", "{db}", "-o", "{v}"],
    ["export", "{db}", "--now", "{v}"],
    ["import", "{v}", "--db", "{folder}/new.db"],
]


@settings(
    max_examples=120 * SCALE, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    command=st.sampled_from(OPTION_COMMANDS),
    value=st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=12)
    | st.sampled_from(["-1", "0", "99999999999999999999", "nan", "-trust", "all", "", ".", "..", "seed"]),
)
def test_every_option_over_arbitrary_values(template, tmp_path, monkeypatch, command, value):
    if command[-2:] == ["-o", "{v}"] and "/" in value:
        value = value.replace("/", "_")  # a file in the test's folder, never elsewhere
    monkeypatch.chdir(tmp_path)
    args = [a.format(db=template, folder=tmp_path, v=value) for a in command]
    result = run(*args)
    event(f"{command[0]} exit {result.exit_code}")
    if result.exit_code != 0:
        one_error(result, max_lines=3)
