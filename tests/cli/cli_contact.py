#!/usr/bin/env python3
"""`choc contact` keeps the promises of docs/REFERENCE.md ("choc contact"): the examples of
data/contact run, --json has the documented keys and numbers that agree with the closed
forms (the model's restitution is e, the largest overlap the asked fraction of R, the
measured orders near the theory), the table and --plot (PNG, SVG) are written, and bad
input fails cleanly (status 2, one `choc: error:` line naming the key or file, no plot
file left behind). Runs with any python3 (no numpy).

Usage: python3 tests/cli/cli_contact.py CHOC_EXECUTABLE REPO_ROOT
"""

import math
import os
import sys
import tempfile

import choc_cli as cli

GOOD = 'geometry = "wall"\nrestitution = 0.9\n'

# (case name, contact file text or None for no file, extra arguments, strings one of
# which the message must contain)
CASES = [
    ("missing contact file", None, [], ["contact.toml"]),
    ("TOML syntax error", GOOD + "radius = = 1\n", [], ["contact.toml:3:"]),
    ("unknown key", GOOD + "colour = 1\n", [], ["contact.toml: colour: unknown key"]),
    ("unknown geometry", 'geometry = "slab"\n', [], ["contact.toml: geometry:"]),
    ("restitution 0 (critical damping)", "restitution = 0\n", [],
     ["contact.toml: restitution: must be > 0"]),
    ("restitution 1.5", "restitution = 1.5\n", [], ["contact.toml: restitution:"]),
    ("overdamped damping", "damping = 100.0\nstiffness = { value = 1e4 }\n", [],
     ["contact.toml: damping: overdamped"]),
    ("damping with the overlap stiffness", "damping = 0.1\n", [], ["contact.toml: damping:"]),
    ("two stiffness keys", "stiffness = { overlap = 0.01, material = true }\n", [],
     ["contact.toml: stiffness:"]),
    ("overlap fraction 2", "stiffness = { overlap = 2.0 }\n", [],
     ["contact.toml: stiffness.overlap:"]),
    ("unknown preset", '[material]\npreset = "cheese"\n', [], ["contact.toml: material.preset:"]),
    ("poisson ratio 0.7", '[material]\npreset = "steel"\npoisson_ratio = 0.7\n', [],
     ["contact.toml: material.poisson_ratio:"]),
    ("negative radius", "radius = -0.005\n", [], ["contact.toml: radius:"]),
    ("nan velocity", "velocity = nan\n", [], ["contact.toml: velocity:"]),
    ("one step per contact", "[integration]\nsteps_per_contact = [1, 10]\n", [],
     ["contact.toml: integration.steps_per_contact[0]:"]),
    ("unknown method", '[integration]\nmethods = ["rk4"]\n', [],
     ["contact.toml: integration.methods[0]:"]),
    ("plot with an unknown extension", GOOD, ["--plot", "plot.jpg"], ["--plot"]),
    ("plot into a missing directory", GOOD, ["--plot", "no_such_dir/plot.png"], ["--plot"]),
    ("bad input with a plot asked", "restitution = 0\n", ["--plot", "plot.png"],
     ["contact.toml: restitution:"]),
    ("overdamped with a plot asked", "damping = 100.0\nstiffness = { value = 1e4 }\n",
     ["--plot", "plot.png"], ["contact.toml: damping:"]),
    ("unknown option", GOOD, ["--colour"], ["--colour"]),
]

# The keys of docs/REFERENCE.md, "JSON output".
INPUT_KEYS = {"source", "geometry", "material", "youngs_modulus", "poisson_ratio", "density",
              "radius", "velocity", "restitution", "damping", "stiffness_from", "plot_steps"}
MODEL_KEYS = {"sphere_mass", "mass", "effective_radius", "stiffness", "damping", "omega",
              "decay", "frequency", "damping_ratio", "contact_time", "max_overlap_time",
              "max_overlap", "restitution"}
METHOD_KEYS = {"name", "description", "theoretical_order", "order", "runs"}
RUN_KEYS = {"steps_per_contact", "dt", "steps", "force_evaluations", "max_error_overlap",
            "relative_error_overlap", "max_error_velocity", "relative_error_velocity",
            "restitution", "contact_time"}


def run(choc, text, args, directory):
    return cli.run(choc, directory, *args, toml=text, config="contact.toml", command="contact",
                   quiet=False)


def contact_json(choc, path):
    return cli.json_of(choc, "contact", path, "--json", quiet_stderr=True)


def rel(x, y):
    return abs(x - y) / abs(y)


def check_json(choc, root):
    """The default example: documented keys, closed forms, orders, costs."""
    failures = []
    out = contact_json(choc, os.path.join(root, "data", "contact", "steel_wall.toml"))
    if set(out) != {"input", "model", "methods"}:
        return [f"top-level keys {sorted(out)}"]
    if not INPUT_KEYS <= set(out["input"]):
        failures.append(f"input keys {sorted(out['input'])}")
    if set(out["model"]) != MODEL_KEYS:
        failures.append(f"model keys {sorted(out['model'])}")
    model = out["model"]
    # Closed forms from the printed k, lambda, m: e = exp(-a pi / s), delta_max = 0.01 R.
    m, k, lam = model["mass"], model["stiffness"], model["damping"]
    a = lam / (2 * m)
    s = math.sqrt(k / m - a * a)
    checks = [
        ("mass", m, 8000 * 4 / 3 * math.pi * 0.005 ** 3),
        ("restitution", model["restitution"], 0.9),
        ("exp(-a pi/s)", math.exp(-a * math.pi / s), 0.9),
        ("max_overlap", model["max_overlap"], 0.01 * 0.005),
        ("contact_time", model["contact_time"], math.pi / s),
        ("damping_ratio", model["damping_ratio"],
         -math.log(0.9) / math.sqrt(math.pi ** 2 + math.log(0.9) ** 2)),
    ]
    for name, got, expected in checks:
        if not rel(got, expected) < 1e-12:
            failures.append(f"model {name} = {got!r}, expected {expected!r}")
    names = [method["name"] for method in out["methods"]]
    if names != ["euler", "rk2", "rk3", "verlet"]:
        failures.append(f"methods {names}")
    # The slopes of tests/unit/test_contact.cpp, +-0.15 (the justification is there); leap-frog
    # with the half-step damping velocity sits between 1 and 2 at e = 0.9.
    expected_order = {"euler": (1, 0.15), "rk2": (2, 0.15), "rk3": (3, 0.15),
                      "verlet": (1.3, 0.3)}
    per_step = {"euler": (1, 0), "rk2": (2, 0), "rk3": (3, 0), "verlet": (1, 1)}
    for method in out["methods"]:
        name = method["name"]
        if set(method) != METHOD_KEYS or set(method["order"]) != {"overlap", "velocity",
                                                                   "fit_steps"}:
            failures.append(f"{name}: keys {sorted(method)}, {sorted(method['order'])}")
            continue
        if method["order"]["fit_steps"] != [20, 30, 40, 50]:
            failures.append(f"{name}: fit_steps {method['order']['fit_steps']}")
        centre, width = expected_order[name]
        for what in ("overlap", "velocity"):
            p = method["order"][what]
            if p is None or abs(p - centre) > width:
                failures.append(f"{name}: order of {what} {p}, expected {centre} +- {width}")
        runs = method["runs"]
        if [r["steps_per_contact"] for r in runs] != [5, 10, 15, 20, 30, 40, 50]:
            failures.append(f"{name}: steps_per_contact {[r['steps_per_contact'] for r in runs]}")
        for r in runs:
            if set(r) != RUN_KEYS:
                failures.append(f"{name}: run keys {sorted(r)}")
                break
            each, start = per_step[name]
            if r["force_evaluations"] != each * r["steps"] + start:
                failures.append(f"{name}: n = {r['steps_per_contact']}: {r['force_evaluations']}"
                                f" forces for {r['steps']} steps")
            if not rel(r["relative_error_overlap"] * model["max_overlap"],
                       r["max_error_overlap"]) < 1e-12:
                failures.append(f"{name}: relative_error_overlap")
        # The restitution converges to e = 0.9: closer at n = 50 than at n = 5.
        if not abs(runs[-1]["restitution"] - 0.9) < abs(runs[0]["restitution"] - 0.9):
            failures.append(f"{name}: restitution {runs[0]['restitution']} at n = 5, "
                            f"{runs[-1]['restitution']} at n = 50")
    return failures


def check_outputs(choc, root):
    """The other examples run; the table shows the closed forms and the orders; --plot
    writes PNG or SVG and nothing else; --help lists the keys."""
    failures = []
    data = os.path.join(root, "data", "contact")
    for name in ("glass_wall.toml", "steel_pair.toml"):
        try:
            out = contact_json(choc, os.path.join(data, name))
            if not rel(out["model"]["restitution"], out["input"]["restitution"]) < 1e-12:
                failures.append(f"{name}: restitution {out['model']['restitution']}")
        except (cli.Failure, ValueError, KeyError) as e:
            failures.append(f"{name}: {e}")
    path = os.path.join(data, "steel_wall.toml")
    table = cli.run(choc, None, path, command="contact", config=None, quiet=False)
    for needle in ("contact time pi/s", "restitution exp(-a pi/s) = 0.9", "measured order",
                   "rk3", "verlet"):
        if table.returncode != 0 or needle not in table.stdout or table.stderr:
            failures.append(f"table: status {table.returncode}, no {needle!r} in "
                            f"{table.stdout!r}, stderr {table.stderr!r}")
            break
    failures += cli.plot_failures(choc, "contact", path)
    helped = cli.run(choc, None, "--help", command="contact", config=None, quiet=False)
    if helped.returncode != 0 or "steps_per_contact" not in helped.stdout:
        failures.append(f"contact --help: status {helped.returncode}: {helped.stdout!r}")
    return failures


def check_large_plot(choc, root):
    """plot_steps = 100000 (up to 1000000 is allowed): --plot draws at most 2000 points of
    each method (1 step in 51 here) and says so in the panel's heading, so the figure is as
    large as any other. Every step drawn made Cairo peak at 4 GB for 1000000 steps (issue
    41), and the SVG held every point: 40 MB here. The bound, 1 MB, is four times the SVG
    of plot_steps = 1000000 now (250 kB; 100 kB at the default 10 steps, with markers)."""
    with tempfile.TemporaryDirectory(prefix="choc-contact-") as directory:
        result = run(choc, "[integration]\nplot_steps = 100000\n", ["--plot", "plot.svg"],
                     directory)
        path = os.path.join(directory, "plot.svg")
        size = os.path.getsize(path) if os.path.exists(path) else None
    if result.returncode != 0 or result.stderr or size is None:
        return [f"status {result.returncode}, plot {size} bytes, stderr {result.stderr!r}"]
    if size > 1 << 20:
        return [f"the SVG of plot_steps = 100000 has {size} bytes"]
    return []


def main():
    args = cli.arguments(__doc__, 2)
    if args is None:
        return 2
    choc, root = args
    failed = cli.report_refusals(choc, "contact", "contact.toml", CASES)
    for check in (check_json, check_outputs, check_large_plot):
        try:
            failures = check(choc, root)
        except (cli.Failure, ValueError, KeyError) as e:
            failures = [repr(e)]
        failed += cli.report(check.__name__, failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
