"""data/bench/mesh_setup: how long `choc run` takes to set up a large bumpy mesh; see that file."""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from benchlib import ROOT

sys.path.insert(0, os.path.join(ROOT, "data", "examples"))
from hourglass_mesh import write_stl  # noqa: E402  (the one binary STL writer)

EDGE = 20.0  # the box's width; the floor spans it, half a unit clear of its walls


def bumpy_floor(facets, seed=1):
    """A floor of about `facets` triangles over [0.5, EDGE - 0.5]^2: a grid of squares of two
    triangles each, heights 1 + 0.3 sin(x) sin(y) + 0.05 noise. No two facets of a cell are
    coplanar, so every one stays loose and each cell compares many planes."""
    n = max(1, int(round((facets / 2) ** 0.5)))
    grid = np.linspace(0.5, EDGE - 0.5, n + 1)
    x, y = np.meshgrid(grid, grid, indexing="ij")
    z = 1.0 + 0.3 * np.sin(x) * np.sin(y) + 0.05 * np.random.default_rng(seed).random(x.shape)
    p = np.stack([x, y, z], axis=-1)
    a, b, c, d = p[:-1, :-1], p[1:, :-1], p[1:, 1:], p[:-1, 1:]
    lower = np.stack([a, b, c], axis=-2).reshape(-1, 3, 3)
    upper = np.stack([a, c, d], axis=-2).reshape(-1, 3, 3)
    return np.concatenate([lower, upper])


CONFIG = f"""dimension = 3
[box]
size = [{EDGE}, {EDGE}, 10.0]
boundary = "wall"
[[species]]
name = "A"
count = 50
radius = 0.5
[[walls]]
mesh = "floor.stl"
[init]
lattice = "random"
region = {{ low = [1.0, 1.0, 3.0], high = [{EDGE - 1}, {EDGE - 1}, 9.0] }}
seed = 1
[run]
collisions = 10
[output]
summary = "summary.json"
"""


def main():
    parser = argparse.ArgumentParser(prog="data/bench/mesh_setup")
    parser.add_argument("--choc", default=os.path.join(ROOT, "build", "apps", "choc"))
    parser.add_argument("--facets", type=int, nargs="+", default=[20000, 80000, 320000, 1000000])
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--keep", help="write the meshes and configs to this directory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="choc-mesh-setup-") as scratch:
        for facets in args.facets:
            d = args.keep or scratch
            if args.keep:
                d = os.path.join(args.keep, f"floor_{facets}")
                os.makedirs(d, exist_ok=True)
            triangles = bumpy_floor(facets)
            write_stl(os.path.join(d, "floor.stl"), triangles)
            with open(os.path.join(d, "config.toml"), "w") as f:
                f.write(CONFIG)
            start = time.monotonic()
            try:
                result = subprocess.run([args.choc, "run", "config.toml", "--quiet"], cwd=d,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        text=True, timeout=args.timeout)
                seconds = time.monotonic() - start
                status = f"exit {result.returncode}" + (
                    f": {result.stderr.strip()[:200]}" if result.returncode else "")
            except subprocess.TimeoutExpired:
                seconds, status = time.monotonic() - start, f"not done after {args.timeout:g} s"
            print(f"{len(triangles):>8} facets: {seconds:8.2f} s  ({status})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
