"""The style gate of STYLE.md: `ruff check` and `ruff format` clean, run with the tests."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["synapse_tui", "tests", "benchmarks", "sample_db"]


def ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *PATHS], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_check_is_clean():
    result = ruff("check", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean():
    result = ruff("format", "--check", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_contracts_hold():
    """import-linter's contracts in pyproject.toml: core's layers only look down, core
    imports no front-end, and no front-end imports another but the CLI launching them."""
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("KEPT") == 3 and "BROKEN" not in result.stdout
