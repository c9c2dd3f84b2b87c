"""A config beside a store came with the store (issue 37, points 6 and 7): it is never
written through a planted link, never read from a FIFO or a device, never trusted with
out-of-range values, and when its constants are not the defaults every reader is told."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config, load_config
from synapse_tui.core.review.verdicts import FIT_META
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.calibrate import undo_write, write_undoable
from tests.cli_run import refused, run
from tests.verdict_stores import DAY, T0, verdicts_store

VICTIM = "my precious notes\n"


def planted_tmp(cfg):
    """The attack: `X.synapse.toml.tmp` a link to a file the user cares about."""
    victim = cfg.parent / "victim.txt"
    victim.write_text(VICTIM)
    link = cfg.with_name(cfg.name + ".tmp")
    link.symlink_to(victim)
    return victim, link


def assert_untouched(victim, link):
    assert victim.read_text() == VICTIM
    assert link.is_symlink() and os.readlink(link) == str(victim)


# -- 6. writing -------------------------------------------------------------------------


def test_calibrate_write_never_follows_a_planted_tmp_link(db):
    cfg = db.with_name("memory.synapse.toml")
    victim, link = planted_tmp(cfg)
    run("calibrate", db, "--write")
    assert_untouched(victim, link)
    assert "b0 = " in cfg.read_text() and not cfg.is_symlink()
    assert not [p for p in db.parent.iterdir() if p.name.startswith(".memory.synapse.toml")]  # no leftovers


def test_calibrate_verdicts_write_never_follows_a_planted_tmp_link(tmp_path):
    db = verdicts_store(tmp_path, pairs=40)
    victim, link = planted_tmp(tmp_path / "memory.synapse.toml")
    assert run("calibrate", db, "--verdicts", "--write").exit_code == 0
    assert_untouched(victim, link)
    assert "b0 = " in (tmp_path / "memory.synapse.toml").read_text()


def test_a_config_that_is_a_link_is_not_written_through(db):
    cfg = db.with_name("memory.synapse.toml")
    elsewhere = db.parent / "elsewhere.toml"
    os.replace(cfg, elsewhere)
    cfg.symlink_to(elsewhere)
    before = elsewhere.read_text()
    line = refused("calibrate", db, "--write")
    assert "symbolic link" in line and "nothing written" in line
    assert elsewhere.read_text() == before and cfg.is_symlink()


def test_the_browsers_adopt_and_its_undo_never_follow_a_planted_tmp_link(tmp_path):
    cfg = tmp_path / "memory.synapse.toml"
    cfg.write_text("[review]\nthreshold = 0.4\n")
    victim, link = planted_tmp(cfg)
    change = write_undoable(Config().with_values("freshness", b0=-1.25), cfg)  # the adopt
    assert_untouched(victim, link)
    assert load_config(cfg).freshness.b0 == -1.25
    undo_write(change)
    assert_untouched(victim, link)
    assert cfg.read_text() == "[review]\nthreshold = 0.4\n"


def test_a_new_config_gets_the_usual_permissions(tmp_path):
    cfg = tmp_path / "new.synapse.toml"
    old = os.umask(0o022)
    try:
        write_undoable(Config().with_values("freshness", b0=-1.5), cfg)
    finally:
        os.umask(old)
    assert cfg.stat().st_mode & 0o777 == 0o644


# -- 7. reading -------------------------------------------------------------------------


def run_cli(*args, timeout=60):
    """In a process of its own with a deadline: a FIFO must not hang the command."""
    return subprocess.run(
        [sys.executable, "-c", "from synapse_tui.cli import main; main()", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )


def one_error(result, *needles):
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_a_fifo_as_config_is_refused_at_once(db):
    cfg = db.with_name("memory.synapse.toml")
    cfg.unlink()
    os.mkfifo(cfg)
    one_error(run_cli("score", db), "memory.synapse.toml", "FIFO")


def test_dev_zero_as_config_is_refused_at_once(db):
    cfg = db.with_name("memory.synapse.toml")
    cfg.unlink()
    cfg.symlink_to("/dev/zero")
    one_error(run_cli("score", db), "memory.synapse.toml", "character device")


def test_an_oversized_config_is_refused(db):
    cfg = db.with_name("memory.synapse.toml")
    cfg.write_text("# padding\n" * 200_000)
    line = refused("score", db)
    assert "memory.synapse.toml" in line and "bytes" in line


@pytest.mark.parametrize(
    "body, needle",
    [
        ("[bands]\nedges = [0.8, 0.6, 0.4, 0.2]\n", "[bands] edges"),
        ("[bands]\nedges = [0.01, 0.02, 0.03, 0.04]\n", None),  # odd but ordered: allowed
        ("[bands]\nedges = [0.2, 0.4, 0.6, 1.5]\n", "[bands] edges"),
        ("[bands]\nedges = [0.2, 0.4]\n", "[bands] edges"),
        ("[freshness]\nb0 = 1e300\n", "[freshness] b0"),
        ("[freshness]\nscale = 1e9\n", "[freshness] scale"),
        ("[guidance]\ndisputed_d = 7\n", "[guidance] disputed_d"),
        ("[graph]\nk = 100000000\n", "[graph] k"),
        ('[graph]\nroute = "fastest"\n', "[graph] route"),
    ],
)
def test_out_of_range_values_are_refused_in_one_line(db, body, needle):
    db.with_name("memory.synapse.toml").write_text(body)
    if needle is None:
        run("score", db)
        return
    line = refused("score", db)
    assert needle in line and "memory.synapse.toml" in line


def test_show_says_when_the_constants_are_not_the_defaults(db):
    assert "not the defaults" not in run("show", db, "a").stdout
    db.with_name("memory.synapse.toml").write_text("[freshness]\nb0 = -1.25\n")
    out = run("show", db, "a").stdout
    assert "constants not the defaults (memory.synapse.toml): freshness.b0 -1.25 (default -1.7)" in out


def test_mcp_says_when_the_constants_are_not_the_defaults(db):
    with Store.open(db) as store:
        found = Recall(store, load_config(db.with_name("memory.synapse.toml")), Clock(T0)).search("")
    assert found["constants"]["defaults"] is True and found["constants"]["not_defaults"] == {}
    db.with_name("memory.synapse.toml").write_text("[freshness]\nb0 = -1.25\n")
    with Store.open(db) as store:
        found = Recall(store, load_config(db.with_name("memory.synapse.toml")), Clock(T0)).search("")
    assert found["constants"]["defaults"] is False
    assert found["constants"]["not_defaults"] == {"freshness.b0": {"value": -1.25, "default": -1.7}}


def test_mcp_fitted_only_when_the_audit_holds_the_verdicts_claimed(db):
    """A forged fit record (its constants what the config says, a verdict count the audit
    does not hold) is not `fitted`."""
    cfg = db.with_name("memory.synapse.toml")
    cfg.write_text("[freshness]\nb0 = -1.25\n")
    with Store.open(db) as store:
        store.set_meta(
            FIT_META, {"constants": {"freshness.b0": -1.25}, "verdicts": 5000, "at": "2026-01-01T00:00:00Z"}
        )
    with Store.open(db) as store:
        recall = Recall(store, load_config(cfg), Clock(T0 + 100 * DAY))
        assert recall.search("")["constants"]["fitted"] is False
        assert recall.show("a")["constants"]["fitted"] is False
    for forged in (
        {"constants": "x", "verdicts": 1},
        {"constants": {"freshness.b0": -1.25}, "verdicts": "many"},
        [1],
    ):
        with Store.open(db) as store:
            store.set_meta(FIT_META, forged)
        with Store.open(db) as store:
            assert Recall(store, load_config(cfg), Clock(T0)).search("")["constants"]["fitted"] is False


def test_a_real_fit_is_still_fitted(tmp_path):
    db = verdicts_store(tmp_path, pairs=40)
    assert run("calibrate", db, "--verdicts", "--write").exit_code == 0
    with Store.open(db) as store:
        found = Recall(store, load_config(tmp_path / "memory.synapse.toml"), Clock(T0 + 100 * DAY)).search("")
    assert found["constants"]["fitted"] is True and found["constants"]["verdicts"] == 80
