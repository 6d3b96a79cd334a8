#!/usr/bin/env python3
"""Histogram series (docs/REFERENCE.md, "Histogram series"): output.histogram and
output.velocity_histogram with `every` write one CSV with a column pair per snapshot.

A relaxation from equal speeds (init.velocities = "fixed_speed") in 3D: the snapshots at
0, every, 2 every, ... and the final state; the bins fixed by the first snapshot; each
density integrating to 1 less its outside fraction; the KS distance falling from the equal
speeds' known value to that of an equilibrated gas, whose p-value is then not small; the
speed series' statistics the same as the time series' at the same times and as the
summary's at the end. A 2D mixture: the per-species columns. Bad tables are refused with
exit 2, naming the key, before anything is written, and a run bounded by collisions alone
stops at the snapshot limit; a plain path keeps the final-state file.

Usage: python3 tests/cli/cli_histograms.py CHOC_EXECUTABLE
"""

import math
import os
import sys
import tempfile

import choc_cli as cli
from choc_cli import check

RELAX_3D = """dimension = 3
[box]
packing_fraction = 0.25
[[species]]
name = "A"
count = 2048
[init]
lattice = "fcc"
velocities = "fixed_speed"
seed = 5
[run]
time = 4.0
[output]
summary = "summary.json"
timeseries = { path = "series.csv", every = 0.5 }
histogram = { path = "speeds.csv", every = 0.5 }
velocity_histogram = { path = "vx.csv", every = 1.5 }
"""

MIXTURE_2D = """dimension = 2
[box]
packing_fraction = 0.3
[[species]]
name = "A"
count = 300
[[species]]
name = "B"
count = 100
mass = 4.0
radius = 0.7
[init]
lattice = "random"
seed = 2
[run]
time = 1.25
[output]
summary = "summary.json"
histogram = { path = "speeds.csv", every = 0.5 }
"""


def run(choc, d, text, *args):
    return cli.run(choc, d, *args, toml=text, timeout=300)


def read_series(path):
    """(snapshot table as dicts, column names, rows of numbers) of a histogram series."""
    with open(path) as f:
        lines = f.read().splitlines()
    comments = [line[2:] for line in lines if line.startswith("# ")]
    names = comments[0].split(",")
    snapshots = [dict(zip(names, map(float, line.split(",")))) for line in comments[1:]]
    body = [line for line in lines if not line.startswith("#")]
    return snapshots, body[0].split(","), [[float(x) for x in line.split(",")] for line in body[1:]]


def integral(header, rows, column):
    c = header.index(column)
    return sum(r[c] * (r[1] - r[0]) for r in rows)


def mb_speed_cdf_3d(v, kT):
    x = v / math.sqrt(kT)
    return math.erf(x / math.sqrt(2.0)) - math.sqrt(2.0 / math.pi) * x * math.exp(-x * x / 2.0)


def case_relaxation(choc):
    with tempfile.TemporaryDirectory() as d:
        summary = cli.run_summary(choc, d, toml=RELAX_3D, timeout=300)
        snaps, header, rows = read_series(os.path.join(d, "speeds.csv"))
        # run.time = 4 is a multiple of every: t = 0, 0.5, ..., 4, the last being the
        # final state (not repeated)
        times = [s["time"] for s in snaps]
        check(times == [0.5 * k for k in range(9)], f"speed snapshot times {times}")
        expected = ["speed_low", "speed_high", "speed"] + [
            f"{c}_{k}" for k in range(9) for c in ("density", "maxwell_boltzmann")]
        check(header == expected, f"columns {header}")
        # sqrt(2048) / 2 = 22 bins over [0, 6 sqrt(kT0)], kT0 the first snapshot's
        kT0 = snaps[0]["temperature"]
        check(len(rows) == 22, f"{len(rows)} bins")
        check(rows[0][0] == 0.0 and abs(rows[-1][1] - 6.0 * math.sqrt(kT0)) < 1e-12,
              f"bins [{rows[0][0]}, {rows[-1][1]}], expected [0, 6 sqrt({kT0})]")
        for k, s in enumerate(snaps):
            total = integral(header, rows, f"density_{k}")
            check(abs(total - (1.0 - s["outside"])) < 1e-12,
                  f"snapshot {k}: density integrates to {total}, outside {s['outside']}")
            # an elastic run keeps kT: MB has < 1e-7 beyond 6 thermal speeds
            check(s["outside"] <= 1.0 / 2048, f"snapshot {k}: outside {s['outside']}")
        # Equal speeds v0 = sqrt(3 kT): D = max(F(v0), 1 - F(v0)) exactly (about 0.608).
        f0 = mb_speed_cdf_3d(math.sqrt(3.0 * kT0), kT0)
        check(abs(snaps[0]["ks_distance"] - max(f0, 1.0 - f0)) < 1e-9,
              f"starting KS {snaps[0]['ks_distance']}, expected {max(f0, 1.0 - f0)}")
        check(snaps[0]["ks_pvalue"] < 1e-100, f"starting p-value {snaps[0]['ks_pvalue']}")
        # Equilibrated after ~10 collisions per particle: an MB sample of N = 2048 has D
        # near 0.87 / sqrt(N) = 0.019, and D > 1.95 / sqrt(N) = 0.043 (p < 1e-3) in less
        # than 0.1 % of samples; the p-value, with kT taken from the same speeds, errs
        # towards larger values, so p > 1e-3 fails an equilibrated gas less often still.
        last = snaps[-1]
        check(last["ks_distance"] < 0.043, f"final KS {last['ks_distance']}")
        check(last["ks_pvalue"] > 1e-3, f"final p-value {last['ks_pvalue']}")
        check(snaps[0]["ks_distance"] > 10 * last["ks_distance"], "KS did not fall")
        # the same statistics as the time series' rows and the summary's
        series = cli.read_records(os.path.join(d, "series.csv"))
        check([row["time"] for row in series] == times, "series and snapshot times differ")
        for s, row in zip(snaps, series):
            check(s["ks_distance"] == row["ks_distance"] and s["ks_pvalue"] == row["ks_pvalue"],
                  f"t = {s['time']}: snapshot KS {s['ks_distance']}, {s['ks_pvalue']}; "
                  f"series {row['ks_distance']}, {row['ks_pvalue']}")
            check(abs(s["temperature"] - row["temperature"]) < 1e-12 * row["temperature"],
                  f"t = {s['time']}: temperature {s['temperature']}, series {row['temperature']}")
        vd = summary["velocity_distribution"]
        check(vd["ks_distance"] == last["ks_distance"] and vd["ks_pvalue"] == last["ks_pvalue"],
              f"summary {vd}, last snapshot {last}")

        # x velocities every 1.5: t = 0, 1.5, 3 and the final state at 4
        snaps, header, rows = read_series(os.path.join(d, "vx.csv"))
        times = [s["time"] for s in snaps]
        check(times == [0.0, 1.5, 3.0, 4.0], f"vx snapshot times {times}")
        check(header[:3] == ["vx_low", "vx_high", "vx"] and len(header) == 3 + 2 * 4,
              f"vx columns {header}")
        check(abs(rows[0][0] + rows[-1][1]) < 1e-12 * rows[-1][1], "vx bins not symmetric")
        for k, s in enumerate(snaps):
            total = integral(header, rows, f"density_{k}")
            check(abs(total - (1.0 - s["outside"])) < 1e-12, f"vx snapshot {k}: {total}")
        # equal speeds in random directions already give Gaussian-looking components far
        # better than their speeds do; still the final one must be an equilibrated gas's
        check(snaps[-1]["ks_pvalue"] > 1e-3, f"final vx p-value {snaps[-1]['ks_pvalue']}")


def case_mixture(choc):
    with tempfile.TemporaryDirectory() as d:
        r = run(choc, d, MIXTURE_2D)
        check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
        snaps, header, rows = read_series(os.path.join(d, "speeds.csv"))
        # t = 0, 0.5, 1 and the final state at 1.25
        check([s["time"] for s in snaps] == [0.0, 0.5, 1.0, 1.25], f"times {snaps}")
        check(list(snaps[0]) == ["snapshot", "time", "temperature", "ks_distance", "ks_pvalue",
                                 "outside", "outside_A", "outside_B"], f"table {list(snaps[0])}")
        for k in range(4):
            for name, count in (("", 400), ("A_", 300), ("B_", 100)):
                check(f"density_{name}{k}" in header and f"maxwell_boltzmann_{name}{k}" in header,
                      f"no columns for {name}{k}: {header}")
                outside = snaps[k]["outside" + ("_" + name[:-1] if name else "")]
                total = integral(header, rows, f"density_{name}{k}")
                check(abs(total - (1.0 - outside)) < 1e-12,
                      f"density_{name}{k} integrates to {total}, outside {outside}")


def case_plain_path(choc):
    """A plain path: the final state alone, the layout of before."""
    with tempfile.TemporaryDirectory() as d:
        text = MIXTURE_2D.replace('histogram = { path = "speeds.csv", every = 0.5 }',
                                  'histogram = "speeds.csv"')
        r = run(choc, d, text)
        check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
        with open(os.path.join(d, "speeds.csv")) as f:
            first = f.readline().strip()
        check(first == "speed_low,speed_high,speed,density,maxwell_boltzmann,density_A,"
                       "maxwell_boltzmann_A,density_B,maxwell_boltzmann_B", f"header {first}")


def case_refusals(choc):
    bad = [
        ('histogram = { path = "h.csv", every = 0 }', "output.histogram.every"),
        ('histogram = { path = "h.csv", every = -2.5 }', "output.histogram.every"),
        ('velocity_histogram = { path = "h.csv", every = "often" }',
         "output.velocity_histogram.every"),
        ('histogram = { path = "h.csv" }', "output.histogram.every"),
        ('histogram = { path = "h.csv", every = 1, bins = 20 }', "output.histogram.bins"),
        ('histogram = { path = "", every = 1 }', "output.histogram.path"),
        ('histogram = { every = 1 }', "output.histogram.path"),
        ('histogram = 3', "output.histogram"),
        ('histogram = { path = "h.csv", every = 1e-4 }', "output.histogram.every"),
    ]
    base = MIXTURE_2D.replace('histogram = { path = "speeds.csv", every = 0.5 }\n', "")
    for line, key in bad:
        with tempfile.TemporaryDirectory() as d:
            try:
                cli.check_refused(run(choc, d, base + line + "\n"), d, all_of=[key])
            except cli.Failure as e:
                raise cli.Failure(f"{line}: {e}")


def case_snapshot_limit(choc):
    """A run bounded by collisions alone cannot be checked up front: it stops with exit 2
    naming output.histogram.every at the 10,000th snapshot, and writes nothing."""
    text = (MIXTURE_2D.replace("time = 1.25", "collisions = 1000000")
            .replace("every = 0.5", "every = 1e-5"))
    with tempfile.TemporaryDirectory() as d:
        r = run(choc, d, text)
        lines = r.stderr.splitlines()
        check(r.returncode == 2, f"exit {r.returncode}, expected 2: {r.stderr}")
        check(len(lines) == 1 and "output.histogram.every" in lines[0]
              and "10000 histogram snapshots" in lines[0], f"stderr {r.stderr!r}")
        left = cli.left_behind(d)
        check(not left, f"left behind {left}")


CASES = [
    ("relaxation from equal speeds", case_relaxation),
    ("2D mixture: per-species columns", case_mixture),
    ("a plain path: the final state", case_plain_path),
    ("bad tables refused", case_refusals),
    ("the snapshot limit of a run bounded by collisions", case_snapshot_limit),
]


if __name__ == "__main__":
    sys.exit(cli.main(__doc__, CASES, 1, catch=(KeyError, ValueError, OSError)))
