#!/usr/bin/env python3
"""Checkpoints and `choc run --continue` (docs/REFERENCE.md, "Checkpoints and continuation").

A run stopped anywhere and continued from its checkpoint must give what one uninterrupted
run gives, to the bit: the summary (every key but the wall-clock ones and the provenance),
every trajectory frame (ignoring the provenance keys of the comment line), every
time-series row, g(r) and the histograms. Stops tried: a shorter run.time or
run.collisions extended by the continuation (deterministic points, several per system,
some falling inside an epsilon window), SIGTERM at moments spread over the run (start-up,
equilibration, measured phase), and SIGKILL (the continuation starts from the last
periodic checkpoint and cuts the streamed outputs back to it). Systems: a 3D mixture with
every observer; a 2D walled hourglass with segments, gravity, e < 1, TC and epsilon > 0; a
3D hopper of triangles with the same, counting the grains through its outlet (output.crossing);
3D spheres under gravity and drag between walls with epsilon > 0, limited by collisions;
a 2D mixture under gravity between thermal walls, whose draws continue where they stopped,
with its slab profiles; a thermostatted 3D mixture between sliding boundaries (with a
profile across them) and unthermostatted discs limited by collisions. The hourglass and the spheres write histogram series (output.histogram with every; the hourglass also
output.velocity_histogram): their snapshots taken before a stop are part of the
checkpoint, and a cooling gas puts values outside the bins.

Refused with exit 2 and nothing changed: a config that differs in anything but the run
limits, output.checkpoint and the outputs' paths (naming the key); a damaged checkpoint
(any changed byte, cut at any length); a file that is not a checkpoint; a checkpoint of
another choc version; a trajectory that is not the one the checkpoint covers (cut short,
or a byte changed anywhere before the mark).

Usage: python3 tests/cli/cli_checkpoint.py CHOC_EXECUTABLE
"""

import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import choc_cli as cli
from choc_cli import Failure, check

OUTPUTS = """
[output]
summary = "summary.json"
trajectory = {{ path = "traj.xyz", every = {frame} }}
timeseries = {{ path = "series.csv", every = {row} }}
checkpoint = {{ path = "state.chk", every = {checkpoint} }}
"""

MIXTURE_3D = """dimension = 3
[box]
packing_fraction = 0.3
[[species]]
name = "A"
count = 600
[[species]]
name = "B"
count = 200
radius = 0.3
mass = 0.25
[init]
lattice = "fcc"
seed = 4
[run]
time = 6.0
equilibrate = 1.0
""" + OUTPUTS.format(frame=1.0, row=0.5, checkpoint=0.7) + """rdf = "rdf.csv"
histogram = "hist.csv"
velocity_histogram = "vhist.csv"
"""

HOURGLASS_2D = """dimension = 2
[box]
size = [20.0, 40.0]
boundary = "wall"
[[species]]
name = "grain"
count = 120
[[species]]
name = "dust"
count = 60
radius = 0.3
mass = 0.3
[collisions]
restitution = 0.9
tc = 0.05
epsilon = 1e-9
contact_gap = 1e-6
[field]
gravity = [0.0, -5.0]
[[walls]]
from = [0.0, 25.0]
to = [8.5, 15.0]
restitution = 0.9
[[walls]]
from = [20.0, 25.0]
to = [11.5, 15.0]
restitution = 0.9
[init]
lattice = "random"
region = { low = [0.0, 26.0], high = [20.0, 40.0] }
seed = 11
[run]
time = 6.0
equilibrate = 0.5
""" + OUTPUTS.format(frame=0.5, row=0.25, checkpoint=0.6) + """histogram = { path = "hist.csv", every = 0.4 }
velocity_histogram = { path = "vhist.csv", every = 0.7 }
"""

# A square 3D hopper of eight triangles (a trapezoid per side, z = 8 down to 5, its
# outlet 3 wide), with gravity, e < 1, TC and epsilon > 0.
def hopper_walls():
    top = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)]
    low = [(3.5, 3.5), (6.5, 3.5), (6.5, 6.5), (3.5, 6.5)]
    text = ""
    for k in range(4):
        a, b = top[k], top[(k + 1) % 4]
        c, d = low[(k + 1) % 4], low[k]
        for tri in ((a, b, c), (a, c, d)):
            corners = [f"[{x[0]}, {x[1]}, {8.0 if x in top else 5.0}]" for x in tri]
            text += f"[[walls]]\nvertices = [{', '.join(corners)}]\nrestitution = 0.85\n"
    return text


HOPPER_3D = """dimension = 3
[box]
size = [10.0, 10.0, 16.0]
boundary = "wall"
[[species]]
name = "A"
count = 150
[collisions]
restitution = 0.9
tc = 0.01
epsilon = 1e-9
[field]
gravity = [0.0, 0.0, -5.0]
""" + hopper_walls() + """[init]
lattice = "random"
region = { low = [0.0, 0.0, 9.0], high = [10.0, 10.0, 16.0] }
seed = 12
[run]
time = 4.0
equilibrate = 0.3
""" + OUTPUTS.format(frame=0.5, row=0.25, checkpoint=0.6) + """crossing = { point = [5.0, 5.0, 5.0], normal = [0.0, 0.0, -1.0] }
"""

DRAG_3D = """dimension = 3
[box]
size = [8.0, 8.0, 12.0]
boundary = ["periodic", "periodic", "wall"]
[[species]]
name = "A"
count = 150
[[species]]
name = "B"
count = 50
radius = 0.35
mass = 0.5
[collisions]
restitution = 0.95
epsilon = 1e-10
[field]
gravity = [0.0, 0.0, -1.0]
drag = 0.05
[init]
lattice = "random"
seed = 13
[run]
collisions = 60000
""" + OUTPUTS.format(frame=0.5, row=0.25, checkpoint=1.5) + """histogram = { path = "hist.csv", every = 0.3 }
"""

# The time-stepped integrator in a walled 3D box under gravity with inelastic walls, its
# EDMD run beside it (recomputed from the start by a continuation).
TIMESTEP_3D = """dimension = 3
[box]
size = [8.0, 8.0, 10.0]
boundary = ["periodic", "periodic", "wall"]
wall_restitution = 0.9
[[species]]
name = "A"
count = 200
[field]
gravity = [0.0, 0.0, -1.0]
[init]
lattice = "random"
seed = 17
[run]
time = 6.0
equilibrate = 0.7
integrator = "timestep"
dt = 0.013
passes = 2
""" + OUTPUTS.format(frame=0.5, row=0.25, checkpoint=1.1)

# The files a run writes, compared between the split and the uninterrupted run.
# Thermal walls (their generator's state goes into the checkpoint): a 2D gas under gravity
# between a hot floor and a cold ceiling, with its slab profiles and the heat between the
# two; a mixture, so that the profile's packing fraction adds two sizes.
THERMAL_2D = """dimension = 2
[box]
size = [12.0, 16.0]
boundary = ["periodic", "wall"]
wall_temperature = [2.0, 0.5]
[[species]]
name = "A"
count = 80
[[species]]
name = "B"
count = 40
radius = 0.3
mass = 0.5
[field]
gravity = [0.0, -0.2]
[init]
lattice = "random"
seed = 23
[run]
equilibrate = 1.0
time = 8.0
""" + OUTPUTS.format(frame=1.0, row=0.5, checkpoint=1.5) + """profile = { path = "profile.csv", slabs = 8 }
"""

# Spheres of two sizes between sliding boundaries, thermostatted: the sliding clock, the
# shear moment's account, the drift and the thermostat's collision count continue where
# they stopped. (A fast shear: many ticks and thermostats in a short run.)
SHEAR_3D = """dimension = 3
[box]
packing_fraction = 0.35
shear_rate = -0.4
shear_temperature = 1.2
[[species]]
name = "A"
count = 300
[[species]]
name = "B"
count = 100
radius = 0.25
mass = 0.2
[init]
lattice = "fcc"
seed = 9
[run]
equilibrate = 1.0
time = 6.0
""" + OUTPUTS.format(frame=1.0, row=0.5, checkpoint=1.5) + """profile = { path = "profile.csv", axis = "y", slabs = 6 }
"""

# Discs sheared without a thermostat, limited by collisions.
SHEAR_2D = """dimension = 2
[box]
size = [18.0, 14.0]
shear_rate = 0.3
[[species]]
name = "A"
count = 150
[init]
lattice = "random"
seed = 2
[run]
collisions = 30000
""" + OUTPUTS.format(frame=1.0, row=0.5, checkpoint=1.5)

STREAMED = ("traj.xyz", "series.csv")
FINAL = ("rdf.csv", "hist.csv", "vhist.csv", "profile.csv")
PROVENANCE_KEY = re.compile(
    r' (choc_version|git_commit|seed|started|host|command_line|config)=("(?:[^"\\]|\\.)*"|\S+)')


def choc_run(choc, d, *args, timeout=600):
    return cli.run(choc, d, *args, timeout=timeout)


def setup(d, text):
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    cli.write(d, "config.toml", text)


def outcome(d):
    """What must be equal to the bit: the summary without wall-clock keys and provenance,
    the frames without their provenance keys, the series rows, the final outputs."""
    summary = cli.read_summary(d)
    for key in ("wall_seconds", "collisions_per_second", "provenance"):
        summary.pop(key, None)
    if summary.get("timestep") and summary["timestep"].get("edmd"):
        summary["timestep"]["edmd"].pop("wall_seconds")
    result = {"summary": summary}
    with open(os.path.join(d, "traj.xyz")) as f:
        result["traj.xyz"] = [PROVENANCE_KEY.sub("", line) if line.startswith("Lattice=")
                              else line for line in f]
    result["series.csv"] = cli.data_lines(os.path.join(d, "series.csv"), keepends=True)
    for name in FINAL:  # (profile.csv's provenance comments left out)
        path = os.path.join(d, name)
        if os.path.exists(path):
            result[name] = "".join(cli.data_lines(path, keepends=True))
    return result


def same(expected, got, what):
    for key in expected:
        if expected[key] != got.get(key):
            if isinstance(expected[key], list):
                lines = [i for i, (a, b) in enumerate(zip(expected[key], got.get(key, [])))
                         if a != b]
                detail = (f"first differing line {lines[0]}" if lines else
                          f"{len(expected[key])} lines expected, {len(got.get(key, []))} got")
            elif isinstance(expected[key], dict):
                detail = ", ".join(k for k in expected[key]
                                   if expected[key][k] != got[key].get(k)) or "keys differ"
            else:
                detail = "content differs"
            raise Failure(f"{what}: {key} differs from the uninterrupted run ({detail})")


def reference(choc, d, text):
    setup(d, text)
    start = time.monotonic()
    r = choc_run(choc, d)
    check(r.returncode == 0, f"uninterrupted run failed: {r.stderr}")
    return outcome(d), time.monotonic() - start


def continued(choc, d, what):
    r = choc_run(choc, d, "--continue", "state.chk")
    check(r.returncode == 0, f"{what}: --continue exited {r.returncode}: {r.stderr}")
    return outcome(d)


def check_extensions(choc, d, text, expected, limit_key, limits):
    """A shorter run, extended by --continue to the config's limit."""
    for limit in limits:
        setup(d, text)
        r = choc_run(choc, d, "--set", f"{limit_key}={limit}")
        check(r.returncode == 0, f"{limit_key} = {limit}: exited {r.returncode}: {r.stderr}")
        same(expected, continued(choc, d, f"{limit_key} = {limit}"),
             f"stopped at {limit_key} = {limit} and continued")


def finished(d):
    """The run in `d` wrote the summary of a complete run."""
    try:
        return not cli.read_summary(d)["interrupted"]
    except (Failure, OSError, KeyError):
        return False


def check_signals(choc, d, text, expected, seconds, sig, fractions):
    """The run stopped by `sig` after a fraction of its uninterrupted wall time; at least
    one of the stops must have found the run under way with a checkpoint written."""
    continuations = 0
    for fraction in fractions:
        setup(d, text)
        process = cli.start(choc, d, stderr=subprocess.PIPE, text=True)
        time.sleep(fraction * seconds)
        process.send_signal(sig)
        _, err = process.communicate(timeout=600)
        what = f"{signal.Signals(sig).name} after {fraction:.2f} of the run's wall time"
        if process.returncode == 0:
            continue  # it finished first: nothing to continue from but its end
        if process.returncode == -sig and not os.path.exists(os.path.join(d, "state.chk")):
            # killed before the first checkpoint, or (SIGTERM) before the program could
            # install its handler while it was still being loaded: nothing to continue
            continue
        if process.returncode == 130 and "nothing was written" in err:
            # stopped while its mesh was read or listed by cell (REFERENCE, exit status
            # 130): nothing to continue from. Seen for the hopper at 0.30 of its wall time
            # on a loaded machine, where the start takes a larger share of the run.
            continue
        if process.returncode == -sig and finished(d):
            continue  # the run was over and the process exiting (its handler gone)
        check(process.returncode == (130 if sig != signal.SIGKILL else -signal.SIGKILL),
              f"{what}: exit {process.returncode}: {err}")
        same(expected, continued(choc, d, what), what)
        continuations += 1
    if continuations == 0:
        # Every timed stop missed (the machine's load changed since the reference run was
        # timed): stop the run once a second checkpoint has replaced the first, which is
        # under way by construction unless the run ends before writing it.
        continuations += signal_after_second_checkpoint(choc, d, text, expected, sig)
    check(continuations > 0, f"no {signal.Signals(sig).name} found the run under way")


def signal_after_second_checkpoint(choc, d, text, expected, sig):
    setup(d, text)
    path = os.path.join(d, "state.chk")
    process = cli.start(choc, d, stderr=subprocess.PIPE, text=True)
    first = None
    while process.poll() is None:
        try:
            inode = os.stat(path).st_ino  # checkpoints are renamed into place: new inode
        except OSError:
            inode = None
        if first is None:
            first = inode
        elif inode is not None and inode != first:
            break
        time.sleep(0.001)
    process.send_signal(sig)
    _, err = process.communicate(timeout=600)
    what = f"{signal.Signals(sig).name} after the second checkpoint"
    if process.returncode == 0 or finished(d):
        return 0
    check(process.returncode == (130 if sig != signal.SIGKILL else -signal.SIGKILL),
          f"{what}: exit {process.returncode}: {err}")
    same(expected, continued(choc, d, what), what)
    return 1


def check_first_checkpoint(choc, d, text, expected, what):
    """SIGKILL as soon as the first periodic checkpoint exists, then continue from it: with
    checkpoint.every below run.equilibrate that is a split during equilibration."""
    setup(d, text)
    process = cli.start(choc, d)
    cli.wait_for(process, os.path.join(d, "state.chk"))
    process.kill()
    process.wait()
    check(os.path.exists(os.path.join(d, "state.chk")), f"{what}: no checkpoint written")
    same(expected, continued(choc, d, what), what)


def case_mixture_3d(choc):
    with tempfile.TemporaryDirectory() as d:
        expected, seconds = reference(choc, d, MIXTURE_3D)
        check_extensions(choc, d, MIXTURE_3D, expected, "run.time", [0.3, 2.05, 4.5])
        check_signals(choc, d, MIXTURE_3D, expected, seconds, signal.SIGTERM,
                      [0.02, 0.15, 0.4, 0.7, 0.9])
        check_signals(choc, d, MIXTURE_3D, expected, seconds, signal.SIGKILL, [0.5, 0.8])
        check_first_checkpoint(choc, d, MIXTURE_3D, expected,
                               "continued from the checkpoint at t = 0.7, in equilibration")


def case_hourglass_2d(choc):
    with tempfile.TemporaryDirectory() as d:
        expected, seconds = reference(choc, d, HOURGLASS_2D)
        check(expected["summary"]["events"] > 0, "the hourglass ran no events")
        check_extensions(choc, d, HOURGLASS_2D, expected, "run.time",
                         [0.1, 1.3333, 2.5, 3.0000001, 4.75])
        check_signals(choc, d, HOURGLASS_2D, expected, seconds, signal.SIGTERM,
                      [0.05, 0.3, 0.6, 0.85])
        check_first_checkpoint(choc, d, HOURGLASS_2D.replace("every = 0.6", "every = 0.3"),
                               expected, "continued from the checkpoint at t = 0.3, in "
                               "equilibration")


def case_hopper_3d(choc):
    with tempfile.TemporaryDirectory() as d:
        expected, seconds = reference(choc, d, HOPPER_3D)
        check(expected["summary"]["wall_collisions"] > 0, "the hopper's grains met no wall")
        check_extensions(choc, d, HOPPER_3D, expected, "run.time", [0.2, 1.2345, 2.5, 3.9])
        check_signals(choc, d, HOPPER_3D, expected, seconds, signal.SIGTERM, [0.3, 0.7])


def case_drag_3d_collisions(choc):
    with tempfile.TemporaryDirectory() as d:
        expected, seconds = reference(choc, d, DRAG_3D)
        check_extensions(choc, d, DRAG_3D, expected, "run.collisions", [1, 777, 20000, 45001])
        check_signals(choc, d, DRAG_3D, expected, seconds, signal.SIGTERM, [0.3, 0.7])


def case_thermal_2d(choc):
    with tempfile.TemporaryDirectory() as d:
        expected, seconds = reference(choc, d, THERMAL_2D)
        heat = expected["summary"]["heat_conduction"]
        check(heat is not None and heat["wall_heat"][0] > 0 > heat["wall_heat"][1],
              f"no heat from the hot floor to the cold ceiling: {heat}")
        check(len(expected["profile.csv"].splitlines()) == 9, "profile.csv: not 8 slabs")
        check_extensions(choc, d, THERMAL_2D, expected, "run.time", [0.4, 3.3, 7.99])
        check_signals(choc, d, THERMAL_2D, expected, seconds, signal.SIGTERM, [0.3, 0.7])


def case_shear_3d(choc):
    with tempfile.TemporaryDirectory() as d:
        expected, seconds = reference(choc, d, SHEAR_3D)
        shear = expected["summary"]["sliding_shear"]
        check(shear is not None and shear["stress"] > 0, f"no stress against the shear: {shear}")
        check_extensions(choc, d, SHEAR_3D, expected, "run.time", [0.25, 2.2, 4.9])
        check_signals(choc, d, SHEAR_3D, expected, seconds, signal.SIGTERM, [0.3, 0.7])
        check_first_checkpoint(choc, d, SHEAR_3D.replace("every = 1.5", "every = 0.5"),
                               expected, "continued from the checkpoint at t = 0.5, in "
                               "equilibration")


def case_shear_2d(choc):
    with tempfile.TemporaryDirectory() as d:
        expected, seconds = reference(choc, d, SHEAR_2D)
        check(expected["summary"]["sliding_shear"] is not None, "no sliding_shear")
        check_extensions(choc, d, SHEAR_2D, expected, "run.collisions", [1, 9000, 29999])
        check_signals(choc, d, SHEAR_2D, expected, seconds, signal.SIGTERM, [0.5])


def case_timestep_3d(choc):
    with tempfile.TemporaryDirectory() as d:
        expected, seconds = reference(choc, d, TIMESTEP_3D)
        check(expected["summary"]["timestep"]["steps"] > 0, "the stepped run took no steps")
        check_extensions(choc, d, TIMESTEP_3D, expected, "run.time", [0.5, 2.6, 4.0001])
        check_signals(choc, d, TIMESTEP_3D, expected, seconds, signal.SIGTERM, [0.3, 0.7])


def refused(choc, d, args, needle, what):
    before = {f: open(os.path.join(d, f), "rb").read() for f in os.listdir(d)}
    r = choc_run(choc, d, *args)
    check(r.returncode == 2, f"{what}: exit {r.returncode}, expected 2: {r.stderr}")
    check(needle in r.stderr, f"{what}: the error does not mention {needle!r}: {r.stderr}")
    check(r.stderr.count("\n") == 1, f"{what}: expected one error line: {r.stderr}")
    after = {f: open(os.path.join(d, f), "rb").read() for f in os.listdir(d)}
    check(before == after, f"{what}: files changed although the run was refused")


def case_refusals(choc):
    text = HOURGLASS_2D.replace("time = 6.0", "time = 1.0")
    with tempfile.TemporaryDirectory() as d:
        setup(d, text)
        r = choc_run(choc, d)
        check(r.returncode == 0, f"run failed: {r.stderr}")
        good = open(os.path.join(d, "state.chk"), "rb").read()
        # the config: anything but limits, checkpoints and paths is refused, by name
        refused(choc, d, ["--continue", "state.chk", "--set", "species[1].count=61"],
                "species[1].count", "a changed species count")
        refused(choc, d, ["--continue", "state.chk", "--set", "collisions.restitution=0.8"],
                "collisions.restitution", "a changed restitution")
        refused(choc, d, ["--continue", "state.chk", "--set", "output.trajectory.every=0.25"],
                "output.trajectory.every", "a changed frame interval")
        refused(choc, d, ["--continue", "state.chk", "--set", "run.equilibrate=0.25"],
                "run.equilibrate", "a changed equilibration")
        # damage: a flipped byte anywhere is caught by the checksum
        for offset in (0, 20, len(good) // 3, len(good) - 1):
            bad = bytearray(good)
            bad[offset] ^= 0x40
            open(os.path.join(d, "bad.chk"), "wb").write(bad)
            refused(choc, d, ["--continue", "bad.chk"], "bad.chk",
                    f"a byte changed at offset {offset}")
        # cut short at lengths spread over the file (every length: tests/unit/test_checkpoint)
        for length in sorted({0, 1, 15, 16, 40, len(good) // 2, len(good) - 4,
                              len(good) - 1}):
            open(os.path.join(d, "bad.chk"), "wb").write(good[:length])
            refused(choc, d, ["--continue", "bad.chk"], "bad.chk", f"cut to {length} bytes")
        open(os.path.join(d, "bad.chk"), "w").write("dimension = 3\n")
        refused(choc, d, ["--continue", "bad.chk"], "not a choc checkpoint", "a TOML file")
        refused(choc, d, ["--continue", "missing.chk"], "missing.chk", "a missing file")
        # an output other than the checkpoint itself may not replace the checkpoint read
        refused(choc, d, ["--continue", "state.chk", "--set", "output.checkpoint.path=new.chk",
                          "--set", "output.summary=state.chk"],
                "--continue", "the summary written over the checkpoint")
        # another version: the version string changed and the checksum made right again
        (length,) = struct.unpack_from("<Q", good, 20)
        version = good[28:28 + length]
        other = bytearray(good[:28]) + b"9" * length + good[28 + length:-4]
        other += struct.pack("<I", zlib.crc32(bytes(other)) & 0xffffffff)
        open(os.path.join(d, "other.chk"), "wb").write(other)
        refused(choc, d, ["--continue", "other.chk"], "written by choc " + "9" * length,
                f"a checkpoint of another version (this one is {version.decode()})")
        # an older checkpoint format of the same version (the layout of the state changed
        # since it was written): refused, naming both formats
        (fmt,) = struct.unpack_from("<I", good, 16)
        other = bytearray(good[:16]) + struct.pack("<I", fmt - 1) + good[20:-4]
        other += struct.pack("<I", zlib.crc32(bytes(other)) & 0xffffffff)
        open(os.path.join(d, "other.chk"), "wb").write(other)
        refused(choc, d, ["--continue", "other.chk"],
                f"checkpoint format {fmt - 1}); this is choc {version.decode()} "
                f"(checkpoint format {fmt})", "a checkpoint of an older format")
        # a crafted version string (issue 41): terminal escapes and 5000 bytes, shown escaped
        # and cut (the checksum made right, so only the version check can refuse it)
        crafted = b"\x1b[31m" + b"A" * 5000 + b"\n"
        other = (bytearray(good[:20]) + struct.pack("<Q", len(crafted)) + crafted +
                 good[28 + length:-4])
        other += struct.pack("<I", zlib.crc32(bytes(other)) & 0xffffffff)
        open(os.path.join(d, "other.chk"), "wb").write(other)
        refused(choc, d, ["--continue", "other.chk"], "written by choc \\x1b[31mAAAA",
                "a crafted version string")
        r = choc_run(choc, d, "--continue", "other.chk")
        line = r.stderr.strip()
        check(all(" " <= c <= "~" for c in line) and len(line) < 600,
              f"a crafted version string: {len(line)} characters, not all printable: {line!r}")
        # the trajectory cut short after the checkpoint was written: not the same file
        os.remove(os.path.join(d, "bad.chk"))
        os.remove(os.path.join(d, "other.chk"))
        path = os.path.join(d, "traj.xyz")
        whole = open(path, "rb").read()
        open(path, "wb").write(whole[:len(whole) // 2])
        refused(choc, d, ["--continue", "state.chk"], "output.trajectory.path",
                "a trajectory shorter than the checkpoint covers")
        # one byte changed in the first frame's comment line, far more than 4 KiB before
        # the mark (the whole file is checksummed, not its last 4096 bytes)
        at = whole.index(b" Time=0") + len(b" Time=")
        check(len(whole) - at > 3 * 4096, f"the trajectory is too short ({len(whole)} bytes)")
        open(path, "wb").write(whole[:at] + b"1" + whole[at + 1:])
        refused(choc, d, ["--continue", "state.chk"], "output.trajectory.path",
                f"a byte changed {len(whole) - at} bytes before the mark")
        open(path, "wb").write(whole)
        r = choc_run(choc, d, "--continue", "state.chk")
        check(r.returncode == 0, f"the trajectory put back: --continue exited {r.returncode}: "
              f"{r.stderr}")


CASES = [
    ("mixture_3d", case_mixture_3d),
    ("timestep_3d", case_timestep_3d),
    ("hourglass_2d", case_hourglass_2d),
    ("hopper_3d", case_hopper_3d),
    ("drag_3d_collisions", case_drag_3d_collisions),
    ("thermal_2d", case_thermal_2d),
    ("shear_3d", case_shear_3d),
    ("shear_2d", case_shear_2d),
    ("refusals", case_refusals),
]


if __name__ == "__main__":
    sys.exit(cli.main(__doc__, CASES, 1, catch=(KeyError, OSError, subprocess.TimeoutExpired)))
