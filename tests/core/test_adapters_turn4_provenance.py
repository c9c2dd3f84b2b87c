"""`provenance.SYSTEMS` says what each of turn 4's readers writes (as
test_adapters_new_sources_provenance.py holds it for issue 24's): its author keys are keys
the reader writes, and its `unrecorded` inputs are exactly those the reader never sets."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.provenance import SYSTEMS
from synapse_tui.core.ingest.adapters import codex, cursor, gemini_cli, markdown, openclaw
from tests.core import new_sources_files as files
from tests.core.provenance_inputs import INPUTS, inputs_written


def codex_snapshot(tmp_path):
    files.write(tmp_path, "MEMORY.md", files.CODEX_MEMORY)
    return codex.read(tmp_path)


def gemini_snapshot(tmp_path):
    files.write(tmp_path, "GEMINI.md", files.GEMINI_GLOBAL)
    return gemini_cli.read(tmp_path)


def openclaw_snapshot(tmp_path):
    files.write(tmp_path, "workspace/MEMORY.md", files.OPENCLAW_MEMORY)
    files.write(tmp_path, "wiki/main/entities/staging.md", files.wiki_page(files.OPENCLAW_PAGE))
    return openclaw.read(tmp_path / "workspace")


def cursor_snapshot(tmp_path):
    files.write(tmp_path, ".cursor/rules/ts.mdc", files.CURSOR_RULE)
    return cursor.read(None, project=tmp_path)


def markdown_snapshot(tmp_path):
    files.write(tmp_path, "notes/2026-05-14.md", "- Ship on Friday.\n")
    return markdown.read(tmp_path / "notes")


READERS = {
    "codex": codex_snapshot,
    "gemini-cli": gemini_snapshot,
    "openclaw": openclaw_snapshot,
    "cursor": cursor_snapshot,
    "markdown": markdown_snapshot,
}


@pytest.mark.parametrize("system", sorted(READERS))
def test_systems_table_matches_what_the_reader_writes(tmp_path, system):
    snap = READERS[system](tmp_path)
    assert snap.system == system
    keys = {k for f in snap.facts for k in f.provenance}
    entry = SYSTEMS[system]
    for key in entry["author"] + entry["role"]:
        assert key in keys, f"{system}: SYSTEMS names {key}, which its reader never writes"
    written = set().union(*(inputs_written(f) for f in snap.facts))
    assert set(entry["unrecorded"]) == set(INPUTS) - written
