"""Real check: Basic Memory writes notes with its own tools, synapse-tui reads them.

    python benchmarks/real_basic_memory.py [BASIC_MEMORY_BIN]

BASIC_MEMORY_BIN (default /work/venv-bm/bin/basic-memory; basic-memory needs Python 3.12+):
`python3.12 -m venv /work/venv-bm && /work/venv-bm/bin/pip install basic-memory`.
Everything happens under a temporary HOME, so the user's ~/basic-memory is never touched.

1. `basic-memory tool write-note` writes three notes (observations, relations, one note
   `supersedes [[Old Search]]`); the reader maps them; they are synced into a new store.
2. `basic-memory tool edit-note` edits one observation and removes another; a second read
   with the store's known facts gives a new version and a deletion; a third read changes
   nothing.
3. Scale: 2,000 notes of 5 observations (written here in the same format) read, against a
   baseline of parsing the same facts as interchange JSON Lines; the ratio is printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.graph.build import update_graph  # noqa: E402
from synapse_tui.core.ingest.adapters import Snapshot, basic_memory, known_facts  # noqa: E402
from synapse_tui.core.ingest.interchange import export_facts, import_facts, parse_file, write_jsonl  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402

NOTES = {
    "Search Design": (
        "specs",
        "# Search Design\n\n## Observations\n"
        "- [decision] Use SQLite FTS5 for full text #search (fast enough locally)\n"
        "- [fact] Ranking is relevance times freshness\n"
        "- [risk] Tokenizer drops accents\n\n"
        "## Relations\n- implements [[Search Spec]]\n- relates_to [[Old Search]]\n",
    ),
    "Old Search": (
        "archive",
        "## Observations\n- [decision] Use Elasticsearch for search\n- [fact] Search runs on its own cluster\n",
    ),
    "Search v2": (
        "specs",
        "## Observations\n- [decision] Use SQLite FTS5 instead of Elasticsearch\n"
        "- [fact] Search runs inside the app\n\n## Relations\n- supersedes [[Old Search]]\n",
    ),
}


def bm(binary: str, home: Path, *args: str) -> str:
    env = {**os.environ, "HOME": str(home), "BASIC_MEMORY_NO_PROMOS": "1"}
    out = subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=600)
    if out.returncode:
        raise SystemExit(
            f"basic-memory {' '.join(args[:2])} failed ({out.returncode}):\n{out.stderr[-2000:]}"
        )
    return out.stdout


def sync(store: Store, snap: Snapshot) -> tuple[int, int]:
    """sync_snapshot when it is merged; until then what it is specified to do."""
    before = store.count()
    try:
        from synapse_tui.core.ingest.adapters.sync import sync_snapshot

        sync_snapshot(store, snap, Config())
    except ImportError:
        have = {r[0] for r in store._conn.execute("SELECT id FROM facts")}
        result = import_facts(store, [f for f in snap.facts if f.id not in have], snap.source)
        with store.transaction() as conn:
            conn.executemany(
                "UPDATE facts SET deleted = 1 WHERE id = ?", [(i,) for i in sorted(snap.deleted)]
            )
            update_graph(conn, result.new_positions, Config())
    return store.count() - before, len(snap.deleted)


def show(store: Store) -> None:
    for k in known_facts(store, "basic-memory"):
        rec = store.record(k.id)
        marks = ("deleted " if k.deleted else "") + (f"supersedes {rec.supersedes}" if rec.supersedes else "")
        print(f"   {k.id}\n      {k.text!r} note={k.note} v{k.version} {marks}")


def real(binary: str) -> None:
    home = Path(tempfile.mkdtemp(prefix="bm-home-"))
    folder = home / "basic-memory"
    t0 = time.perf_counter()
    for title, (where, content) in NOTES.items():
        print(
            bm(
                binary, home, "tool", "write-note", "--title", title, "--folder", where, "--content", content
            ).strip()
        )
    print(f"basic-memory wrote {len(NOTES)} notes in {time.perf_counter() - t0:.1f} s into {folder}")
    for path in sorted(folder.rglob("*.md")):
        print(f"--- {path.relative_to(folder)}\n{path.read_text()}")
    db = home / "memory.db"
    with Store.open(db, create=True) as store:
        t0 = time.perf_counter()
        snap = basic_memory.read(folder, known=known_facts(store, "basic-memory"))
        took = time.perf_counter() - t0
        added, deleted = sync(store, snap)
        print(f"read 1: {len(snap.facts)} facts in {took * 1000:.1f} ms; imported {added}, deleted {deleted}")
        print("   left out:", snap.left_out)
        show(store)
        bm(
            binary,
            home,
            "tool",
            "edit-note",
            "specs/search-design",
            "--operation",
            "find_replace",
            "--find-text",
            "Tokenizer drops accents",
            "--content",
            "Tokenizer drops accents and umlauts",
        )
        bm(
            binary,
            home,
            "tool",
            "edit-note",
            "archive/old-search",
            "--operation",
            "find_replace",
            "--find-text",
            "- [fact] Search runs on its own cluster\n",
            "--content",
            "",
        )
        snap = basic_memory.read(folder, known=known_facts(store, "basic-memory"))
        added, deleted = sync(store, snap)
        print(f"read 2 after edit-note: imported {added}, deleted {deleted}")
        show(store)
        snap = basic_memory.read(folder, known=known_facts(store, "basic-memory"))
        added, deleted = sync(store, snap)
        print(f"read 3, nothing changed: imported {added}, newly deleted {deleted}")


def scale(n_notes: int = 2000, per_note: int = 5) -> None:
    root = Path(tempfile.mkdtemp(prefix="bm-scale-"))
    folder = root / "notes"
    for i in range(n_notes):
        lines = [f"---\ntitle: Note {i}\npermalink: notes/note-{i}\ntype: note\n---\n", "## Observations"]
        lines += [
            f"- [fact] Service {i} fact {j} mentions [[Entity {(i + j) % 97}]] #tag{j}"
            for j in range(per_note)
        ]
        lines += ["", "## Relations", f"- relates_to [[Note {(i + 1) % n_notes}]]", ""]
        (folder / f"d{i % 20}").mkdir(parents=True, exist_ok=True)
        (folder / f"d{i % 20}" / f"note-{i}.md").write_text("\n".join(lines))
    t0 = time.perf_counter()
    snap = basic_memory.read(folder)
    read_s = time.perf_counter() - t0
    with Store.open(root / "m.db", create=True) as store:
        import_facts(store, snap.facts, snap.source)
        write_jsonl(export_facts(store), root / "same.jsonl")
    t0 = time.perf_counter()
    parse_file(root / "same.jsonl")
    base_s = time.perf_counter() - t0
    print(
        f"scale: {len(snap.facts)} observations in {n_notes} notes read in {read_s:.2f} s;"
        f" the same facts as interchange JSON Lines parse in {base_s:.2f} s (baseline);"
        f" ratio {read_s / base_s:.1f}x"
    )


if __name__ == "__main__":
    binary = sys.argv[1] if len(sys.argv) > 1 else "/work/venv-bm/bin/basic-memory"
    if Path(binary).exists():
        real(binary)
    else:
        print(f"{binary} not found: skipping the real Basic Memory part", file=sys.stderr)
    scale()
    print(json.dumps({"done": True}))
