#!/usr/bin/python3
"""Transport coefficients of hard spheres against Enskog (README "Studies"): D, eta and
lambda from packing fraction 0.05 to 0.45 (the sweep transport_sweep.toml), each beside
Enskog's curve, and their ratios to Enskog.

    /usr/bin/python3 data/studies/transport/plot.py out/studies/transport [FIGURES_DIR]

Reads the sweep's table.json and writes transport.png. data/studies/plot.py calls it too.
Needs Debian's python3-matplotlib and python3-numpy.
"""

import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "support"))
import reference_physics as ref  # noqa: E402

# (summary key, value name, symbol) of the three coefficients
COEFFICIENTS = [("diffusion", "D_infinite", "D"), ("shear_viscosity", "eta", "η"),
                ("thermal_conductivity", "lambda", "λ")]


def enskog(fraction):
    """Enskog's D, eta and lambda of spheres of diameter 1 and mass 1 at kT = 1
    (docs/PHYSICS.md): D_E = D0 / g with D0 = 3 / (8 n sqrt(pi))."""
    n = ref.number_density(3, fraction)
    g = ref.contact_value(3, fraction, ref.hansen_goos(fraction))
    eta, lam = ref.enskog_transport(fraction)
    return 3 / (8 * n * math.sqrt(math.pi)) / g, eta, lam


def table(study_dir):
    """Per density: the packing fraction and, per coefficient, the mean over replicas of
    the value and of the ratio to Enskog with their standard errors, and the replicas."""
    with open(os.path.join(study_dir, "table.json")) as f:
        rows = json.load(f)["rows"]
    out = []
    for row in rows:
        r = row["results"]
        point = {"fraction": row["axes"]["box.packing_fraction"]}
        for key, name, _ in COEFFICIENTS:
            value, ratio = r[f"{key}.{name}"], r[f"{key}.ratio"]
            point[key] = {"value": value["mean"], "value_sem": value["sem"],
                          "ratio": ratio["mean"], "ratio_sem": ratio["sem"],
                          "n": ratio["n"]}
        out.append(point)
    return out


def plot(study_dir, figures):
    points = table(study_dir)
    f = np.array([p["fraction"] for p in points])
    grid = np.linspace(0.02, 0.47, 200)
    curves = np.array([enskog(x) for x in grid])
    fig, axes = plt.subplots(2, 3, figsize=(14, 8))
    for k, (key, name, symbol) in enumerate(COEFFICIENTS):
        value = np.array([p[key]["value"] for p in points], dtype=float)
        value_sem = np.array([p[key]["value_sem"] or 0.0 for p in points], dtype=float)
        ratio = np.array([p[key]["ratio"] for p in points], dtype=float)
        ratio_sem = np.array([p[key]["ratio_sem"] or 0.0 for p in points], dtype=float)
        n = min(p[key]["n"] for p in points)
        ax = axes[0][k]
        ax.plot(grid, curves[:, k], "k-", label="Enskog")
        ax.errorbar(f, value, yerr=value_sem, fmt="o", color="C0", ms=4, capsize=2,
                    label=f"choc, mean of {n} runs of 500 spheres")
        ax.set_yscale("log")
        ax.set_xlabel("packing fraction η")
        unit = {"D": "σ √(kT/m)", "η": "√(m kT) / σ²", "λ": "k √(kT/m) / σ²"}[symbol]
        ax.set_ylabel(f"{symbol}  [{unit}]")
        title = ("D with the periodic cube's correction (Yeh–Hummer)" if symbol == "D"
                 else f"{symbol} from the Einstein–Helfand moment")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
        ax = axes[1][k]
        ax.axhline(1.0, color="k", lw=1, label="Enskog")
        ax.errorbar(f, ratio, yerr=ratio_sem, fmt="o", color="C0", ms=4, capsize=2,
                    label="choc (standard error over runs)")
        ax.set_xlabel("packing fraction η")
        ax.set_ylabel(f"{symbol} / {symbol}_Enskog")
        ax.set_title(f"{symbol}: departure from Enskog", fontsize=10)
        ax.legend(fontsize=8)
    fig.suptitle("hard spheres: transport coefficients against Enskog (kT = m = σ = 1)")
    fig.tight_layout()
    os.makedirs(figures, exist_ok=True)
    path = os.path.join(figures, "transport.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[4].strip(), file=sys.stderr)
        return 2
    print(plot(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else sys.argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
