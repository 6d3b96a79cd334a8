"""Every class of bad input, and the run's own failures, as Python exceptions with the
messages `choc run` prints after "choc: error: " (or "choc: internal error: ")."""

import os
import subprocess
import sys
import textwrap

import pytest

import choc
from conftest import data, run_cli

GOOD = """dimension = 2
[box]
packing_fraction = 0.3
[[species]]
name = "A"
count = 100
[run]
time = 1.0
"""


def cli_error(args, cwd, status=2, prefix="choc: error: "):
    code, _, err = run_cli(args, cwd)
    assert code == status, err
    line = err.strip().splitlines()[-1]
    assert line.startswith(prefix), err
    return line[len(prefix):]


def test_exception_classes():
    assert issubclass(choc.InputError, ValueError)
    assert issubclass(choc.InvariantViolation, RuntimeError)
    assert issubclass(choc.InelasticCollapse, RuntimeError)


@pytest.mark.parametrize("text,sets", [
    (GOOD.replace("[run]", "[run]\nspeed = 2"), []),                  # unknown key
    (GOOD.replace("0.3", "2.0"), []),                                 # value out of range
    (GOOD.replace("count = 100", 'count = "many"'), []),              # wrong type
    (GOOD.replace("[box]", "[box"), []),                              # TOML syntax
    (GOOD.replace("[run]\ntime = 1.0\n", ""), []),                   # missing limits
    (GOOD, ["box.packing_fraction"]),                                 # override without =
    (GOOD, ["box.packing_fracton=0.2"]),                              # override of no key
    (GOOD, ["box.packing_fraction=-1"]),                              # override, bad value
    (GOOD, ["box.packing_fraction=0.9", "init.lattice=random"]),     # impossible start
])
def test_bad_input_same_message_as_cli(tmp_path, text, sets):
    path = tmp_path / "config.toml"
    path.write_text(text)
    args = ["run", str(path)]
    for s in sets:
        args += ["--set", s]
    message = cli_error(args, tmp_path)
    with pytest.raises(choc.InputError) as e:
        choc.Simulation(str(path), sets)
    assert str(e.value) == message


def test_missing_file(tmp_path):
    path = str(tmp_path / "nothing.toml")
    message = cli_error(["run", path], tmp_path)
    with pytest.raises(choc.InputError) as e:
        choc.Simulation(path)
    assert str(e.value) == message


def test_bad_input_from_text_and_dict():
    with pytest.raises(choc.InputError, match="unknown key"):
        choc.Simulation(GOOD.replace("[run]", "[run]\nspeed = 2"))
    with pytest.raises(choc.InputError, match="box.packing_fraction"):
        choc.Simulation({"dimension": 2, "box": {"packing_fraction": 2.0},
                         "species": [{"name": "A", "count": 10}], "run": {"time": 1.0}})
    with pytest.raises(choc.InputError, match="cannot be written as TOML"):
        choc.Simulation({"dimension": object()})
    with pytest.raises(choc.InputError, match="overrides"):
        choc.Simulation(GOOD, "run.time=2")
    with pytest.raises(choc.InputError, match="time"):
        choc.Simulation(GOOD).run(time=-1.0)
    with pytest.raises(choc.InputError, match="collisions"):
        choc.Simulation(GOOD).run(collisions=-1)


def test_python_arguments_are_input_errors():
    # (pybind11's own RuntimeError and TypeError before, issue 41)
    with pytest.raises(choc.InputError, match=r"run: collisions must be an integer within"):
        choc.Simulation(GOOD).run(collisions=2**64)
    sim = choc.Simulation(GOOD)
    sim.run(time=0.5, collisions=2**64 - 1)  # the largest count is taken; time comes first
    assert sim.time == 0.5
    for bad in (5, 2.5, None.__class__):
        with pytest.raises(choc.InputError, match=r"^overrides: a dict or a list"):
            choc.Simulation(GOOD, bad)
    with pytest.raises(choc.InputError, match=r"^overrides: a dict or a list"):
        choc.sweep("config = 'x.toml'\noutput = 'o'\n", overrides=5)


# Under a 2 GiB address-space limit the particles' arrays cannot be had: malloc fails at
# once (without the limit Linux would promise the memory and the OOM killer end the test).
TOO_LARGE = textwrap.dedent("""
    import resource, sys
    import choc
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))
    try:
        choc.Simulation(sys.argv[1], {"species[0].count": 2**31 - 1})
    except choc.InputError as e:
        print("InputError:", e)
    except MemoryError as e:
        print("MemoryError:", e)
""")


def test_too_many_particles_is_an_input_error(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(GOOD)
    child = subprocess.run([sys.executable, "-c", TOO_LARGE, str(path)], capture_output=True,
                           text=True, timeout=120, env=os.environ.copy())
    assert child.stdout.strip() == (
        f"InputError: {path}: species[0].count: not enough memory for this system "
        "(N = 2147483647 particles, 2147483647 of them in species[0]); use fewer particles"), (
        child.stdout + child.stderr)


# One disc launched up from an inelastic floor (tests/validate/validate_dissipation.py): it
# lands infinitely often before t = 2 v0 / (g (1 - e)) = 15, an inelastic collapse.
BALL = """dimension = 2
[box]
boundary = ["periodic", "wall"]
[[species]]
name = "A"
count = 1
[[walls]]
normal = [0.0, 1.0]
point = [0.0, 1.0]
restitution = 0.8
[field]
gravity = [0.0, -1.0]
[init]
from = "ball.xyz"
[run]
time = 100.0
"""
BALL_XYZ = (
    "1\n"
    'Lattice="4 0 0 0 20 0 0 0 1" Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1 '
    'Time=0 pbc="T F F" dimension=2\n'
    "A 2 1.5 0 0 1.5 0 0.5 1\n")


def test_inelastic_collapse(tmp_path):
    (tmp_path / "ball.xyz").write_text(BALL_XYZ)
    path = tmp_path / "ball.toml"
    path.write_text(BALL)
    message = cli_error(["run", str(path)], tmp_path, status=3)
    sim = choc.Simulation(str(path))
    with pytest.raises(choc.InelasticCollapse) as e:
        sim.run()
    assert str(e.value) == message
    assert sim.summary()["collapsed"] is True
    assert sim.summary()["sim_time"] == pytest.approx(15.0, rel=1e-5)
    with pytest.raises(choc.InelasticCollapse):  # the run is over
        sim.run(time=1.0)


def test_invariant_violation(tmp_path, monkeypatch):
    # No input breaks an invariant without an engine bug, so the test hook of DEVELOPING
    # ("Testing how a violation is reported") injects one at the end of a run step; the
    # command line and the module must report it alike.
    monkeypatch.setenv("CHOC_TEST_VIOLATION", "progress")
    config = data("examples", "gas3d.toml")
    sets = ["species.0.count=500", "run.equilibrate=0", "run.time=0.1"]
    args = ["run", config, "--quiet"]
    for s in sets:
        args += ["--set", s]
    message = cli_error(args, tmp_path, status=1, prefix="choc: internal error: ")
    assert message.startswith("invariant 'progress' violated at t = ")
    sim = choc.Simulation(config, sets)
    with pytest.raises(choc.InvariantViolation) as e:
        sim.run()
    assert str(e.value) == message
    summary = sim.summary()
    assert summary["valid"] is False and summary["violation"] == message
