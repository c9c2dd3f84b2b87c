"""A fact named as a person sees it: a whole id, or the shortened form the list, a toast
or the CLI's table shows (a prefix, or '…' and the tail that tells ids apart, as git
shortens hashes). The browser's search box, its `P` box and every command taking an id
read a typed id through `name_id`, so typing what is shown finds that fact, and a
shortened id that names several is answered as ambiguous, naming them.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.textsafe import clean

SHOWN = 5  # candidates named in the message


class AmbiguousId(SynapseError):
    """A shortened id that begins (or ends) several ids: `candidates`, sorted."""

    def __init__(self, typed: str, candidates: list[str]) -> None:
        self.typed, self.candidates = typed, sorted(candidates)
        named = ", ".join(clean(c) for c in self.candidates[:SHOWN])
        more = f" and {len(candidates) - SHOWN:,} more" if len(candidates) > SHOWN else ""
        super().__init__(
            f"{clean(typed)!r} is ambiguous: it names {len(candidates):,} facts"
            f" ({named}{more}); type more of the id"
        )


def name_id(typed: str, ids: Sequence[str], known: Container[str] | None = None) -> str | None:
    """The id `typed` names: itself when it is one; else, with a leading or trailing '…'
    (as shown) dropped, the one id it begins or, failing that, ends with. None when it
    names none; `AmbiguousId` when it begins (or ends) several and names none whole."""
    typed = typed.strip()
    if not typed:
        return None
    if typed in (known if known is not None else ids):
        return typed
    bare = typed.strip("…")
    if not bare:
        return None
    if bare != typed and bare in (known if known is not None else ids):
        return bare
    heads = [] if typed.startswith("…") else [i for i in ids if i.startswith(bare)]
    tails = [] if typed.endswith("…") else [i for i in ids if i.endswith(bare)]
    for matches in (heads, tails):
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise AmbiguousId(typed, matches)
    return None
