#!/usr/bin/env python3
"""`choc collide` keeps the promises of docs/REFERENCE.md (the collision-group file and its output): the three-disc
examples of data/collide give their exact velocities through --json, the table and the
plots are written, and bad input fails cleanly (status 2, one `choc: error:` line naming
the key or file, no plot file left behind).

Usage: python3 tests/cli/cli_collide.py CHOC_EXECUTABLE REPO_ROOT
"""

import json
import math
import os
import random
import sys
import tempfile

import choc_cli as cli

# Velocities and energies are sums of a few products of numbers of order 1 after a solve
# of a well-conditioned 10 x 10 system: exact to ~1e-15; 1e-12 is a margin, and a wrong
# physics result is off by O(0.1).
TOL = 1e-12

GOOD = """dimension = 2
restitution = 1.0
[[bodies]]
position = [-2.0, 0.0]
velocity = [1.0, 0.0]
radius = 1.0
mass = 1.0
[[bodies]]
position = [0.0, 0.0]
velocity = [0.0, 0.0]
radius = 1.0
mass = 1.0
"""

BODY = "[[bodies]]\nposition = {p}\nvelocity = [0.0, 0.0]\nradius = 1.0\nmass = 1.0\n"

# (case name, group file text or None for no file, extra arguments, strings one of
# which the message must contain)
CASES = [
    ("missing group file", None, [], ["group.toml"]),
    ("TOML syntax error", GOOD + "radius = = 1\n", [], ["group.toml:13:"]),
    ("unknown top-level key", "colour = 1\n" + GOOD, [], ["group.toml: colour: unknown key"]),
    ("unknown body key", GOOD + "colour = 1\n", [], ["bodies[1].colour"]),
    ("dimension 4", GOOD.replace("dimension = 2", "dimension = 4"), [], ["dimension"]),
    ("restitution 1.5", GOOD.replace("restitution = 1.0", "restitution = 1.5"), [],
     ["restitution"]),
    ("negative tolerance", "tolerance = -1e-9\n" + GOOD, [], ["tolerance"]),
    ("radius of the wrong type", GOOD.replace("radius = 1.0", 'radius = "big"', 1), [],
     ["bodies[0].radius"]),
    ("zero mass", GOOD[::-1].replace("0.1 = ssam", "0.0 = ssam", 1)[::-1], [], ["bodies[1].mass"]),
    ("negative radius", GOOD.replace("radius = 1.0", "radius = -1.0", 1), [], ["bodies[0].radius"]),
    ("missing velocity", GOOD.replace("velocity = [1.0, 0.0]\n", ""), [], ["bodies[0].velocity"]),
    ("position of the wrong length", GOOD.replace("[-2.0, 0.0]", "[-2.0, 0.0, 0.0]"), [],
     ["bodies[0].position"]),
    ("nan velocity", GOOD.replace("[1.0, 0.0]", "[nan, 0.0]"), [], ["bodies[0].velocity[0]"]),
    ("velocity beyond 1e50", GOOD.replace("[1.0, 0.0]", "[1e200, 0.0]"), [],
     ["group.toml: bodies[0].velocity[0]: must be of magnitude within [1e-50, 1e+50]"]),
    ("no bodies", "dimension = 2\n", [], ["bodies"]),
    ("a body touching nothing", GOOD + BODY.format(p="[5.0, 0.0]"), [], ["bodies[2]: touches no"]),
    ("overlapping bodies", GOOD.replace("[-2.0, 0.0]", "[-1.9, 0.0]"), [],
     ["bodies[1]: overlaps bodies[0]"]),
    ("gap larger than the tolerance", GOOD.replace("[-2.0, 0.0]", "[-2.000001, 0.0]"), [],
     ["bodies[0]: touches no"]),
    ("overlapping a wall",
     GOOD + "[[walls]]\nnormal = [0.0, 1.0]\npoint = [0.0, -0.5]\n", [], ["walls[0]"]),
    ("zero wall normal",
     GOOD + "[[walls]]\nnormal = [0.0, 0.0]\npoint = [0.0, -1.0]\n", [], ["walls[0].normal"]),
    ("plot with an unknown extension", GOOD, ["--plot", "plot.jpg"], ["--plot"]),
    ("plot into a missing directory", GOOD, ["--plot", "no_such_dir/plot.png"], ["--plot"]),
    ("bad input with a plot asked", GOOD.replace("[-2.0, 0.0]", "[-1.9, 0.0]"),
     ["--plot", "plot.png"], ["bodies[1]"]),
    ("unknown option", GOOD, ["--colour"], ["--colour"]),
]


def run(choc, text, args, directory):
    return cli.run(choc, directory, *args, toml=text, config="group.toml", command="collide",
                   quiet=False)


def collide_json(choc, path):
    return cli.json_of(choc, "collide", path, "--json")


def close(x, y):
    return abs(x - y) <= TOL


def check_examples(choc, root):
    """The seed's three-disc example: exact velocities along the line of centres."""
    data = os.path.join(root, "data", "collide")
    failures = []
    for name, expected, energy_after in [
        ("three_discs_b0.toml", [-1 / 3, 2 / 3, 2 / 3], 0.5),
        ("three_discs_b0_e05.toml", [0.0, 0.5, 0.5], 0.25),
    ]:
        out = collide_json(choc, os.path.join(data, name))
        if set(out) != {"bodies", "contacts", "kinetic_energy"}:
            failures.append(f"{name}: top-level keys {sorted(out)}")
        got = [b["velocity_after"] for b in out["bodies"]]
        if not all(close(g[0], e) and close(g[1], 0.0) for g, e in zip(got, expected)):
            failures.append(f"{name}: velocities {got}, expected x = {expected}")
        if [b["velocity_before"] for b in out["bodies"]] != [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]:
            failures.append(f"{name}: velocity_before {out['bodies']}")
        if [(c["a"], c["b"]) for c in out["contacts"]] != [(0, 1), (1, 2)]:
            failures.append(f"{name}: contacts {out['contacts']}")
        energy = out["kinetic_energy"]
        if not (close(energy["before"], 0.5) and close(energy["after"], energy_after)):
            failures.append(f"{name}: kinetic energy {energy}")
        # Impulses are what each a received: the change of its momentum (mass 1) ...
        received = [[0.0, 0.0] for _ in got]
        for c in out["contacts"]:
            for axis in range(2):
                received[c["a"]][axis] += c["impulse"][axis]
                received[c["b"]][axis] -= c["impulse"][axis]
        for i, body in enumerate(out["bodies"]):
            change = [body["velocity_after"][k] - body["velocity_before"][k] for k in range(2)]
            if not all(close(change[k], received[i][k]) for k in range(2)):
                failures.append(f"{name}: body {i} changed by {change}, received {received[i]}")

    # b = 0.5, e = 1: energy and momentum conserved, discs 1 and 2 leave together along x
    # with 30/49 (the exact rational answer) and disc 0 with -11/49.
    out = collide_json(choc, os.path.join(data, "three_discs_b05.toml"))
    v = [b["velocity_after"] for b in out["bodies"]]
    energy = sum(0.5 * (x * x + y * y) for x, y in v)
    momentum = [sum(b[k] for b in v) for k in range(2)]
    if not (close(energy, 0.5) and close(momentum[0], 1.0) and close(momentum[1], 0.0)):
        failures.append(f"three_discs_b05.toml: energy {energy}, momentum {momentum}")
    if not (close(v[0][0], -11 / 49) and close(v[1][0], 30 / 49) and close(v[2][0], 30 / 49)
            and close(v[2][1], 0.0)):
        failures.append(f"three_discs_b05.toml: velocities {v}")
    return failures


def check_outputs(choc, root):
    """The table names the velocities; --plot writes PNG or SVG and nothing else."""
    failures = []
    path = os.path.join(root, "data", "collide", "three_discs_b0.toml")
    table = cli.run(choc, None, path, command="collide", config=None, quiet=False)
    if table.returncode != 0 or "(-0.3333333333, 0)" not in table.stdout or table.stderr:
        failures.append(f"table: status {table.returncode}, {table.stdout!r}, {table.stderr!r}")
    failures += cli.plot_failures(choc, "collide", path)
    # A disc touching two parallel walls has no simultaneous answer: a warning on stderr,
    # the plastic fallback (normal velocity 0, tangential kept), wall contacts as "wall".
    slot = ("dimension = 2\n[[bodies]]\nposition = [0.0, 1.0]\nvelocity = [0.5, 1.0]\n"
            "radius = 1.0\nmass = 1.0\n[[walls]]\nnormal = [0.0, 1.0]\npoint = [0.0, 0.0]\n"
            "[[walls]]\nnormal = [0.0, -1.0]\npoint = [0.0, 2.0]\n")
    with tempfile.TemporaryDirectory(prefix="choc-collide-") as directory:
        result = run(choc, slot, ["--json"], directory)
    try:
        out = json.loads(result.stdout)
        v = out["bodies"][0]["velocity_after"]
        walls = [(c["a"], c["wall"]) for c in out["contacts"]]
        if result.returncode != 0 or "sequential plastic" not in result.stderr:
            failures.append(f"two walls: status {result.returncode}, stderr {result.stderr!r}")
        if not (close(v[0], 0.5) and close(v[1], 0.0)) or walls != [(0, 0), (0, 1)]:
            failures.append(f"two walls: velocity {v}, contacts {out['contacts']}")
    except (ValueError, KeyError) as e:
        failures.append(f"two walls: {e!r} in {result.stdout!r}")
    helped = cli.run(choc, None, "--help", command="collide", config=None, quiet=False)
    if helped.returncode != 0 or "tolerance" not in helped.stdout or "--plot" not in helped.stdout:
        failures.append(f"collide --help: status {helped.returncode}: {helped.stdout!r}")
    return failures


def large_group_file(kind):
    """A straight elastic chain of 2000 unit discs struck at one end, or an elastic 40 x 40
    triangular pile of discs (4641 contacts, singular: three contacts per disc against two
    velocity components) with random velocities and masses. Returns (text, masses)."""
    rnd = random.Random(5)
    bodies = []
    if kind == "chain":
        for i in range(2000):
            bodies.append(([2.0 * i, 0.0], [1.0 if i == 0 else 0.0, 0.0], 1.0))
    else:
        for row in range(40):
            for col in range(40):
                bodies.append(([2.0 * col + row % 2, math.sqrt(3.0) * row],
                               [rnd.uniform(-1, 1), rnd.uniform(-1, 1)], rnd.uniform(0.1, 10.0)))
    text = "dimension = 2\nrestitution = 1.0\n" + "".join(
        f"[[bodies]]\nposition = [{p[0]!r}, {p[1]!r}]\nvelocity = [{v[0]!r}, {v[1]!r}]\n"
        f"radius = 1.0\nmass = {m!r}\n" for p, v, m in bodies)
    return text, [m for _, _, m in bodies]


def check_large(choc, root):
    """Groups of thousands of contacts are solved sparsely, in seconds: the dense
    elimination of the chain took over a minute (the 60 s limit of each run here), the
    pile's several minutes. Elastic, so momentum and energy are conserved; sums of a few
    thousand terms of order 1, each exact to ~1e-15 after the solve: 1e-9 of the total is
    a wide margin, and a wrong answer is off by O(0.1)."""
    failures = []
    for kind in ("chain", "pile"):
        text, masses = large_group_file(kind)
        with tempfile.TemporaryDirectory(prefix="choc-collide-") as directory:
            path = os.path.join(directory, "group.toml")
            with open(path, "w") as f:
                f.write(text)
            try:
                out = collide_json(choc, path)
            except cli.Failure as e:
                failures.append(f"{kind}: {e}")
                continue
        before = [b["velocity_before"] for b in out["bodies"]]
        after = [b["velocity_after"] for b in out["bodies"]]
        for axis in range(2):
            p0 = sum(m * v[axis] for m, v in zip(masses, before))
            p1 = sum(m * v[axis] for m, v in zip(masses, after))
            scale = sum(m * math.hypot(*v) for m, v in zip(masses, before))
            if not abs(p1 - p0) <= 1e-9 * scale:
                failures.append(f"{kind}: momentum[{axis}] {p0} -> {p1}")
        energy = out["kinetic_energy"]
        if not abs(energy["after"] - energy["before"]) <= 1e-9 * energy["before"]:
            failures.append(f"{kind}: kinetic energy {energy}")
        if len(out["contacts"]) != (1999 if kind == "chain" else 4641):
            failures.append(f"{kind}: {len(out['contacts'])} contacts")
    return failures


def main():
    args = cli.arguments(__doc__, 2)
    if args is None:
        return 2
    choc, root = args
    failed = cli.report_refusals(choc, "collide", "group.toml", CASES)
    for check in (check_examples, check_outputs, check_large):
        failed += cli.report(check.__name__, check(choc, root))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
