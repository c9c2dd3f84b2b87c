"""The import contract, proven in fresh interpreters: core <- ui, core <- cli.

The headless core imports neither Textual nor rich nor the ui or cli packages; the ui
never imports the cli (config resolution lives in core)."""

import re
import subprocess
import sys

IMPORT_ALL = (
    "import sys, pkgutil, importlib, synapse_tui.{pkg} as pkg\n"
    "for m in pkgutil.walk_packages(pkg.__path__, 'synapse_tui.{pkg}.'):\n"
    "    importlib.import_module(m.name)\n"
    "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in {roots} or"
    " any(n.startswith(p) for p in {prefixes}))))\n"
)


def loaded(pkg: str, roots: tuple[str, ...], prefixes: tuple[str, ...]) -> str:
    code = IMPORT_ALL.format(pkg=pkg, roots=roots, prefixes=prefixes)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_core_imports_no_ui_library_nor_ui_nor_cli():
    assert loaded("core", ("textual", "rich"), ("synapse_tui.ui", "synapse_tui.cli")) == ""


def test_ui_never_imports_the_cli():
    assert loaded("ui", (), ("synapse_tui.cli",)) == ""


def test_ui_runs_no_sql():
    """The store keeps its connection: no screen or widget reaches for it."""
    from pathlib import Path

    import synapse_tui.ui as ui

    offenders = []
    for path in Path(ui.__file__).parent.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "store._conn" in text or ".execute(" in text:
            offenders.append(path.name)
    assert offenders == []


# SQL has one home (issues 21 and 44): the store, the graph's tables included (`store.graph`).
# Readers of another system's own database are the exception by nature; in the graph, the
# update files' checks (cache.py) still run their own statements, the build hands them the
# connection, and the views' caches are kept per connection.
# a statement, the store's connection, or the one a transaction or snapshot yields
_SQL = re.compile(
    r"\.execute(many|script)?\(|\._?conn\b|^\s*import sqlite3|\.(transaction|snapshot)\(\) as \w", re.M
)
_FOREIGN = {
    "core/ingest/adapters/__init__.py",  # open_read_only: a source's file, never written
    "core/ingest/adapters/langgraph.py",
    "core/ingest/adapters/mem0.py",
    "core/ingest/adapters/mem0_vectors.py",
    "core/ingest/adapters/qdrant_local.py",
    "core/graph/cache.py",
    "core/graph/build.py",
    "core/graph/read.py",
}


def test_sql_has_one_home():
    from pathlib import Path

    import synapse_tui

    root = Path(synapse_tui.__file__).parent
    found = {
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if not path.relative_to(root).as_posix().startswith("core/store/")
        and _SQL.search(path.read_text(encoding="utf-8"))
    }
    assert found - _FOREIGN == set(), "SQL outside the store: add a store method (or one of store.graph)"
    assert _FOREIGN - found == set(), "no SQL left here: strike it from _FOREIGN"


def test_reads_above_the_store_are_typed_operations():
    """Above `core/store` a read asked with others is an operation of core/store/ops.py
    (what is asked, typed), never a statement carried up to be batched (issue 44)."""
    from pathlib import Path

    import synapse_tui

    root = Path(synapse_tui.__file__).parent
    statement = re.compile(r"\bRead\(|core\.store\.read import|\b\w+_read\(\)")
    found = {
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if not path.relative_to(root).as_posix().startswith("core/store/")
        and statement.search(path.read_text(encoding="utf-8"))
    }
    assert found == set()


def test_no_layer_above_the_store_touches_its_connection():
    """The store's connection is its own: the graph reads its tables through `store.graph`
    (issue 44), and only readers of another system's database hold connections of theirs."""
    from pathlib import Path

    import synapse_tui

    root = Path(synapse_tui.__file__).parent
    found = {
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if not path.relative_to(root).as_posix().startswith(("core/store/", "core/ingest/adapters/"))
        and re.search(r"\._conn\b", path.read_text(encoding="utf-8"))
    }
    assert found == set()
