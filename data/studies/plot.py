#!/usr/bin/python3
"""Plots of the choc studies (README "Studies") from their CSV and JSON outputs.

    /usr/bin/python3 data/studies/plot.py out/studies [FIGURES_DIR]

Reads what data/studies/run wrote under out/studies/ and writes PNG files to FIGURES_DIR
(default: the same directory). Studies that were not run are skipped. Needs Debian's
python3-matplotlib and python3-numpy (hence /usr/bin/python3).
"""

import glob
import importlib.util
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# The reference physics (docs/PHYSICS.md) lives with what the tests share (tests/support/):
# the validation and the cli tests use it too.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "support"))
import reference_physics as ref  # noqa: E402



def study_module(name):
    """A study's own plot.py (data/studies/NAME/plot.py), loaded as a module of that name."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name, "plot.py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


timestep_vs_edmd = study_module("timestep_vs_edmd")
transport = study_module("transport")

hansen_goos = np.vectorize(ref.hansen_goos)
carnahan_starling = np.vectorize(ref.carnahan_starling)
kolafa_rottner = np.vectorize(ref.kolafa_rottner)
henderson = np.vectorize(ref.henderson)
mb_density = np.vectorize(ref.maxwell_speed_density)
mb_h = np.vectorize(ref.maxwell_h)


def save(fig, figures, name):
    fig.tight_layout()
    path = os.path.join(figures, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --- reading choc's outputs ----------------------------------------------------------

def read_csv(path):
    """Columns of a CSV written by choc, as numpy arrays by header name (the time series'
    "#" comment lines, its provenance, left out)."""
    with open(path) as f:
        data = np.genfromtxt([line for line in f if not line.startswith("#")], delimiter=",",
                             names=True)
    return {name: data[name] for name in data.dtype.names}


def read_json(path):
    with open(path) as f:
        return json.load(f)


# --- figures -------------------------------------------------------------------------

def relaxation(study_dir, d, figures):
    """Speed and x-velocity histograms at a few times against MB, and kurtosis, KS and H
    against time."""
    series = read_csv(os.path.join(study_dir, "series.csv"))
    summary = read_json(os.path.join(study_dir, "summary.json"))
    # histograms at the early stops (summary_t*.json beside speeds_t*.csv), then the end
    stops = []
    for path in glob.glob(os.path.join(study_dir, "speeds_t*.csv")):
        t = path[path.rindex("_t") + 2:-4]
        s = read_json(os.path.join(study_dir, f"summary_t{t}.json"))
        stops.append((float(t), 2 * s["collisions"] / s["N"], read_csv(path),
                      read_csv(os.path.join(study_dir, f"vx_t{t}.csv"))))
    stops.sort(key=lambda x: x[0])
    stops.append((summary["sim_time"], 2 * summary["collisions"] / summary["N"],
                  read_csv(os.path.join(study_dir, "speeds.csv")),
                  read_csv(os.path.join(study_dir, "vx.csv"))))

    fig, axes = plt.subplots(1, 3, figsize=(18, 4.5))
    ax = axes[0]
    v = np.linspace(0, 4.5, 300)
    ax.plot(v, mb_density(d, v), "k-", lw=2, label="Maxwell–Boltzmann, kT = 1")
    colours = plt.cm.viridis(np.linspace(0, 0.9, len(stops)))
    for (t, c, h, _), colour in zip(stops, colours):
        ax.step(h["speed_high"], h["density"], where="pre", color=colour,
                label=f"t = {t:g} ({c:.2f} collisions/particle)")
    ax.axvline(math.sqrt(d), color="grey", ls=":", lw=1)
    ax.set_xlim(0, 4.5)
    # The starting spike at sqrt(d) is far taller than Maxwell–Boltzmann: clipped.
    ax.set_ylim(0, 2.5 * float(np.max(mb_density(d, v))))
    ax.set_xlabel("speed v  [σ/τ, τ = σ√(m/kT)]")
    ax.set_ylabel("density f(v)")
    ax.set_title(f"{d}D: speeds from v = √{d} (dotted) to Maxwell–Boltzmann, "
                 f"N = {summary['N']}, packing fraction {summary['packing_fraction']:.2f}",
                 fontsize=9)
    ax.legend(fontsize=8)

    ax = axes[1]
    u = np.linspace(-4, 4, 300)
    ax.plot(u, np.exp(-u ** 2 / 2) / math.sqrt(2 * math.pi), "k-", lw=2, label="Gaussian, kT = 1")
    for (t, c, _, h), colour in zip(stops, colours):
        ax.step(h["vx_high"], h["density"], where="pre", color=colour, label=f"t = {t:g}")
    ax.set_xlim(-4, 4)
    ax.set_ylim(0, 2.5 / math.sqrt(2 * math.pi))
    ax.set_xlabel("velocity component v_x")
    ax.set_ylabel("density f(v_x)")
    ax.set_title(f"{d}D: one velocity component "
                 f"({'uniform on [−√3, √3]' if d == 3 else 'arcsine on (−√2, √2)'} at the start)",
                 fontsize=9)
    ax.legend(fontsize=8)

    ax = axes[2]
    c = series["collisions_per_particle"]
    k_target = 5 / 3 if d == 3 else 2.0
    ax.plot(c, series["kurtosis"] / k_target, label=f"kurtosis / {'5/3' if d == 3 else '2'}")
    ax.plot(c, series["ks_distance"], label="KS distance")
    h_mb = mb_h(d, series["temperature"])
    ax.plot(c, series["H"] - h_mb, label="H − H_MB")
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_xlabel("collisions per particle")
    ax.set_title(f"{d}D: relaxation (H_MB = {h_mb[-1]:.4f}); N = {summary['N']}", fontsize=9)
    ax.set_xlim(0, min(20.0, float(c[-1])))
    ax.legend(fontsize=8)
    return save(fig, figures, f"relax{d}d.png")


def eos(study_dir, d, figures):
    """Z against packing fraction with the reference curves, and the deviation from the
    accurate reference with error bars."""
    points = []
    for path in glob.glob(os.path.join(study_dir, "*", "summary.json")):
        s = read_json(path)
        if s["pressure"]:
            points.append((s["packing_fraction"], s["pressure"]["Z"], s["pressure"]["Z_err"],
                           s["N"]))
    points.sort()
    f, z, err, n = (np.array(x) for x in zip(*points))
    reference, reference_name = (hansen_goos, "Hansen-Goos") if d == 3 else (kolafa_rottner, "Kolafa–Rottner")
    other, other_name = (carnahan_starling, "Carnahan–Starling") if d == 3 else (henderson, "Henderson")
    grid = np.linspace(0.01, max(f) * 1.03, 300)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ax = axes[0]
    ax.plot(grid, reference(grid), "k-", label=reference_name)
    ax.plot(grid, other(grid), "C1--", label=other_name)
    ax.errorbar(f, z, yerr=err, fmt="o", color="C0", ms=4, label=f"choc, N = {n[0]}")
    ax.set_xlabel("packing fraction η" if d == 3 else "area fraction φ")
    ax.set_ylabel("Z = PV / NkT")
    ax.set_title(f"{'hard spheres' if d == 3 else 'hard discs'}: equation of state", fontsize=10)
    ax.legend(fontsize=8)

    ax = axes[1]
    ax.axhline(0, color="k", lw=1, label=reference_name)
    ax.plot(grid, 100 * (other(grid) / reference(grid) - 1), "C1--", label=other_name)
    ax.errorbar(f, 100 * (z / reference(f) - 1), yerr=100 * err / reference(f), fmt="o",
                color="C0", ms=4, capsize=2, label="choc (1 standard error)")
    ax.set_xlabel("packing fraction η" if d == 3 else "area fraction φ")
    ax.set_ylabel(f"100 (Z / Z_{reference_name} − 1)  [%]")
    ax.set_title(f"deviation from {reference_name}", fontsize=10)
    lo = min(-0.6, float(np.min(100 * (z / reference(f) - 1) - 300 * err / reference(f))))
    ax.set_ylim(lo, max(0.6, -lo))
    ax.legend(fontsize=8)
    return save(fig, figures, f"eos{d}d.png")


def eos_sweep(study_dir, figures):
    """Z against packing fraction from a sweep's aggregated table (data/studies/
    eos3d_sweep.toml): the mean over replicas with its standard error, against
    Hansen-Goos."""
    table = read_json(os.path.join(study_dir, "table.json"))
    rows = [r for r in table["rows"] if r["results"]["pressure.Z"]["mean"] is not None]
    f = np.array([r["axes"]["box.packing_fraction"] for r in rows])
    z = np.array([r["results"]["pressure.Z"]["mean"] for r in rows])
    sem = np.array([r["results"]["pressure.Z"]["sem"] or 0.0 for r in rows])
    n = min(r["results"]["pressure.Z"]["n"] for r in rows)
    grid = np.linspace(0.01, max(f) * 1.03, 300)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ax = axes[0]
    ax.plot(grid, hansen_goos(grid), "k-", label="Hansen-Goos")
    ax.errorbar(f, z, yerr=sem, fmt="o", color="C0", ms=4, capsize=2,
                label=f"choc sweep, mean of {n} replicas")
    ax.set_xlabel("packing fraction η")
    ax.set_ylabel("Z = PV / NkT")
    ax.set_title("hard spheres: equation of state from choc sweep", fontsize=10)
    ax.legend(fontsize=8)

    ax = axes[1]
    ax.axhline(0, color="k", lw=1, label="Hansen-Goos")
    deviation = 100 * (z / hansen_goos(f) - 1)
    ax.errorbar(f, deviation, yerr=100 * sem / hansen_goos(f), fmt="o", color="C0", ms=4,
                capsize=2, label="choc (standard error over replicas)")
    ax.set_xlabel("packing fraction η")
    ax.set_ylabel("100 (Z / Z_Hansen-Goos − 1)  [%]")
    ax.set_title("deviation from Hansen-Goos", fontsize=10)
    lo = min(-0.3, float(np.min(deviation - 3 * 100 * sem / hansen_goos(f))))
    ax.set_ylim(lo, max(0.3, -lo))
    ax.legend(fontsize=8)
    return save(fig, figures, "eos3d_sweep.png")


def mixture(study_dir, figures):
    """Species temperatures relaxing to sum_s x_s T_s(0)."""
    series = read_csv(os.path.join(study_dir, "series.csv"))
    summary = read_json(os.path.join(study_dir, "summary.json"))
    species = summary["species"]
    n = sum(s["count"] for s in species)
    start = {s["name"]: series["temperature_" + s["name"]][0] for s in species}
    final = sum(s["count"] / n * start[s["name"]] for s in species)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for s in species:
        ax.plot(series["collisions_per_particle"], series["temperature_" + s["name"]],
                label=f"{s['name']} ({s['count']}, T(0) = {start[s['name']]:g})")
    ax.plot(series["collisions_per_particle"], series["temperature"], "k-", lw=1, label="all")
    ax.axhline(final, color="k", ls="--", lw=1, label=f"Σ x_s T_s(0) = {final:g}")
    ax.set_xlabel("collisions per particle")
    ax.set_ylabel("kT")
    ax.set_title(f"binary mixture, packing fraction {summary['packing_fraction']:.2f}: "
                 "equipartition", fontsize=10)
    ax.legend(fontsize=8)
    return save(fig, figures, "mixture.png")


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    studies = sys.argv[1]
    figures = sys.argv[2] if len(sys.argv) == 3 else studies
    os.makedirs(figures, exist_ok=True)
    made = []
    jobs = [("relax3d", lambda p: relaxation(p, 3, figures)),
            ("relax2d", lambda p: relaxation(p, 2, figures)),
            ("eos3d", lambda p: eos(p, 3, figures)),
            ("eos2d", lambda p: eos(p, 2, figures)),
            ("mixture", lambda p: mixture(p, figures)),
            ("eos3d_sweep", lambda p: eos_sweep(p, figures)),
            ("timestep_vs_edmd", lambda p: timestep_vs_edmd.plot(p, figures)),
            ("transport", lambda p: transport.plot(p, figures))]
    for name, plot in jobs:
        path = os.path.join(studies, name)
        if os.path.isdir(path):
            made.append(plot(path))
        else:
            print(f"plot: {path} not found (run data/studies/run {name}); skipped",
                  file=sys.stderr)
    for path in made:
        print(path)
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main())
