"""choc.Simulation against `choc run`: the same physics and summary to the bit, steps that
add up to one run, the state's arrays and the measurements' columns."""

import json
import math
import os

import numpy as np
import pytest

import choc
from conftest import NOT_PHYSICS, cli_summary, data, physics


def test_version():
    assert isinstance(choc.__version__, str) and choc.__version__.count(".") == 2


def check_same_as_cli(config, sets, tmp_path):
    expected = cli_summary(config, sets, tmp_path)
    sim = choc.Simulation(config, sets)
    sim.run()
    got = sim.summary()
    assert set(got) == set(expected)  # exactly the keys of the summary JSON
    assert physics(got) == physics(expected)  # every number to the bit
    assert got["provenance"]["config"] == expected["provenance"]["config"]
    assert got["provenance"]["seed"] == expected["provenance"]["seed"]
    assert got["provenance"]["command_line"] == []
    return sim, expected


def test_3d_gas_same_as_cli(small3d, tmp_path):
    sim, expected = check_same_as_cli(*small3d, tmp_path)
    assert expected["pressure"]["Z"] is not None and expected["diffusion"]["D"] is not None
    # the measurements are those of the files choc run wrote, to the bit
    rdf = np.genfromtxt(tmp_path / "rdf.csv", delimiter=",", names=True)
    got = sim.rdf()
    assert np.array_equal(got["r"], rdf["r"]) and np.array_equal(got["g"], rdf["g"])
    vacf = np.genfromtxt(tmp_path / "vacf.csv", delimiter=",", names=True)
    got = sim.vacf()
    assert list(got) == list(vacf.dtype.names)
    for name in vacf.dtype.names:
        np.testing.assert_array_equal(got[name], vacf[name])
    with open(tmp_path / "series.csv") as f:
        rows = np.genfromtxt([line for line in f if not line.startswith("#")], delimiter=",",
                             names=True)
    series = sim.timeseries()
    assert list(series) == list(rows.dtype.names)
    for name in rows.dtype.names:
        np.testing.assert_array_equal(series[name], rows[name])
    assert len(series["time"]) == 17  # every 0.25 over 4, both ends


def test_histogram_series_same_as_cli(small3d, tmp_path):
    """output.histogram with every: the series of the module is the file of choc run."""
    config, sets = small3d
    sim, _ = check_same_as_cli(config, sets + ['output.histogram={path="speeds.csv", every=1.5}'],
                               tmp_path)
    snapshots, bins = sim.speed_histogram_series()
    with open(tmp_path / "speeds.csv") as f:
        lines = f.read().splitlines()
    table = np.genfromtxt([l[2:] for l in lines if l.startswith("# ")], delimiter=",",
                          names=True)
    rows = np.genfromtxt([l for l in lines if not l.startswith("#")], delimiter=",", names=True)
    assert list(snapshots) == list(table.dtype.names)
    for name in table.dtype.names:
        np.testing.assert_array_equal(snapshots[name], table[name])
    assert list(bins) == list(rows.dtype.names)
    for name in rows.dtype.names:
        np.testing.assert_array_equal(bins[name], rows[name])
    # t = 0, 1.5, 3 and the final state at 4
    assert snapshots["time"].tolist() == [0.0, 1.5, 3.0, 4.0]
    assert sim.velocity_histogram_series() is None
    assert "ks_pvalue" in sim.summary()["velocity_distribution"]


def test_2d_gas_same_as_cli(tmp_path):
    check_same_as_cli(data("examples", "gas2d.toml"),
                      ["species.0.count=400", "run.time=10", "run.equilibrate=1"], tmp_path)


def test_gravity_and_walls_same_as_cli(tmp_path):
    # a Field motion (gravity) between walls: the other engine type
    sim, expected = check_same_as_cli(
        data("examples", "gravity_box2d.toml"),
        ["species.0.count=300", "box.size=[200.0, 40.0]", "run.equilibrate=10", "run.time=20",
         "output.timeseries.every=2"], tmp_path)
    assert expected["pressure"] is None and expected["wall_collisions"] > 0
    assert len(sim.timeseries()["time"]) == 11


COLLISION_LIMITED = """
dimension = 3
[box]
packing_fraction = 0.35
[[species]]
name = "A"
count = 256
[[species]]
name = "B"
count = 100
radius = 0.3
mass = 2.0
[init]
lattice = "random"
seed = 3
[run]
collisions = 20000
"""


def test_time_stepped_same_as_cli(tmp_path):
    # run.integrator = "timestep": the stepped engine, with its EDMD run beside it
    sets = ["species.0.count=300", "box.size=[200.0, 40.0]", "run.equilibrate=10",
            "run.time=20", "output.timeseries.every=2", 'run.integrator="timestep"',
            "run.dt=0.05"]
    expected = cli_summary(data("examples", "gravity_box2d.toml"), sets, tmp_path)
    sim = choc.Simulation(data("examples", "gravity_box2d.toml"), sets)
    sim.run()
    got = sim.summary()
    for summary in (got, expected):  # the EDMD run's own clock
        del summary["timestep"]["edmd"]["wall_seconds"]
    assert physics(got) == physics(expected)
    stepping = got["timestep"]
    assert stepping["steps"] == 400 and stepping["edmd"]["sim_time"] == got["sim_time"]
    assert 0.5 < stepping["edmd"]["collisions_found"] < 1.1


def test_collision_limited_mixture_same_as_cli(tmp_path):
    path = tmp_path / "mixture.toml"
    path.write_text(COLLISION_LIMITED)
    sim, expected = check_same_as_cli(str(path), [], tmp_path)
    assert expected["collisions"] == 20000
    # the same config given as TOML text or as a path-like object: the same run
    for config in (COLLISION_LIMITED, path):
        other = choc.Simulation(config)
        other.run()
        assert physics(other.summary()) == physics(expected)


def test_dict_config_is_the_toml():
    as_dict = {
        "dimension": 3,
        "box": {"packing_fraction": 0.35},
        "species": [{"name": "A", "count": 256},
                    {"name": "B", "count": 100, "radius": 0.3, "mass": 2.0}],
        "init": {"lattice": "random", "seed": 3},
        "run": {"collisions": 20000},
    }
    a = choc.Simulation(as_dict)
    b = choc.Simulation(COLLISION_LIMITED)
    a.run()
    b.run()
    assert physics(a.summary()) == physics(b.summary())
    np.testing.assert_array_equal(a.positions, b.positions)


def test_overrides_dict_and_list_are_choc_run_set(small3d):
    config, sets = small3d
    a = choc.Simulation(config, sets + ["init.seed=5"])
    overrides = dict(s.split("=", 1) for s in sets)
    overrides["init.seed"] = 5  # a non-str value is written as TOML
    b = choc.Simulation(config, overrides)
    assert a.summary()["provenance"]["config"] == b.summary()["provenance"]["config"]


def test_steps_add_up_to_one_run(small3d):
    """run(time=a); run(time=b) stops where run(time=a + b) does: stops do not change the
    engine's arithmetic, and Z's blocks lie on a grid that does not depend on where a
    run stops (measured_phase.hpp)."""
    config, sets = small3d
    one = choc.Simulation(config, sets)
    one.run(time=3.0)
    steps = choc.Simulation(config, sets)
    steps.run(time=1.25)
    steps.run(time=0.5)
    steps.run(time=1.25)
    assert physics(steps.summary()) == physics(one.summary())
    np.testing.assert_array_equal(steps.positions, one.positions)
    np.testing.assert_array_equal(steps.velocities, one.velocities)
    for name, column in one.timeseries().items():
        np.testing.assert_array_equal(steps.timeseries()[name], column)
    # collisions too; and after steps, run() goes to the config's own limits as choc run
    by_collisions = choc.Simulation(config, sets)
    by_collisions.run(collisions=2500)
    by_collisions.run(collisions=3500)
    once = choc.Simulation(config, sets)
    once.run(collisions=6000)  # (less than the 4 time units of run.time)
    assert physics(by_collisions.summary()) == physics(once.summary())
    assert once.summary()["collisions"] == 6000
    once.run()
    one.run()
    assert physics(once.summary()) == physics(one.summary())
    one.run()  # nothing more once there
    assert physics(once.summary()) == physics(one.summary())


def test_arrays(small3d):
    config, sets = small3d
    sim = choc.Simulation(config, sets)
    sim.run(time=1.0)
    n = 500
    assert sim.dimension == 3
    for name in ("positions", "velocities"):
        a = getattr(sim, name)
        assert a.shape == (n, 3) and a.dtype == np.float64
    for name, dtype in (("radii", np.float64), ("masses", np.float64), ("species", np.int64)):
        a = getattr(sim, name)
        assert a.shape == (n,) and a.dtype == dtype
    assert np.all(sim.radii == 0.5) and np.all(sim.masses == 1.0) and np.all(sim.species == 0)
    s = sim.summary()
    assert sim.time == pytest.approx(1.0, abs=1e-12)
    assert s["sim_time"] == pytest.approx(1.0, abs=1e-12)
    # units: the config's (kT = 1, m = 1): the summary's energy from the arrays
    v = sim.velocities
    kinetic = 0.5 * np.sum(sim.masses[:, None] * v * v)
    assert kinetic == pytest.approx(s["kinetic_energy"]["final"], rel=1e-12)
    assert np.abs(np.sum(sim.masses[:, None] * v, axis=0)).max() < 1e-10
    # the box from the packing fraction: every centre inside it, no overlap
    edge = (n * (4.0 / 3.0) * math.pi * 0.5**3 / 0.30) ** (1.0 / 3.0)
    x = sim.positions
    assert x.min() >= 0.0 and x.max() <= edge
    d = x[:, None, :] - x[None, :, :]
    d -= edge * np.round(d / edge)
    r = np.sqrt((d * d).sum(-1)) + 2.0 * np.eye(n)
    assert r.min() > 1.0 - 1e-9
    # copies: changing them changes nothing in the run
    x[:] = 0.0
    assert sim.positions.max() > 0.0
    # measurements
    h = sim.speed_histogram()
    assert list(h)[:5] == ["speed_low", "speed_high", "speed", "density", "maxwell_boltzmann"]
    assert np.sum(h["density"] * (h["speed_high"] - h["speed_low"])) == pytest.approx(1.0)
    assert list(sim.velocity_histogram())[:3] == ["vx_low", "vx_high", "vx"]
    m = sim.msd()
    assert m["time"].shape == m["msd"].shape and len(m["time"]) > 2
    assert np.all(np.diff(m["time"]) > 0) and np.all(m["msd"] >= 0)
    assert set(sim.rdf()) == {"r", "g"}


def test_no_timeseries_or_rdf_unless_asked():
    sim = choc.Simulation(COLLISION_LIMITED, {"run.collisions": 100})
    sim.run()
    assert sim.timeseries() is None and sim.rdf() is None
    assert np.bincount(sim.species).tolist() == [256, 100]
    b = sim.species == 1
    assert np.all(sim.radii[b] == 0.3) and np.all(sim.masses[b] == 2.0)
    assert np.all(sim.radii[~b] == 0.5) and np.all(sim.masses[~b] == 1.0)


def test_dataframes_when_pandas_is_there(small3d):
    pandas = pytest.importorskip("pandas")
    sim = choc.Simulation(*small3d)
    sim.run(time=0.5)
    frame = sim.timeseries(frame=True)
    assert isinstance(frame, pandas.DataFrame) and list(frame.columns)[0] == "time"
    assert isinstance(sim.speed_histogram(frame=True), pandas.DataFrame)


def test_writes_no_file(small3d, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sim = choc.Simulation(*small3d)
    sim.run()
    assert os.listdir(tmp_path) == []


def test_thermal_walls_profile_same_as_cli(tmp_path):
    """Thermal walls draw from the run's own generator: the module's run is the CLI's to the
    bit, heat_conduction and the slab profiles included (an empty slab's NaN too)."""
    config = tmp_path / "thermal.toml"
    config.write_text("""dimension = 2
[box]
size = [16.0, 8.0]
boundary = ["wall", "periodic"]
wall_temperature = [1.5, 0.5]
[[species]]
name = "A"
count = 60
[[walls]]
normal = [-1.0, 0.0]
point = [14.0, 0.0]
[init]
lattice = "random"
region = { low = [0.0, 0.0], high = [13.5, 8.0] }
[run]
equilibrate = 2
time = 20
[output]
profile = { path = "profile.csv", slabs = 16 }
""")
    sim, expected = check_same_as_cli(str(config), [], tmp_path)
    got = sim.profile()
    with open(tmp_path / "profile.csv") as f:  # (its provenance: "#" lines)
        rows = np.genfromtxt([line for line in f if not line.startswith("#")], delimiter=",",
                             names=True)
    assert list(got) == list(rows.dtype.names)
    for name in rows.dtype.names:
        np.testing.assert_array_equal(got[name], rows[name])
    # the plane at 14 keeps every centre below 13.5: the last two slabs are empty
    assert np.isnan(got["temperature"][-1]) and got["density"][-1] == 0.0
    # three thermal walls? no: two, and the plane is not thermal, so a pair across x
    assert expected["heat_conduction"]["wall_temperature"] == [1.5, 0.5]
