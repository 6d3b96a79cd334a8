"""Checkpoints from Python: Simulation.save(path) and Simulation(..., continue_from=path),
output.checkpoint written during run() as `choc run` writes it, and checkpoints that
`choc run --continue` and a Simulation continue from one another, to the bit."""

import json
import os

import numpy as np
import pytest

import choc
from conftest import data, physics, run_cli

GAS2D = data("examples", "gas2d.toml")
# 400 discs, a time series, and the example's trajectory (every 10: its image counts are
# kept between frames, and checkpointed)
SETS = ["species.0.count=400", "run.time=6", "run.equilibrate=1",
        'output.timeseries={path="series.csv", every=0.5}']


def same_run(a, b):
    """Two Simulations that stand at the same state, with the same summary (but wall time
    and provenance), to the bit."""
    assert physics(a.summary()) == physics(b.summary())
    assert a.time == b.time
    np.testing.assert_array_equal(a.positions, b.positions)
    np.testing.assert_array_equal(a.velocities, b.velocities)


def test_save_then_continue_is_the_run_never_stopped(tmp_path):
    path = tmp_path / "state.chk"
    one = choc.Simulation(GAS2D, SETS)
    one.run(time=1.3)
    one.run(time=1.2)
    one.save(path)  # an os.PathLike
    one.run(time=0.7)  # (steps count on from where the steps before it asked to stop)
    one.run()
    assert one.summary()["collisions"] > 1000

    two = choc.Simulation(GAS2D, SETS, continue_from=str(path))
    assert two.time == 2.5
    two.run(time=0.7)
    two.run()
    same_run(one, two)

    # with no config: the checkpoint's own, overrides applied (run.time may change)
    three = choc.Simulation(continue_from=path, overrides={"run.time": 8})
    three.run(time=0.7)
    three.run(time=2.8)
    same_run(one, three)
    three.run()
    assert three.time == 8.0


def test_output_checkpoint_is_written_and_continued(tmp_path):
    path = tmp_path / "periodic.chk"
    sets = SETS + [f'output.checkpoint={{path="{path}", every=2.0}}']
    whole = choc.Simulation(GAS2D, sets)
    assert not path.exists()  # every 2 from the start: t = 2 is 1 into the measured phase
    whole.run(time=1.5)
    assert path.exists()
    first = path.read_bytes()
    whole.run(time=0.2)  # a step to limits of its own writes none
    assert path.read_bytes() == first
    # the file is whole's while whole lives: another Simulation given it is refused,
    # before it writes anything (as two `choc run`s are)
    with pytest.raises(choc.InputError, match="output.checkpoint.path"):
        choc.Simulation(GAS2D, sets)
    assert path.read_bytes() == first
    other = tmp_path / "part.chk"
    part = choc.Simulation(GAS2D, SETS + [f'output.checkpoint={{path="{other}", every=2.0}}'],
                           continue_from=path)
    assert part.time == 1.0
    whole.run()  # to run.time: checkpoints at t = 4, 6 and at the limits
    part.run()
    same_run(whole, part)
    assert other.read_bytes() != first  # part wrote its own
    del whole, part  # their files are free again

    # the checkpoint at the limits extends the run, as `choc run --continue` does
    longer = choc.Simulation(GAS2D, sets + ["run.time=7"], continue_from=path)
    assert longer.time == 6.0
    longer.run()
    straight = choc.Simulation(GAS2D, SETS + ["run.time=7"])
    straight.run()
    same_run(straight, longer)


def test_choc_run_continues_a_python_checkpoint(tmp_path):
    sim = choc.Simulation(GAS2D, SETS)
    sim.run(time=2.5)
    sim.save(tmp_path / "py.chk")
    sim.run()
    args = ["run", GAS2D, "--quiet", "--continue", "py.chk", "--summary", "summary.json"]
    for s in SETS:
        args += ["--set", s]
    status, _, err = run_cli(args, tmp_path)
    assert status == 0, err
    with open(tmp_path / "summary.json") as f:
        assert physics(json.load(f)) == physics(sim.summary())


def test_a_simulation_continues_a_choc_run_checkpoint(tmp_path):
    args = ["run", GAS2D, "--quiet", "--summary", "summary.json"]
    for s in SETS + ["run.time=3", 'output.checkpoint={path="cli.chk"}']:
        args += ["--set", s]
    status, _, err = run_cli(args, tmp_path)
    assert status == 0, err
    part = choc.Simulation(GAS2D, SETS, continue_from=tmp_path / "cli.chk")
    assert part.time == 3.0
    part.run()
    whole = choc.Simulation(GAS2D, SETS)
    whole.run()
    same_run(whole, part)


def test_bad_checkpoints_are_named(tmp_path):
    sim = choc.Simulation(GAS2D, SETS)
    sim.run(time=0.5)
    # a directory that does not exist: nothing written, the error names save and the path
    missing = tmp_path / "no" / "such" / "state.chk"
    with pytest.raises(choc.InputError, match="save") as e:
        sim.save(missing)
    assert str(missing) in str(e.value)
    assert not (tmp_path / "no").exists()
    with pytest.raises(choc.InputError, match="save: a path"):
        sim.save(5)
    sim.save(tmp_path / "good.chk")

    not_one = tmp_path / "not.chk"
    not_one.write_text("dimension = 2\n")
    with pytest.raises(choc.InputError, match='continue_from ".*not.chk": not a choc checkpoint'):
        choc.Simulation(GAS2D, SETS, continue_from=not_one)
    with pytest.raises(choc.InputError, match="continue_from .*cannot read"):
        choc.Simulation(GAS2D, SETS, continue_from=tmp_path / "absent.chk")
    damaged = tmp_path / "damaged.chk"
    good = (tmp_path / "good.chk").read_bytes()
    damaged.write_bytes(good[:100] + bytes([good[100] ^ 1]) + good[101:])
    with pytest.raises(choc.InputError, match="continue_from .*checksum"):
        choc.Simulation(GAS2D, SETS, continue_from=damaged)
    # another config: the first key that differs, as --continue names it
    with pytest.raises(choc.InputError,
                       match=r'continue_from ".*good.chk": species\[0\].count: the config differs'):
        choc.Simulation(GAS2D, SETS + ["species.0.count=401"], continue_from=tmp_path / "good.chk")
    with pytest.raises(choc.InputError, match="give a config"):
        choc.Simulation()
    with pytest.raises(choc.InputError, match="continue_from: a checkpoint's path"):
        choc.Simulation(GAS2D, SETS, continue_from=3)
    # output.checkpoint is checked before the start is built
    with pytest.raises(choc.InputError, match="output.checkpoint.path"):
        choc.Simulation(GAS2D, SETS + [f'output.checkpoint={{path="{missing}"}}'])
