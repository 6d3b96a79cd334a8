#!/usr/bin/python3
"""Beverloo's law in 2D: the steady discharge rate W of a silo against its orifice width D.

Runs data/studies/beverloo/silo2d.toml (choc in build/apps/choc) once per width, each into
out/studies/beverloo2d/D<width>/, the orifice set by moving the inner ends of the two floor
segments. From each run:
  - W: the slope of the time series' `crossed` (grains through the floor's plane) over the
    steady window: from t = 25 (the grains, started as a gas above the floor, have fallen
    onto it and a pile drains) until 1400 have gone through (1000 are still above), with
    its error from the spread of the slopes of four equal parts of the window (standard
    error);
  - rho: the bulk density (mass per area) of the pile in a box above the floor, from the
    trajectory frames inside the window (its mean and standard error).
Then fits W = C rho sqrt(g) (D - k d)^n: for each k on a grid, a weighted straight line of
log(W / rho sqrt g) against log(D - k d) gives n and C; the k of least chi^2 is kept, and
its error is where chi^2 rises by 1. Prints the table and the fit, and draws W(D) with the
fit (out/studies/beverloo2d/beverloo2d.png). Beverloo's 2D exponent is 3/2.

Usage: /usr/bin/python3 data/studies/beverloo/beverloo.py [--widths D ...] [--quick]
(--quick: three widths and windows up to 500 grains, a few minutes, to check the chain.)
Debian's python3-numpy and python3-matplotlib.
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CONFIG = os.path.join(ROOT, "data", "studies", "beverloo", "silo2d.toml")
CENTRE, FLOOR, WIDTH, G, DIAMETER = 22.0, 50.0, 44.0, 1.0, 1.0


SETTLE = 25.0  # the start of every window


def run(out, d, grains):
    """One silo of orifice width d, run long enough to pass `grains` through after SETTLE
    (at a rate of at least (D - 1)^1.5 / 1.3: the runs so far went faster)."""
    os.makedirs(out, exist_ok=True)
    duration = SETTLE + 1.3 * grains / (d - 1.0) ** 1.5
    sets = [f"walls[0].to=[{CENTRE - d / 2}, {FLOOR}]",
            f"walls[1].from=[{CENTRE + d / 2}, {FLOOR}]", f"run.time={duration:.1f}",
            # rows often enough for a fast discharge's window, frames for the density
            "output.timeseries.every=0.2", "output.trajectory.every=2.5"]
    cmd = [os.path.join(ROOT, "build", "apps", "choc"), "run", CONFIG, "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, cwd=out, check=True, stdout=subprocess.DEVNULL)


def series(out):
    with open(os.path.join(out, "series.csv")) as f:
        lines = [line for line in f if not line.startswith("#")]
    columns = lines[0].strip().split(",")
    data = np.array([[float(x) for x in line.split(",")] for line in lines[1:]])
    return data[:, columns.index("time")], data[:, columns.index("crossed")]


def density(out, t0, t1):
    """Mass per area of the pile in [4, 40] x [FLOOR + 5, FLOOR + 25], over the frames in
    [t0, t1] (unit masses)."""
    values = []
    with open(os.path.join(out, "trajectory.xyz")) as f:
        while True:
            line = f.readline()
            if not line.strip():
                break
            n = int(line)
            header = f.readline()
            fields = dict(item.split("=", 1) for item in header.split()
                          if "=" in item and '"' not in item)
            rows = [f.readline().split() for _ in range(n)]
            if not t0 <= float(fields["Time"]) <= t1:
                continue
            count = sum(4.0 <= float(r[1]) <= 40.0 and FLOOR + 5 <= float(r[2]) <= FLOOR + 25
                        for r in rows)
            values.append(count / (36.0 * 20.0))
    values = np.array(values)
    if len(values) == 0:
        return float("nan"), float("nan")
    return values.mean(), values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0.0


def rate(t, crossed, last):
    """W and its error over the window t >= SETTLE, crossed <= last."""
    inside = (t >= SETTLE) & (crossed <= last)
    tw, cw = t[inside], crossed[inside]
    if len(tw) < 8:
        raise RuntimeError(f"only {len(tw)} samples in the window: run longer")
    slope = np.polyfit(tw, cw, 1)[0]
    parts = [np.polyfit(a, b, 1)[0] for a, b in zip(np.array_split(tw, 4), np.array_split(cw, 4))]
    return slope, np.std(parts, ddof=1) / 2.0, tw[0], tw[-1]


def fit(D, W, W_err, rho):
    """Beverloo's W = C rho sqrt(g) (D - k)^n: k on a grid, n and C by weighted lines."""
    y = np.log(W / (rho * np.sqrt(G)))
    sy = W_err / W
    best = None
    chi2 = []
    ks = np.arange(0.0, min(D) - 0.05, 0.005)
    for k in ks:
        x = np.log(D - k * DIAMETER)
        w = 1.0 / sy ** 2
        A = np.stack([np.ones_like(x), x], axis=1)
        cov = np.linalg.inv(A.T @ (A * w[:, None]))
        coef = cov @ (A.T @ (w * y))
        c2 = float(np.sum(w * (y - A @ coef) ** 2))
        chi2.append(c2)
        if best is None or c2 < best[0]:
            best = (c2, k, coef, cov)
    chi2 = np.array(chi2)
    c2, k, coef, cov = best
    within = ks[chi2 <= c2 + 1.0]
    return {"k": k, "k_low": within.min(), "k_high": within.max(), "n": coef[1],
            "n_err": np.sqrt(cov[1, 1]), "C": np.exp(coef[0]),
            "C_err": np.exp(coef[0]) * np.sqrt(cov[0, 0]), "chi2": c2, "dof": len(D) - 3}


def main():
    parser = argparse.ArgumentParser(prog="beverloo.py")
    parser.add_argument("--widths", type=float, nargs="+", default=[4, 5, 6, 8, 10, 12])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    widths = [4, 5, 6] if args.quick else args.widths
    last = 500 if args.quick else 1400
    base = os.path.join(ROOT, "out", "studies", "beverloo2d")
    table = []
    for d in widths:
        out = os.path.join(base, f"D{d:g}")
        print(f"D = {d:g}: running", file=sys.stderr, flush=True)
        run(out, d, last)
        t, crossed = series(out)
        W, W_err, t0, t1 = rate(t, crossed, last)
        rho, rho_err = density(out, t0, t1)
        table.append((d, W, W_err, rho, rho_err))
        print(f"D = {d:5.2f}  W = {W:8.3f} +- {W_err:6.3f}  rho = {rho:.4f} +- {rho_err:.4f}  "
              f"(window t = {t0:g} to {t1:g})", flush=True)
    D, W, W_err, rho, _ = (np.array(c) for c in zip(*table))
    result = fit(D, W, W_err, rho.mean())
    print(f"fit W = C rho sqrt(g) (D - k d)^n, rho = {rho.mean():.4f}: "
          f"n = {result['n']:.3f} +- {result['n_err']:.3f} (Beverloo 2D: 1.5), "
          f"C = {result['C']:.3f} +- {result['C_err']:.3f}, "
          f"k = {result['k']:.2f} ({result['k_low']:.2f} to {result['k_high']:.2f}), "
          f"chi2 = {result['chi2']:.2f} for {result['dof']} degrees of freedom")
    with open(os.path.join(base, "beverloo2d.json"), "w") as f:
        json.dump({"widths": D.tolist(), "W": W.tolist(), "W_err": W_err.tolist(),
                   "rho": rho.tolist(), "fit": result}, f, indent=1)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 3.6))
    ax.errorbar(D, W, yerr=W_err, fmt="o", color="#7a5a1e", label="choc, 2D silo")
    grid = np.linspace(result["k"] + 0.05, D.max() * 1.05, 200)
    ax.plot(grid, result["C"] * rho.mean() * np.sqrt(G) * (grid - result["k"]) ** result["n"],
            color="black", label=f"fit: n = {result['n']:.2f} ± {result['n_err']:.2f}, "
                                 f"k = {result['k']:.2f}, C = {result['C']:.2f}")
    ax.set_xlabel("orifice width D (grain diameters)")
    ax.set_ylabel("discharge rate W (grains per unit time)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    png = os.path.join(base, "beverloo2d.png")
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


if __name__ == "__main__":
    sys.exit(main())
