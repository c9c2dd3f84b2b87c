"""`synapse-tui calibrate`: is the trust score right, and which constants fit this store?

Three questions, one command (SPEC 2.2 and 11):

- no option: the store's own histogram of B, and the B0 and s it suggests;
- `--verdicts`: the score measured against what people decided (the reliability table), the
  constants fitted to those decisions, and whether they predict better (`--write` adopts them);
- `--backtest --at T --horizon DAYS`: the store as of T measured against what happened next.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from synapse_tui.cli.commands import main
from synapse_tui.cli.common import (
    config_option,
    db_argument,
    emit_json,
    instant,
    json_option,
    now_option,
    open_memory,
    resolve_config,
    say,
)
from synapse_tui.cli.render import print_calibration
from synapse_tui.core.base.clock import Clock, format_time
from synapse_tui.core.base.config import config_path_for, write_config
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.location import locate
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.calibrate import calibrate


def _positive(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not value > 0:
        raise click.BadParameter(f"must be a number of days above 0, got {value:g}")
    return value


@main.command("calibrate")
@db_argument
@click.option(
    "--verdicts",
    is_flag=True,
    help="Measure the score against people's verdicts (the audit), fit the constants to them.",
)
@click.option(
    "--actors",
    type=click.Choice(["people", "agents", "all"]),
    default="people",
    show_default=True,
    help="With --verdicts: whose verdicts count (user:*, agent:*, or both).",
)
@click.option(
    "--since", metavar="RFC3339", callback=instant, help="With --verdicts: only entries at or after."
)
@click.option(
    "--no-accept", is_flag=True, help="With --verdicts: leave out `accept` (it may be a rubber stamp)."
)
@click.option("--backtest", is_flag=True, help="Score the store as of --at, against what happened next.")
@click.option(
    "--fit",
    "fit_history",
    is_flag=True,
    help="With --backtest: fit the constants to what happened next through the store's history.",
)
@click.option("--at", "at", metavar="RFC3339", callback=instant, help="With --backtest: the instant T.")
@click.option(
    "--horizon", type=float, metavar="DAYS", callback=_positive, help="With --backtest: the window after T."
)
@click.option(
    "--write",
    "write",
    is_flag=True,
    help="Store the proposed constants in the config file (with --verdicts: only when they won).",
)
@now_option
@json_option
@config_option
def calibrate_cmd(
    db: str,
    verdicts: bool,
    actors: str,
    since: float | None,
    no_accept: bool,
    backtest: bool,
    fit_history: bool,
    at: float | None,
    horizon: float | None,
    write: bool,
    now: str | None,
    as_json: bool,
    config_path: str | None,
) -> None:
    """Histograms of ages and B and the B0 and s that fit this store; with --verdicts, the
    score against people's verdicts and constants fitted to them; with --backtest, the
    store as of a past instant against what happened next."""
    if verdicts and backtest:
        raise click.UsageError("--verdicts and --backtest are two questions: ask one at a time")
    if fit_history and not backtest:
        raise click.UsageError("--fit goes with --backtest")
    if fit_history:
        if at is not None:
            raise click.UsageError("--backtest --fit samples every instant of the history: leave out --at")
    elif backtest:
        if at is None or horizon is None:
            raise click.UsageError("--backtest needs --at T and --horizon DAYS")
        if write:
            raise click.UsageError(
                "--backtest --at writes nothing; --write goes with --verdicts or --backtest --fit"
            )
    elif at is not None or horizon is not None:
        raise click.UsageError("--at and --horizon go with --backtest")
    if not verdicts and (since is not None or no_accept or actors != "people"):
        raise click.UsageError("--actors, --since and --no-accept go with --verdicts")
    if write:
        Clock.from_option(now)  # a bad --now is refused before anything is checked
        _check_writable(db, config_path)
    if verdicts:
        _verdicts(db, actors, since, no_accept, write, now, as_json, config_path)
    elif fit_history:
        _history(db, 90.0 if horizon is None else horizon, write, now, as_json, config_path)
    elif backtest:
        assert at is not None and horizon is not None  # refused above otherwise
        _backtest(db, at, horizon, now, as_json, config_path)
    else:
        _histogram(db, write, now, as_json, config_path)


def _target(db: str, config_path: str | None) -> Path:
    named = config_path or os.environ.get("SYNAPSE_CONFIG")
    if named:
        return Path(named)
    beside = config_path_for(db)
    if beside is None:
        raise SynapseError(
            f"{locate(db).shown}: a server has no config file beside it; give --config FILE (or"
            " SYNAPSE_CONFIG) for --write to write the constants to; nothing written"
        )
    return beside


def _read_only(path: Path) -> bool:
    """No write access, or no write bit at all: a file someone marked read-only stays so,
    even for root (whom os.access lets through)."""
    return not os.access(path, os.W_OK) or not path.stat().st_mode & 0o222


def _check_writable(db: str, config_path: str | None) -> None:
    """`--write` on a store or a config that cannot change: refused before anything is
    computed, so nothing is half done."""
    if Path(db).is_file() and _read_only(Path(db)):
        raise SynapseError(f"{db} is read-only: --write would change its constants; nothing written")
    target = _target(db, config_path)
    if target.exists() and _read_only(target):
        raise SynapseError(f"{target} is read-only: cannot write the constants; nothing written")
    if not target.exists() and not os.access(target.parent, os.W_OK):
        raise SynapseError(f"cannot create {target}: its folder is read-only; nothing written")


def _histogram(db: str, write: bool, now: str | None, as_json: bool, config_path: str | None) -> None:
    with open_memory(db, now, config_path, config_must_exist=not write) as memory:
        cal = calibrate(memory)
    target = _target(db, config_path) if write else None
    if target is not None:
        write_config(cal.proposed_config(memory.config), target)
    if as_json:
        from dataclasses import asdict

        emit_json(
            {
                **asdict(cal),
                "current": {"B0": cal.current_b0, "s": cal.current_scale},
                "proposed": {"B0": cal.proposed_b0, "s": cal.proposed_scale},
                "written": str(target) if write else None,
            }
        )
    else:
        print_calibration(cal)
        if write:
            say(f"wrote b0 and scale to {target}")


def _verdicts(
    db: str,
    actors: str,
    since: float | None,
    no_accept: bool,
    write: bool,
    now: str | None,
    as_json: bool,
    config_path: str | None,
) -> None:
    from synapse_tui.core.review.verdicts import record_fit, verdict_report
    from synapse_tui.core.trust.fit import with_constants

    clock = Clock.from_option(now)  # the verdicts carry their own instants; --now dates a write
    config = resolve_config(db, config_path, must_exist=not write)
    with Store.open(db, readonly=True) as store, store.snapshot():
        report = verdict_report(store, config, actors, since, no_accept)
    if as_json:
        emit_json(report.to_json())
    else:
        print_verdicts(report)
    if not write:
        return
    fit = report.fit
    assert fit is not None  # verdict_report fits unless asked not to
    out = (lambda text: say(text, err=True)) if as_json else say
    if fit.decision != "adopt":
        out(f"nothing written: the decision is {fit.decision} ({fit.reason})")
        return
    target = _target(db, config_path)
    with Store.open(db) as store:  # first: a config the record does not match reads as not fitted
        record_fit(store, fit, report.verdicts, clock.now())
    write_config(with_constants(config, fit.proposed), target)
    out(f"wrote {', '.join(fit.fitted)} to {target}")


def _backtest(
    db: str, at: float, horizon: float, now: str | None, as_json: bool, config_path: str | None
) -> None:
    from synapse_tui.core.review.backtest import backtest, not_a_judgement

    with open_memory(db, now, config_path) as memory:
        if at > memory.scores.now:
            raise SynapseError(f"--at {format_time(at)} is after now ({format_time(memory.scores.now)})")
        tested = backtest(memory, at, horizon)
        result = tested.to_json()
    if as_json:
        emit_json(result)
        return
    say(
        f"BACKTEST  the {result['facts']} facts alive at {result['at']}, and what became of them"
        f" within {result['horizon_days']} days"
    )
    say(
        f"  survived {result['survived']}, replaced {result['replaced']}, deleted at the source"
        f" {result['deleted']}, contradicted {result['contradicted']}"
    )
    say("")
    _print_bins(result["bins"], "survived")
    say("")
    say(
        f"log loss {_num(result['log_loss'])}   AUC {_num(result['auc'], 2)}   (p = trust at T, y = survived)"
    )
    ended = result["facts"] - result["survived"]
    _say_not_a_judgement(not_a_judgement(ended, result["survived"], history_days=tested.history_days))


def _say_not_a_judgement(reasons: list[str]) -> None:
    """Why the AUC above judges nothing yet, when it does not (backtest.not_a_judgement)."""
    if reasons:
        say("  not a judgement of the score:")
        for why in reasons:
            say(f"  - {why}")


def _history(
    db: str, horizon: float, write: bool, now: str | None, as_json: bool, config_path: str | None
) -> None:
    from synapse_tui.core.review.backtest import history_report
    from synapse_tui.core.review.verdicts import record_history_fit
    from synapse_tui.core.trust.history_fit import adopted_config

    clock = Clock.from_option(now)
    with open_memory(db, now, config_path, config_must_exist=not write) as memory:
        config = memory.config
        report, fit = history_report(memory, horizon)
    if as_json:
        emit_json(report)
    else:
        print_history(report)
    if not write:
        return
    out = (lambda text: say(text, err=True)) if as_json else say
    if not fit.adopts:
        out(f"nothing written: the decision is {fit.decision} ({fit.reason})")
        return
    target = _target(db, config_path)
    new_config, written = adopted_config(fit, config)
    with Store.open(db) as store:  # first: a config the record does not match reads as not fitted
        record_history_fit(store, written, report["samples"], clock.now())
    write_config(new_config, target)
    out(f"wrote {', '.join(written)} to {target}")


def print_history(data: dict[str, Any]) -> None:
    """The survival table through the history, and the fit, for a person."""
    from synapse_tui.core.review.backtest import history_caveats

    say(
        f"HISTORY  {data['samples']} (fact, instant) samples at {data['instants']} instants"
        f" {data['horizon_days']} / 2 days apart"
        + (f", {data['first_instant']} to {data['last_instant']}" if data["instants"] else "")
    )
    say(
        f"  within {data['horizon_days']} days: survived {data['survived']}, replaced {data['replaced']},"
        f" deleted at the source {data['deleted']}, contradicted {data['contradicted']}"
    )
    say("")
    _print_bins(data["bins"], "survived")
    say("")
    say(
        f"log loss {_num(data['log_loss'])} (a constant rate: {_num(data['baseline_log_loss'])})"
        f"   AUC {_num(data['auc'], 2)}   (p = trust at the instant, y = survived)"
    )
    _say_not_a_judgement(history_caveats(data))
    fit = data["fit"]
    say("")
    say(f"FIT  {fit['decision']}: {fit['reason']}")
    for note in fit["notes"]:
        say(f"  {note}")
    _constants_table(fit)
    if fit["heldout_log_loss_fitted"] is not None:
        say(
            f"  held-out log loss: current {_num(fit['heldout_log_loss_current'])},"
            f" fitted {_num(fit['heldout_log_loss_fitted'])},"
            f" constant rate {_num(fit['heldout_log_loss_baseline'])};"
            f" won {fit['heldout_blocks_won']} of {fit['heldout_blocks']} blocks"
        )
        say(f"  AUC: current {_num(fit['auc_current'], 2)}, proposed {_num(fit['auc_proposed'], 2)}")
    _print_kinds(fit.get("kinds"))
    if fit["decision"] == "adopt" or any(
        k["decision"] == "adopt" for k in (fit.get("kinds") or {}).get("kinds", [])
    ):
        say("  --write adopts them (the config's other lines stay as written)")


def _print_kinds(kinds: dict[str, Any] | None) -> None:
    """Each kind's own B0 and s (SPEC 14): its decision, or why it keeps the global ones."""
    if not kinds or not kinds["kinds"]:
        return
    say("")
    say(
        f"KINDS  a kind's own B0 and s, fitted for a kind of {kinds['min_samples']:,} samples or more"
        f" ({kinds['without_kind']:,} samples of facts with no kind use the global ones)"
    )
    say(f"  {'kind':<16} {'samples':>8} {'survived':>8}  {'decision':<12} {'B0':>6} {'s':>6}  from")
    for k in kinds["kinds"]:
        c = k["constants"]
        say(
            f"  {k['kind']:<16} {k['samples']:>8} {k['survived']:>8}  {k['decision']:<12}"
            f" {c['freshness.b0']:>6.2f} {c['freshness.scale']:>6.2f}  {k['from']}"
        )
        say(f"    {k['reason']}")
    if kinds["heldout_log_loss_per_kind"] is not None:
        say(
            f"  held-out log loss: per kind {_num(kinds['heldout_log_loss_per_kind'])},"
            f" global {_num(kinds['heldout_log_loss_global'])}"
        )


def _num(value: float | None, places: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{places}f}"


def _two(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _print_bins(bins: list[dict[str, Any]], observed: str = "observed") -> None:
    say(
        f"{'trust':<8} {'n':>6} {'holds':>6} {'wrong':>6} {'replaced':>8}  {'mean trust':>10}"
        f"  {observed:>8}  95% interval"
    )
    for b in bins:
        span = f"{b['lo']:.1f}-{b['hi']:.1f}"
        interval = f"{b['ci_low']:.2f}-{b['ci_high']:.2f}" if b["n"] else ""
        say(
            f"{span:<8} {b['n']:>6} {b['holds']:>6} {b['wrong']:>6} {b['replaced']:>8}"
            f"  {_two(b['mean_trust']):>10}  {_two(b['rate']):>8}  {interval}"
        )


_FEATURES = {
    "age_days": "days since last reinforcement",
    "reinforcements": "reinforcements (creation included)",
    "tier": "effective tier",
    "source": "source system",
}


def print_verdicts(report) -> None:
    """The reliability table, the groups by factor input, and the fit, for a person."""
    data = report.to_json()
    say(
        f"VERDICTS  {data['verdicts']} by {data['actors']}: {data['holds']} holds, {data['wrong']} wrong,"
        f" {data['replaced']} replaced"
        + (f"; {data['skipped']} skipped (logged before scores were kept)" if data["skipped"] else "")
    )
    if not data["verdicts"]:
        say("  no verdicts yet: corroborate, verify, accept, contradict or supersede facts, then ask again")
    say("")
    _print_bins(data["bins"])
    say("")
    say(
        f"log loss {_num(data['log_loss'])} (a constant rate: {_num(data['baseline_log_loss'])})"
        f"   Brier {_num(data['brier'])}   AUC {_num(data['auc'], 2)}"
    )
    for name, rows in data["by_feature"].items():
        say("")
        say(f"by {_FEATURES[name]}")
        for row in rows:
            if row["n"]:
                say(
                    f"  {row['key']:<12} {row['n']:>6}  mean trust {_two(row['mean_trust'])}"
                    f"  holds {_two(row['rate'])}"
                )
    fit = data["fit"]
    say("")
    say(f"FIT  {fit['decision']}: {fit['reason']}")
    _constants_table(fit)
    if fit["heldout_log_loss_fitted"] is not None:
        say(
            f"  held-out log loss: current {_num(fit['heldout_log_loss_current'])},"
            f" fitted {_num(fit['heldout_log_loss_fitted'])},"
            f" constant rate {_num(fit['heldout_log_loss_baseline'])}"
        )
    if fit["decision"] == "adopt":
        say("  --write adopts them (the config's other lines stay as written)")


def _constants_table(fit: dict) -> None:
    """Each constant, current beside proposed, for the verdict fit and the history fit alike."""
    say(f"  {'constant':<30} {'current':>8} {'proposed':>9}")
    for name, value in fit["current"].items():
        mark = "" if name in fit["fitted"] else "  (not fitted)"
        say(f"  {name:<30} {value:>8.3f} {fit['proposed'][name]:>9.3f}{mark}")
