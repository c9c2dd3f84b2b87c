"""The CLI run in-process expecting an exit status, and a refusal read off it."""

from __future__ import annotations

from click.testing import CliRunner

from synapse_tui.cli import main


def run(*args, code: int = 0, env: dict | None = None):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, env=env)
    assert result.exit_code == code, result.output + result.stderr
    return result


def refused(*args) -> str:
    """A refusal: exit 2, one `error:` line on stderr, no traceback."""
    result = run(*args, code=2)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]
