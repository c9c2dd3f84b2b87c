"""A newcomer's first try: `synapse-tui FOLDER` on the folder their agent's memory is in."""

from __future__ import annotations

from tests.cli_run import refused


def test_opening_a_folder_says_how_to_read_it(tmp_path):
    """It said "File '...' is a directory"; it says how to make a store of it."""
    folder = tmp_path / "repo"
    folder.mkdir()
    # `mcp` too: the folder an MCP client's config names is where it is said first
    for args in (["open", folder], [folder], ["score", folder], ["mcp", folder]):
        line = refused(*args)
        assert f"{folder} is a folder, not a store" in line, line
        assert f"synapse-tui import --from markdown {folder} --db memory.db" in line, line


def test_opening_a_memory_file_says_how_to_read_it(tmp_path):
    """`synapse-tui CLAUDE.md`: the file the memory is in, not a store. It said "not a SQLite
    database, or corrupt", which reads as damage; it says how to make a store of it."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "CLAUDE.md").write_text("- Run the tests before every commit\n")
    (project / "memory.jsonl").write_text('{"type": "entity", "name": "x", "observations": []}\n')
    for args in (["open", project / "CLAUDE.md"], [project / "CLAUDE.md"], ["score", project / "CLAUDE.md"]):
        line = refused(*args)
        assert "CLAUDE.md is a Markdown file, not a store" in line and "corrupt" not in line, line
        assert f"synapse-tui import --from markdown {project} --db memory.db" in line, line
    line = refused("mcp", project / "memory.jsonl")
    assert "memory.jsonl is a JSON Lines file, not a store" in line, line
    assert f"synapse-tui import {project / 'memory.jsonl'} --db memory.db" in line, line
