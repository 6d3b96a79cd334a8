#!/usr/bin/python3
"""Draws a 3D run in a vessel of triangles: the spheres behind a vertical cut through the
vessel's axis, seen from the front and shaded by depth (nearer is lighter), with the cut's
outline of the mesh, for a few trajectory frames side by side (a PNG); or every frame as an
animation (a GIF, when OUT ends in .gif).

Usage: /usr/bin/python3 data/examples/plot_hourglass3d.py CONFIG.toml TRAJECTORY.xyz OUT [N]
(N frames in a PNG, spread evenly over the trajectory; default 5. A GIF shows every frame.)
The cut is the plane y = the box's middle; the mesh is the config's [[walls]] mesh (binary or
ASCII STL) and vertices. Debian's python3-matplotlib and python3-numpy.
"""

import os
import sys
import tomllib

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.animation import FuncAnimation, PillowWriter
from matplotlib.collections import EllipseCollection, LineCollection


def frames(path):
    """Yields (time, positions (n, 3), radii (n,)) of each extended XYZ frame of choc."""
    with open(path) as f:
        while True:
            line = f.readline()
            if not line.strip():
                return
            n = int(line)
            header = f.readline()
            fields = {}
            for item in header.split():  # (the first Time=; provenance keys may quote text)
                if "=" in item and '"' not in item:
                    fields.setdefault(*item.split("=", 1))
            rows = [f.readline().split() for _ in range(n)]
            # type x y z vx vy vz radius mass px py pz
            x = np.array([[float(c) for c in r[1:4]] for r in rows])
            radius = np.array([float(r[7]) for r in rows])
            yield float(fields.get("Time", "nan")), x, radius


def read_stl(path):
    """The facets of an STL file, shape (n, 3, 3)."""
    with open(path, "rb") as f:
        data = f.read()
    count = int(np.frombuffer(data[80:84], "<u4")[0]) if len(data) >= 84 else -1
    if count >= 0 and len(data) == 84 + 50 * count:  # binary: the size says so
        record = np.dtype([("normal", "<f4", 3), ("vertices", "<f4", (3, 3)), ("a", "<u2")])
        return np.frombuffer(data[84:], record)["vertices"].astype(float)
    words = data.decode(errors="replace").split()
    vertices = [[float(w) for w in words[k + 1:k + 4]] for k, w in enumerate(words) if w == "vertex"]
    return np.array(vertices).reshape(-1, 3, 3)


def triangles_of(config_path):
    """Every triangle of the config's [[walls]] (mesh files scaled and translated)."""
    with open(config_path, "rb") as f:
        config = tomllib.load(f)
    out = []
    for w in config.get("walls", []):
        if "mesh" in w:
            t = read_stl(os.path.join(os.path.dirname(config_path), w["mesh"]))
        elif "vertices" in w:
            t = np.array([w["vertices"]], dtype=float)
        else:
            continue
        scale = np.broadcast_to(np.asarray(w.get("scale", 1.0), dtype=float), (3,))
        out.append(t * scale + np.asarray(w.get("translate", [0.0, 0.0, 0.0]), dtype=float))
    return config, (np.concatenate(out) if out else np.zeros((0, 3, 3)))


def cut(triangles, y):
    """The segments (x, z) where the plane at y crosses the triangles."""
    segments = []
    for t in triangles:
        points = []
        for a, b in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
            if (a[1] - y) * (b[1] - y) < 0:  # this edge crosses the plane
                s = (y - a[1]) / (b[1] - a[1])
                p = a + s * (b - a)
                points.append((p[0], p[2]))
        if len(points) == 2:
            segments.append(points)
    return segments


def draw(ax, time, x, radius, outline, length, middle):
    behind = x[:, 1] >= middle  # the front half is cut away
    order = np.argsort(-x[behind, 1])  # far ones first, near ones drawn over them
    xb, rb = x[behind][order], radius[behind][order]
    depth = (xb[:, 1] - middle) / max(length[1] - middle, 1e-12)  # 0 at the cut, 1 at the back
    colours = plt.cm.copper(0.95 - 0.7 * depth)
    ax.add_collection(EllipseCollection(2 * rb, 2 * rb, 0.0, units="xy", offsets=xb[:, [0, 2]],
                                        transOffset=ax.transData, facecolor=colours,
                                        edgecolor="#3a2a0e", linewidth=0.15))
    ax.add_collection(LineCollection(outline, colors="black", linewidths=1.2))
    ax.set_xlim(-0.5, length[0] + 0.5)
    ax.set_ylim(-0.5, length[2] + 0.5)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(f"t = {time:g}", fontsize=9)


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    config_path, trajectory, out = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) == 5 else 5
    config, triangles = triangles_of(config_path)
    length = config["box"]["size"]
    middle = 0.5 * length[1]
    # (a hair off the middle: a mesh of revolution has vertices on the middle plane itself)
    outline = cut(triangles, middle * (1.0 + 1e-9))
    all_frames = list(frames(trajectory))
    if not all_frames:
        sys.exit(f"{trajectory}: no frames")
    aspect = length[2] / length[0]
    if out.endswith(".gif"):
        fig, ax = plt.subplots(figsize=(2.4, 2.4 * aspect))

        def show(k):
            ax.clear()
            draw(ax, *all_frames[k], outline, length, middle)

        FuncAnimation(fig, show, frames=len(all_frames)).save(out, writer=PillowWriter(fps=8),
                                                              dpi=60)
        print(f"wrote {out} ({len(all_frames)} frames)")
        return
    pick = sorted({round(k * (len(all_frames) - 1) / max(count - 1, 1)) for k in range(count)})
    fig, axes = plt.subplots(1, len(pick), figsize=(2.0 * len(pick), 2.0 * aspect + 0.4))
    for ax, k in zip(np.atleast_1d(axes), pick):
        draw(ax, *all_frames[k], outline, length, middle)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    print(f"wrote {out} ({len(pick)} frames of {len(all_frames)})")


if __name__ == "__main__":
    main()
