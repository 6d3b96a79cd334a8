#!/usr/bin/env python3
"""Outputs and signals of `choc run` (docs/REFERENCE.md, "Output files of a run" and exit status 130):
special files, links and directories are refused; names too long for their temporary
are refused up front; outputs are compared as files, not as text; temporaries left by a
killed run are removed by the next one; the trajectory is bounded by the free space and
by output.trajectory.max_bytes; a run owns its outputs (a second run given the same ones
while the first goes on is refused and changes no file); a signal during start-up or
equilibration gives status 130 and a summary; one while a large mesh is read or listed by
cell stops it within a second and writes nothing.

Usage: python3 tests/cli/cli_outputs.py CHOC_EXECUTABLE
"""

import math
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

import choc_cli as cli
from choc_cli import Failure, check

# 100 discs at 0.3 for one time unit, a summary
SMALL = cli.fixture("gas2d.toml")
TEMPORARY = re.compile(r"^\..*\.choc-\d+-[0-9a-f]{8}\.tmp$")


def run(choc, d, *args, text=SMALL, timeout=60):
    return cli.run(choc, d, *args, toml=text, timeout=timeout)


def temporaries(d):
    return [f for f in os.listdir(d) if TEMPORARY.match(f)]


def refused(result, d, *names, keep=()):
    """Exit 2, one `choc: error:` line naming every one of `names`, nothing written."""
    cli.check_refused(result, d, all_of=names, keep=keep)


def case_special_files(choc):
    with tempfile.TemporaryDirectory(prefix="choc-out-") as d:
        os.mkfifo(os.path.join(d, "fifo"))
        refused(run(choc, d, "--summary", "fifo"), d, "--summary", "fifo", keep={"fifo"})
        check(os.path.exists(os.path.join(d, "fifo")) and
              not os.path.isfile(os.path.join(d, "fifo")), "the FIFO was replaced")
        os.mkdir(os.path.join(d, "dir.json"))
        refused(run(choc, d, "--set", "output.summary=dir.json"), d, "output.summary",
                keep={"fifo", "dir.json"})
        with open(os.path.join(d, "real.json"), "w") as f:
            f.write("keep")
        os.symlink("real.json", os.path.join(d, "link.json"))
        refused(run(choc, d, "--summary", "link.json"), d, "--summary", "symbolic link",
                keep={"fifo", "dir.json", "real.json", "link.json"})
        check(os.path.islink(os.path.join(d, "link.json")), "the link was replaced")
        check(open(os.path.join(d, "real.json")).read() == "keep", "the link's target changed")


def case_device(choc):
    if os.geteuid() != 0:
        raise cli.Skip("mknod needs root")
    with tempfile.TemporaryDirectory(prefix="choc-out-") as d:
        device = os.path.join(d, "devfull")
        os.mknod(device, 0o666 | 0o020000, os.makedev(1, 7))  # a character device
        refused(run(choc, d, "--summary", "devfull"), d, "--summary", "devfull",
                keep={"devfull"})
        check(not os.path.isfile(device), "the device was replaced by a regular file")
        refused(run(choc, d, "--summary", "/dev/null"), d, "/dev/null", keep={"devfull"})


def case_names(choc):
    with tempfile.TemporaryDirectory(prefix="choc-out-") as d:
        refused(run(choc, d, "--set", "output.summary=" + "a" * 226), d, "output.summary",
                "225")
        refused(run(choc, d, "--summary", "a" * 300), d, "--summary")
        refused(run(choc, d, "--summary", "missing/s.json"), d, "--summary", "does not exist")
        result = run(choc, d, "--summary", "b" * 225)
        check(result.returncode == 0, f"a 225-byte name: exit {result.returncode}")
        check(os.path.isfile(os.path.join(d, "b" * 225)), "no summary with a 225-byte name")
        check(not temporaries(d), f"left {temporaries(d)}")


def case_same_file(choc):
    with tempfile.TemporaryDirectory(prefix="choc-out-") as d:
        traj = f"output.trajectory={{ path = \"{d}/summary.json\", every = 0.5 }}"
        refused(run(choc, d, "--set", traj), d, "output.summary", "output.trajectory.path")
        refused(run(choc, d, "--set", "output.summary=./config.toml"), d, "output.summary",
                "config file")
        os.link(os.path.join(d, "config.toml"), os.path.join(d, "hard.toml"))
        refused(run(choc, d, "--set", "output.histogram=hard.toml"), d, "output.histogram",
                "config file", keep={"hard.toml"})
        os.remove(os.path.join(d, "hard.toml"))
        # A frame to start from, then a trajectory that would overwrite it.
        result = run(choc, d, "--set", 'output.trajectory={ path = "start.xyz", every = 1.0 }')
        check(result.returncode == 0, f"making a frame: {result.stderr!r}")
        before = open(os.path.join(d, "start.xyz")).read()
        os.remove(os.path.join(d, "summary.json"))
        refused(run(choc, d, "--set", "init.from=start.xyz", "--set",
                    f'output.trajectory={{ path = "{d}/start.xyz", every = 1.0 }}'),
                d, "output.trajectory.path", "init.from", keep={"start.xyz"})
        check(open(os.path.join(d, "start.xyz")).read() == before, "init.from was changed")


def case_stale_temporaries(choc):
    """A run killed outright leaves its temporary; the next run removes it, and leaves a
    live process's temporary alone."""
    with tempfile.TemporaryDirectory(prefix="choc-out-") as d:
        long_run = SMALL.replace("time = 1.0", "collisions = 1000000000000").replace(
            'summary = "summary.json"',
            'summary = "summary.json"\ntrajectory = { path = "t.xyz", every = 0.01 }')
        process = cli.start(choc, d, toml=long_run)
        # killed once its trajectory temporary exists and has frames in it (a fixed wait
        # raced a sanitized build's start on a loaded machine)
        deadline = time.monotonic() + 300
        while process.poll() is None and time.monotonic() < deadline:
            if any(f.startswith(".t.xyz.choc-") and os.path.getsize(os.path.join(d, f)) > 0
                   for f in temporaries(d)):
                break
            time.sleep(0.01)
        time.sleep(0.2)
        process.kill()
        process.wait()
        left = temporaries(d)
        check(any(f.startswith(".t.xyz.choc-") for f in left),
              f"no trajectory temporary after SIGKILL: {os.listdir(d)}")
        live = f".summary.json.choc-{os.getpid()}-0badcafe.tmp"
        open(os.path.join(d, live), "w").close()
        result = run(choc, d, "--set", 'output.trajectory={ path = "t.xyz", every = 0.5 }')
        check(result.returncode == 0, f"exit {result.returncode}: {result.stderr!r}")
        check(temporaries(d) == [live], f"temporaries after the next run: {temporaries(d)}")


def case_full_disk(choc):
    """A small file system: a trajectory that cannot fit is refused up front, one that
    grows in a collision-limited run stops the run; a full disk at the end leaves no
    output of the run."""
    with cli.small_file_system(prefix="choc-out-") as d:
        traj = 'output.trajectory={ path = "t.xyz", every = 0.001 }'
        refused(run(choc, d, "--set", traj), d, "output.trajectory.every")
        result = run(choc, d, "--set", traj, "--set", "run.collisions=1000000000",
                     "--set", "run.time=1e9")
        refused(result, d, "output.trajectory.every")
        # Fill the disk but for two pages (one for the config, one for the outputs): the
        # time series (about 15 kB) cannot be written at the end, the summary could.
        cli.fill(d, 8192)
        result = run(choc, d, "--set", 'output.timeseries={ path = "s.csv", every = 0.01 }')
        refused(result, d, "No space left", keep={"filler"})  # and no output at all


def case_trajectory_max_bytes(choc):
    """output.trajectory.max_bytes: frames that cannot fit in it are refused before the
    run; a run limited by collisions alone (XYZ, H5MD) stops when its trajectory passes
    it. Exit 2 naming the key, and no output (no checkpoint: nothing is written in place)."""
    with tempfile.TemporaryDirectory(prefix="choc-out-") as d:
        # 1001 frames of 100 discs take at least 1001 * 100 * 32 = 3.2e6 bytes
        traj = 'output.trajectory={ path = "t.xyz", every = 0.001, max_bytes = 1e6 }'
        result = run(choc, d, "--set", traj)
        refused(result, d, "output.trajectory.max_bytes", "take at least", "1e+06")
        endless = SMALL.replace("time = 1.0", "collisions = 1000000000")
        for fmt in ("xyz", "h5md"):
            # an XYZ frame of 100 discs takes about 13 kB: 15 frames; H5MD frames this
            # close compress to a few hundred bytes: about 570
            traj = (f'output.trajectory={{ path = "t.{fmt}", every = 0.001, format = "{fmt}", '
                    'max_bytes = 200000 }')
            result = run(choc, d, "--set", traj, text=endless)
            refused(result, d, "output.trajectory.max_bytes", "reached")
        check(run(choc, d, "--set", 'output.trajectory={ path = "t.xyz", every = 0.5, '
                  'max_bytes = 0.5 }').returncode == 2, "max_bytes = 0.5 was accepted")


OWNED = """dimension = 2
[box]
packing_fraction = 0.3
[[species]]
name = "A"
count = 400
[init]
lattice = "hex"
[run]
time = 2.0
[output]
summary = "summary.json"
trajectory = {{ path = "{trajectory}", every = 0.05, format = "{fmt}" }}
timeseries = {{ path = "series.csv", every = 0.1 }}
checkpoint = {{ path = "state.chk", every = 0.2 }}
"""


def xyz_times(path):
    with open(path) as f:
        return [float(m.group(1)) for m in (re.search(r" Time=(\S+)", line) for line in f) if m]


def stopped(pid):
    """Waits until process pid is stopped: kill() returns before a SIGSTOP takes effect,
    and a run still writing its trajectory then changed it under the check below (seen
    once on a loaded machine)."""
    for _ in range(10000):
        with open(f"/proc/{pid}/stat") as f:
            # the state follows the command's closing parenthesis
            if f.read().rsplit(")", 1)[1].split()[0] in ("T", "t"):
                return
        time.sleep(0.001)
    raise Failure(f"process {pid} did not stop within 10 s of SIGSTOP")


def case_outputs_owned(choc):
    """The same checkpointed config started twice in one directory: the second run, started
    while the first goes on (stopped with SIGSTOP once its first checkpoint exists, so that
    its files hold still), exits 2 naming the output and the first run's pid and changes no
    file; the first ends with status 0, its trajectory whole, and a continuation from its
    checkpoint works. XYZ and H5MD."""
    for fmt, trajectory in (("xyz", "t.xyz"), ("h5md", "t.h5")):
        with tempfile.TemporaryDirectory(prefix="choc-out-") as d:
            text = OWNED.format(trajectory=trajectory, fmt=fmt)
            first = cli.start(choc, d, toml=text, stderr=subprocess.PIPE, text=True)
            try:
                cli.wait_for(first, os.path.join(d, "state.chk"))
                os.kill(first.pid, signal.SIGSTOP)
                stopped(first.pid)
                check(first.poll() is None, f"{fmt}: the first run ended before its checkpoint")
                before = {f: open(os.path.join(d, f), "rb").read() for f in os.listdir(d)}
                second = run(choc, d, text=text)
                after = {f: open(os.path.join(d, f), "rb").read() for f in os.listdir(d)}
            finally:
                os.kill(first.pid, signal.SIGCONT)
            _, err = first.communicate(timeout=120)
            lines = second.stderr.splitlines()
            check(second.returncode == 2, f"{fmt}: the second run: exit {second.returncode}, "
                  f"expected 2; {second.stderr!r}")
            check(len(lines) == 1 and "another choc run" in lines[0] and
                  f"pid {first.pid}" in lines[0] and "summary.json" in lines[0],
                  f"{fmt}: the second run's message does not name the file and pid "
                  f"{first.pid}: {second.stderr!r}")
            check(before == after, f"{fmt}: files changed by the refused run: "
                  f"{sorted(f for f in set(before) | set(after) if before.get(f) != after.get(f))}")
            check(first.returncode == 0, f"{fmt}: the first run: exit {first.returncode}: {err!r}")
            left = [f for f in os.listdir(d) if f.endswith(".choc-lock")]
            check(not left, f"{fmt}: lock files left by runs that ended: {left}")
            if fmt == "xyz":
                times = xyz_times(os.path.join(d, trajectory))
                # each frame once, in order (a time printed to 17 digits: 1e-12 is ample)
                check(len(times) == 41 and all(abs(t - k * 0.05) < 1e-12
                                               for k, t in enumerate(times)),
                      f"xyz: {len(times)} frames at {times[:4]}..., not 0, 0.05, ..., 2")
            r = run(choc, d, "--continue", "state.chk", "--set", "run.time=2.5", text=text)
            check(r.returncode == 0, f"{fmt}: --continue: exit {r.returncode}: {r.stderr!r}")
            if fmt == "xyz":
                times = xyz_times(os.path.join(d, trajectory))
                check(len(times) == 51, f"xyz: {len(times)} frames after the continuation, "
                      "expected 51")


def interrupted_summary(d, process, what):
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        raise Failure(f"choc did not stop within 60 s of a signal during {what}")
    check(process.returncode == 130, f"{what}: exit {process.returncode}, expected 130; {err!r}")
    s = cli.read_summary(d)
    check(s["interrupted"] is True, f"{what}: interrupted = {s['interrupted']!r}")
    check(s["sim_time"] == 0.0, f"{what}: sim_time {s['sim_time']!r}, expected 0")
    check(s["collisions"] == 0, f"{what}: {s['collisions']} collisions in the measured phase")
    check(not temporaries(d), f"left {temporaries(d)}")
    return err


def wait_until_caught(pid, sig, timeout=60.0):
    """Waits until process `pid` has a handler for `sig` (/proc/PID/status, SigCgt)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status") as f:
                caught = next(int(line.split()[1], 16) for line in f if line.startswith("SigCgt:"))
        except (OSError, StopIteration):
            return  # no /proc (or the process is gone): fall back to the fixed delay
        if caught & (1 << (int(sig) - 1)):
            return
        time.sleep(0.005)
    raise Failure(f"choc did not install a handler for signal {int(sig)} within {timeout} s")


def signal_during(choc, config_text, delay, sig, phase, after=None):
    """Runs config_text, sends sig after delay seconds (counted from the stderr line
    containing `after`, when given); the stderr of the interrupted run."""
    with tempfile.TemporaryDirectory(prefix="choc-out-") as d:
        cli.write(d, "config.toml", config_text)
        started = time.monotonic()
        process = cli.start(choc, d, quiet=False, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
        # Not before choc catches the signal: loading the program and its libraries (HDF5
        # brings some thirty) can take longer than `delay` under the sanitizers, and a
        # signal then kills it before main. Linux lists caught signals in SigCgt.
        wait_until_caught(process.pid, sig)
        # Nor, for a phase after start-up, before choc says it has begun: a sanitized
        # start on a loaded machine took more than the whole second once (CI, session 25).
        seen = ""
        if after is not None:
            for line in process.stderr:
                seen += line
                if after in line:
                    started = time.monotonic()
                    break
        time.sleep(max(0.0, delay - (time.monotonic() - started)))
        process.send_signal(sig)
        return seen + interrupted_summary(d, process, phase)


def case_signal_equilibration(choc):
    err = signal_during(choc, SMALL.replace("time = 1.0", "time = 1.0\nequilibrate = 1e12"),
                        0.5, signal.SIGINT, "equilibration", after="equilibrating until")
    check("interrupted during equilibration" in err, f"stderr {err!r}")


def case_signal_start_up(choc):
    """SIGTERM while the start is being built (a large random packing), not a kill."""
    # (a long equilibration behind it: a start built before the signal still gives an
    # empty measured phase)
    text = (SMALL.replace("count = 100", "count = 400000")
            .replace('"hex"', '"random"').replace("0.3", "0.05")
            .replace("time = 1.0", "time = 1.0\nequilibrate = 1e12"))
    err = signal_during(choc, text, 0.3, signal.SIGTERM, "start-up")
    check("interrupted during" in err, f"stderr {err!r}")


def bumpy_floor_stl(path, n):
    """A binary STL floor of 2 n^2 facets over [0.5, 19.5]^2, heights 1 + 0.3 sin x sin y plus
    a fixed ripple: no two facets coplanar, the mesh whose lists took minutes (issue 41)."""
    step = 19.0 / n
    height = [[1.0 + 0.3 * math.sin(0.5 + i * step) * math.sin(0.5 + j * step) +
               0.02 * ((i * 7919 + j * 104729) % 101) / 101 for j in range(n + 1)]
              for i in range(n + 1)]
    record = struct.Struct("<12fH")
    with open(path, "wb") as f:
        f.write(b"bumpy floor".ljust(80, b" ") + struct.pack("<I", 2 * n * n))
        for i in range(n):
            x0, x1 = 0.5 + i * step, 0.5 + (i + 1) * step
            for j in range(n):
                y0, y1 = 0.5 + j * step, 0.5 + (j + 1) * step
                a = (x0, y0, height[i][j])
                b = (x1, y0, height[i + 1][j])
                c = (x1, y1, height[i + 1][j + 1])
                d = (x0, y1, height[i][j + 1])
                f.write(record.pack(0, 0, 0, *a, *b, *c, 0))
                f.write(record.pack(0, 0, 0, *a, *c, *d, 0))


def case_signal_mesh(choc):
    """SIGTERM while a large mesh is read and listed by cell (issue 41: 71 s for 320k facets,
    the signal ignored throughout): exit 130 within a second, and nothing written."""
    with tempfile.TemporaryDirectory(prefix="choc-out-") as d:
        bumpy_floor_stl(os.path.join(d, "floor.stl"), MESH_SQUARES)
        process = cli.start(choc, d, toml=MESH_CONFIG, quiet=False, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_until_caught(process.pid, signal.SIGTERM)
        time.sleep(MESH_DELAY)
        process.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        try:
            _, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            raise Failure("choc did not stop within 60 s of SIGTERM during the mesh's set-up")
        took = time.monotonic() - sent
        check(process.returncode == 130, f"exit {process.returncode}, expected 130; {err!r}")
        check(took < 1.0, f"stopped {took:.2f} s after the signal, expected within a second")
        check("interrupted while" in err and "nothing was written" in err, f"stderr {err!r}")
        left = set(os.listdir(d)) - {"config.toml", "floor.stl"}
        check(not left, f"left {sorted(left)}")


# The floor's squares along an edge (2 n^2 facets) and when the signal goes: while the mesh
# is read and listed, which takes some seconds (the signal at MESH_DELAY s into it).
MESH_SQUARES = 400
MESH_DELAY = 0.5
MESH_CONFIG = """dimension = 3
[box]
size = [20.0, 20.0, 10.0]
boundary = "wall"
[[species]]
name = "A"
count = 50
radius = 0.5
[[walls]]
mesh = "floor.stl"
[init]
lattice = "random"
region = { low = [1.0, 1.0, 3.0], high = [19.0, 19.0, 9.0] }
seed = 1
[run]
time = 1.0
equilibrate = 1e12
[output]
summary = "summary.json"
"""


CASES = [
    ("special files, links, directories", case_special_files),
    ("a device (root)", case_device),
    ("name lengths and directories", case_names),
    ("outputs compared as files", case_same_file),
    ("temporaries of a killed run", case_stale_temporaries),
    ("output.trajectory.max_bytes", case_trajectory_max_bytes),
    ("a run owns its outputs", case_outputs_owned),
    ("a small file system (root)", case_full_disk),
    ("a signal during equilibration", case_signal_equilibration),
    ("a signal during start-up", case_signal_start_up),
    ("a signal while a large mesh is set up", case_signal_mesh),
]


if __name__ == "__main__":
    sys.exit(cli.main(__doc__, CASES, 1, catch=(KeyError, OSError, subprocess.TimeoutExpired)))
