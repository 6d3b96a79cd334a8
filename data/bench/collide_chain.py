#!/usr/bin/env python3
"""Group-solve benchmark: `choc collide` on a chain of n touching discs (2D) or spheres (3D)
hit end-on by a striker, for several n; prints the wall-clock seconds of each run.

    python3 data/bench/collide_chain.py build/apps/choc [n ...] [--dimension 3] [--keep DIR]

The chain is one collision group of n contacts (the striker touches the first body), the
whole of which must be solved at once; the dense solve costs O(n^3), a sparse one O(n).
Bodies sit at exact contact (x = 2 k with radius 1, exactly representable), with a small
transverse zigzag optional (--zigzag) so the normals are not all parallel.
"""
import argparse
import math
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("choc")
    parser.add_argument("sizes", nargs="*", type=int, default=[100, 300, 1000, 2000])
    parser.add_argument("--dimension", type=int, choices=(2, 3), default=2)
    parser.add_argument("--zigzag", type=float, default=0.0, help="angle in radians")
    parser.add_argument("--keep", help="write the group files into this directory")
    args = parser.parse_args()
    directory = args.keep or tempfile.mkdtemp(prefix="choc_chain_")
    os.makedirs(directory, exist_ok=True)
    print(f"{'n':>6} {'dim':>3} {'seconds':>9}")
    for n in args.sizes:
        path = os.path.join(directory, f"chain{args.dimension}d_{n}.toml")
        with open(path, "w") as f:
            f.write(chain(n, args.dimension, args.zigzag))
        start = time.perf_counter()
        run = subprocess.run([args.choc, "collide", path], capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if run.returncode != 0:
            sys.exit(f"choc collide {path} failed ({run.returncode}): {run.stderr.strip()}")
        print(f"{n:>6} {args.dimension:>3} {seconds:>9.3f}", flush=True)


if __name__ == "__main__":
    main()
