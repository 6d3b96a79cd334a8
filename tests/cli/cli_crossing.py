#!/usr/bin/env python3
"""output.crossing (docs/REFERENCE.md): the count of particles crossing a plane, against a
direct count from the trajectory.

The 3D hourglass of data/examples (its STL mesh) drains through its neck; the plane z = 20
through the neck with the normal pointing down counts the grains that went through. Frames
and time-series rows are written at the same times, so the column `crossed` must equal,
row by row and exactly, the number of centres below z = 20 in the frame of that time minus
the number in the first frame; the summary's `crossing.count` is the last row's and its
`rate` that count over the measured time. The flow must be under way (grains have crossed)
and the count must never fall (nothing comes back up through the neck here; a backward
crossing would be counted as -1, which the exact equality above covers).

Usage: python3 tests/cli/cli_crossing.py CHOC_EXECUTABLE REPO_ROOT
"""

import os
import shutil
import sys
import tempfile

import choc_cli as cli


def frames(path):
    """(time, [z of every centre]) of each extended XYZ frame."""
    return [(frame.time, [x[2] for x in frame.column("pos")]) for frame in cli.read_xyz(path)]


def main():
    args = cli.arguments(__doc__, 2)
    if args is None:
        return 2
    choc, root = args
    failures = []
    with tempfile.TemporaryDirectory(prefix="choc-crossing-") as d:
        shutil.copy(os.path.join(root, "data", "examples", "hourglass3d.stl"), d)
        with open(os.path.join(root, "data", "examples", "hourglass3d.toml")) as f:
            text = f.read()
        text = text.replace("time = 15.0", "time = 6.0")
        # frames at the rows' times (the example has the rows and the plane already)
        text = text.replace('trajectory = { path = "trajectory.xyz", every = 0.25 }',
                            'trajectory = { path = "trajectory.xyz", every = 0.5 }')
        if "crossing = { point = [9.0, 9.0, 20.0], normal = [0.0, 0.0, -1.0] }" not in text:
            print("FAIL the example no longer counts the grains through z = 20")
            return 1
        result = cli.run(choc, d, toml=text, timeout=None)
        if result.returncode != 0:
            print(f"FAIL run: exit {result.returncode}: {result.stderr}")
            return 1
        columns, _ = cli.read_table(os.path.join(d, "series.csv"))
        rows = cli.read_records(os.path.join(d, "series.csv"))
        below = [(t, sum(z < 20.0 for z in zs)) for t, zs in frames(os.path.join(d, "trajectory.xyz"))]
        summary = cli.read_summary(d)
    if "crossed" not in columns:
        failures.append(f"no column crossed in {columns}")
    elif len(rows) != len(below):
        failures.append(f"{len(rows)} rows against {len(below)} frames")
    else:
        for row, (t, n) in zip(rows, below):
            if row["time"] != t or row["crossed"] != n - below[0][1]:
                failures.append(f"t = {row['time']}: crossed {row['crossed']}, frames say "
                                f"{n - below[0][1]} (frame time {t})")
        counts = [row["crossed"] for row in rows]
        if counts[-1] < 100:
            failures.append(f"only {counts[-1]} grains crossed by t = 6")
        if any(b < a for a, b in zip(counts, counts[1:])):
            failures.append(f"the count fell: {counts}")
        crossing = summary.get("crossing") or {}
        if crossing.get("count") != counts[-1]:
            failures.append(f"summary count {crossing.get('count')}, last row {counts[-1]}")
        if crossing.get("rate") != counts[-1] / summary["sim_time"]:
            failures.append(f"summary rate {crossing.get('rate')}")
    for failure in failures:
        print("FAIL " + failure)
    if not failures:
        print(f"ok: {len(rows)} rows, {counts[-1]:.0f} grains crossed, each row equal to the "
              "frames' count")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
