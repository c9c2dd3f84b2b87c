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
