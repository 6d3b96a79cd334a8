"""choc.sweep: the table of `choc sweep` for the same sweep file, as a DataFrame (pandas is
part of the set-up) or as columns; the same from a dict; resumed runs are not run again;
errors with the CLI's messages."""

import json
import os

import pandas
import pytest

import choc
from conftest import run_cli

BASE = """dimension = 2
[box]
packing_fraction = 0.3
[[species]]
name = "A"
count = 64
[init]
seed = 3
[run]
time = 2.0
"""

SWEEP = """config = "base.toml"
output = "cli"
replicas = 2
collect = ["pressure.Z", "collision_rate", "species[0].temperature"]
[[axes]]
key = "box.packing_fraction"
values = [0.2, 0.4]
[[axes]]
key = "init.lattice"
values = ["hex", "random"]
"""


@pytest.fixture
def study(tmp_path):
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "sweep.toml").write_text(SWEEP)
    cwd = os.getcwd()
    os.chdir(tmp_path)  # (the sweep's output is relative to the working directory)
    yield tmp_path
    os.chdir(cwd)


def test_same_table_as_the_cli(study):
    status, _, err = run_cli(["sweep", "sweep.toml", "--quiet", "--jobs", "2"], str(study))
    assert status == 0, err
    table = choc.sweep("sweep.toml", output="py", jobs=2)
    assert isinstance(table, pandas.DataFrame)
    # round_trip: pandas' default CSV parser may miss the last bit of a double
    cli = pandas.read_csv(study / "cli" / "table.csv", float_precision="round_trip")
    assert list(table.columns) == list(cli.columns)
    assert table.equals(cli)
    assert list(table["init.lattice"]) == ["hex", "random", "hex", "random"]
    assert (study / "py" / "table.csv").read_bytes() == (study / "cli" / "table.csv").read_bytes()
    # Each mean is that of the two replicas' summaries.
    for _, row in table.iterrows():
        zs = [json.loads((study / "py" / row["directory"] / r / "summary.json").read_text())
              ["pressure"]["Z"] for r in ("r0", "r1")]
        assert row["pressure.Z"] == pytest.approx(sum(zs) / 2, rel=1e-14)
        assert row["pressure.Z_n"] == 2


def test_from_a_dict_with_overrides(study):
    sweep = {"config": "base.toml", "output": "d", "combine": "zip",
             "collect": ["temperature"],
             "axes": [{"key": "box.packing_fraction", "range": {"from": 0.1, "to": 0.3,
                                                                 "count": 3}},
                      {"key": "species.0.count", "values": [30, 40, 50]}]}
    table = choc.sweep(sweep, overrides={"run.time": 0.5}, jobs=1)
    assert list(table["box.packing_fraction"]) == [0.1, 0.2, 0.3]
    assert list(table["species.0.count"]) == [30, 40, 50]
    third = study / "d" / table["directory"][2] / "r0" / "summary.json"
    assert table["directory"][2] == "p_box.packing_fraction=0.3,species.0.count=50"
    summary = json.loads(third.read_text())
    assert summary["N"] == 50 and summary["sim_time"] == pytest.approx(0.5)
    # A second call finds every run complete: the same table, nothing run again.
    before = third.stat().st_mtime_ns
    assert choc.sweep(sweep, overrides={"run.time": 0.5}).equals(table)
    assert third.stat().st_mtime_ns == before


def test_errors_have_the_cli_messages(study):
    bad = SWEEP.replace("values = [0.2, 0.4]", "values = [0.2, 1.4]")
    (study / "bad.toml").write_text(bad)
    status, _, err = run_cli(["sweep", "bad.toml", "--quiet"], str(study))
    assert status == 2
    with pytest.raises(choc.InputError) as e:
        choc.sweep("bad.toml")
    assert err.strip() == "choc: error: " + str(e.value)
    assert "axes[0] (box.packing_fraction = 1.4)" in str(e.value)
    with pytest.raises(choc.InputError, match="jobs"):
        choc.sweep("sweep.toml", jobs=0)
    with pytest.raises(choc.InputError, match="collect"):
        choc.sweep({"config": "base.toml", "output": "x", "collect": ["nothing"]})
    assert not (study / "x").exists() and not (study / "cli").exists()
