#!/usr/bin/python3
"""Draw the discs of one frame of a 2D choc trajectory, and the temperature of the time
series beside it (README "Examples").

    /usr/bin/python3 data/examples/plot_discs.py TRAJECTORY.xyz OUT.png [SERIES.csv] [--frame K]
                                                 [--restitution E] [--gravity G]

The frame is the last one unless --frame K (0 = the first) is given. Discs are drawn to
scale, coloured by their kinetic energy relative to the frame's mean (log scale): slow,
cold discs dark, fast ones bright, so the dense cold clusters of a cooling granular gas
stand out. With SERIES.csv a second panel shows the temperature against collisions per
particle, with --restitution E beside Haff's per-collision law ln T = -(1 - e^2) c / 2
(docs/PHYSICS.md); with --gravity G a third panel shows the density profile n(y), averaged
over all frames, beside exp(-m g y / kT). A box wider than 2.5 times its height is drawn
only up to x = 2.5 Ly. Needs Debian's python3-matplotlib and python3-numpy (hence
/usr/bin/python3).
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import EllipseCollection  # noqa: E402


def read_frames(path):
    """Every frame of an extended XYZ file: (time, box edges, columns as arrays)."""
    frames = []
    with open(path) as f:
        while True:
            header = f.readline()
            if not header.strip():
                return frames
            n = int(header)
            comment = f.readline()
            lattice = comment.split('Lattice="')[1].split('"')[0].split()
            edges = (float(lattice[0]), float(lattice[4]))
            t = float(comment.split("Time=")[1].split()[0])
            rows = np.array([f.readline().split()[1:] for _ in range(n)], dtype=float)
            # x y z vx vy vz radius mass px py pz
            frames.append((t, edges, {"x": rows[:, 0], "y": rows[:, 1], "vx": rows[:, 3],
                                      "vy": rows[:, 4], "radius": rows[:, 6],
                                      "mass": rows[:, 7]}))


def draw_discs(ax, t, edges, p):
    # a wide box is drawn only up to x = 2.5 Ly, so that the discs stay visible
    width = min(edges[0], 2.5 * edges[1])
    energy = 0.5 * p["mass"] * (p["vx"] ** 2 + p["vy"] ** 2)
    shade = np.log10(np.maximum(energy / energy.mean(), 1e-4))
    discs = EllipseCollection(2 * p["radius"], 2 * p["radius"], 0.0, units="x",
                              offsets=np.column_stack([p["x"], p["y"]]),
                              offset_transform=ax.transData, array=shade, cmap="inferno",
                              clim=(-2.5, 1.0))
    ax.add_collection(discs)
    ax.set_xlim(0, width)
    ax.set_ylim(0, edges[1])
    ax.set_aspect("equal")
    shown = "" if width == edges[0] else f" (x < {width:g} of {edges[0]:g} shown)"
    ax.set_title(f"{len(energy)} discs at t = {t:g}{shown}")
    plt.colorbar(discs, ax=ax, shrink=0.8,
                 label="log10 (kinetic energy / mean kinetic energy)")


def draw_cooling(ax, series, restitution):
    # the provenance comment lines come before the column names: numpy gets the rest
    with open(series) as f:
        data = np.genfromtxt([line for line in f if not line.startswith("#")], delimiter=",",
                             names=True)
    c, temperature = data["collisions_per_particle"], data["temperature"]
    ax.semilogy(c, temperature / temperature[0], "C0-", label="choc: T / T0")
    if restitution is not None:
        ax.semilogy(c, np.exp(-(1 - restitution ** 2) * c / 2), "k--",
                    label=f"Haff: exp(-(1 - e²) c / 2), e = {restitution:g}")
    ax.set_xlabel("collisions per particle c")
    ax.set_ylabel("temperature / initial temperature")
    ax.legend()
    ax.set_title("cooling")


def draw_profile(ax, frames, gravity):
    """n(y) averaged over all frames, beside exp(-m g y / kT) at their mean kT, both
    normalised to the same number of discs."""
    edges = frames[0][1]
    radius = frames[0][2]["radius"].max()
    bins = np.linspace(radius, edges[1] - radius, 21)  # where centres can be
    counts = sum(np.histogram(p["y"], bins)[0] for _, _, p in frames) / len(frames)
    kT = np.mean([np.mean(p["mass"] * (p["vx"] ** 2 + p["vy"] ** 2)) / 2 for _, _, p in frames])
    centres = 0.5 * (bins[1:] + bins[:-1])
    area = edges[0] * np.diff(bins)
    ax.semilogy(centres, counts / area, "C0o", label=f"choc: mean of {len(frames)} frames")
    ref = np.exp(-gravity * centres / kT)
    ax.semilogy(centres, ref * counts.sum() / (ref * area).sum(), "k--",
                label=f"exp(-mgy/kT), kT = {kT:.3g} (mean of the frames)")
    ax.set_xlabel("height y")
    ax.set_ylabel("number density")
    ax.legend()
    ax.set_title("density profile")


def main():
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("trajectory")
    parser.add_argument("out")
    parser.add_argument("series", nargs="?")
    parser.add_argument("--frame", type=int, default=-1)
    parser.add_argument("--restitution", type=float)
    parser.add_argument("--gravity", type=float)
    args = parser.parse_args()
    frames = read_frames(args.trajectory)
    t, edges, p = frames[args.frame]
    panels = 1 + (args.series is not None) + (args.gravity is not None)
    aspect = min(edges[0], 2.5 * edges[1]) / edges[1]
    fig, axes = plt.subplots(1, panels, figsize=(7 * min(aspect, 2.5) + 6 * (panels - 1), 7),
                             squeeze=False, gridspec_kw={
                                 "width_ratios": [1.2 * min(aspect, 2.5)] + [1] * (panels - 1)})
    draw_discs(axes[0][0], t, edges, p)
    k = 1
    if args.series:
        draw_cooling(axes[0][k], args.series, args.restitution)
        k += 1
    if args.gravity is not None:
        draw_profile(axes[0][k], frames, args.gravity)
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
