"""`calibrate` on a server answers byte for byte as on the file the store was copied from:
the histogram, `--verdicts` (people's, agents', everyone's, since a day, without accepts)
with its fit, and `--backtest`, as text and as `--json`; `--write` writes the same config
when given one, and without one says in one line where to write instead (issue 25)."""

from __future__ import annotations

import json

import pytest

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config, load_config
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.review.verdicts import FIT_META
from synapse_tui.core.store.db import Store
from tests.helpers import NOW, run
from tests.verdict_stores import DAY, T0, verdicts_store

pytestmark = pytest.mark.postgres

TEAM = "[review]\nthreshold = 0.4\n"  # a config of the team's, given by --config on both


@pytest.fixture(scope="module")
def judged(tmp_path_factory, new_database):
    """120 verdicts of a person's, plus a supersession, an agent's corroborations, another
    person's verify and an undone contradict: every kind of entry the verdicts read."""
    folder = tmp_path_factory.mktemp("judged")
    db = verdicts_store(folder)
    with Store.open(db) as store:
        later = Clock(T0 + 70 * DAY)
        for actor, action, ids, target in [
            ("user:bob", "supersede", ["old000"], "new001"),
            ("agent:scout", "corroborate", ["new002", "new003"], None),
            ("user:bob", "verify", ["new004"], None),
            ("user:bob", "contradict", ["new005"], None),
        ]:
            Triage(store, later, actor=actor, config=Config()).apply(action, ids, target)
    run("undo", db)
    config = folder / "team.toml"
    config.write_text(TEAM)
    url = new_database()
    run("copy", db, url)
    return db, url, config


def same(file, server, *args) -> str:
    """calibrate on both: the same exit, the same stdout and stderr; the stdout returned."""
    on_file = run("calibrate", file, *args, ok=False)
    on_server = run("calibrate", server, *args, ok=False)
    assert (on_server.exit_code, on_server.stdout, on_server.stderr) == (
        on_file.exit_code,
        on_file.stdout,
        on_file.stderr,
    )
    return on_file.stdout


@pytest.mark.parametrize(
    "options",
    [
        (),
        ("--json",),
        ("--verdicts",),
        ("--verdicts", "--json"),
        ("--verdicts", "--actors", "all", "--json"),
        ("--verdicts", "--actors", "agents"),
        ("--verdicts", "--no-accept", "--since", "2026-06-20T00:00:00Z", "--json"),
        ("--backtest", "--at", "2026-07-01T00:00:00Z", "--horizon", "30", "--json"),
        ("--backtest", "--at", "2026-07-01T00:00:00Z", "--horizon", "60"),
        ("--backtest", "--at", "2030-01-01T00:00:00Z", "--horizon", "60"),  # after now: refused alike
    ],
)
def test_calibrate_answers_alike(judged, options):
    file, server, config = judged
    out = same(file, server, *options, "--now", NOW, "--config", config)
    if options[:2] == ("--verdicts", "--json"):
        report = json.loads(out)
        assert (report["verdicts"], report["replaced"], report["fit"]["decision"]) == (122, 1, "adopt")


def test_write_writes_the_same_config_and_records_the_fit(judged, tmp_path, monkeypatch, new_database):
    file, _, _ = judged
    server = new_database()
    run("copy", file, server)
    written = {}
    for name, store in [("file", file), ("server", server)]:
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)  # the same relative --config on both: the same words
        (tmp_path / name / "team.toml").write_text(TEAM)
        result = run("calibrate", store, "--verdicts", "--write", "--now", NOW, "--config", "team.toml")
        written[name] = (result.stdout, (tmp_path / name / "team.toml").read_text())
    assert written["server"] == written["file"]
    out, text = written["server"]
    assert out.endswith(" to team.toml\n") and "wrote freshness.b0" in out
    assert text.startswith(TEAM) and "b0 = " in text  # the team's line kept, the fitted ones added
    with Store.open(server, readonly=True) as store:
        assert store.meta(FIT_META)["verdicts"] == 122  # the store knows what was fitted, and on what
    monkeypatch.chdir(tmp_path)
    score = [
        run("score", store, "--json", "--now", NOW, "--config", tmp_path / name / "team.toml").stdout
        for name, store in [("file", file), ("server", server)]
    ]
    assert score[0] == score[1] != run("score", file, "--json", "--now", NOW).stdout
    assert load_config(tmp_path / "server" / "team.toml").freshness.b0 != -1.7


def test_write_without_a_config_names_the_fix_in_one_line(judged, tmp_path, monkeypatch):
    _, server, _ = judged
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SYNAPSE_CONFIG", raising=False)
    secret = server.replace("postgres:@", "postgres:hunter2@")  # the test server trusts its socket
    for options in [("--verdicts", "--write"), ("--write",)]:
        result = run("calibrate", secret, *options, "--now", NOW, ok=False)
        assert result.exit_code == 2 and result.stdout == ""
        (line,) = result.stderr.splitlines()
        assert line.startswith("error: postgresql://postgres@/") and "hunter2" not in line
        assert "has no config file beside it; give --config FILE (or SYNAPSE_CONFIG)" in line
        assert line.endswith("nothing written")
    assert list(tmp_path.iterdir()) == []
    with Store.open(server, readonly=True) as store:
        assert store.meta(FIT_META) is None
