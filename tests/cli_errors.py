#!/usr/bin/env python3
"""Bad input to `choc run` must fail cleanly (SPEC.md, exit status): status 2, exactly
one stderr line starting `choc: error:` that names the key or file, and no output file
left behind. One good tiny run must succeed.

Usage: python3 tests/cli_errors.py CHOC_EXECUTABLE REPO_ROOT
"""

import json
import os
import subprocess
import sys
import tempfile

# A valid 3D config; each case changes one thing. Outputs are relative to the cwd, which
# is a fresh temporary directory, so any file a failing run leaves behind is seen.
BASE = {
    "dimension": "3",
    "box": 'packing_fraction = 0.3\nboundary = "periodic"',
    "species": 'name = "A"\ncount = 108\nradius = 0.5\nmass = 1.0',
    "collisions": "restitution = 1.0",
    "init": 'lattice = "fcc"\nvelocities = "maxwell"\ntemperature = 1.0\nseed = 1',
    "run": "time = 1.0",
    "output": 'summary = "summary.json"\ntrajectory = { path = "traj.xyz", every = 0.5 }',
}


def config(**changes):
    """TOML text of BASE with sections replaced (None drops a section)."""
    sections = dict(BASE, **changes)
    lines = []
    if sections.get("dimension") is not None:
        lines.append("dimension = " + sections["dimension"])
    for name in ("box", "species", "collisions", "init", "run", "output"):
        body = sections.get(name)
        if body is None:
            continue
        header = "[[species]]" if name == "species" else "[" + name + "]"
        lines += ["", header, body]
    return "\n".join(lines) + "\n"


# (case name, config text or None for no config file, extra arguments, any of these
# strings must appear in the message)
CASES = [
    ("missing config file", None, [], ["config.toml"]),
    ("TOML syntax error", config(box="packing_fraction = = 0.3"), [], ["config.toml:4:"]),
    ("unknown key", config(box="packing_fracton = 0.3"), [], ["box.packing_fracton"]),
    ("wrong type", config(species='name = "A"\ncount = "many"'), [], ["species[0].count"]),
    ("packing fraction 1.5", config(box="packing_fraction = 1.5"), [], ["box.packing_fraction"]),
    ("restitution 2", config(collisions="restitution = 2"), [], ["collisions.restitution"]),
    ("missing species", config(species=None), [], ["species"]),
    ("missing run time and collisions", config(run="equilibrate = 1.0"), [], ["run"]),
    ("bad --set syntax", config(), ["--set", "init.seed"], ["init.seed"]),
    ("--set of an unknown key", config(), ["--set", "box.colour=red"], ["box.colour"]),
    ("lattice not matching dimension", config(dimension="2"), [], ["init.lattice"]),
    ("init.from missing file", config(init='from = "missing.xyz"'), [], ["init.from"]),
    (
        "unwritable output path",
        config(output='summary = "no_such_dir/summary.json"'),
        [],
        ["no_such_dir"],
    ),
    ("packing fraction too high for fcc", config(box="packing_fraction = 0.8"), [],
     ["box.packing_fraction"]),
    (
        "particle larger than the box",
        config(box="size = [0.5, 0.5, 0.5]", species='name = "A"\ncount = 1\nradius = 0.5'),
        [],
        ["box.size", "species[0].radius"],
    ),
]

GOOD = config(
    dimension="2",
    box="packing_fraction = 0.3",
    species='name = "A"\ncount = 64',
    init='lattice = "hex"',
    run="collisions = 1000",
    output='summary = "summary.json"',
)


def run_choc(choc, text, args):
    """Runs `choc run config.toml ARGS` in a fresh directory. Returns (result, new files)."""
    with tempfile.TemporaryDirectory(prefix="choc-cli-") as directory:
        if text is not None:
            with open(os.path.join(directory, "config.toml"), "w") as f:
                f.write(text)
        result = subprocess.run(
            [choc, "run", "config.toml", "--quiet"] + args,
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=60,
        )
        files = {}  # every new entry, with its text when it is a file
        for name in sorted(set(os.listdir(directory)) - {"config.toml"}):
            path = os.path.join(directory, name)
            files[name] = ""
            if os.path.isfile(path):
                with open(path, errors="replace") as f:
                    files[name] = f.read()
        return result, files


def check_bad(choc, text, args, names):
    """Returns why the case failed, or None."""
    try:
        result, files = run_choc(choc, text, args)
    except subprocess.TimeoutExpired:
        return "did not finish within 60 s"
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    if result.returncode != 2:
        return f"exit status {result.returncode}, expected 2; stderr: {result.stderr!r}"
    if len(lines) != 1:
        return f"expected one stderr line, got {len(lines)}: {result.stderr!r}"
    if not lines[0].startswith("choc: error:"):
        return f"stderr does not start with 'choc: error:': {lines[0]!r}"
    if not any(name in lines[0] for name in names):
        return f"message names none of {names}: {lines[0]!r}"
    if files:
        return f"left files behind: {sorted(files)}"
    return None


def check_good(choc):
    try:
        result, files = run_choc(choc, GOOD, [])
    except subprocess.TimeoutExpired:
        return "did not finish within 60 s"
    if result.returncode != 0:
        return f"exit status {result.returncode}; stderr: {result.stderr!r}"
    if set(files) != {"summary.json"}:
        return f"expected only summary.json, found {sorted(files)}"
    try:
        summary = json.loads(files["summary.json"])
    except ValueError as e:
        return f"summary.json is not JSON: {e}"
    if summary.get("N") != 64 or summary.get("dimension") != 2:
        return f"summary has N={summary.get('N')}, dimension={summary.get('dimension')}"
    return None


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    choc = os.path.abspath(sys.argv[1])
    failed = 0
    for name, text, args, names in CASES:
        why = check_bad(choc, text, args, names)
        print(f"ok {name}" if why is None else f"FAIL {name}: {why}")
        failed += why is not None
    why = check_good(choc)
    print("ok good tiny run" if why is None else f"FAIL good tiny run: {why}")
    failed += why is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
