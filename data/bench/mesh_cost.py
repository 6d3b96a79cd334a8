"""data/bench/mesh_cost: plane walls against a 100k-triangle mesh; see that file."""

import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np

from benchlib import ROOT

sys.path.insert(0, os.path.join(ROOT, "data", "examples"))
from hourglass_mesh import write_stl  # noqa: E402  (the one binary STL writer)

EDGE = 40.0  # the gas's cube
N = 20000  # packing fraction 20000 (pi/6) / 40^3 = 0.16


def lined_cube(n, lo, hi):
    """The facets of the cube [lo, hi]^3, each face n x n squares of two triangles."""
    grid = np.linspace(lo, hi, n + 1)
    out = []
    for axis in range(3):
        u, w = [a for a in range(3) if a != axis]
        for level in (lo, hi):
            for i in range(n):
                for j in range(n):
                    corners = []
                    for di, dj in ((0, 0), (1, 0), (1, 1), (0, 1)):
                        p = [0.0, 0.0, 0.0]
                        p[axis], p[u], p[w] = level, grid[i + di], grid[j + dj]
                        corners.append(p)
                    out.append([corners[0], corners[1], corners[2]])
                    out.append([corners[0], corners[2], corners[3]])
    return np.array(out)


def config(mesh, collisions):
    """The two cases: the cube's own plane walls, or the mesh inside a periodic box (one unit
    clear of its faces, as triangles must be one diameter from a periodic face)."""
    common = f"""dimension = 3
[[species]]
name = "A"
count = {N}
radius = 0.5
[init]
lattice = "random"
seed = 1
[run]
equilibrate = 1.0
collisions = {collisions}
"""
    if not mesh:
        return common + f'[box]\nsize = [{EDGE}, {EDGE}, {EDGE}]\nboundary = "wall"\n'
    box = EDGE + 2.0
    return common.replace("seed = 1", f"seed = 1\nregion = {{ low = [1.0, 1.0, 1.0], "
                                      f"high = [{box - 1}, {box - 1}, {box - 1}] }}") + (
        f'[box]\nsize = [{box}, {box}, {box}]\nboundary = "periodic"\n'
        f'[[walls]]\nmesh = "{mesh}"\n')


def run(choc, directory, text):
    path = os.path.join(directory, "config.toml")
    with open(path, "w") as f:
        f.write(text)
    subprocess.run([choc, "run", path, "--quiet", "--summary", os.path.join(directory, "s.json")],
                   cwd=directory, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(directory, "s.json")) as f:
        s = json.load(f)
    return 1e9 * s["wall_seconds"] / s["events"], s["wall_collisions"] / s["events"]


def main():
    parser = argparse.ArgumentParser(prog="data/bench/mesh_cost")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--collisions", type=int, default=1_000_000)
    parser.add_argument("--squares", type=int, nargs="+", default=[1, 10, 91],
                        help="squares along a face's edge, one mesh each (12 n^2 facets)")
    args = parser.parse_args()
    choc = os.path.join(ROOT, "build", "apps", "choc")
    out = os.path.join(ROOT, "out", "bench", "mesh_cost")
    os.makedirs(out, exist_ok=True)
    texts = {"planes": config(None, args.collisions)}
    for n in args.squares:
        stl = os.path.join(out, f"lined_cube_{n}.stl")
        write_stl(stl, lined_cube(n, 1.0, EDGE + 1.0))
        texts[f"{12 * n * n} triangles"] = config(stl, args.collisions)
    for k in range(len(texts)):
        os.makedirs(os.path.join(out, f"case{k}"), exist_ok=True)
    print(f"{N} spheres in a cube of edge {EDGE}: its 6 plane walls, or a mesh lining it; "
          f"{args.collisions} pair collisions a run; ns per event, and over the planes'")
    names = list(texts)
    print(f"{'round':>5} " + " ".join(f"{name:>22}" for name in names))
    ratios = {name: [] for name in names[1:]}
    for r in range(args.rounds):
        order = list(enumerate(names)) if r % 2 == 0 else list(enumerate(names))[::-1]
        cost = {name: run(choc, os.path.join(out, f"case{k}"), texts[name])[0]
                for k, name in order}
        for name in names[1:]:
            ratios[name].append(cost[name] / cost["planes"])
        cells = [f"{cost['planes']:>22.0f}"] + [
            f"{cost[name]:>12.0f} ({ratios[name][-1]:5.2f}x)" for name in names[1:]]
        print(f"{r + 1:>5} " + " ".join(cells), flush=True)
    for name in names[1:]:
        x = ratios[name]
        spread = statistics.stdev(x) / len(x) ** 0.5 if len(x) > 1 else float("nan")
        print(f"{name} / planes: {statistics.mean(x):.2f} +- {spread:.2f} "
              f"(range {min(x):.2f} to {max(x):.2f})")


if __name__ == "__main__":
    sys.exit(main())
