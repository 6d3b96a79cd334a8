"""Steering a Simulation between stages: the temperature rescaled, the restitution and the
field changed. Each change starts a new stage from the state now (a new engine, a new
measured phase); the clock goes on, and a checkpoint saved afterwards continues with the
steered settings, to the bit."""

import json
import math
import tomllib

import numpy as np
import pytest

import choc
from conftest import data, physics, run_cli

GAS2D = data("examples", "gas2d.toml")
SETS = ["species.0.count=400", "run.time=6", "run.equilibrate=1"]
GAS3D = data("examples", "gas3d.toml")
SETS3D = ["species.0.count=500", "run.time=4", "run.equilibrate=1"]


def kinetic(sim):
    return 0.5 * float(np.sum(sim.masses[:, None] * sim.velocities ** 2))


def kT(sim):
    """The kinetic temperature 2 K / (d N), as the summary defines it."""
    return 2.0 * kinetic(sim) / (sim.dimension * len(sim.masses))


def momentum(sim):
    return sim.masses @ sim.velocities


def test_rescale_temperature():
    sim = choc.Simulation(GAS3D, SETS3D)
    sim.run(time=1.0)
    t, before, p_before = sim.time, kinetic(sim), momentum(sim)
    assert abs(kT(sim) - 1.0) < 1e-12  # elastic: the start's kT = 1 kept
    added = sim.rescale_temperature(2.5)
    # every velocity times one factor: the asked kT to round-off, momentum scaled alike
    assert kT(sim) == pytest.approx(2.5, rel=1e-13)
    assert added == pytest.approx(kinetic(sim) - before, rel=1e-12)
    assert added == pytest.approx(1.5 * before, rel=1e-12)
    assert np.all(np.abs(momentum(sim)) <= math.sqrt(2.5) * np.abs(p_before) + 1e-12)
    # a new stage: its summary starts now, from the rescaled state; the clock goes on
    assert sim.time == t
    s = sim.summary()
    assert s["sim_time"] == 0 and s["collisions"] == 0
    assert s["temperature"] == pytest.approx(2.5, rel=1e-13)
    assert s["kinetic_energy"]["initial"] == pytest.approx(kinetic(sim), rel=1e-13)
    # elastic, no field: the new energy is conserved, the energy checks pass
    sim.run(time=1.0)
    s = sim.summary()
    assert s["valid"] is True and s["collisions"] > 1000
    assert s["kinetic_energy"]["final"] == pytest.approx(s["kinetic_energy"]["initial"], rel=1e-12)
    assert s["temperature"] == pytest.approx(2.5, rel=1e-12)
    assert sim.time == t + 1.0


def test_restitution_below_one_cools_the_gas():
    sim = choc.Simulation(GAS2D, SETS)
    sim.run(time=1.0)
    t0 = kT(sim)
    assert t0 == pytest.approx(1.0, rel=1e-12)
    sim.set_restitution(0.5)
    assert tomllib.loads(sim.config_toml)["collisions"]["restitution"] == 0.5
    sim.run(time=1.0)
    s = sim.summary()
    assert s["valid"] is True and s["collisions"] > 300  # 1.5 a disc
    assert kT(sim) < 0.8 * t0  # every collision takes (1 - e^2)/4 of its pair's m u_n^2
    assert s["kinetic_energy"]["final"] < 0.8 * s["kinetic_energy"]["initial"]
    # and back to elastic: the energy stays
    sim.set_restitution(1.0)
    sim.run(time=0.5)
    s = sim.summary()
    assert s["kinetic_energy"]["final"] == pytest.approx(s["kinetic_energy"]["initial"], rel=1e-12)


MIXTURE = {
    "dimension": 2,
    "box": {"packing_fraction": 0.3},
    "species": [{"name": "A", "count": 200}, {"name": "B", "count": 200, "radius": 0.4}],
    "init": {"lattice": "random", "seed": 3},
    "run": {"time": 10.0, "equilibrate": 0.5},
}


def test_restitution_per_pair():
    sim = choc.Simulation(MIXTURE)
    sim.set_restitution(pairs={("A", "B"): 0.5})
    assert tomllib.loads(sim.config_toml)["collisions"]["pair"] == [
        {"a": "A", "b": "B", "restitution": 0.5}]
    sim.run(time=1.0)
    s = sim.summary()
    assert s["kinetic_energy"]["final"] < 0.9 * s["kinetic_energy"]["initial"]
    # the same pair named the other way round: its entry changes, no second one
    sim.set_restitution(pairs={("B", "A"): 1.0})
    assert tomllib.loads(sim.config_toml)["collisions"]["pair"] == [
        {"a": "A", "b": "B", "restitution": 1.0}]
    sim.run(time=0.5)
    s = sim.summary()
    assert s["kinetic_energy"]["final"] == pytest.approx(s["kinetic_energy"]["initial"], rel=1e-12)
    with pytest.raises(choc.InputError, match="collisions.pair"):
        sim.set_restitution(pairs={("A", "Z"): 0.5})
    with pytest.raises(choc.InputError, match="pair of species names"):
        sim.set_restitution(pairs={"A": 0.5})


def test_gravity_and_drag():
    # In a periodic box collisions keep the momentum: under gravity g it grows by N m g t,
    # under drag alone it decays as exp(-gamma t), whatever the collisions do.
    sim = choc.Simulation(GAS2D, SETS)
    sim.run(time=0.5)
    n = len(sim.masses)
    p0 = momentum(sim)
    sim.set_field(gravity=[0.0, -1.0])
    assert tomllib.loads(sim.config_toml)["field"]["gravity"] == [0.0, -1.0]
    sim.run(time=0.5)
    p1 = momentum(sim)
    assert p1[0] == pytest.approx(p0[0], abs=1e-10)
    assert p1[1] == pytest.approx(p0[1] - 0.5 * n, rel=1e-12)
    assert sim.summary()["valid"] is True
    sim.set_field(gravity=[0.0, 0.0], drag=0.5)
    sim.run(time=1.0)
    np.testing.assert_allclose(momentum(sim), p1 * math.exp(-0.5), rtol=1e-10, atol=1e-10)
    sim.set_field(drag=0.0)  # straight flights again: the momentum stays
    p2 = momentum(sim)
    sim.run(time=0.5)
    np.testing.assert_allclose(momentum(sim), p2, rtol=1e-12, atol=1e-10)


def test_bad_changes_leave_the_run_as_it_was():
    sim = choc.Simulation(GAS2D, SETS)
    sim.run(time=0.5)
    t, x, v, s = sim.time, sim.positions, sim.velocities, sim.summary()
    for call, match in [
            (lambda: sim.set_restitution(1.5), "collisions.restitution"),
            (lambda: sim.set_restitution(-0.1), "restitution: must be a finite number >= 0"),
            (lambda: sim.set_restitution(), "give restitution"),
            (lambda: sim.set_field(gravity=[0.0, 0.0, -1.0]), "field.gravity"),
            (lambda: sim.set_field(drag=-1.0), "field.drag"),
            (lambda: sim.set_field(), "give gravity"),
            (lambda: sim.rescale_temperature(0.0), "kT: must be a finite number > 0"),
            (lambda: sim.rescale_temperature(float("nan")), "kT: must be a finite number > 0"),
            (lambda: sim.rescale_temperature("hot"), "kT: must be a number")]:
        with pytest.raises(choc.InputError, match=match):
            call()
    assert sim.time == t
    np.testing.assert_array_equal(sim.positions, x)
    np.testing.assert_array_equal(sim.velocities, v)
    assert physics(sim.summary()) == physics(s)
    sim.run(time=0.5)  # and it goes on
    one = choc.Simulation(GAS2D, SETS)
    one.run(time=1.0)
    assert physics(sim.summary()) == physics(one.summary())


def test_a_steered_checkpoint_continues_steered(tmp_path):
    path = tmp_path / "steered.chk"
    sim = choc.Simulation(GAS2D, SETS)
    sim.run(time=1.0)
    sim.set_restitution(0.9)
    sim.run(time=0.5)
    sim.set_field(gravity=[0.0, -0.5])
    sim.rescale_temperature(1.0)
    sim.run(time=0.5)
    sim.save(path)
    steered = sim.config_toml
    sim.run(time=1.0)

    # the checkpoint's own config is the steered one
    again = choc.Simulation(continue_from=path)
    assert again.config_toml == steered and again.time == 2.0
    again.run(time=1.0)
    assert physics(again.summary()) == physics(sim.summary())
    np.testing.assert_array_equal(again.positions, sim.positions)
    np.testing.assert_array_equal(again.velocities, sim.velocities)
    # the original config is not the run's any more
    with pytest.raises(choc.InputError, match="collisions.restitution: the config differs"):
        choc.Simulation(GAS2D, SETS, continue_from=path)

    # `choc run` continues it with the steered config, to the stage's own run.time
    (tmp_path / "steered.toml").write_text(steered)
    status, _, err = run_cli(["run", "steered.toml", "--quiet", "--continue", "steered.chk"],
                             tmp_path)
    assert status == 0, err
    whole = choc.Simulation(continue_from=path)
    whole.run()
    with open(tmp_path / "summary.json") as f:
        assert physics(json.load(f)) == physics(whole.summary())


def test_a_collapsed_run_goes_on_in_a_new_stage():
    # e = 0.2 at area fraction 0.5 collapses within about half a time unit; run() then
    # raises for good, but a steering call starts a new stage from the collapsed state.
    sim = choc.Simulation({
        "dimension": 2, "box": {"packing_fraction": 0.5}, "species": [{"name": "A", "count": 400}],
        "collisions": {"restitution": 0.2}, "init": {"lattice": "random"},
        "run": {"time": 100.0, "equilibrate": 0}})
    with pytest.raises(choc.InelasticCollapse):
        sim.run()
    with pytest.raises(choc.InelasticCollapse):
        sim.run(time=1.0)
    t = sim.time
    sim.set_restitution(1.0)
    sim.rescale_temperature(1.0)
    sim.run(time=1.0)
    s = sim.summary()
    assert s["valid"] is True and s["collapsed"] is False and s["collisions"] > 300
    assert sim.time == t + 1.0
    assert s["kinetic_energy"]["final"] == pytest.approx(s["kinetic_energy"]["initial"], rel=1e-12)


def test_sliding_boundaries_are_not_steered():
    # a new engine would start the images' offset (gamma L_y t) from zero: refused
    sim = choc.Simulation({
        "dimension": 2, "box": {"packing_fraction": 0.3, "shear_rate": 0.1},
        "species": [{"name": "A", "count": 100}], "init": {"lattice": "random"},
        "run": {"time": 1.0, "equilibrate": 0}})
    sim.run(time=0.2)
    for call in (lambda: sim.rescale_temperature(2.0), lambda: sim.set_restitution(0.9)):
        with pytest.raises(choc.InputError, match="box.shear_rate: a run under sliding"):
            call()
    assert sim.time == 0.2
