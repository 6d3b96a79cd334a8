#!/usr/bin/env python3
"""Good runs of `choc run` keep the promises of docs/REFERENCE.md: every summary key present,
energy and momentum conserved, no overlaps, the counts and rates consistent with each
other, the same seed giving the same summary, --set/--summary/--quiet doing what they
say, trajectory frames at the right times, restarts from a frame that are exact, hard
walls, time limits, and the example configs.

Usage: python3 tests/cli/cli_run.py CHOC_EXECUTABLE REPO_ROOT
"""

import glob
import math
import os
import subprocess
import sys
import tempfile
import time

import choc_cli as cli
from choc_cli import Failure, check

# Every key of the summary table of docs/REFERENCE.md; the values that are objects with their keys.
SUMMARY_KEYS = [
    "choc_version", "dimension", "N", "packing_fraction", "sim_time", "collisions",
    "wall_collisions", "events", "wall_seconds", "collisions_per_second", "engine", "kinetic_energy",
    "momentum", "temperature", "max_overlap", "pressure", "collision_rate", "species",
    "velocity_distribution", "mean_free_time", "diffusion", "shear_viscosity",
    "thermal_conductivity", "rest", "timestep", "interrupted", "collapsed", "provenance",
]
NESTED_KEYS = {"kinetic_energy": ["initial", "final"], "momentum": ["initial", "final"],
               "engine": ["cell_crossings", "stale_predictions", "rescans", "pair_predictions",
                          "memory_bytes"],
               "provenance": ["git_commit", "config", "seed", "command_line", "started",
                              "finished", "host"]}
# Wall-clock measurements differ between two runs of the same simulation.
TIMING_KEYS = {"wall_seconds", "collisions_per_second"}

# Sections of a valid config (choc_cli.toml_of); each case replaces some. Outputs are
# relative to the cwd, a fresh temporary directory per case. The 3D gas of fixtures/gas3d.toml
# with 2000 spheres at 0.35, 1e5 collisions, a summary alone.
BASE_3D = dict(
    cli.sections(cli.fixture("gas3d.toml")),
    box='packing_fraction = 0.35\nboundary = "periodic"',
    species='name = "A"\ncount = 2000\nradius = 0.5\nmass = 1.0',
    run="collisions = 100000",
    output='summary = "summary.json"',
)
BASE_2D = dict(
    BASE_3D,
    dimension="2",
    box='packing_fraction = 0.5\nboundary = "periodic"',
    init='lattice = "hex"\nvelocities = "maxwell"\ntemperature = 1.0\nseed = 1',
)
# A small 2D system for the cases that test the command line rather than the physics.
SMALL_2D = dict(
    BASE_2D,
    species='name = "A"\ncount = 400\nradius = 0.5\nmass = 1.0',
    run="collisions = 5000",
)


config = cli.toml_of


def run_choc(choc, directory, text, args=(), timeout=60):
    """Writes `text` to DIRECTORY/config.toml and runs `choc run config.toml ARGS` there."""
    return cli.run(choc, directory, *args, toml=text, quiet=False, timeout=timeout)


def expect_success(result):
    if result.returncode != 0:
        raise Failure(f"exit status {result.returncode}; stderr: {result.stderr!r}")


def run_and_load(choc, directory, text, args=(), summary="summary.json"):
    """Runs quietly, expects success, returns the summary (written to `summary`)."""
    expect_success(cli.run(choc, directory, *args, toml=text))
    return cli.read_summary(directory, summary)


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def check_keys(summary):
    missing = [k for k in SUMMARY_KEYS if k not in summary]
    for key, inner in NESTED_KEYS.items():
        if isinstance(summary.get(key), dict):
            missing += [f"{key}.{k}" for k in inner if k not in summary[key]]
        elif key in summary:
            missing.append(f"{key} (not an object)")
    check(not missing, f"summary lacks {missing}")


def check_conservation(summary, mass):
    """Kinetic energy and total momentum of the measured phase, start against end."""
    ke0, ke1 = summary["kinetic_energy"]["initial"], summary["kinetic_energy"]["final"]
    # Elastic collisions conserve energy exactly in exact arithmetic; each one changes the
    # sum by a few ulp of the two particles' energies, a random walk over 1e5 collisions of
    # ~1e-13 relative at worst. 1e-10 (the bound) leaves a margin of 1000 and
    # still catches one wrongly resolved collision (a change of ~1/N ~ 5e-4 relative).
    check(close(ke0, ke1, 1e-10), f"kinetic energy {ke0!r} -> {ke1!r}, beyond 1e-10 relative")
    # The total momentum starts at zero, so it cannot be compared relative to itself. Its
    # round-off is measured against the sum of the particles' momentum magnitudes,
    # sum |p_i| ~ N sqrt(m d kT) = sqrt(2 m KE N) (KE = N d kT / 2): adding N terms of that
    # size leaves an error of a few ulp of this sum, and each collision one of a few ulp of
    # its two momenta. 1e-10 of it is far above round-off (~1e-16 here) and far below
    # what one mishandled collision would leave (~|p_i|, i.e. ~1/N = 5e-4 relative).
    n = summary["N"]
    scale = math.sqrt(2.0 * mass * ke0 * n)
    p0, p1 = summary["momentum"]["initial"], summary["momentum"]["final"]
    check(len(p0) == len(p1) == summary["dimension"], f"momentum vectors {p0}, {p1}")
    change = math.sqrt(sum((a - b) ** 2 for a, b in zip(p0, p1)))
    check(change <= 1e-10 * scale,
          f"momentum {p0} -> {p1}: change {change:.3g} above 1e-10 * sqrt(2 m KE N) = "
          f"{1e-10 * scale:.3g}")


def check_overlap(summary):
    # Exact event times leave contact distances wrong only by round-off (~1e-15 relative);
    # 1e-9 is the bound, well above that and far below a missed collision.
    check(summary["max_overlap"] is not None and summary["max_overlap"] <= 1e-9,
          f"max_overlap = {summary['max_overlap']!r} above 1e-9")


def long_run(choc, base, dimension):
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        s = run_and_load(choc, d, config(base))
        check_keys(s)
        check(s["dimension"] == dimension and s["N"] == 2000,
              f"dimension {s['dimension']}, N {s['N']}; expected {dimension}, 2000")
        check(s["collisions"] == 100000, f"collisions = {s['collisions']}, requested 100000")
        check(s["interrupted"] is False, "a run that finished says interrupted")
        check(s["collapsed"] is False, "a run that finished says collapsed")
        check_conservation(s, mass=1.0)
        check_overlap(s)
        # The summary computes these from the same two numbers in double precision: only
        # the last bit or two can differ (json keeps every double exactly), so 1e-12.
        rate = 2.0 * s["collisions"] / (s["N"] * s["sim_time"])
        check(close(s["collision_rate"], rate, 1e-12),
              f"collision_rate {s['collision_rate']!r}, 2 collisions/(N sim_time) = {rate!r}")
        check(close(s["mean_free_time"], 1.0 / s["collision_rate"], 1e-12),
              f"mean_free_time {s['mean_free_time']!r} is not 1/collision_rate")
        # Each collision predicts anew both particles' pairs, and each such scan includes
        # the particle itself and its partner: at least 4 pair predictions per collision.
        # The arrays hold at least each particle's 32- or 64-byte record.
        engine = s["engine"]
        check(engine["pair_predictions"] >= 4 * s["collisions"],
              f"engine.pair_predictions {engine['pair_predictions']} below 4 per collision")
        check(engine["memory_bytes"] >= 32 * s["N"],
              f"engine.memory_bytes {engine['memory_bytes']} below 32 bytes per particle")
        check(engine["cell_crossings"] > 0 and engine["rescans"] <= engine["stale_predictions"],
              f"engine counts {engine}")


def case_3d(choc, root):
    """3D, 2000 spheres at packing fraction 0.35, 1e5 collisions."""
    long_run(choc, BASE_3D, 3)


def case_2d(choc, root):
    """2D, 2000 discs at area fraction 0.5, 1e5 collisions."""
    long_run(choc, BASE_2D, 2)


def without_timings(summary):
    """The summary without what differs between two runs of the same simulation: the
    wall-clock measurements and the provenance's times."""
    kept = {k: v for k, v in summary.items() if k not in TIMING_KEYS}
    if "provenance" in kept:
        kept["provenance"] = {k: v for k, v in kept["provenance"].items()
                              if k not in ("started", "finished")}
    return kept


def case_determinism(choc, root):
    """The same seed gives the same summary, another seed another one."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        text = config(SMALL_2D)
        first = without_timings(run_and_load(choc, d, text))
        second = without_timings(run_and_load(choc, d, text))
        diff = sorted(k for k in first if first[k] != second.get(k))
        check(not diff, f"two runs with seed 1 differ in {diff}")
        other = without_timings(run_and_load(choc, d, text, ["--set", "init.seed=2"]))
        check(other != first, "init.seed=2 gives the same summary as seed 1")


def case_set_overrides(choc, root):
    """--set reaches the run."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        s = run_and_load(choc, d, config(SMALL_2D), ["--set", "species.0.count=500"])
        check(s["N"] == 500, f"--set species.0.count=500 gives N = {s['N']}")
        s = run_and_load(choc, d, config(SMALL_2D), ["--set", "box.packing_fraction=0.2"])
        # The box edge is computed from the fraction and the fraction back from the edge:
        # round-off only (~1e-14), so 1e-9 absolute is safe.
        check(abs(s["packing_fraction"] - 0.2) <= 1e-9,
              f"--set box.packing_fraction=0.2 gives {s['packing_fraction']!r}")


def case_summary_and_quiet(choc, root):
    """--summary PATH writes there and not to output.summary; --quiet is silent on stderr."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        result = run_choc(choc, d, config(SMALL_2D), ["--summary", "elsewhere.json", "--quiet"])
        expect_success(result)
        check(result.stderr == "", f"--quiet printed on stderr: {result.stderr!r}")
        check(not os.path.exists(os.path.join(d, "summary.json")),
              "summary.json written although --summary elsewhere.json was given")
        check_keys(cli.read_summary(d, "elsewhere.json"))


def read_frames(path):
    """(time, count line, number of particle lines) of each frame of an extended XYZ file."""
    return [(frame.time, frame.count, sum(1 for line in frame.lines if line.strip()))
            for frame in cli.read_xyz(path)]


def check_frames(path, n, every, count):
    frames = read_frames(path)
    times = [t for t, _, _ in frames]
    check(len(frames) == count, f"{len(frames)} frames at {times}, expected {count}")
    for k, (t, count_line, body) in enumerate(frames):
        # Frame times are the start plus k * every, sums of doubles: 1e-12 absolute is
        # round-off for times of order 10.
        check(t is not None and abs(t - k * every) <= 1e-12,
              f"frame {k} has Time={t}, expected {k * every}; all: {times}")
        check(count_line == n and body == n,
              f"frame {k} has count {count_line} and {body} particle lines, expected {n}")


def no_partials(directory):
    # a run's temporaries are ".<name>.choc-<pid>-<hex>.tmp" (docs/REFERENCE.md, "Output files of a run")
    left = [f for f in os.listdir(directory) if ".choc-" in f and f.endswith(".tmp")]
    check(not left, f"left behind {left}")


def case_trajectory(choc, root):
    """run.time = 2, every 0.5: frames at 0, 0.5, ..., 2 with N lines each."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        text = config(SMALL_2D, run="time = 2.0",
                      output='summary = "summary.json"\n'
                             'trajectory = { path = "t.xyz", every = 0.5 }')
        s = run_and_load(choc, d, text)
        check_frames(os.path.join(d, "t.xyz"), 400, 0.5, 5)
        no_partials(d)
        check_overlap(s)


def case_trajectory_long(choc, root):
    """Frames over a run long enough that the engine rebases its time origin (more than
    max(16 N, 65536) events): still at 0, 0.5, ..., 10, and no overlap at any frame."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        text = config(BASE_2D, run="time = 10.0",
                      output='summary = "summary.json"\n'
                             'trajectory = { path = "t.xyz", every = 0.5 }')
        s = run_and_load(choc, d, text)
        check(s["events"] > 65536, f"only {s['events']} events: no rebasing exercised")
        check_frames(os.path.join(d, "t.xyz"), 2000, 0.5, 21)
        no_partials(d)
        check_overlap(s)


def case_restart(choc, root):
    """init.from the last frame continues exactly where the first run stopped."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        first = run_and_load(choc, d, config(
            SMALL_2D, run="time = 2.0",
            output='summary = "summary.json"\ntrajectory = { path = "t.xyz", every = 0.5 }'))
        second = run_and_load(choc, d, config(
            SMALL_2D, box='boundary = "periodic"',
            init='from = "t.xyz"\nvelocities = "maxwell"\ntemperature = 1.0\nseed = 1',
            output='summary = "second.json"'), summary="second.json")
        check(second["N"] == first["N"], f"N {first['N']} then {second['N']}")
        # Frames hold every number in shortest round-trip form and the velocities are read
        # back bit for bit, in the same order: the sums are the same operations on the
        # same doubles, hence equal exactly.
        check(second["kinetic_energy"]["initial"] == first["kinetic_energy"]["final"],
              f"kinetic energy {first['kinetic_energy']['final']!r} at the end of the first "
              f"run, {second['kinetic_energy']['initial']!r} at the start of the second")
        check(second["momentum"]["initial"] == first["momentum"]["final"],
              f"momentum {first['momentum']['final']!r} at the end of the first run, "
              f"{second['momentum']['initial']!r} at the start of the second")
        # The box comes from the frame; the packing fraction is recomputed from it.
        check(close(second["packing_fraction"], first["packing_fraction"], 1e-12),
              f"packing fraction {first['packing_fraction']!r} then "
              f"{second['packing_fraction']!r}")


def frames(path):
    """(Time, particle lines) of every frame of an extended XYZ file, the state only: without
    the image counts, which count from each run's own start."""
    out = []
    for frame in cli.read_xyz(path):
        at, width = frame.properties().get("image", (None, 0))
        lines = frame.lines if at is None else [
            " ".join(line.split()[:at] + line.split()[at + width:]) for line in frame.lines]
        out.append((frame.time, lines))
    return out


def case_restart_unedited(choc, root):
    """The config of a run, with only init.from and output paths set on the command line,
    goes on from its last frame: the box (and its packing fraction) from the file, no
    second equilibration unless init.equilibrate = true, and the clock going on."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        text = config(SMALL_2D, run="time = 2.0\nequilibrate = 1.0", output=(
            'summary = "summary.json"\ntrajectory = { path = "t.xyz", every = 0.5 }\n'
            'timeseries = { path = "s.csv", every = 0.5 }'))
        run_and_load(choc, d, text)
        paths = ["--set", "output.trajectory.path=t2.xyz", "--set",
                 "output.timeseries.path=s2.csv", "--set", "output.summary=second.json"]
        second = run_and_load(choc, d, text, ["--set", "init.from=t.xyz"] + paths,
                              summary="second.json")
        first_frames, second_frames = frames(os.path.join(d, "t.xyz")), frames(
            os.path.join(d, "t2.xyz"))
        check([t for t, _ in second_frames] == [2.0, 2.5, 3.0, 3.5, 4.0],
              f"frame times {[t for t, _ in second_frames]}: the clock should go on from 2")
        check(second_frames[0][1] == first_frames[-1][1],
              "the first frame is not the snapshot: the start was equilibrated again")
        check(second["sim_time"] == 2.0, f"sim_time {second['sim_time']}")
        rows = cli.data_lines(os.path.join(d, "s2.csv"))
        check(rows[1].startswith("2,") and rows[-1].startswith("4,"),
              f"time-series rows from {rows[1][:10]!r} to {rows[-1][:10]!r}, not from 2 to 4")
        # asked for, the equilibration is done, and the clock still goes on from the file
        run_and_load(choc, d, text, ["--set", "init.from=t.xyz", "--set",
                                     "init.equilibrate=true"] + paths, summary="second.json")
        again = frames(os.path.join(d, "t2.xyz"))
        check(again[0][0] == 2.0 and again[0][1] != first_frames[-1][1],
              "with init.equilibrate = true the first frame should be the equilibrated state "
              "at t = 2")
        # a packing fraction that is not the snapshot's is refused, naming the key
        result = run_choc(choc, d, text, ["--quiet", "--set", "init.from=t.xyz", "--set",
                                          "box.packing_fraction=0.45"] + paths)
        check(result.returncode == 2 and "box.packing_fraction" in result.stderr,
              f"a packing fraction unlike the snapshot's: exit {result.returncode}, "
              f"{result.stderr!r}")


def case_at_rest(choc, root):
    """Every particle at rest (a start read from a frame with zero velocities): nothing
    collides, and the velocity distribution, undefined at kT = 0, is null."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        lines = ["4", 'Lattice="20 0 0 0 20 0 0 0 1" '
                 "Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1 "
                 'pbc="T T F" dimension=2']
        lines += [f"A {x} {y} 0 0 0 0 0.5 1" for x, y in [(2.5, 5), (7.5, 5), (5, 10), (10, 10)]]
        with open(os.path.join(d, "rest.xyz"), "w") as f:
            f.write("\n".join(lines) + "\n")
        summary = run_and_load(choc, d, config(
            SMALL_2D, box='size = [20.0, 20.0]\nboundary = "periodic"',
            species='name = "A"\ncount = 4\nradius = 0.5\nmass = 1.0',
            init='from = "rest.xyz"', run="time = 1.0"))
        check(summary["collisions"] == 0, f"{summary['collisions']} collisions at rest")
        check(summary["velocity_distribution"] is None,
              f"velocity_distribution {summary['velocity_distribution']!r}, expected null")


def case_walls(choc, root):
    """Hard walls: wall collisions happen, no pressure (not measured with walls), energy
    conserved, no overlaps."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        s = run_and_load(choc, d, config(
            BASE_3D, box='packing_fraction = 0.3\nboundary = "wall"',
            species='name = "A"\ncount = 500\nradius = 0.5\nmass = 1.0',
            run="collisions = 20000"))
        check_keys(s)
        check(s["wall_collisions"] > 0, "no wall collisions with boundary = \"wall\"")
        check(s["pressure"] is None, f"pressure {s['pressure']!r}, expected null with walls")
        ke0, ke1 = s["kinetic_energy"]["initial"], s["kinetic_energy"]["final"]
        # as in check_conservation; elastic walls (restitution 1) keep |v| too
        check(close(ke0, ke1, 1e-10), f"kinetic energy {ke0!r} -> {ke1!r}")
        check_overlap(s)


def case_time_limit(choc, root):
    """A run stopped by run.time measures exactly that time, also across time-origin
    rebasing (2D, 2000 discs, about 1.6e5 collisions), and stays free of overlaps."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        s = run_and_load(choc, d, config(BASE_2D, run="time = 20.0"))
        check(s["events"] > 65536, f"only {s['events']} events: no rebasing exercised")
        # the run stops at the time itself; round-off of the clock only
        check(close(s["sim_time"], 20.0, 1e-12), f"sim_time = {s['sim_time']!r}, run.time 20")
        check_conservation(s, mass=1.0)
        check_overlap(s)


def case_wall_clock(choc, root):
    """wall_seconds (and so collisions_per_second) counts the measured phase only: with
    an equilibration about a hundred times as long in collisions as the measured phase,
    it is a small part of the process's own time."""
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        began = time.monotonic()
        s = run_and_load(choc, d, config(BASE_3D, run="equilibrate = 20.0\ncollisions = 4000"))
        elapsed = time.monotonic() - began
        # Equilibration makes about 4e5 collisions, the measured phase 4e3: 1 % of the
        # work (1.6 % measured with start-up included). A quarter leaves room for any
        # machine's noise and still fails if equilibration (99 % of the work) is counted.
        check(0 < s["wall_seconds"] < 0.25 * elapsed,
              f"wall_seconds {s['wall_seconds']!r} of a process that took {elapsed:.3f} s, "
              "nearly all of it equilibrating")


def case_examples(choc, root):
    """Each data/examples/*.toml runs for a short time and exits 0."""
    paths = sorted(glob.glob(os.path.join(root, "data", "examples", "*.toml")))
    if not paths:
        print("note: no data/examples/*.toml yet; nothing to run")
        return
    problems = []
    for path in paths:
        with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
            start = time.monotonic()
            try:
                result = cli.run(choc, d, "--set", "run.time=0.2", "--set", "run.equilibrate=0",
                                 config=os.path.abspath(path), timeout=30)
            except Failure:
                problems.append(f"{os.path.basename(path)} did not finish within 30 s")
                continue
            took = time.monotonic() - start
            if result.returncode != 0:
                problems.append(f"{os.path.basename(path)}: exit {result.returncode}, "
                                f"stderr {result.stderr!r}")
            elif took > 5.0:
                problems.append(f"{os.path.basename(path)} took {took:.1f} s with run.time=0.2")
    check(not problems, "; ".join(problems))


def case_scripts_executable(choc, root):
    """Every script of data/, tests/, fuzz/ and .ci/ that starts with "#!" can be run as
    README shows it (`data/examples/plot_discs.py ...`): its executable bit is set (the
    plot scripts' were not; issue 43)."""
    problems = []
    for top in ("data", "tests", "fuzz", ".ci"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                path = os.path.join(d, name)
                if os.path.islink(path):
                    continue
                with open(path, "rb") as f:
                    if f.read(2) != b"#!":
                        continue
                if not os.access(path, os.X_OK):
                    problems.append(os.path.relpath(path, root))
    check(not problems, f"scripts with '#!' that are not executable: {sorted(problems)}")


def case_interrupt(choc, root):
    """SIGINT stops a long run: exit 130, and the summary covers the part run so far,
    conserving and overlap-free like any other. The run is far too long to finish
    within the wait, so the signal always arrives mid-run."""
    import signal
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        # How long this binary on this machine, as loaded as it is now, takes to start and
        # make a few thousand collisions (a sanitized build under load took over a second
        # to make its first): the signal waits twice that, and at least a second.
        cli.write(d, "config.toml", config(BASE_3D, run="collisions = 5000"))
        start = time.monotonic()
        cli.run(choc, d, timeout=300)
        wait = max(1.0, 2.0 * (time.monotonic() - start))
        for name in os.listdir(d):
            os.remove(os.path.join(d, name))
        process = cli.start(choc, d, toml=config(BASE_3D, run="collisions = 1000000000000"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(wait)
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise Failure("choc did not stop within 30 s of SIGINT")
        check(process.returncode == 130, f"exit status {process.returncode}, expected 130")
        s = cli.read_summary(d)
        check_keys(s)
        check(s["collisions"] > 0, "no collisions before the interrupt")
        check(s["interrupted"] is True, f"interrupted = {s['interrupted']!r}, expected true")
        check_conservation(s, mass=1.0)
        check_overlap(s)
        no_partials(d)


def case_measurements(choc, root):
    """output.timeseries, output.histogram and output.rdf as docs/REFERENCE.md says; per-species
    starting temperatures exact with zero momentum; the velocity and diffusion keys."""
    mixture = ('name = "A"\ncount = 500\nmass = 1.0\ntemperature = 2.0\n\n[[species]]\n'
               'name = "B"\ncount = 500\nmass = 3.0\ntemperature = 0.5')
    output = ('summary = "summary.json"\ntimeseries = { path = "series.csv", every = 0.25 }\n'
              'histogram = "speeds.csv"\nrdf = "gr.csv"\nvelocity_histogram = "vx.csv"')
    text = config(BASE_3D, species=mixture, run="time = 2.0", output=output,
                  init='lattice = "fcc"\nvelocities = "fixed_speed"\nseed = 3')
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        s = run_and_load(choc, d, text)
        check_keys(s)
        header, rows = cli.read_table(os.path.join(d, "series.csv"))
        expected = ["time", "collisions_per_particle", "temperature", "temperature_A",
                    "temperature_B", "Z", "kurtosis", "ks_distance", "ks_pvalue", "H", "msd"]
        check(header == expected, f"time-series columns {header}, expected {expected}")
        times = [r[0] for r in rows]
        check(times == [0.25 * k for k in range(9)], f"time-series times {times}")
        first = dict(zip(header, rows[0]))
        # kT_s = 2 KE_s / (d N_s) is set exactly; round-off only.
        check(abs(first["temperature_A"] - 2.0) < 1e-12 and abs(first["temperature_B"] - 0.5) < 1e-12,
              f"starting species temperatures {first['temperature_A']}, {first['temperature_B']}")
        check(abs(first["temperature"] - 1.25) < 1e-12, f"starting kT {first['temperature']}")
        check(all(abs(r[2] - 1.25) < 1e-12 for r in rows), "elastic run: kT not conserved")
        # Fixed speeds per species: the pooled mass-scaled speeds take two values, so the
        # kurtosis starts at <w^4>/<w^2>^2 = (4 + 0.25) / 2 / 1.25^2 = 1.36.
        check(abs(first["kurtosis"] - 1.36) < 1e-12, f"starting kurtosis {first['kurtosis']}")
        check(math.isnan(first["Z"]) and first["msd"] == 0.0, "Z and msd at t = 0")
        check(all(b[1] >= a[1] and b[10] >= 0 for a, b in zip(rows, rows[1:])),
              "collisions_per_particle must not decrease")
        last = dict(zip(header, rows[-1]))
        check(abs(last["Z"] - s["pressure"]["Z"]) < 1e-9 * s["pressure"]["Z"],
              f"last running Z {last['Z']} is not the summary's {s['pressure']['Z']}")
        check(abs(last["collisions_per_particle"] - 2 * s["collisions"] / s["N"]) < 1e-12,
              "collisions_per_particle of the last row")
        vd = s["velocity_distribution"]
        check(vd is not None and abs(vd["kurtosis"] - last["kurtosis"]) < 1e-12
              and abs(vd["ks_distance"] - last["ks_distance"]) < 1e-12
              and list(vd) == ["ks_distance", "ks_pvalue", "kurtosis"]
              and vd["ks_pvalue"] == last["ks_pvalue"],
              f"velocity_distribution {vd} is not the last row's")
        # Two fixed speeds at the start: a distance that no sample of MB comes near.
        check(first["ks_pvalue"] < 1e-30, f"starting ks_pvalue {first['ks_pvalue']}")
        check(s["diffusion"] is not None and s["diffusion"]["D"] > 0 and s["diffusion"]["D_err"] > 0,
              f"diffusion {s['diffusion']}")
        check(all(s["diffusion"][k] is None for k in ("D_infinite", "D_enskog", "ratio", "ratio_err")),
              f"a mixture has no Enskog reference: {s['diffusion']}")

        header, rows = cli.read_table(os.path.join(d, "speeds.csv"))
        check(header[:5] == ["speed_low", "speed_high", "speed", "density", "maxwell_boltzmann"]
              and header[5:] == ["density_A", "maxwell_boltzmann_A", "density_B",
                                 "maxwell_boltzmann_B"], f"histogram columns {header}")
        for column in (3, 4, 5, 7):  # each density integrates to 1 (MB up to its tail)
            total = sum(r[column] * (r[1] - r[0]) for r in rows)
            check(abs(total - 1.0) < (1e-12 if column != 4 else 2e-2),
                  f"{header[column]} integrates to {total}")

        header, rows = cli.read_table(os.path.join(d, "vx.csv"))
        check(header[:5] == ["vx_low", "vx_high", "vx", "density", "maxwell_boltzmann"],
              f"velocity histogram columns {header}")
        total = sum(r[3] * (r[1] - r[0]) for r in rows)
        check(abs(total - 1.0) < 1e-12, f"vx density integrates to {total}")
        check(abs(rows[0][0] + rows[-1][1]) < 1e-12, "vx range not symmetric")

        header, rows = cli.read_table(os.path.join(d, "gr.csv"))
        check(header == ["r", "g"], f"g(r) columns {header}")
        check(all(g == 0.0 for r, g in rows if r < 0.99), "g(r) > 0 inside the contact distance")
        check(max(g for r, g in rows) > 1.5, "no contact peak in g(r)")

    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        s = run_and_load(choc, d, config(SMALL_2D))
        # no 2D D, only its lags (docs/REFERENCE.md)
        check(s["diffusion"] is None or (s["diffusion"]["D"] is None and s["diffusion"]["lags"]),
              f"2D diffusion must have no D: {s['diffusion']}")
        check(s["velocity_distribution"] is not None, "2D velocity_distribution is null")


def case_diffusion_references(choc, root):
    """Beside D: Enskog's D for this density and temperature, and D at infinite size, the
    periodic cube's finite-size correction (Yeh-Hummer) added to D from many time origins
    (`windows`), as docs/PHYSICS.md writes them; here with Enskog's shear viscosity, as 60
    time units (430 mean free times) are too short for a measured one (no viscosity lag of
    ten mean free times has 16 pairs; cli_transport.py's dilute case has the measured one);
    none for an inelastic run."""
    ref = cli.reference_physics()
    radius, mass = 0.7, 2.0
    species = f'name = "A"\ncount = 1372\nradius = {radius}\nmass = {mass}'
    text = config(BASE_3D, species=species, run="time = 60.0")
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        s = run_and_load(choc, d, text)
        diffusion, kT, eta = s["diffusion"], s["temperature"], s["packing_fraction"]
        sigma = 2 * radius
        n = s["N"] / (math.pi / 6 * sigma ** 3 * s["N"] / eta)
        g = ref.contact_value(3, eta, ref.hansen_goos(eta))
        speed = math.sqrt(kT / (math.pi * mass))
        d_enskog = 3 / (8 * n * sigma ** 2) * speed / g
        check(s["shear_viscosity"]["eta"] is None, f"a measured viscosity: {s['shear_viscosity']}")
        b_rho = 4 * eta
        viscosity = (1.016 * 5 / (16 * sigma ** 2) * math.sqrt(mass * kT / math.pi)
                     * (1 / g + 0.8 * b_rho + 0.7614 * g * b_rho ** 2))
        edge = (s["N"] * math.pi / 6 * sigma ** 3 / eta) ** (1 / 3)
        correction = 2.837297 * kT / (6 * math.pi * viscosity * edge)
        windows = diffusion["windows"]
        # Independent arithmetic of the same formulas: round-off, and the packing fraction
        # read back from the summary (written to 15 digits or more).
        check(close(diffusion["D_enskog"], d_enskog, 1e-9),
              f"D_enskog {diffusion['D_enskog']}, expected {d_enskog}")
        check(diffusion["finite_size"]["D_from"] == "windows"
              and diffusion["finite_size"]["eta_from"] == "enskog"
              and close(diffusion["finite_size"]["correction"], correction, 1e-6),
              f"finite-size correction {diffusion['finite_size']}, expected {correction}")
        check(close(diffusion["D_infinite"] - windows["D"], correction, 1e-6),
              f"D_infinite {diffusion['D_infinite']} - windows' D {windows['D']}, expected "
              f"{correction}")
        error = windows["D_err"]
        check(close(diffusion["D_infinite_err"], error, 1e-9)
              and close(diffusion["ratio"], diffusion["D_infinite"] / d_enskog, 1e-9)
              and close(diffusion["ratio_err"], error / d_enskog, 1e-9),
              f"D_infinite_err {diffusion['D_infinite_err']}, expected {error}; ratio "
              f"{diffusion['ratio']} +- {diffusion['ratio_err']}")
        # D from many time origins: lags doubling from the first, pairs of windows halving
        # (the windows of every lag are cut on one grid of samples), and `windows` the
        # longest lag with at least 16 pairs, if it is five mean free times or more (here
        # 60 time units are about 440 mean free times: the second lag qualifies)
        lags = diffusion["lags"]
        check(len(lags) >= 5 and all(b["lag"] == 2 * a["lag"] and b["pairs"] == a["pairs"] // 2
                                     for a, b in zip(lags, lags[1:])), f"lags {lags}")
        longest = [l for l in lags if l["pairs"] >= 16][-1]
        check(longest["lag"] >= 5 * s["mean_free_time"] and diffusion["windows"] == longest,
              f"windows {diffusion['windows']}, mean free time {s['mean_free_time']}")
        check(all(l["D"] > 0 and (l["D_err"] is None) == (l["pairs"] < 2) for l in lags),
              f"lags {lags}")
        own = diffusion["species"]
        check(len(own) == 1 and own[0]["name"] == "A" and own[0]["D"] == diffusion["D"]
              and own[0]["D_err"] == diffusion["D_err"], f"one species' own D {own}")
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        # a dilute gas for about 55 mean free times: its longest lag with 16 pairs is about
        # one mean free time, too short for D; `windows` says so with null
        s = run_and_load(choc, d, config(BASE_3D, box='packing_fraction = 0.01\nboundary = "periodic"',
                                          run="time = 400.0"))
        lags = s["diffusion"]["lags"]
        check(lags and s["diffusion"]["windows"] is None
              and [l for l in lags if l["pairs"] >= 16][-1]["lag"] < 5 * s["mean_free_time"],
              f"dilute gas: windows {s['diffusion']['windows']}, lags {lags}")
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        s = run_and_load(choc, d, config(BASE_3D, collisions="restitution = 0.95",
                                          run="time = 3.0"))
        check(s["diffusion"] is not None and s["diffusion"]["D_enskog"] is None
              and s["diffusion"]["ratio"] is None,
              f"an inelastic run has no Enskog reference: {s['diffusion']}")


def case_diffusion_per_species(choc, root):
    """Each species' own D in a mixture of equal spheres of masses 1 and 4. The overall D is
    the two weighted by their numbers (the same groups' slopes), and the light spheres
    diffuse faster: kinetic theory's first approximation (Blanc's law with D_ij ~ 1 / sqrt of
    the reduced mass) gives 1.40 for these numbers in a dilute gas; at packing fraction 0.2
    this run gives 1.37 +- 0.11, so (1.1, 1.7) leaves about 2.5 errors either side."""
    species = ('name = "light"\ncount = 1000\nradius = 0.5\nmass = 1.0\n\n[[species]]\n'
               'name = "heavy"\ncount = 600\nradius = 0.5\nmass = 4.0')
    text = config(BASE_3D, box='packing_fraction = 0.2\nboundary = "periodic"',
                  species=species, run="equilibrate = 5.0\ntime = 40.0",
                  init='velocities = "maxwell"\ntemperature = 1.0\nseed = 5')
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        s = run_and_load(choc, d, text)
        diffusion = s["diffusion"]
        light, heavy = diffusion["species"]
        check(light["name"] == "light" and heavy["name"] == "heavy", f"species {diffusion['species']}")
        # collision rates per pair of species: every collision counted once per partner
        rows = s["species"]
        check(close(sum(r["count"] * r["collision_rate"] for r in rows) / s["N"], s["collision_rate"], 1e-12)
              and close(1000 * rows[0]["collision_rates"]["heavy"], 600 * rows[1]["collision_rates"]["light"], 1e-12)
              and all(close(r["collision_rate"], sum(r["collision_rates"].values()), 1e-12) for r in rows),
              f"species collision rates {rows}, collision_rate {s['collision_rate']}")
        mean = (1000 * light["D"] + 600 * heavy["D"]) / 1600
        check(close(diffusion["D"], mean, 1e-12), f"D {diffusion['D']} is not the species' mean {mean}")
        ratio = light["D"] / heavy["D"]
        check(1.1 < ratio < 1.7, f"D_light / D_heavy = {ratio}")
        check(light["D_err"] > 0 and heavy["D_err"] > 0, f"errors {light}, {heavy}")


def case_row_limit(choc, root):
    """At most a million time-series rows: rows at t = 0, 1, ..., T. run.time = 999999 with
    every = 1 writes exactly the limit and succeeds (it used to fail at its last row, after
    the config check had let it through); run.time = 1e6 would write one more and is refused
    up front, status 2, no output."""
    one = dict(BASE_2D, box='size = [10.0, 10.0]\nboundary = "periodic"',
               species='name = "A"\ncount = 1\nradius = 0.5\nmass = 1.0')
    series = 'summary = "summary.json"\ntimeseries = { path = "s.csv", every = 1.0 }'
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        result = run_choc(choc, d, config(one, run="time = 999999.0", output=series),
                          ["--quiet"], timeout=300)
        expect_success(result)
        rows = len(cli.data_lines(os.path.join(d, "s.csv"))) - 1
        check(rows == 1000000, f"{rows} rows for run.time = 999999, every = 1")
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        result = run_choc(choc, d, config(one, run="time = 1e6", output=series), ["--quiet"])
        check(result.returncode == 2, f"run.time = 1e6, every = 1: status {result.returncode}")
        check("1000001 rows, more than the limit of 1000000" in result.stderr, result.stderr)
        check(not os.path.exists(os.path.join(d, "s.csv")), "a refused run wrote s.csv")


def case_provenance(choc, root):
    """The summary says where it comes from: the commit (40 hex digits, or "unknown"
    outside git), the config as run with --set applied, the seed, the command line, UTC
    start and end, the host. The recorded config is complete: run on its own, it gives
    the same summary."""
    import re
    import tomllib
    with tempfile.TemporaryDirectory(prefix="choc-run-") as d:
        args = ["--set", "init.seed=7", "--set", "box.packing_fraction=0.30000000000000004"]
        s = run_and_load(choc, d, config(SMALL_2D), args)
        p = s["provenance"]
        check(re.fullmatch(r"[0-9a-f]{40}|unknown", p["git_commit"]), f"git_commit {p['git_commit']!r}")
        check(p["seed"] == 7, f"provenance seed {p['seed']!r}")
        check(p["command_line"][1:] == ["run", "config.toml", "--quiet"] + args,
              f"command_line {p['command_line']!r}")
        stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
        check(re.fullmatch(stamp, p["started"]) and re.fullmatch(stamp, p["finished"])
              and p["started"] <= p["finished"], f"times {p['started']!r} .. {p['finished']!r}")
        check(p["host"] != "", "empty host")
        resolved = tomllib.loads(p["config"])
        check(resolved["init"]["seed"] == 7
              and resolved["box"]["packing_fraction"] == 0.30000000000000004,
              f"recorded config lacks the --set values: {resolved}")
        again = run_and_load(choc, d, p["config"], summary="summary.json")
        first, second = without_timings(s), without_timings(again)
        first["provenance"].pop("command_line")
        second["provenance"].pop("command_line")
        diff = sorted(k for k in first if first[k] != second.get(k))
        check(not diff, f"the recorded config run on its own differs in {diff}")


CASES = [
    ("scripts executable", case_scripts_executable),
    ("3D 1e5 collisions", case_3d),
    ("2D 1e5 collisions", case_2d),
    ("determinism", case_determinism),
    ("provenance", case_provenance),
    ("--set overrides", case_set_overrides),
    ("--summary and --quiet", case_summary_and_quiet),
    ("trajectory frames", case_trajectory),
    ("trajectory frames across rebasing", case_trajectory_long),
    ("a million time-series rows at most", case_row_limit),
    ("restart from a frame is exact", case_restart),
    ("restart from a frame with the config unedited", case_restart_unedited),
    ("all at rest: no velocity distribution", case_at_rest),
    ("hard walls", case_walls),
    ("time-limited run", case_time_limit),
    ("wall clock of the measured phase", case_wall_clock),
    ("example configs", case_examples),
    ("SIGINT", case_interrupt),
    ("measurements", case_measurements),
    ("diffusion_references", case_diffusion_references),
    ("diffusion_per_species", case_diffusion_per_species),
]


if __name__ == "__main__":
    # (KeyError, ...: a summary or frame not as docs/REFERENCE.md says)
    sys.exit(cli.main(__doc__, CASES, 2, catch=(KeyError, TypeError, ValueError, IndexError)))
