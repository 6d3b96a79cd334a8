"""Ctrl-C during Simulation.run(): KeyboardInterrupt once the state is consistent, and a
later run() goes on as if there had been no stop; Python's own handlers come back."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import choc
from conftest import data, physics

# about 4 s of running on one core
SETS = ["species.0.count=4000", "run.time=50", "run.equilibrate=0"]

CHILD = textwrap.dedent("""
    import json, sys
    import choc
    sim = choc.Simulation(sys.argv[1], sys.argv[2:])
    print("ready", flush=True)
    try:
        sim.run()
        print("finished before the signal", flush=True)
    except KeyboardInterrupt:
        print("interrupted at", sim.time, flush=True)
    sim.run()
    print(json.dumps(sim.summary()), flush=True)
""")


def test_ctrl_c_then_go_on(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", CHILD, data("examples", "gas3d.toml")] + SETS,
                             stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    assert child.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=600)
    lines = out.strip().splitlines()
    assert lines[0].startswith("interrupted at"), out
    stopped = float(lines[0].split()[-1])
    assert 0.0 < stopped < 50.0
    summary = json.loads(lines[-1])
    assert summary["interrupted"] is False
    one = choc.Simulation(data("examples", "gas3d.toml"), SETS)
    one.run()
    assert physics(summary) == physics(one.summary())


def test_python_handlers_come_back():
    before = signal.getsignal(signal.SIGINT)
    sim = choc.Simulation(data("examples", "gas2d.toml"), ["species.0.count=100", "run.time=1"])
    sim.run()
    assert signal.getsignal(signal.SIGINT) is before
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5.0)


BUILD = textwrap.dedent("""
    import sys
    import choc
    print("building", flush=True)
    try:
        choc.Simulation(sys.argv[1], sys.argv[2:])
        print("built before the signal", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
""")


def test_ctrl_c_while_equilibrating():
    sets = ["species.0.count=4000", "run.equilibrate=100", "run.time=1"]
    child = subprocess.Popen([sys.executable, "-c", BUILD, data("examples", "gas3d.toml")] + sets,
                             stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    assert child.stdout.readline().strip() == "building"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=600)
    assert out.strip() == "interrupted"
