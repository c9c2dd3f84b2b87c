"""Every thread worker of the browser, and what happens when one fails: decided here, once.

A worker reads or writes the store off the main thread, and the store can fail under it
at any moment: a server that went away, a file made read-only or deleted, a lock another
writer holds. Textual's default would end the app and print a traceback. Every worker is
started here instead (`store_work`, `run_store_worker`), with `exit_on_error=False` and its
body under one guard: an exception becomes a `WorkFailed` message to the app, and
`tell_failure` (the app's handler) shows an error notice in plain words, "Could not load
the neighbours: the database is locked", and calls the worker's `failed` hook on the main
thread, so the view that was loading says it did not load (a triage write releases its
facts). A bug is logged with its traceback and told in one line; the app keeps running.

No event handler, action, mount or timer reads the store on the main thread itself: it
starts a worker here (the two-second poll's check too), so a store that is slow or fails
never stops the keys; tests/ui/test_main_thread_failures.py traces the browser's
connection through a session's views and commands to keep it so.

Quitting never hangs on the store: Textual cancels its workers at exit, but a thread
cannot be stopped, and Python joins every worker thread before the process ends, so a
worker waiting for a lock another program holds (SQLite's 10 s busy timeout, a server's
lock with none) kept the process for as long after its screen had gone. Quitting waits
`QUIT_WAIT_S` for the workers running or about to (a write in progress, or one pressed
just before, lands); past that it says the store is busy and quits when the work ends, or
at a second `q` (`SynapseApp.action_quit`). Each worker's work is counted here while its
thread runs (`unfinished`), and the launcher leaves without what still runs then, saying
what it was (tests/ui/test_quit_while_waiting.py).
"""

from __future__ import annotations

import os
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial, wraps
from typing import Any, Concatenate, ParamSpec, TypeVar

from textual.app import App
from textual.dom import DOMNode
from textual.message import Message
from textual.worker import Worker, get_current_worker

from synapse_tui.core.base.location import locate
from synapse_tui.core.base.textsafe import clean, clean_block
from synapse_tui.core.store.errors import OperationalError, describe, is_internal

P = ParamSpec("P")
N = TypeVar("N", bound=DOMNode)
Failed = Callable[[str], None]  # on the main thread, with the reason in the user's words
QUIT_WAIT_S = 0.5  # at quit: a write in progress lands in milliseconds; one running longer waits on the store


# what a worker was doing, in the words its failure is told with: a function of the failure
# (None: unfinished when the app quit) where those words depend on how far it got
Headline = str | Callable[[Exception | None], str]


@dataclass
class WorkFailed(Message):
    """A worker's body raised: what it was doing ("Could not load the neighbours", "Not
    saved: supersede A -> B"), the exception, and the view's hook to call."""

    headline: str
    error: Exception
    node: DOMNode | None = None
    failed: Failed | None = field(default=None, repr=False)


def run_store_worker(
    node: DOMNode,
    work: Callable[[], object],
    headline: Headline,
    *,
    group: str,
    exclusive: bool = False,
    failed: Failed | None = None,
    name: str = "",
) -> Worker[None]:
    """Run `work` in a thread worker of `node`; if it raises, the app is told (`WorkFailed`),
    never ended. `failed(reason)` runs on the main thread after the notice, while `node`
    is still mounted. A worker cancelled meanwhile (an exclusive one a newer one replaced)
    says nothing: the newer one reports. `headline` may be a function of the failure, asked
    in the thread once the work failed (a write says whether it got to the store: the
    failure may say it did, `StoreError.landed`), or of None once the app quit with the
    work unfinished."""
    app = node.app

    def guarded() -> None:
        _RUNNING.started(guarded, headline)
        try:
            work()
        except Exception as exc:  # the one place a worker's failure is caught
            if not get_current_worker().is_cancelled:
                said = headline(exc) if callable(headline) else headline
                app.post_message(WorkFailed(said, exc, node, failed))
        finally:
            _RUNNING.ended(guarded)

    return node.run_worker(
        guarded, name=name or group, group=group, exclusive=exclusive, thread=True, exit_on_error=False
    )


class _Running:
    """The workers' work whose thread runs now, each with its headline (what to say had
    it failed)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._works: dict[object, Headline] = {}

    def started(self, work: object, headline: Headline) -> None:
        with self._lock:
            self._works[work] = headline

    def ended(self, work: object) -> None:
        with self._lock:
            self._works.pop(work, None)

    def headlines(self) -> list[str]:
        with self._lock:
            running = list(self._works.values())
        return list(dict.fromkeys(said(None) if callable(said) else said for said in running))


_RUNNING = _Running()


def unfinished() -> list[str]:
    """After the app has quit: the workers' work whose thread still runs, in its failure's
    words, once each ("Not saved: corroborate f-pay-03": a write's says whether it got to
    the store)."""
    return _RUNNING.headlines()


def store_work(
    headline: str | Callable[..., str],
    *,
    group: str,
    exclusive: bool = False,
    failed: str | None = None,
) -> Callable[[Callable[Concatenate[N, P], object]], Callable[Concatenate[N, P], Worker[None]]]:
    """`@work(thread=True, ...)` for a widget's or a screen's method, through the guard of
    `run_store_worker`. `headline`: what failed, in words (or a function of the method's
    self and arguments making them); `failed`: the name of the method that shows the view
    did not load, called with the reason and then the worker method's arguments."""

    def decorator(
        method: Callable[Concatenate[N, P], object],
    ) -> Callable[Concatenate[N, P], Worker[None]]:
        @wraps(method)
        def start(self: N, *args: P.args, **kwargs: P.kwargs) -> Worker[None]:
            said = headline(self, *args, **kwargs) if callable(headline) else headline
            hook = partial(_told, getattr(self, failed), args, kwargs) if failed else None
            return run_store_worker(
                self,
                partial(method, self, *args, **kwargs),
                said,
                group=group,
                exclusive=exclusive,
                failed=hook,
                name=method.__name__,
            )

        return start

    return decorator


def _told(hook: Callable[..., object], args: tuple[Any, ...], kwargs: dict[str, Any], why: str) -> None:
    hook(why, *args, **kwargs)


def reason(exc: BaseException, where: str, gone: bool = False) -> str:
    """Why a worker failed, in the user's words: `describe`'s, which name the store (`where`:
    its location, safe to show) for its state on either backend (a table renamed by hand, a
    lock, a full disk: errors.py), named here once for a driver's error that did not; a store
    that can no longer be read (`gone`: a file no longer there; a server gone) says so. An
    internal error says so, in one line."""
    said = describe(exc)
    bare = said[len(where) + 2 :] if said.startswith(f"{where}: ") else said
    if _server_gone(exc):
        text = " ".join(str(exc).split()) or type(exc).__name__
        return f"the store at {where} can no longer be read: {text}"
    if gone or (isinstance(exc, OSError) and not is_internal(exc)):
        return f"the store at {where} can no longer be read: {bare}"
    if isinstance(exc, OperationalError) and bare is said:  # the driver's own, named by no store
        return f"{where}: {said}"
    return said


def _server_gone(exc: BaseException) -> bool:
    """A server that went away (restarted, the network dropped us), told without importing
    the driver: the store's failure, not a bug."""
    kind = type(exc)
    return kind.__module__.startswith("psycopg") and kind.__name__ in ("OperationalError", "InterfaceError")


def reason_of(exc: BaseException, store_path: str | os.PathLike[str]) -> str:
    """`reason`, for the store at `store_path` (a file no longer there is said to be gone)."""
    where = locate(store_path)
    return reason(exc, where.shown, not where.is_server and not os.path.exists(where.target))


FAILURE_SHOWN = 8.0  # seconds a failure's notice stays on screen
# per app, each failure notice shown and when: the same words again while it is still on
# screen (a view read again after another writer's change that broke it) add no second one
_TOLD: weakref.WeakKeyDictionary[App[Any], dict[str, float]] = weakref.WeakKeyDictionary()


def tell_failure(app: App[Any], message: WorkFailed, store_path: str | os.PathLike[str]) -> str:
    """The app's handling of `WorkFailed` (main thread): an error notice (unless the same
    one is still shown), the traceback of a bug logged, and the view's `failed` hook
    called. Returns the reason it gave."""
    error = message.error
    why = reason_of(error, store_path)
    if is_internal(error) and not _server_gone(error):
        app.log.error("".join(traceback.format_exception(error)))
    text = clean_block(f"{clean(message.headline)}: {why}")
    told, now = _TOLD.setdefault(app, {}), time.monotonic()
    if now - told.get(text, float("-inf")) >= FAILURE_SHOWN:
        told[text] = now
        app.notify(text, severity="error", timeout=FAILURE_SHOWN, markup=False)
    node = message.node
    if message.failed is not None and (node is None or node.is_attached):
        message.failed(why)
    return why
