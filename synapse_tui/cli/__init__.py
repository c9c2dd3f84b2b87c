"""The `synapse-tui` command: the browser with no subcommand, a headless CLI otherwise.

Every command builds the same objects the tests build (Store, Config, Clock, Memory).
User mistakes end in one clear line on stderr and a non-zero exit, never a traceback.
"""

from synapse_tui.cli import calibrate, copy, embed, serve, suggest, sync, triage  # noqa: F401  (each registers its commands on main)
from synapse_tui.cli.commands import main

__all__ = ["main"]
