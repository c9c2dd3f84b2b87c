"""The import contract, proven in fresh interpreters: core <- ui, core <- cli.

The headless core imports neither Textual nor rich nor the ui or cli packages; the ui
never imports the cli (config resolution lives in core)."""

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
        if "store.conn" in text or ".execute(" in text:
            offenders.append(path.name)
    assert offenders == []
