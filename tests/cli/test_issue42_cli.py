"""The CLI read by a person at 80, 120 and 200 columns (issue 42): `score` keeps band,
trust and an id whole at any width, dropping the secondary columns first."""

from __future__ import annotations

import re

import pytest

from tests.cli_run import refused, run
from tests.helpers import write_jsonl

LONG = "claude-code:projects/payments/memory/feedback_testing.md#"


@pytest.fixture
def long_ids(tmp_path):
    """Claude Code ids: long, alike for their first 50 characters; mem0-like @2 versions."""
    facts = [
        {
            "id": f"{LONG}{tail}",
            "text": f"fact number {n} about the payments ledger and its retries " * 2,
            "created_at": "2026-11-20T09:00:00Z",
            "corroborations": n,
        }
        for n, tail in enumerate(["a1b2c3d4", "a1b2c3e9", "ffe01234"])
    ]
    facts.append(
        {
            "id": "mem0:7f3e9c1a-22b4-4e5c-9a4f-0c1d2e3f4a5b@2",
            "text": "the second version",
            "created_at": "2026-11-20T09:00:00Z",
        }
    )
    src = write_jsonl(tmp_path / "long.jsonl", facts)
    db = tmp_path / "long.db"
    run("import", src, "--db", db)
    return db


def score_lines(db, width: int) -> list[str]:
    out = run("score", db, env={"COLUMNS": str(width)}).stdout
    return out.splitlines()


@pytest.mark.parametrize("width", [80, 120, 200])
def test_score_keeps_band_trust_and_id_whole(db, width):
    lines = score_lines(db, width)
    assert all(len(line) <= width for line in lines), lines
    shown = {r["id"]: r for r in _rows(db)}
    for fid, row in shown.items():
        line = next(line for line in lines if f" {fid} " in line or line.endswith(f" {fid}"))
        assert row["band"] in line and f"{row['trust']:.2f}" in line, line
    header = lines[0].split()
    assert header[:2] == ["band", "trust"] and "id" in header and "text" in header
    if width >= 120:
        assert {"conf", "fresh", "guidance", "tier"} <= set(header)
    if width >= 200:
        assert {"sup", "gate"} <= set(header)


@pytest.mark.parametrize("width", [80, 120])
def test_long_ids_are_never_cut(long_ids, width):
    lines = score_lines(long_ids, width)
    assert all(len(line) <= width for line in lines), lines
    joined = "".join(line.strip() for line in lines)
    # an id folded onto a second line is still whole, characters in order
    for fid in (f"{LONG}a1b2c3d4", f"{LONG}a1b2c3e9", f"{LONG}ffe01234"):
        assert fid in re.sub(r"\s+", "", "\n".join(_id_column(lines))) or fid in joined
    assert "very" in lines[1] or "low" in lines[1] or "moderate" in lines[1] or "high" in lines[1]
    assert re.search(r"\b0\.\d\d\b", lines[1])


def _id_column(lines: list[str]) -> list[str]:
    start = lines[0].index("id ")
    end = lines[0].index("text")
    return [line[start:end] for line in lines[1:]]


def _rows(db):
    import json

    return [json.loads(line) for line in run("score", db, "--json").stdout.splitlines()]


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (("scor", "{db}"), "did you mean 'score'?"),
        (("imprt", "facts.jsonl", "--db", "{db}"), "did you mean 'import'?"),
        (("show", "{db}", "a", "--jsn"), "no such option '--jsn'; did you mean --json?"),
        (("verify", "{db}", "a", "--jsn=1"), "no such option '--jsn'; did you mean --json?"),
        (("show", "{db}", "--jsn"), "did you mean the option --json?"),
        (("score", "{db}", "--jsn"), "'--json'"),
    ],
)
def test_14_a_misspelt_command_or_option_names_the_one_meant(db, args, meant):
    line = refused(*(str(a).replace("{db}", str(db)) for a in args))
    assert meant in line.lower(), line
    assert "unexpected extra argument" not in line


def test_14_an_id_that_looks_like_an_option_is_still_an_id(db):
    # still looked up as a fact id (TAKES_IDS): ids are data
    assert "no fact with id '-0'" in refused("show", db, "-0")
    assert refused("show", db, "--", "--jsn").endswith("no fact with id '--jsn' in " + str(db))


def test_5_a_write_dated_before_the_newest_audit_entry_or_the_fact_is_refused(db):
    from tests.cli_run import run as cli

    before = cli("export", db, "--audit").stdout, cli("export", db).stdout
    # a 2020 reinforcement on a fact created in 2026
    line = refused("verify", db, "a", "--now", "2020-01-01T00:00:00Z")
    assert "earlier than its creation" in line and "nothing changed" in line
    assert (cli("export", db, "--audit").stdout, cli("export", db).stdout) == before
    cli("corroborate", db, "a", "--now", "2026-12-03T00:00:00Z")
    for args in (("contradict", db, "b"), ("undo", db)):  # SYNAPSE_NOW: 2026-12-01
        line = refused(*args)
        assert "earlier than the newest audit entry (#1 at 2026-12-03T00:00:00Z)" in line, line
    assert cli("undo", db, "--now", "2026-12-03T00:00:00Z").stdout.startswith("undid corroborate a")


def test_3_a_shortened_id_names_its_fact_and_an_ambiguous_one_names_the_candidates(long_ids):
    import json

    shown = json.loads(run("show", long_ids, f"{LONG}ff", "--json").stdout)
    assert shown["id"] == f"{LONG}ffe01234"  # a prefix that tells it apart
    assert (
        json.loads(run("show", long_ids, "a1b2c3e9", "--json").stdout)["id"] == f"{LONG}a1b2c3e9"
    )  # its tail
    line = refused("show", long_ids, "claude-code:projects")
    assert (
        "is ambiguous: it names 3 facts" in line and f"{LONG}a1b2c3d4" in line and f"{LONG}ffe01234" in line
    )
    out = run("corroborate", long_ids, "@2").stdout
    assert out.startswith("corroborate mem0:7f3e9c1a-22b4-4e5c-9a4f-0c1d2e3f4a5b@2: trust")
    assert "no fact with id 'nope'" in refused("verify", long_ids, "nope")


def test_17_a_review_date_centuries_out_reads_not_within_a_century(tmp_path):
    hot = {"id": "hot", "text": "reinforced a million times", "created_at": "2026-11-20T09:00:00Z"}
    src = write_jsonl(tmp_path / "hot.jsonl", [{**hot, "reinforcement_count": 1_000_000}])
    db = tmp_path / "hot.db"
    run("import", src, "--db", db)
    out = run("show", db, "hot").stdout
    assert "review due not within a century" in out and "9999" not in out


def test_17_import_help_names_every_source():
    from synapse_tui.core.ingest.adapters import READERS

    text = " ".join(run("import", "--help").stdout.split()).replace("- ", "-")  # wrapped at a hyphen
    for system in READERS:
        assert system in text, system


def test_4_contradict_says_it_was_recorded_what_moved_and_why_the_guidance_reads_so(tmp_path):
    """SPEC 2.1's arithmetic is the contract (r=2, s=0 uncertain; s=1 supported): the
    command says what changed and why the guidance reads as it does."""
    fact = {"id": "f", "text": "t", "created_at": "2026-11-20T09:00:00Z", "corroborations": 2}
    db = tmp_path / "m.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", [fact]), "--db", db)
    out = run("contradict", db, "f", "--now", "2026-12-01T00:00:00Z").stdout
    assert out.startswith("contradict f: contradiction recorded; trust"), out
    assert "d 0.00 -> 0.20 (rose), u 0.50 -> 0.40 (fell)" in out, out
    assert (
        "guidance uncertain -> supported: the added evidence lowered uncertainty (u 0.40 < 0.50);"
        " disputed from d >= 0.25, now 0.20"
    ) in out, out
    import json

    shown = json.loads(run("show", db, "f", "--json").stdout)
    assert (shown["d"], shown["u"], shown["guidance"]) == (0.2, 0.4, "supported")  # the rule kept
    out = run("undo", db, "--now", "2026-12-01T00:00:01Z").stdout
    assert "d 0.20 -> 0.00 (fell), u 0.40 -> 0.50 (rose); guidance supported -> uncertain" in out, out


def test_17_sign_it_is_offered_only_where_a_key_is_trusted(tmp_path):
    import json

    fact = {"id": "f", "text": "t", "created_at": "2026-11-20T09:00:00Z"}
    db = tmp_path / "m.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", [fact]), "--db", db)
    assert "sign" not in json.loads(run("show", db, "f", "--json").stdout)["what_if"]
    db.with_name("m.synapse.toml").write_text('[trust]\nsigners = ["' + "ab" * 32 + '"]\n')
    assert "sign" in json.loads(run("show", db, "f", "--json").stdout)["what_if"]


def test_3_an_id_typed_as_shown_with_its_ellipsis_names_its_fact(long_ids):
    import json

    for typed in ("…c3e9", f"{LONG}ffe0…", "…5b@2"):
        shown = json.loads(run("show", long_ids, typed, "--json").stdout)
        assert shown["id"].endswith(typed.strip("…")) or shown["id"].startswith(typed.strip("…"))
    line = refused("verify", long_ids, f"{LONG}a1b2c3…")
    assert "is ambiguous: it names 2 facts" in line and f"{LONG}a1b2c3e9" in line


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"id": "b", "text": "t" "created_at": 1}', "at column 25: a comma is missing between two items"),
        ("{'id': 'b'}", "at column 2: a field's name must be in double quotes"),
        ('{"id": "b", "text": "t"', "the line ends (at column 23) before its value is closed"),
        (
            '{"id": "b"} {"id": "c"}',
            "at column 13: more follows the end of the JSON value: one object per line",
        ),
        ('{"id": tru}', "at column 8: a value is missing or is not JSON (text takes double quotes)"),
        ('{"id": "b\\q"}', "at column 10: a string holds a backslash escape JSON does not have"),
        ('{"id": "b",, "text": "t"}', "at column 12: two commas in a row: an item is missing between them"),
        ('{"id": "b", "text": "t",}', "at column 25: a comma before a closing bracket is not allowed"),
    ],
)
def test_17_a_json_error_reads_as_a_sentence(tmp_path, line, said):
    src = tmp_path / "bad.jsonl"
    src.write_text('{"id": "a", "text": "t", "created_at": "2026-11-20T09:00:00Z"}\n' + line + "\n")
    message = refused("import", src, "--db", tmp_path / "m.db")
    said = f"not valid JSON{':' if said.startswith('the') else ''} {said}"
    assert message.startswith(f"error: {src}:2: {said}"), message
    assert "Expecting" not in message and not (tmp_path / "m.db").exists()
