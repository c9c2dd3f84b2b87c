"""A `~/.claude`-like root's memory files, and git run in a work tree."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

PROJECT = "-home-ada-src-shop"
MEMORY = f"projects/{PROJECT}/memory"
INDEX = """\
    # Memory index
    - [Ada's role](user_role.md) — data scientist, new to the frontend
    - [No DB mocks](feedback_testing.md) — integration tests hit a real database
    - Always run `make lint` before committing
    - The staging URL is https://staging.shop.test
      (behind the VPN)
    """
TESTING = """\
    ---
    name: No DB mocks
    description: integration tests hit a real database
    type: feedback
    originSessionId: 4c8d3a18-7f47-44f5-a26a-1a841fdc1451
    ---
    Integration tests must hit a real database, not mocks.

    **Why:** mocked tests passed but the prod migration failed last quarter.
    """
USER_CLAUDE = """\
    # Style

    - Use pnpm, not npm
    - Prefer small modules
      with one job each

    ```
    - not a memory: inside a code block
    ```

    Prose a person wrote is read too.
    """


def git(
    root: Path, *args: str, when: str = "2026-02-01T12:00:00+02:00", email: str = "ada@shop.test"
) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": email,
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
    }
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)
