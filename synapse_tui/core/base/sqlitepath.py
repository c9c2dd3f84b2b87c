"""A file's path as an SQLite URI, so that no character of a name is read as URI syntax.

SQLite reads `file:` URIs: `?` starts its parameters, `#` a fragment, and `%XX` is decoded.
`--db 'team#1.db'` opened as `file:/…/team#1.db` wrote a file `team`; `p%41.db` wrote
`pA.db`. Every store and source is opened through `uri`, which percent-encodes the path
(everything but letters, digits, `/` and `-._~`), so the file opened is the file named.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote


def uri(path: str | os.PathLike[str], **params: str) -> str:
    """`file:` + the absolute path, percent-encoded, + `?key=value&…` (values as given)."""
    absolute = os.path.abspath(Path(path))
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"file:{quote(absolute, safe='/')}" + (f"?{query}" if query else "")
