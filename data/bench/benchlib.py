"""What data/bench/run and data/bench/compare share: the cases, one timed run of a choc
binary on a case, and the figures read from its summary and /usr/bin/time.

Standard library only, so any python3 runs it."""

import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Every case, in the order `run` runs them; the mixtures' one-size references follow them.
CASES = ["spheres_32k", "spheres_256k", "spheres_1m", "discs_256k", "discs_1m",
         "mono3d_250k", "mix3d_1to10", "mix3d_1to20", "mono2d_250k", "mix2d_1to10",
         "mix2d_1to50"]
# What a mixture is measured against: the same N and total packing fraction, one size.
REFERENCE = {"mix3d_1to10": "mono3d_250k", "mix3d_1to20": "mono3d_250k",
             "mix3d_1to50": "mono3d_1564k",
             "mix2d_1to10": "mono2d_250k", "mix2d_1to50": "mono2d_250k"}
TIME = "/usr/bin/time"  # Debian package `time`: the peak resident memory


def fail(message):
    print(f"bench: {message}", file=sys.stderr)
    sys.exit(2)


def check_cases(names):
    for name in names:
        if not os.path.isfile(case_path(name)):
            fail(f"no such case: {name} (expected data/bench/{name}.toml)")


def case_path(name):
    return os.path.join(HERE, f"{name}.toml")


def have_timer():
    return os.access(TIME, os.X_OK)


def run_case(choc, name, out, collisions=None, sets=()):
    """Runs `choc run` on a case in directory `out` (made afresh), with `--set` overrides
    `sets`; returns a dict of its figures, or None when the run failed (its outputs stay in
    `out`)."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    summary = os.path.join(out, "summary.json")
    cmd = [choc, "run", case_path(name), "--quiet", "--summary", summary]
    if collisions is not None:
        cmd += ["--set", f"run.collisions={collisions}"]
    for assignment in sets:
        cmd += ["--set", assignment]
    if have_timer():
        cmd = [TIME, "-v", "-o", os.path.join(out, "time.txt")] + cmd
    with open(os.path.join(out, "stdout.txt"), "w") as stdout, \
            open(os.path.join(out, "stderr.txt"), "w") as stderr:
        if subprocess.run(cmd, cwd=out, stdout=stdout, stderr=stderr).returncode != 0:
            return None
    with open(summary) as f:
        s = json.load(f)
    figures = {
        "N": s["N"],
        "collisions": s["collisions"],
        "rate": s["collisions_per_second"],
        "ns_per_collision": 1e9 * s["wall_seconds"] / s["collisions"],
        "predictions_per_collision": None,
        "engine_bytes_per_particle": None,
        "peak_bytes": None,
    }
    engine = s.get("engine")  # summaries of older builds lack it
    if engine:
        figures["predictions_per_collision"] = engine["pair_predictions"] / s["collisions"]
        figures["engine_bytes_per_particle"] = engine["memory_bytes"] / s["N"]
    if have_timer():
        with open(os.path.join(out, "time.txt")) as f:
            for line in f:
                if "Maximum resident set size (kbytes):" in line:
                    figures["peak_bytes"] = 1024 * int(line.split(":")[1])
    return figures


def fixed(value, digits=0):
    return "-" if value is None else f"{value:.{digits}f}"
