"""Ctrl-C during Simulation.run(): KeyboardInterrupt once the state is consistent, and a
later run() goes on as if there had been no stop; Python's own handlers come back, also
after runs in several threads. Python hears of it as KeyboardInterrupt alone: none of the
command line's words ("interrupted at t = ...: the summary covers the part run so far")
on stderr. One Simulation refuses a second thread while it runs."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
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


# What `choc run` says of an interrupt, which a Python caller must not see.
CLI_WORDS = ("interrupted", "summary", "checkpoint written", "measured phase")


def test_ctrl_c_then_go_on(tmp_path):
    # (with output.checkpoint: the checkpoint at the interrupt is written, quietly)
    checkpoint = tmp_path / "at_interrupt.chk"
    sets = SETS + [f'output.checkpoint={{path="{checkpoint}"}}']
    child = subprocess.Popen([sys.executable, "-c", CHILD, data("examples", "gas3d.toml")] + sets,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=os.environ.copy())
    assert child.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=600)
    assert not any(word in err for word in CLI_WORDS), err
    lines = out.strip().splitlines()
    assert lines[0].startswith("interrupted at"), out
    stopped = float(lines[0].split()[-1])
    assert 0.0 < stopped < 50.0
    summary = json.loads(lines[-1])
    assert summary["interrupted"] is False
    one = choc.Simulation(data("examples", "gas3d.toml"), SETS)
    one.run()
    assert physics(summary) == physics(one.summary())
    # the checkpoint at the interrupt was replaced by the one at the run's limits
    done = choc.Simulation(data("examples", "gas3d.toml"), SETS, continue_from=checkpoint)
    assert done.time == 50.0


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
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=os.environ.copy())
    assert child.stdout.readline().strip() == "building"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=600)
    assert out.strip() == "interrupted"
    assert not any(word in err for word in CLI_WORDS), err


GAS = """dimension = 2
[box]
packing_fraction = 0.3
[[species]]
name = "A"
count = 400
[run]
time = 1e6
"""


def start_run(sim, collisions):
    """sim.run(collisions=...) in a thread, once it is under way (a call into the running
    Simulation is refused): (thread, [the exception it raised, if any])."""
    raised = []

    def run():
        try:
            sim.run(collisions=collisions)
        except Exception as e:  # noqa: BLE001 (reported by the test)
            raised.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    start = time.monotonic()
    while time.monotonic() - start < 10.0:
        try:
            sim.time
        except choc.InputError:
            return thread, raised
        assert thread.is_alive(), f"the run ended before it was seen running: {raised}"
    raise AssertionError("a call into the running Simulation was not refused")


def test_one_simulation_in_two_threads_is_refused():
    # Two run()s at once corrupted the engine: a segfault, "double free or corruption" or a
    # bogus InvariantViolation (issue 41). About 0.3 s of running, ~1M collisions a second.
    sim = choc.Simulation(GAS)
    thread, raised = start_run(sim, 300_000)
    for call in (lambda: sim.run(time=1.0), sim.summary, lambda: sim.positions,
                 lambda: sim.velocities, lambda: sim.timeseries()):
        with pytest.raises(choc.InputError, match="run\\(\\) is running in another thread"):
            call()
    thread.join()
    assert raised == []
    # the refused calls changed nothing: the run is the one run of a single thread
    one = choc.Simulation(GAS)
    one.run(collisions=300_000)
    assert physics(sim.summary()) == physics(one.summary())
    sim.run(time=1.0)  # free again


def test_handlers_come_back_after_runs_in_threads():
    # A started first and ends first, while B still runs: B's guard had saved choc's handler
    # as Python's and put it back at its end, so Ctrl-C never raised KeyboardInterrupt again.
    a, b = choc.Simulation(GAS), choc.Simulation(GAS)
    thread_a, raised_a = start_run(a, 200_000)
    thread_b, raised_b = start_run(b, 600_000)
    thread_a.join()
    assert thread_b.is_alive(), "B ended before A: the order under test did not happen"
    thread_b.join()
    assert raised_a == [] and raised_b == []
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5.0)
