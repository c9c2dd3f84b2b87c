"""A store someone hands over names what `sync` reads (issue 37, point 2): its recorded
sources are followed only when this user recorded them here or confirms them, and a server
source the user did not name on this machine never gets their password."""

from __future__ import annotations

import os
import pty
import socket
import struct
import subprocess
import sys
import threading

import pytest

from synapse_tui.core.ingest.sources import KEY, trust_path
from synapse_tui.core.store.db import Store
from tests.cli_run import run
from tests.core.mcp_memory_files import ENTITIES, save

HOSTILE_NOTE = "private: the launch code is 0000"


def handed_over(tmp_path, monkeypatch, entries):
    """A store made by someone else (another user's config folder), recording `entries`."""
    memory = save(tmp_path / "theirs.jsonl")
    db = tmp_path / "handed.db"
    mine = str(trust_path().parent.parent)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "someone-else"))
    run("import", "--from", "mcp-memory", memory, "--db", db)
    with Store.open(db) as store:
        store.set_meta(KEY, entries)
    monkeypatch.setenv("XDG_CONFIG_HOME", mine)
    return db


def one_line(result, *needles):
    assert result.exit_code == 2, (result.exit_code, result.output, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def private_folder(tmp_path):
    """A file of the user's that the hostile store names as a source."""
    (tmp_path / "private").mkdir()
    return save(tmp_path / "private" / "memory.jsonl", [{**ENTITIES[0], "observations": [HOSTILE_NOTE]}], [])


def count(db) -> int:
    with Store.open(db, readonly=True) as store:
        return int(store._conn.execute("SELECT count(*) FROM facts").fetchone()[0])  # noqa: SLF001


def test_no_stdin_refuses_in_one_line_and_reads_nothing(tmp_path, monkeypatch):
    private = private_folder(tmp_path)
    db = handed_over(tmp_path, monkeypatch, [{"system": "mcp-memory", "source": str(private)}])
    before = db.read_bytes()
    result = run("sync", db, code=2)
    one_line(result, "not recorded or confirmed", "--yes", "nothing synced")
    assert str(private) in result.stderr  # listed: what it would have read
    assert db.read_bytes() == before


def in_a_terminal(*args, answer: str):
    """The CLI with a terminal on stdin (a pseudo-terminal), answering the prompt."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from synapse_tui.cli import main; main()", *map(str, args)],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    os.close(slave)
    os.write(master, answer.encode() + b"\n")
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(master)
    return proc.returncode, out, err


def test_no_is_nothing_read_and_yes_is_asked_once(tmp_path, monkeypatch):
    private = private_folder(tmp_path)
    db = handed_over(tmp_path, monkeypatch, [{"system": "mcp-memory", "source": str(private)}])
    before = db.read_bytes()
    code, _, err = in_a_terminal("sync", db, answer="n")
    assert code == 2 and "not confirmed: nothing synced" in err and str(private) in err
    assert db.read_bytes() == before
    code, out, err = in_a_terminal("sync", db, answer="y")
    assert code == 0, err
    assert "read them into this store?" in err and "1 added" in out
    again = run("sync", db)  # confirmed: not asked again
    assert "read them" not in again.stderr


def test_yes_confirms_for_a_script(tmp_path, monkeypatch):
    private = private_folder(tmp_path)
    db = handed_over(tmp_path, monkeypatch, [{"system": "mcp-memory", "source": str(private)}])
    assert "added" in run("sync", db, "--yes").stdout


def test_own_imports_sync_without_asking(tmp_path):
    memory = save(tmp_path / "memory.jsonl")
    db = tmp_path / "mine.db"
    run("import", "--from", "mcp-memory", memory, "--db", db)
    assert "0 added" in run("sync", db).stdout


def test_trust_is_per_store_not_per_source(tmp_path, monkeypatch):
    """Trusting a source for one store does not let another store read it."""
    memory = save(tmp_path / "memory.jsonl")
    run("import", "--from", "mcp-memory", memory, "--db", tmp_path / "mine.db")
    db = handed_over(tmp_path, monkeypatch, [{"system": "mcp-memory", "source": str(memory.resolve())}])
    one_line(run("sync", db, code=2), "not recorded or confirmed")


@pytest.mark.parametrize(
    "entries, needle",
    [
        ("not a list", "not a list"),
        ([1], "recorded source 1"),
        ([{"system": "evil"}], "system 'evil'"),
        ([{"system": "mcp-memory", "source": 5}], "source is not"),
        ([{"system": "mcp-memory", "source": "/x", "shell": "rm -rf ~"}], "'shell' is not an option"),
        ([{"system": "claude-code", "source": None, "project": ["a"]}], "project is not text"),
        ([{"system": "mcp-memory"}], "names no source"),
    ],
)
def test_entries_of_the_wrong_shape_are_refused_in_one_line(tmp_path, monkeypatch, entries, needle):
    db = handed_over(tmp_path, monkeypatch, entries)
    one_line(run("sync", db, "--yes", code=2), needle)


# -- a server source: the attacker's "PostgreSQL" asks for a cleartext password ---------


class PasswordCatcher:
    """A socket that speaks just enough of PostgreSQL's protocol to ask the client for its
    password in clear text (AuthenticationCleartextPassword), and keeps what it is sent."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.passwords: list[str] = []
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            try:
                self._one(conn)
            except OSError:
                pass
            finally:
                conn.close()

    def _one(self, conn) -> None:
        conn.settimeout(5)
        while True:
            (length,) = struct.unpack("!i", _exact(conn, 4))
            body = _exact(conn, length - 4)
            code = struct.unpack("!i", body[:4])[0]
            if code in (80877103, 80877104):  # SSLRequest, GSSENCRequest: not here
                conn.sendall(b"N")
                continue
            break  # the startup message
        conn.sendall(b"R" + struct.pack("!ii", 8, 3))  # send me your password, in clear
        kind = conn.recv(1)
        if kind == b"p":
            (length,) = struct.unpack("!i", _exact(conn, 4))
            self.passwords.append(_exact(conn, length - 4).rstrip(b"\0").decode())
        error = b"SFATAL\0C28P01\0Mno\0\0"
        conn.sendall(b"E" + struct.pack("!i", 4 + len(error)) + error)

    def close(self) -> None:
        self.sock.close()


def _exact(conn, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise OSError("closed")
        data += chunk
    return data


@pytest.fixture
def catcher():
    c = PasswordCatcher()
    yield c
    c.close()


def test_a_confirmed_server_source_never_gets_the_users_password(tmp_path, monkeypatch, catcher):
    pytest.importorskip("psycopg")
    pgpass = tmp_path / "pgpass"
    pgpass.write_text("*:*:*:*:from-pgpass\n")
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    monkeypatch.setenv("PGPASSWORD", "from-environment")
    monkeypatch.setenv("PGSSLMODE", "disable")
    url = f"postgresql://eve@127.0.0.1:{catcher.port}/memories"
    db = handed_over(tmp_path, monkeypatch, [{"system": "langgraph", "source": url}])
    result = run("sync", db, "--yes", code=2)
    assert catcher.connections >= 1  # it did try the server the user confirmed
    assert catcher.passwords == []  # and sent no password of the user's
    assert "password" in result.stderr
    # the same server named by the user on this machine: libpq's password applies
    run("import", "--from", "langgraph", url, "--db", tmp_path / "own.db", code=2)
    assert catcher.passwords == ["from-environment"]
    monkeypatch.delenv("PGPASSWORD")
    run("import", "--from", "langgraph", url, "--db", tmp_path / "own.db", code=2)
    assert catcher.passwords[-1] == "from-pgpass"
