#!/usr/bin/python3
"""Draws a 2D run with segments: the [[walls]] segments of its config and the discs of a
few trajectory frames, side by side, to a PNG.

Usage: /usr/bin/python3 data/examples/plot_hourglass.py CONFIG.toml TRAJECTORY.xyz OUT.png [N]
(N frames, spread evenly over the trajectory; default 4). Debian's python3-matplotlib.
"""

import sys
import tomllib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.collections import EllipseCollection


def frames(path):
    """Yields (time, x, y, radius) of each extended XYZ frame written by choc."""
    with open(path) as f:
        while True:
            line = f.readline()
            if not line.strip():
                return
            n = int(line)
            header = f.readline()
            # (the first Time=: the provenance keys after it may quote any text)
            fields = {}
            for item in header.split():
                if "=" in item and '"' not in item:
                    fields.setdefault(*item.split("=", 1))
            time = float(fields.get("Time", "nan"))
            xs, ys, rs = [], [], []
            for _ in range(n):
                cols = f.readline().split()
                # type x y z vx vy vz radius mass px py pz
                xs.append(float(cols[1]))
                ys.append(float(cols[2]))
                rs.append(float(cols[7]))
            yield time, xs, ys, rs


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    config_path, trajectory, out = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) == 5 else 4
    with open(config_path, "rb") as f:
        config = tomllib.load(f)
    length = config["box"]["size"]
    segments = [(w["from"], w["to"]) for w in config.get("walls", []) if "from" in w]

    all_frames = list(frames(trajectory))
    if not all_frames:
        sys.exit(f"{trajectory}: no frames")
    pick = sorted({round(k * (len(all_frames) - 1) / max(count - 1, 1)) for k in range(count)})
    chosen = [all_frames[k] for k in pick]

    aspect = length[1] / length[0]
    fig, axes = plt.subplots(1, len(chosen), figsize=(2.2 * len(chosen), 2.2 * aspect + 0.4))
    if len(chosen) == 1:
        axes = [axes]
    for ax, (time, xs, ys, rs) in zip(axes, chosen):
        diameters = [2 * r for r in rs]
        ax.add_collection(
            EllipseCollection(
                diameters, diameters, 0.0, units="xy", offsets=list(zip(xs, ys)),
                transOffset=ax.transData, facecolor="#d9a441", edgecolor="#7a5a1e",
                linewidth=0.2,
            )
        )
        for a, b in segments:
            ax.plot([a[0], b[0]], [a[1], b[1]], color="black", linewidth=1.5)
        ax.plot([0, length[0], length[0], 0, 0], [0, 0, length[1], length[1], 0],
                color="grey", linewidth=0.8)
        ax.set_xlim(-1, length[0] + 1)
        ax.set_ylim(-1, length[1] + 1)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(f"t = {time:g}", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    print(f"wrote {out} ({len(chosen)} frames of {len(all_frames)})")


if __name__ == "__main__":
    main()
