"""`--as-of T` for `score`, `show` and `export` (SPEC 11.4): the store as it was at T, the
browser's as-of view, for scripts, so a backtest can be reproduced by hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import overload

import click
import numpy as np

from synapse_tui.cli.common import instant
from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.review.memory import Memory


def as_of_option(f: Callable) -> Callable:
    return click.option(
        "--as-of",
        "as_of",
        metavar="RFC3339",
        callback=instant,
        help="The store as it was at T: facts created by T, events and triage up to T (read-only).",
    )(f)


@overload
def as_of(memory: Memory, when: float) -> tuple[Memory, np.ndarray]: ...
@overload
def as_of(memory: Memory, when: float | None) -> tuple[Memory, np.ndarray | None]: ...


def as_of(memory: Memory, when: float | None) -> tuple[Memory, np.ndarray | None]:
    """The memory as of `when` and the mask of the facts that existed then; unchanged (and
    None) without --as-of. A T after `now` is refused: the future is not on record."""
    if when is None:
        return memory, None
    if when > memory.scores.now:
        raise SynapseError(f"--as-of {format_time(when)} is after now ({format_time(memory.scores.now)})")
    from synapse_tui.core.review.asof import memory_as_of

    return memory_as_of(memory, when)


def when_said(when: float | None) -> str:
    """' as of T' for a message, or nothing without --as-of."""
    return "" if when is None else f" as of {format_time(when)}"
