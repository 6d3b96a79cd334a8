#!/usr/bin/python3
"""Time steps against events (README "Time steps against events"): the errors of the
time-stepped integrator against the EDMD run beside each of its runs, against wall time.

    /usr/bin/python3 data/studies/timestep_vs_edmd/plot.py out/studies/timestep_vs_edmd [FIGURES_DIR]

Reads the two sweeps' table.json (gas3d, gravity_box) and writes timestep_vs_edmd.png.
data/studies/plot.py calls it too. Needs Debian's python3-matplotlib and python3-numpy.
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# An error that is zero to the last digit is drawn at this floor on the log axes.
FLOOR = 1e-17


def rows_of(path):
    with open(os.path.join(path, "table.json")) as f:
        return json.load(f)["rows"]


def mean(row, key):
    return row["results"][key]["mean"]


def sem(row, key):
    return row["results"][key]["sem"] or 0.0


def panel(ax, rows, error, title, ylabel, edmd_seconds, band=None, band_label=None):
    """One error against wall time, a line per run.passes, each point labelled by dt."""
    for passes, marker in ((1, "o"), (3, "s")):
        mine = sorted((r for r in rows if r["axes"]["run.passes"] == passes),
                      key=lambda r: r["axes"]["run.dt"])
        seconds = np.array([mean(r, "wall_seconds") for r in mine])
        values = np.maximum(np.array([error(r) for r in mine]), FLOOR)
        ax.plot(seconds, values, marker + "-", ms=4, label=f"stepped, {passes} pass"
                + ("es" if passes > 1 else "") + " per step")
        if passes == 1:
            for r, x, y in zip(mine, seconds, values):
                ax.annotate(f"{r['axes']['run.dt']:g}", (x, y), textcoords="offset points",
                            xytext=(4, 3), fontsize=7)
    ax.axvline(edmd_seconds, color="k", ls="--", lw=1, label="EDMD (exact): its wall time")
    ax.set_xscale("log")
    ax.set_yscale("log")
    if band is not None:
        bottom = min(ax.get_ylim()[0], band / 10)
        ax.axhspan(bottom, band, color="0.85", label=band_label, zorder=0)
        ax.set_ylim(bottom=bottom)
    ax.set_xlabel("wall seconds (labels: Δt)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def plot(study_dir, figures):
    gas = rows_of(os.path.join(study_dir, "gas3d"))
    box = rows_of(os.path.join(study_dir, "gravity_box"))
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))

    edmd = np.mean([mean(r, "timestep.edmd.wall_seconds") for r in gas])
    z = np.mean([mean(r, "timestep.edmd.pressure.Z") for r in gas])
    # chance: the spread over seeds of a stepped and of an EDMD mean of two
    z_err = np.sqrt(np.mean([sem(r, "pressure.Z") ** 2 for r in gas])
                    + np.mean([sem(r, "timestep.edmd.pressure.Z") ** 2 for r in gas]))
    panel(axes[0, 0], gas, lambda r: abs(mean(r, "pressure.Z") / mean(r, "timestep.edmd.pressure.Z")
                                         - 1),
          f"3D gas, η = 0.30, N = 2048: pressure (EDMD Z = {z:.3f})",
          "|Z / Z_EDMD − 1|", edmd, band=max(z_err / z, FLOOR),
          band_label="chance: spread of the means over seeds")
    panel(axes[0, 1], gas, lambda r: abs(1 - mean(r, "timestep.edmd.collisions_found")),
          "3D gas: collisions found against EDMD's", "|1 − collisions / EDMD's|", edmd,
          band=1 / np.sqrt(np.mean([mean(r, "timestep.edmd.collision_rate") for r in gas])
                           * 2048 * 10 / 2),
          band_label="1/√(collisions): chance, once runs part")
    panel(axes[0, 2], gas, lambda r: mean(r, "timestep.energy_error"),
          "3D gas: energy (elastic)", "|E − E₀| / E", edmd)

    edmd = np.mean([mean(r, "timestep.edmd.wall_seconds") for r in box])
    collisions = np.mean([mean(r, "timestep.edmd.collision_rate") for r in box]) * 1000 * 500 / 2
    panel(axes[1, 0], box, lambda r: abs(1 - mean(r, "timestep.edmd.collisions_found")),
          "2D gravity box, N = 1000: pair collisions found", "|1 − collisions / EDMD's|", edmd,
          band=1 / np.sqrt(collisions), band_label="1/√(collisions)")
    panel(axes[1, 1], box, lambda r: abs(1 - mean(r, "timestep.edmd.wall_collisions_found")),
          "gravity box: wall collisions found", "|1 − wall collisions / EDMD's|", edmd,
          band=1 / np.sqrt(np.mean([mean(r, "timestep.edmd.wall_collisions") for r in box])),
          band_label="1/√(wall collisions)")
    panel(axes[1, 2], box, lambda r: mean(r, "timestep.energy_error"),
          "gravity box: kinetic + potential energy (elastic)", "|E − E₀| / E", edmd)
    fig.suptitle("time-step-and-rewind hard spheres against EDMD of the same start "
                 "(mean of 2 seeds per point)", fontsize=11)
    fig.tight_layout()
    path = os.path.join(figures, "timestep_vs_edmd.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    figures = sys.argv[2] if len(sys.argv) == 3 else sys.argv[1]
    os.makedirs(figures, exist_ok=True)
    print(plot(sys.argv[1], figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
