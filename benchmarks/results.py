"""Figures a benchmark writes into benchmarks/RESULTS.md, each against its baseline.

A script collects what it measured (`Results.add`: the figure, its value, and the baseline
timed in the same run) and, given `--write-results`, replaces its own block of RESULTS.md,
between `<!-- results:NAME -->` and `<!-- /results:NAME -->`, with a table that carries the
ratio and the machine's state when measured (load average, cores, commit): a ratio is what
compares across machines, the load says how far to trust a wall time.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


@dataclass
class Results:
    script: str  # e.g. "bench_bad_input.py": names the block
    rows: list[tuple[str, float, str | None, float | None, str]] = field(default_factory=list)

    def add(
        self,
        figure: str,
        value: float,
        *,
        baseline: str | None = None,
        against: float | None = None,
        unit: str = "s",
    ) -> None:
        """One figure, and (optionally) the baseline it is compared with in the same run."""
        self.rows.append((figure, value, baseline, against, unit))

    def table(self) -> str:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        head = (
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} at commit {_commit()},"
            f" {os.cpu_count()} cores, load average {load} (1, 5, 15 min).\n\n"
            "| figure | value | baseline (same run) | ratio |\n| --- | --- | --- | --- |\n"
        )
        lines = []
        for figure, value, baseline, against, unit in self.rows:
            ratio = f"{value / against:.3g}x" if against else ""
            base = f"{baseline}: {_fmt(against, unit)}" if baseline and against is not None else ""
            lines.append(f"| {figure} | {_fmt(value, unit)} | {base} | {ratio} |")
        return head + "\n".join(lines) + "\n"

    def save(self, path: Path = RESULTS) -> None:
        """Replace this script's block of RESULTS.md (appended to its section when new)."""
        name = re.escape(self.script)
        block = f"<!-- results:{self.script} -->\n{self.table()}<!-- /results:{self.script} -->"
        text = path.read_text(encoding="utf-8")
        found = re.search(f"<!-- results:{name} -->.*?<!-- /results:{name} -->", text, flags=re.S)
        if found:
            text = text[: found.start()] + block + text[found.end() :]
        else:
            section = re.search(f"^## {name}.*?(?=^## |\\Z)", text, flags=re.S | re.M)
            at = section.end() if section else len(text)
            text = text[:at].rstrip("\n") + "\n\n" + block + "\n\n" + text[at:].lstrip("\n")
        path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    if unit == "s" and value < 1:
        return f"{value * 1000:.3g} ms"
    return f"{value:.3g} {unit}".rstrip()


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
