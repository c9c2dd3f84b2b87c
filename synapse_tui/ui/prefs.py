"""What the browser remembers about the person, not the store: the theme.

One small JSON file in the user's config folder ($XDG_CONFIG_HOME/synapse-tui/ui.json, or
~/.config/...; SYNAPSE_TUI_PREFS names another). A file that cannot be read or written is
ignored: a preference never stops the browser.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def prefs_path() -> Path:
    named = os.environ.get("SYNAPSE_TUI_PREFS")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "synapse-tui" / "ui.json"


def read_prefs(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_pref(path: Path, key: str, value: str) -> None:
    data = read_prefs(path)
    data[key] = value
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError:
        pass
