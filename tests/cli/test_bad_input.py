"""Issue 12, item by item: hostile input ends in one `error:` line and exit 2, or imports
and stays readable by every view; nothing is left behind; readers never fail beside a writer."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from synapse_tui.cli import main
from synapse_tui.core.base import limits
from synapse_tui.core.trust.explanation import Explanation
from tests.helpers import write_jsonl

OK = {"id": "ok", "text": "the deploy runs on Fridays", "created_at": "2026-11-01T00:00:00Z"}


def run(*args, env: dict | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, env=env)


def ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output + result.stderr
    return result


def refused(result, *needles: str) -> str:
    """Exit 2, stderr one `error:` line holding every needle, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output + result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def strict_json(line: str):
    def no_constant(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(line, parse_constant=no_constant)


def files_of(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def raw_line(tmp_path: Path, body: str, name: str = "in.jsonl") -> Path:
    """One line written as given, so it may hold what json.dumps would not write."""
    path = tmp_path / name
    path.write_text(body + "\n", encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path):
    db = tmp_path / "m.db"
    ok("import", write_jsonl(tmp_path / "ok.jsonl", [OK]), "--db", db)
    return db


# 1. Tracebacks on valid JSON


@pytest.mark.parametrize("value", ["2**63", "10**30", "-(2**63) - 1"])
def test_item1_huge_integer_is_refused(tmp_path, value):
    number = eval(value)  # the literal JSON can carry; Python writes it exactly
    for field in ("corroborations", "x-count"):
        src = raw_line(tmp_path, json.dumps(OK)[:-1] + f', "{field}": {number}}}')
        db = tmp_path / "new.db"
        refused(run("import", src, "--db", db), f"{src}:1: field '{field}'")
        assert not db.exists()
    nested = raw_line(tmp_path, json.dumps(OK)[:-1] + f', "provenance": {{"n": [{number}]}}}}')
    refused(run("import", nested, "--db", tmp_path / "new.db"), "field 'provenance'", "64-bit")


def test_item1_integer_of_thousands_of_digits_is_refused(tmp_path):
    src = raw_line(tmp_path, json.dumps(OK)[:-1] + ', "provenance": {"n": ' + "9" * 5000 + "}}")
    refused(run("import", src, "--db", tmp_path / "new.db"), f"{src}:1:", "64-bit")


@pytest.mark.parametrize("field", ["text", "id", "note", "entities", "provenance", "x-other"])
def test_item1_lone_surrogate_is_refused_naming_the_field(tmp_path, field):
    fact = dict(OK)
    fact[field] = {"entities": ["\ud800 x"], "provenance": {"k": "a\udfffb"}}.get(field, "left \ud800 half")
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(fact) + "\n")  # ASCII escapes: "\ud800", as JSON allows
    assert "\\ud800" in src.read_text() or "\\udfff" in src.read_text()
    refused(run("import", src, "--db", tmp_path / "new.db"), f"field '{field}'", "surrogate")
    assert not (tmp_path / "new.db").exists()


def test_item1_a_surrogate_pair_is_text_and_imports(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(dict(OK, text="a rocket \U0001f680 launch")) + "\n")
    assert "\\ud83d\\ude80" in src.read_text()
    db = tmp_path / "new.db"
    ok("import", src, "--db", db)
    assert json.loads(ok("show", db, "ok", "--json").stdout)["text"] == "a rocket \U0001f680 launch"


@pytest.mark.parametrize("depth", [65, 100_000])
def test_item1_deep_nesting_is_refused(tmp_path, depth):
    src = raw_line(tmp_path, json.dumps(OK)[:-1] + ', "provenance": ' + "[" * depth + "]" * depth + "}")
    refused(run("import", src, "--db", tmp_path / "new.db"), f"{src}:1:", "nested more than 64 levels")


def test_item1_nesting_at_the_limit_imports_and_exports(tmp_path):
    deep: object = "bottom"
    for _ in range(limits.MAX_DEPTH - 1):
        deep = [deep]
    src = write_jsonl(tmp_path / "in.jsonl", [dict(OK, provenance={"chain": deep})])
    db = tmp_path / "new.db"
    ok("import", src, "--db", db)
    back = strict_json(ok("export", db).stdout)
    assert back["provenance"] == {"chain": deep}
    assert "bottom" in ok("show", db, "ok").stdout


def test_item1_export_into_a_missing_folder_is_an_error(store, tmp_path):
    target = tmp_path / "no-such-folder" / "out.jsonl"
    refused(run("export", store, "-o", target), str(target), "cannot write")
    assert not target.parent.exists()


# 2. Imported, then unreadable: limits refused at import, and the values at them readable


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("corroborations", 2**63 - 1, "below 1,000,000,000"),
        ("contradictions", 10**9, "below 1,000,000,000"),
        ("reinforcement_count", 2**63 - 1, "below 1,000,000,000"),
        ("created_at", "9999-12-31T23:59:59Z", "year 8999"),
        ("created_at", "9000-01-01T00:00:00Z", "year 8999"),
        ("created_at", "0001-01-01T00:00:00+01:00", "year 1"),
        ("reinforced_at", ["2026-11-02T00:00:00Z", "9999-01-01T00:00:00Z"], "year 8999"),
    ],
)
def test_item2_values_past_the_limits_are_refused(tmp_path, field, value, words):
    src = write_jsonl(tmp_path / "in.jsonl", [dict(OK, id="first"), dict(OK, **{field: value})])
    refused(run("import", src, "--db", tmp_path / "new.db"), f"{src}:2: field '{field}'", words)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_item2_nan_anywhere_is_refused(tmp_path, constant):
    for field, body in (
        ("provenance", f'{{"score": {constant}}}'),
        ("x-weight", constant),
        ("embedding", f"[1, {constant}]"),
    ):
        src = raw_line(tmp_path, json.dumps(OK)[:-1] + f', "{field}": {body}}}')
        refused(run("import", src, "--db", tmp_path / "new.db"), f"{src}:1: field '{field}'")


def test_item2_values_at_the_limits_import_and_stay_readable(tmp_path):
    edge = [
        dict(OK, id="counts", corroborations=limits.MAX_COUNT, contradictions=limits.MAX_COUNT),
        dict(OK, id="o1", reinforcement_count=limits.MAX_COUNT),
        dict(OK, id="late", created_at="8999-12-31T23:59:59Z", reinforced_at=["8999-12-31T23:59:59Z"]),
        dict(OK, id="early", created_at="0001-01-01T00:00:00Z"),
        dict(OK, id="big", provenance={"n": 2**63 - 1, "m": -(2**63), "f": 1.7976931348623157e308}),
    ]
    src = write_jsonl(tmp_path / "in.jsonl", edge)
    db = tmp_path / "new.db"
    ok("import", src, "--db", db, "--now", "2026-12-01T00:00:00Z")
    for fact in edge:
        info = json.loads(ok("show", db, fact["id"], "--json").stdout)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z", info["review_due"]), info["review_due"]
        assert 0 <= info["trust"] <= 1
        ok("show", db, fact["id"])
    assert json.loads(ok("show", db, "o1", "--json").stdout)["review_due"] == "9999-12-31T23:59:59Z"
    exported = [strict_json(line) for line in ok("export", db).stdout.splitlines()]
    assert [e["id"] for e in exported] == [f["id"] for f in edge]
    assert exported[0]["corroborations"] == limits.MAX_COUNT
    assert exported[4]["provenance"]["n"] == 2**63 - 1
    ok("score", db, "--limit", "0")


# 3. Silent wrong answers


def test_item3_negative_limit_is_an_error(store):
    refused(run("score", store, "--limit", "-1"), "--limit", "-1")
    assert "1 fact" in ok("score", store, "--limit", "0").stdout


@pytest.mark.parametrize(
    ("where", "token", "words"),
    [("<0.3", "<0.3", "needs a field"), ("deploy trust<nan", "trust<nan", "finite number")],
)
def test_item3_comparison_without_field_or_with_nan_is_an_error(store, where, token, words):
    result = run("score", store, "--where", where)
    assert result.exit_code == 2
    first, query, caret = result.stderr.splitlines()
    assert first.startswith("error: ") and words in first
    assert query.strip() == where
    start = query.index(where) + where.index(token)
    assert caret.index("^") == start and caret.count("^") == len(token)


def test_item3_infinite_bound_is_an_error(store):
    refused_lines = run("score", store, "--where", "trust<inf").stderr.splitlines()
    assert refused_lines[0].startswith("error: ") and "finite" in refused_lines[0]


def test_item3_missing_config_file_is_an_error(store, tmp_path, monkeypatch):
    missing = tmp_path / "no-such.toml"
    for command in (
        ["score", store],
        ["show", store, "ok"],
        ["calibrate", store],
        ["import", "x", "--db", store],
    ):
        refused(run(*command, "--config", missing), str(missing), "no such config file")
    monkeypatch.setenv("SYNAPSE_CONFIG", str(missing))
    refused(run("score", store), "SYNAPSE_CONFIG")
    monkeypatch.delenv("SYNAPSE_CONFIG")
    ok("calibrate", store, "--write", "--config", missing)  # --write creates the file it names
    assert missing.exists()


# 4. One line, and one place for every exception


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["score", "{dir}"], ["'DB'", "is a folder, not a store"]),
        (["import", "{dir}", "--db", "{dir}/m.db"], ["'FILE'", "is a folder"]),
        (["score", "{db}", "--sort", "trsut"], ["--sort", "unknown column 'trsut'"]),
        (["score", "{db}", "--limit", "abc"], ["--limit", "'abc' is not a valid integer"]),
        (["score", "{db}", "--bogus"], ["no such option", "--bogus"]),
        (["--bogus"], ["no such option", "--bogus"]),
        (["show", "{db}"], ["missing argument"]),
        (["edges", "{db}", "--kind", "nope"], ["--kind", "nope"]),
    ],
)
def test_item4_usage_errors_are_one_error_line(store, tmp_path, args, needles):
    args = [a.format(dir=tmp_path, db=store) for a in args]
    result = run(*args)
    line = refused(result, *needles)
    assert "Usage:" not in result.stderr and "Try " not in result.stderr
    assert line.count("error:") == 1


def test_item4_our_own_bug_is_one_line_exit_1_traceback_only_when_asked(store, monkeypatch):
    import synapse_tui.cli.calibrate as commands  # the calibrate command's own module

    def broken(memory):
        return 1 / 0

    monkeypatch.setattr(commands, "calibrate", broken)  # stands in for a bug of ours
    result = run("calibrate", store)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: internal error, please report it (ZeroDivisionError: division by zero);"
        " SYNAPSE_DEBUG=1 shows the traceback"
    ]
    debug = run("calibrate", store, env={"SYNAPSE_DEBUG": "1"})
    assert debug.exit_code == 1 and "Traceback" in debug.stderr and "1 / 0" in debug.stderr
    assert debug.stderr.splitlines()[-1].startswith("error: internal error, please report it")


def test_item4_a_real_process_never_prints_a_traceback(store, tmp_path):
    """The installed program, not the test runner: what a user's terminal gets."""
    cases = [
        ["score", str(store), "--limit", "abc"],
        ["score", str(tmp_path)],
        ["export", str(store), "-o", str(tmp_path / "nowhere" / "x.jsonl")],
        [
            "import",
            str(raw_line(tmp_path, '{"id": "a", "text": "\\ud800", "created_at": "2026-01-01"}')),
            "--db",
            str(tmp_path / "n.db"),
        ],
    ]
    for args in cases:
        proc = subprocess.run([sys.executable, "-m", "synapse_tui", *args], capture_output=True, text=True)
        assert proc.returncode == 2, (args, proc.stderr)
        assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("error: "), proc.stderr


def test_item4_undecodable_argument_is_an_error(store):
    refused(run("show", store, "bad\udcffbyte"), "argument 3", "not UTF-8")
    refused(run("score", store, "--where", "nul\x00"), "argument 4", "NUL")


# 5. Left behind


def test_item5_refused_import_into_a_new_path_leaves_no_file(tmp_path):
    cycle = write_jsonl(
        tmp_path / "cycle.jsonl",
        [dict(OK, id="a", supersedes="b"), dict(OK, id="b", supersedes="a")],
    )
    bad_second_line = raw_line(tmp_path, json.dumps(OK) + "\n{not json", "bad.jsonl")
    before = files_of(tmp_path)
    for src, words in ((cycle, "supersession cycle"), (bad_second_line, ":2:")):
        db = tmp_path / "new.db"
        refused(run("import", src, "--db", db), words)
        assert files_of(tmp_path) == before  # no m.db, -wal, -shm, -journal, config


def test_item5_refused_import_into_an_existing_store_changes_no_byte(store, tmp_path):
    cycle = write_jsonl(
        tmp_path / "cycle.jsonl",
        [dict(OK, id="a", supersedes="b"), dict(OK, id="b", supersedes="a")],
    )
    before, names = store.read_bytes(), files_of(tmp_path)
    refused(run("import", cycle, "--db", store), "supersession cycle")
    assert store.read_bytes() == before and files_of(tmp_path) == names


def test_item5_import_into_a_missing_folder_is_an_error(tmp_path):
    src = write_jsonl(tmp_path / "ok.jsonl", [OK])
    refused(run("import", src, "--db", tmp_path / "nope" / "m.db"), "does not exist")


# 6. Shown raw


BIDI = "pay \u202eexe.fdp\u202c \u2066iso\u2069 zero\u200bwidth\u200d join \ufeff mark\u200f \u061c"


def test_item6_bidi_and_zero_width_are_shown_visibly(tmp_path):
    from rich.console import Console

    from synapse_tui.core.base.config import Config
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.store.db import Store
    from synapse_tui.ui.widgets import explain as xp

    facts = [
        dict(OK, id=f"{name}{n}", text=text, entities=["ent\u202eity", "other"], note=f"note-{n}")
        for n in range(3)
        for name, text in (("bidi", BIDI), ("twin", "pay twin"))
    ]
    db = tmp_path / "m.db"
    ok("import", write_jsonl(tmp_path / "in.jsonl", facts), "--db", db)
    invisible = re.compile("[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060\ufeff\u061c]")
    outputs = {
        "score": ok("score", db).stdout,
        "show": ok("show", db, "bidi0").stdout,
        "neighbours": ok("neighbours", db, "bidi0").stdout,
        "edges": ok("edges", db).stdout,
    }
    with Store.open(db, readonly=True) as store:
        ex = Explanation.from_show(Memory(store, Config(), 0).explain("bidi0"))
    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(xp.header_lines(ex, xp.palette({})), xp.provenance_lines(ex, xp.palette({})))
    outputs["browser detail"] = console.export_text()
    for name, out in outputs.items():
        assert not invisible.search(out), (name, ascii(out))
    for name in ("score", "show", "neighbours", "browser detail"):
        assert "pay \u27e8U+202E\u27e9exe.fdp\u27e8U+202C\u27e9" in outputs[name], name
        assert "\u27e8U+2066\u27e9iso\u27e8U+2069\u27e9" in outputs[name], name
    assert "zero\u27e8U+200B\u27e9width\u27e8U+200D\u27e9" in outputs["show"]
    assert "ent\u27e8U+202E\u27e9ity" in outputs["show"] and "ent\u27e8U+202E\u27e9ity" in outputs["edges"]
    assert json.loads(ok("show", db, "bidi0", "--json").stdout)["text"] == BIDI  # data stays exact


# 7. Slow: a text limit


def test_item7_text_past_the_limit_is_refused(tmp_path):
    src = write_jsonl(
        tmp_path / "in.jsonl", [OK, dict(OK, id="long", text="x" * (limits.MAX_TEXT_CHARS + 1))]
    )
    refused(run("import", src, "--db", tmp_path / "n.db"), f"{src}:2: field 'text'", "100,000")
    name = write_jsonl(tmp_path / "id.jsonl", [dict(OK, id="i" * (limits.MAX_NAME_CHARS + 1))])
    refused(run("import", name, "--db", tmp_path / "n.db"), f"{name}:1: field 'id'", "1,000")
    prov = write_jsonl(
        tmp_path / "p.jsonl", [dict(OK, provenance={"k": "p" * (limits.MAX_STRING_CHARS + 1)})]
    )
    refused(run("import", prov, "--db", tmp_path / "n.db"), "field 'provenance'", "100,000")
    many = write_jsonl(
        tmp_path / "e.jsonl", [dict(OK, entities=[f"e{i}" for i in range(limits.MAX_ENTITIES + 1)])]
    )
    refused(run("import", many, "--db", tmp_path / "n.db"), "field 'entities'", "1,000")


def test_item7_the_longest_text_allowed_is_shown_whole(tmp_path):
    text = ("word " * (limits.MAX_TEXT_CHARS // 5))[: limits.MAX_TEXT_CHARS - 3] + "END"
    assert len(text) == limits.MAX_TEXT_CHARS
    db = tmp_path / "n.db"
    ok("import", write_jsonl(tmp_path / "in.jsonl", [dict(OK, text=text)]), "--db", db)
    assert "END" in ok("show", db, "ok").stdout
    assert json.loads(ok("show", db, "ok", "--json").stdout)["text"] == text


def test_item7_an_overlong_line_is_refused_without_reading_it_whole(tmp_path):
    src = tmp_path / "huge.jsonl"
    with open(src, "wb") as fh:
        fh.write(json.dumps(OK).encode() + b"\n")
        fh.write(b'{"id": "x", "text": "' + b"y" * (limits.MAX_LINE_BYTES + 10) + b'"}\n')
    refused(run("import", src, "--db", tmp_path / "n.db"), f"{src}:2:", "longer than")


# 8. A byte order mark


def test_item8_utf8_bom_at_the_start_is_accepted(tmp_path):
    src = tmp_path / "bom.jsonl"
    body = "\r\n".join(json.dumps(dict(OK, id=f"f{i}")) for i in range(3)) + "\r\n"
    src.write_bytes(b"\xef\xbb\xbf" + body.encode())
    db = tmp_path / "n.db"
    assert "imported 3 facts" in ok("import", src, "--db", db).stdout
    assert [strict_json(line)["id"] for line in ok("export", db).stdout.splitlines()] == ["f0", "f1", "f2"]
    later = tmp_path / "later.jsonl"
    later.write_bytes(json.dumps(OK).encode() + b"\n\xef\xbb\xbf" + json.dumps(dict(OK, id="z")).encode())
    refused(run("import", later, "--db", tmp_path / "m.db"), f"{later}:2:")  # only at the start


# 9. A reader beside a writer

WRITER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.store.db import Store

    db, folder = sys.argv[1], Path(sys.argv[2])
    b = 0
    print("started", flush=True)
    while not (folder / "stop").exists() and b < 60:
        src = folder / f"batch-{b}.jsonl"
        src.write_text("".join(
            json.dumps({"id": f"w-{b}-{i}", "text": f"writer fact {b} {i}",
                        "created_at": "2026-11-30T00:00:00Z", "corroborations": i % 3,
                        "supersedes": f"w-{b}-{i - 1}" if i else "ok"}) + "\\n"
            for i in range(100)
        ))
        with Store.open(db) as store:
            import_facts(store, parse_file(src), str(src))
        src.unlink()
        b += 1
    print(b, flush=True)
    """
)


def test_item9_show_beside_a_writer_process_never_fails(store, tmp_path):
    folder = tmp_path / "writer"
    folder.mkdir()
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(store), str(folder)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout.readline().strip() == "started"
        failures, seen = [], set()
        # at least 24 reads, and on until `score` has seen the store grow by two imports:
        # reads may outpace the writer (the load cache made them fast)
        deadline, n = time.monotonic() + 60, 0
        while n < 24 or (len(seen - {1}) < 3 and time.monotonic() < deadline):
            result = run("show", store, "ok", "--json") if n % 2 else run("score", store, "--json")
            if result.exit_code != 0:
                failures.append(result.stderr)
            else:
                seen.add(len(result.stdout.splitlines()))
            n += 1
        (folder / "stop").touch()
        batches = int(writer.communicate(timeout=60)[0].strip())
    finally:
        writer.kill()
    assert failures == []
    assert batches >= 2 and len(seen - {1}) >= 3  # the store grew while it was being read
    for count in seen - {1}:
        assert (count - 1) % 100 == 0  # every score saw whole imports, never half of one


def test_item9_explain_on_a_view_loaded_before_a_write_is_consistent(store, tmp_path):
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.store.db import Store

    with Store.open(store, readonly=True) as reader:
        memory = Memory(reader, Config(), 0)
        src = write_jsonl(tmp_path / "more.jsonl", [dict(OK, id="new", supersedes="ok")])
        ok("import", src, "--db", store)  # another process writes after the view loaded
        old = memory.explain("ok")
        new = memory.explain("new")
        assert old["superseded_by"] == ["new"] and old["k"] == 1  # the scores agree with the record
        assert new is not None and new["supersedes"] == "ok"
        assert len(memory) == 1  # the shared view itself changes only when its owner reloads


def test_item5_a_store_another_import_filled_meanwhile_is_kept(tmp_path):
    from synapse_tui.cli.common import nothing_left_if_refused

    db = tmp_path / "new.db"
    with pytest.raises(RuntimeError), nothing_left_if_refused(db):
        ok("import", write_jsonl(tmp_path / "other.jsonl", [OK]), "--db", db)  # someone else's import
        raise RuntimeError("this import is refused")
    assert json.loads(ok("show", db, "ok", "--json").stdout)["id"] == "ok"


@pytest.mark.parametrize("fid", ["a\u202eb", "zero\u200bwidth", "esc\x1b[31m", "tab\tid"])
def test_item6_an_id_with_a_control_or_invisible_character_is_refused(tmp_path, fid):
    src = write_jsonl(tmp_path / "in.jsonl", [dict(OK, id=fid)])
    line = refused(run("import", src, "--db", tmp_path / "n.db"), f"{src}:1: field 'id'", "visible text")
    assert not re.search("[\u202e\u200b\x1b\t]", line)
