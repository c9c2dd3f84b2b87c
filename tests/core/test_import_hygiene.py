"""The headless core never imports Textual or rich: proven in a fresh interpreter."""

import subprocess
import sys


def test_core_imports_no_ui_library():
    code = (
        "import sys, pkgutil, importlib, synapse_tui.core as core\n"
        "for m in pkgutil.iter_modules(core.__path__):\n"
        "    importlib.import_module('synapse_tui.core.' + m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
