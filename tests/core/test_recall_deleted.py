"""What an agent is told of a fact its source deleted: found on a real Gemini CLI folder,
where a memory removed from GEMINI.md came back first for "Do I use uv ...?" with
`rank_reason` saying "(current)"."""

from __future__ import annotations

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config
from synapse_tui.core.store.db import Store
from tests.cli_run import run
from tests.core import new_sources_files as files


def test_a_fact_its_source_deleted_is_not_called_current(tmp_path):
    root = tmp_path / ".gemini"
    path = files.write(root, "GEMINI.md", files.GEMINI_GLOBAL + "- I use uv to manage Python environments.\n")
    db = tmp_path / "m.db"
    run("import", "--from", "gemini-cli", root, "--db", db)
    path.write_text(path.read_text().replace("- I use uv to manage Python environments.\n", ""))
    run("sync", db)
    recall = Recall(Store.open(db), Config(), Clock.from_option("2030-01-01T00:00:00Z"))
    try:
        rows = recall.search("Do I use uv for Python environments?", 5)["results"]
        (row,) = [r for r in rows if "uv" in r["text"]]
        assert "deleted" in row["flags"]
        assert "(current)" not in row["rank_reason"]
        assert "deleted at its source" in row["rank_reason"]
        kept = [r for r in rows if "preferred programming language" in r["text"]]
        assert kept and kept[0]["rank_reason"].endswith("(current)")
    finally:
        recall.close()
