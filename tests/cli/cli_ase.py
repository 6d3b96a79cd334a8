#!/usr/bin/python3
"""The outputs of `choc run` as other programs read them (docs/REFERENCE.md, "Trajectory"
and "Time series"): Debian's python3-ase reads the extended XYZ trajectory of a mixture
with the right velocities, masses and kinetic energy and finds the run's provenance in
atoms.info; the time series starts with its provenance as comment lines and still loads
with numpy. Run by Debian's /usr/bin/python3 (tests/cli/meson.build): python3-ase is part of
the set-up (quickstart), so a missing ASE fails this test rather than skipping it.

Usage: /usr/bin/python3 tests/cli/cli_ase.py CHOC_EXECUTABLE
"""

import json
import os
import sys
import tempfile

import choc_cli as cli
from choc_cli import check

# One rounding of an IEEE double, round to nearest: |fl(x) - x| <= U |x|.
U = 2.0 ** -53

MIXTURE = """dimension = {dimension}
[box]
packing_fraction = 0.3
boundary = "periodic"
[[species]]
name = "A"
count = {count}
radius = 0.5
mass = 1.0
[[species]]
name = "B"
count = {count}
radius = 0.5
mass = {heavy}
[init]
lattice = "{lattice}"
velocities = "maxwell"
temperature = 1.0
seed = 5
[run]
time = 1.0
[output]
summary = "summary.json"
trajectory = {{ path = "trajectory.xyz", every = 0.5 }}
timeseries = {{ path = "series.csv", every = 0.25 }}
"""


def run(choc, d, text, *args):
    return cli.run_summary(choc, d, *args, toml=text, timeout=120, what="choc")


def file_columns(path):
    """Per frame, the columns of the file itself by Properties name, as Python floats read
    from the text (the reference ASE is compared with)."""
    return [{name: frame.column(name, str if name == "type" else float)
             for name in frame.properties()} for frame in cli.read_xyz(path)]


def check_trajectory(d, s, masses, exact_velocities):
    import numpy as np
    import ase.io
    frames = ase.io.read(os.path.join(d, "trajectory.xyz"), index=":")
    columns = file_columns(os.path.join(d, "trajectory.xyz"))
    check(len(frames) == 3 and len(columns) == 3, f"{len(frames)} frames, expected 3")
    p = s["provenance"]
    for k, (atoms, cols) in enumerate(zip(frames, columns)):
        velo = np.array(cols["velo"])
        v = atoms.get_velocities()
        if exact_velocities:
            # masses 1 and 4: m v and p / m only shift the exponent, no rounding at all
            check(np.array_equal(v, velo), f"frame {k}: ASE velocities differ from velo")
        else:
            # p = fl(m v), then v' = fl(p / m): two roundings, |v' - v| <= 2 U |v| (the
            # second-order U^2 term is absorbed: each rounding is at most U / (1 + U))
            bad = np.abs(v - velo) > 2 * U * np.abs(velo)
            check(not bad.any(), f"frame {k}: {bad.sum()} ASE velocity components beyond "
                                 f"two roundings of velo")
        types = atoms.arrays["type"]
        for name, mass in masses.items():
            got = set(atoms.get_masses()[types == name])
            check(got == {mass}, f"frame {k}: ASE masses of {name} are {got}, expected {mass}")
        check(atoms.cell.lengths()[0] > 0 and atoms.pbc[0], "cell or pbc lost")
        info = atoms.info
        check(info.get("choc_version") == s["choc_version"], f"choc_version {info.get('choc_version')!r}")
        check(info.get("git_commit") == p["git_commit"], f"git_commit {info.get('git_commit')!r}")
        check(info.get("seed") == p["seed"], f"seed {info.get('seed')!r}")
        check(info.get("started") == p["started"], f"started {info.get('started')!r}")
        check(info.get("host") == p["host"], f"host {info.get('host')!r}")
        check(info.get("command_line") == p["command_line"],
              f"command_line {info.get('command_line')!r}")
        # the config, kilobytes long, is in the first frame only (docs/REFERENCE.md)
        check((info.get("config") == p["config"]) if k == 0 else "config" not in info,
              f"frame {k}: config {str(info.get('config'))[:80]!r}")
    last = frames[-1]
    check(last.info["Time"] == s["sim_time"], f"last frame at {last.info['Time']}, run to {s['sim_time']}")
    # 0.5 sum p.v' over 3N terms against the summary's 0.5 sum m v^2 in choc's order: each
    # term is within 4 roundings of the exact one, and a sum of n positive terms within
    # (n - 1) U, so the two differ by at most (2 * 3N + 8) U relatively.
    n = 3 * len(last)
    ke, expected = last.get_kinetic_energy(), s["kinetic_energy"]["final"]
    check(abs(ke - expected) <= (2 * n + 8) * U * expected,
          f"ASE kinetic energy {ke!r}, summary {expected!r}")


def check_series(d, s):
    import numpy as np
    path = os.path.join(d, "series.csv")
    with open(path) as f:
        lines = f.read().splitlines()
    head = []
    for line in lines:
        if not line.startswith("#"):
            break
        head.append(line)
    fields = dict(line[2:].split(": ", 1) for line in head if ": " in line)
    p = s["provenance"]
    check(fields.get("choc_version") == s["choc_version"], f"choc_version {fields.get('choc_version')!r}")
    check(fields.get("git_commit") == p["git_commit"], f"git_commit {fields.get('git_commit')!r}")
    check(fields.get("seed") == str(p["seed"]), f"seed {fields.get('seed')!r}")
    check(json.loads(fields.get("command_line", "null")) == p["command_line"],
          f"command_line {fields.get('command_line')!r}")
    check(fields.get("started") == p["started"] and fields.get("host") == p["host"],
          f"started {fields.get('started')!r}, host {fields.get('host')!r}")
    check("# config:" in head, "no '# config:' line")
    config = [line[4:] for line in head[head.index("# config:") + 1:]]
    check("\n".join(config) == p["config"].rstrip("\n"), "the header's config is not the summary's")
    check(lines[-1] == "# finished: " + p["finished"], f"last line {lines[-1]!r}")
    # The recipe of docs/REFERENCE.md: numpy on the lines that are not comments.
    data = np.genfromtxt([line for line in lines if not line.startswith("#")],
                         delimiter=",", names=True)
    check(list(data["time"]) == [0.0, 0.25, 0.5, 0.75, 1.0], f"times {data['time']}")
    check(data.dtype.names[:3] == ("time", "collisions_per_particle", "temperature"),
          f"columns {data.dtype.names}")
    # and numpy on the file, skipping the header comments by count
    same = np.genfromtxt(path, delimiter=",", names=True, skip_header=len(head))
    check(same.dtype.names == data.dtype.names and np.array_equal(same["time"], data["time"]),
          "genfromtxt with skip_header reads another table")


def case_mixture_3d(choc):
    text = MIXTURE.format(dimension=3, count=128, heavy="4.0", lattice="fcc")
    with tempfile.TemporaryDirectory(prefix="choc-ase-") as d:
        s = run(choc, d, text, "--set", "init.seed=11")
        check(s["provenance"]["seed"] == 11, "--set init.seed not applied")
        check_trajectory(d, s, {"A": 1.0, "B": 4.0}, exact_velocities=True)
        check_series(d, s)


def case_mixture_2d(choc):
    text = MIXTURE.format(dimension=2, count=200, heavy="3.0", lattice="hex")
    with tempfile.TemporaryDirectory(prefix="choc-ase-") as d:
        s = run(choc, d, text)
        check_trajectory(d, s, {"A": 1.0, "B": 3.0}, exact_velocities=False)


CASES = [
    ("ASE reads a 1:4 mixture in 3D, and the time series its header", case_mixture_3d),
    ("ASE reads a 1:3 mixture in 2D (momenta rounded)", case_mixture_2d),
]


def main():
    args = cli.arguments(__doc__, 1)
    if args is None:
        return 2
    try:
        import ase  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as e:
        print(f"FAIL: {e}: install python3-ase and python3-numpy (./quickstart does)", flush=True)
        return 1
    return cli.run_cases(CASES, *args, catch=(KeyError, ValueError))


if __name__ == "__main__":
    sys.exit(main())
