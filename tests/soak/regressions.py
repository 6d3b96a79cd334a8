#!/usr/bin/env python3
"""The reproducers of the missed-collision bug (fixed in 3575491) as regression tests of
`choc run`. With the bug these runs let spheres pass through each other: the clock ran
backwards (sim_time negative), max_overlap reached most of a diameter, a run with a time
limit never reached it, and choc still exited 0.

    python3 tests/soak/regressions.py CHOC_EXECUTABLE REPO_ROOT quick|full

`quick` runs the two cheap reproducers (a few seconds each; `cli` suite); `full` adds the
expensive ones (mixtures, eta = 0.45 out to t = 200, eta = 0.49 for 66e6 collisions;
several minutes; `soak` suite). Each run goes in its own temporary directory.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

# A binary mixture of the bug report: 50/50, diameters 1 and 0.5, packing fraction 0.30,
# N = 4000, 3D, in the format of data/studies/mixture.toml. The report gives neither the
# masses nor the temperatures: both species here have the default mass 1 and kT = 1.
MIXTURE = """dimension = 3

[box]
packing_fraction = 0.30

[[species]]
name = "large"
count = 2000
radius = 0.5

[[species]]
name = "small"
count = 2000
radius = 0.25

[init]
lattice = "fcc"
velocities = "maxwell"
seed = {seed}

[run]
collisions = 8000000

[output]
summary = "summary.json"
"""

# (name, mode, config: a repository path or TOML text, --set overrides, limits asked).
# The limits are what the run must reach: run.time and/or run.collisions, as set here or
# in the config file (eos3d/eos2d ask for 2e6 collisions).
CASES = [
    ("eos3d eta=0.25 seed 1", "quick", "data/studies/eos3d.toml",
     ["box.packing_fraction=0.25"], {"collisions": 2000000}),
    ("eos2d phi=0.60 seed 4", "quick", "data/studies/eos2d.toml",
     ["box.packing_fraction=0.60", "init.seed=4"], {"collisions": 2000000}),
] + [
    (f"mixture 1:0.5 phi=0.30 seed {seed}", "full", MIXTURE.format(seed=seed), [],
     {"collisions": 8000000})
    for seed in (1, 2, 3, 4)
] + [
    # two spheres passed through each other at t ~ 197.6; the run goes on to 200 (the
    # file's collision limit raised out of the way, so that time ends the run)
    ("eos3d eta=0.45 seed 12 to t=200", "full", "data/studies/eos3d.toml",
     ["box.packing_fraction=0.45", "init.seed=12", "run.time=200",
      "run.collisions=1000000000000"], {"time": 200.0}),
    # the clock jumped to -1.5e6 near t ~ 787, about 70 s into the run
    ("eos3d eta=0.49 seed 11, 66e6 collisions", "full", "data/studies/eos3d.toml",
     ["box.packing_fraction=0.49", "init.seed=11", "run.collisions=66000000"],
     {"collisions": 66000000}),
]

# max_overlap at round-off is ~1e-14 (docs/REFERENCE.md, "Run summary"); a pass-through is most of a diameter.
MAX_OVERLAP = 1e-9
# The measured phase stops exactly at the asked time, but sim_time is computed on the
# engine's local clock (now - start after the time origin moved), which rounds: a few ulp.
TIME_REL = 1e-12
# Elastic runs: the kinetic energy changes by a few ulp per collision, a random walk of
# ~1e-12 relative over 66e6 collisions at worst; 1e-10 still sees one collision gone wrong
# (~1/N = 2.5e-4 of the energy).
ENERGY_REL = 1e-10


def run_case(choc, root, workdir, name, config, overrides, limits):
    """Runs one reproducer; returns a list of broken promises (empty: passed)."""
    directory = tempfile.mkdtemp(prefix="case-", dir=workdir)
    if config.endswith(".toml"):
        config_path = os.path.join(root, config)
    else:
        config_path = os.path.join(directory, "config.toml")
        with open(config_path, "w") as f:
            f.write(config)
    command = [choc, "run", config_path, "--quiet"]
    for o in overrides:
        command += ["--set", o]
    shown = " ".join(command)
    start = time.monotonic()
    try:
        result = subprocess.run(command, cwd=directory, capture_output=True, text=True,
                                timeout=1800)
    except subprocess.TimeoutExpired:
        return [f"did not finish within 1800 s: {shown}"], shown
    seconds = time.monotonic() - start
    problems = []
    if result.returncode != 0:
        problems.append(f"exit status {result.returncode}; stderr: {result.stderr.strip()!r}")
    path = os.path.join(directory, "summary.json")
    if not os.path.isfile(path):
        return problems + ["no summary.json written"], shown
    with open(path) as f:
        s = json.load(f)
    t = s["sim_time"]
    if not t > 0:
        problems.append(f"sim_time = {t!r}: the clock did not advance (or ran backwards)")
    if "time" in limits and not abs(t - limits["time"]) <= TIME_REL * limits["time"]:
        problems.append(f"sim_time = {t!r}, asked for run.time = {limits['time']}")
    if "collisions" in limits and s["collisions"] != limits["collisions"]:
        problems.append(f"{s['collisions']} collisions, asked for {limits['collisions']}")
    if not s["max_overlap"] <= MAX_OVERLAP:
        problems.append(f"max_overlap = {s['max_overlap']!r} > {MAX_OVERLAP}")
    ke0, ke1 = s["kinetic_energy"]["initial"], s["kinetic_energy"]["final"]
    if not abs(ke1 - ke0) <= ENERGY_REL * ke0:
        problems.append(f"kinetic energy {ke0!r} -> {ke1!r} (elastic run)")
    if s.get("valid") is False:  # the engine's runtime invariants (absent before them)
        problems.append(f'summary says "valid": false: {s.get("violation")}')
    print(f"  {name}: sim_time {t:.6g}, {s['collisions']} collisions, max_overlap "
          f"{s['max_overlap']:.3g}, {seconds:.1f} s", flush=True)
    return problems, shown


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("quick", "full"):
        print("usage: regressions.py CHOC_EXECUTABLE REPO_ROOT quick|full", file=sys.stderr)
        return 2
    choc, root, mode = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    failed = 0
    cases = [c for c in CASES if mode == "full" or c[1] == "quick"]
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="choc-regressions-") as workdir:
        for name, _, config, overrides, limits in cases:
            problems, shown = run_case(choc, root, workdir, name, config, overrides, limits)
            if problems:
                failed += 1
                print(f"FAIL {name}:\n    " + "\n    ".join(problems))
                if not config.endswith(".toml"):
                    print("    config:\n        " + config.strip().replace("\n", "\n        "))
                print(f"    reproduce: {shown}", flush=True)
    print(f"{len(cases) - failed} of {len(cases)} regressions passed in "
          f"{time.monotonic() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
