#!/usr/bin/env python3
"""Group-solve benchmark: `choc collide` on a chain of n touching discs (2D) or spheres (3D)
hit end-on by a striker, or on a triangular pile of n x n discs, for several n; prints the
wall-clock seconds of each run.

    python3 data/bench/collide_chain.py build/apps/choc [n ...] [--dimension 3] [--keep DIR]
    python3 data/bench/collide_chain.py build/apps/choc 20 40 --pile [--masses] [--walls]
        [--restitution E]

The chain is one collision group of n contacts (the striker touches the first body), the
whole of which must be solved at once; the dense solve costs O(n^3), a sparse one O(n).
Bodies sit at exact contact (x = 2 k with radius 1, exactly representable), with a small
transverse zigzag optional (--zigzag) so the normals are not all parallel.
The pile (2D) has about three contacts per disc against two velocity components, so its
systems are singular; random velocities (seed 1), masses 1 or random in [0.1, 10], and
with --walls a wall under the bottom row and one left of the first column (inelastic
piles in that corner need the sequential fallback: the slowest case measured).
"""
import argparse
import math
import random
import os
import subprocess
import sys
import tempfile
import time


def chain(n, dimension, zigzag):
    # n + 1 bodies: the striker (index 0, velocity 1 along x) and n at rest, each touching
    # the previous one. With a zigzag the centres step by 2 (cos a, +-sin a): still at
    # contact, since the step's length is 2 to rounding (the tolerance is 1e-9).
    lines = [f"dimension = {dimension}", "restitution = 1.0", ""]
    x, y = 0.0, 0.0
    for k in range(n + 1):
        if k > 0:
            a = zigzag * (1 if k % 2 else -1)
            x += 2.0 * math.cos(a)
            y += 2.0 * math.sin(a)
        position = [x, y] + ([0.0] if dimension == 3 else [])
        velocity = [1.0 if k == 0 else 0.0, 0.0] + ([0.0] if dimension == 3 else [])
        lines += ["[[bodies]]", f"position = {position!r}", f"velocity = {velocity!r}",
                  "radius = 1.0", "mass = 1.0", ""]
    return "\n".join(lines)


def pile(side, masses, walls, restitution):
    rnd = random.Random(1)
    lines = ["dimension = 2", f"restitution = {restitution!r}", ""]
    for row in range(side):
        for col in range(side):
            position = [2.0 * col + row % 2, math.sqrt(3.0) * row]
            velocity = [rnd.uniform(-1, 1), rnd.uniform(-1, 1)]
            mass = rnd.uniform(0.1, 10.0) if masses else 1.0
            lines += ["[[bodies]]", f"position = {position!r}", f"velocity = {velocity!r}",
                      "radius = 1.0", f"mass = {mass!r}", ""]
    if walls: # touching the discs at y = 0 and those at x = 0
        lines += ["[[walls]]", "normal = [0.0, 1.0]", "point = [0.0, -1.0]", "",
                  "[[walls]]", "normal = [1.0, 0.0]", "point = [-1.0, 0.0]", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("choc")
    parser.add_argument("sizes", nargs="*", type=int, default=[100, 300, 1000, 2000])
    parser.add_argument("--dimension", type=int, choices=(2, 3), default=2)
    parser.add_argument("--zigzag", type=float, default=0.0, help="angle in radians")
    parser.add_argument("--keep", help="write the group files into this directory")
    parser.add_argument("--pile", action="store_true", help="n x n triangular piles (2D)")
    parser.add_argument("--masses", action="store_true", help="pile: random masses")
    parser.add_argument("--walls", action="store_true", help="pile: two walls at a corner")
    parser.add_argument("--restitution", type=float, default=1.0, help="pile: e")
    args = parser.parse_args()
    directory = args.keep or tempfile.mkdtemp(prefix="choc_chain_")
    os.makedirs(directory, exist_ok=True)
    print(f"{'n':>6} {'dim':>3} {'seconds':>9}")
    for n in args.sizes:
        if args.pile:
            path = os.path.join(directory, f"pile_{n}.toml")
            text = pile(n, args.masses, args.walls, args.restitution)
        else:
            path = os.path.join(directory, f"chain{args.dimension}d_{n}.toml")
            text = chain(n, args.dimension, args.zigzag)
        with open(path, "w") as f:
            f.write(text)
        start = time.perf_counter()
        run = subprocess.run([args.choc, "collide", path], capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if run.returncode != 0:
            sys.exit(f"choc collide {path} failed ({run.returncode}): {run.stderr.strip()}")
        print(f"{n:>6} {2 if args.pile else args.dimension:>3} {seconds:>9.3f}", flush=True)


if __name__ == "__main__":
    main()
