"""Errors a user can cause. The CLI and the app show their message, never a traceback.

Putting any error in the user's words (`describe`) needs the database driver's errors too,
so it lives in the store's layer: `core.store.errors`."""

from __future__ import annotations


class SynapseError(Exception):
    """Base of every error that is the user's input, not our bug."""


def missing_fact(fact_id: str, where: object) -> str:
    """An unknown id, in the words every command and tool uses: the id and the store
    (`where`, as it may be shown) it is not in."""
    return f"no fact with id {fact_id!r} in {where}"


class InputError(SynapseError):
    """A bad interchange line or value: names the file, line and field."""

    def __init__(
        self, message: str, file: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        self.file, self.line, self.field, self.reason = file, line, field, message
        where = ":".join(str(p) for p in (file, line) if p is not None)
        prefix = f"{where}: " if where else ""
        fld = f"field '{field}': " if field else ""
        super().__init__(f"{prefix}{fld}{message}")


class StoreError(SynapseError):
    """The database is not ours, is corrupt, is locked, or cannot be written."""

    # the write the command was making landed, though the command could not hear so (a
    # server's answer to its COMMIT lost with the connection): the message says so, and a
    # caller must not call it "not saved"
    landed = False


class PartialWrite(SynapseError):
    """A command whose first part landed and a later part did not (the facts of an import
    are in, its neighbour graph is not): the message says which is which, and the CLI
    exits with a status of its own instead of a refusal's."""

    exit_code = 3


class ConfigError(SynapseError):
    """A config file that cannot be read or holds a bad value."""


class QueryError(SynapseError):
    """A filter-language typo; `position` points at the bad token in the query."""

    def __init__(self, message: str, query: str, position: int, token: str) -> None:
        self.query, self.position, self.token, self.reason = query, position, token, message
        super().__init__(f"{message} at {position + 1}: '{token}'")

    def caret(self) -> str:
        """The query with a caret under the bad token, for terminals."""
        return f"{self.query}\n{' ' * self.position}{'^' * max(1, len(self.token))}"
