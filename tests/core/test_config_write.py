"""Writing the config (calibration's `w`, `calibrate --write`) keeps what a person wrote."""

from synapse_tui.core.base.config import Config, load_config, write_config

WRITTEN = """# my store's settings
[trust]
# who may sign
signers = [
  "ab",  # alice
  "cd",
]

[freshness]
b0 = -1.7  # tuned by hand after the migration

# the end
"""


def test_only_changed_values_change_and_comments_stay(tmp_path):
    path = tmp_path / "memory.synapse.toml"
    path.write_text(WRITTEN, encoding="utf-8")
    cfg = load_config(path).with_values("freshness", b0=-1.25, scale=0.75)
    write_config(cfg, path)
    text = path.read_text(encoding="utf-8")
    assert "b0 = -1.25  # tuned by hand after the migration" in text
    for kept in ("# my store's settings", "# who may sign", '"ab",  # alice', "# the end"):
        assert kept in text
    assert text.index("scale = 0.75") < text.index("# the end")
    again = load_config(path)
    assert again.freshness.b0 == -1.25 and again.freshness.scale == 0.75
    assert again.trust.signers == ("ab", "cd")


def test_a_new_file_holds_what_differs_from_the_defaults(tmp_path):
    path = tmp_path / "new.synapse.toml"
    write_config(Config().with_values("freshness", b0=-1.5), path)
    text = path.read_text(encoding="utf-8")
    assert "[freshness]\nb0 = -1.5" in text and "scale" not in text
    assert load_config(path).freshness.b0 == -1.5
