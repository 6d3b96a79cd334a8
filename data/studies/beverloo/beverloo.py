#!/usr/bin/python3
"""Beverloo's law: the steady discharge rate W of a silo against its orifice width D.

    W = C rho sqrt(g) (D - k d)^n,   n = 3/2 through a slot in 2D, 5/2 through a round
                                     orifice in 3D (rho: the pile's bulk density, mass per
                                     area or volume; d = 1: the grain's diameter)

Runs one silo per width (choc run, `--jobs` at a time), each into OUTPUT/D<width>/:
  - 2D (data/studies/beverloo/silo2d.toml): 2400 discs, a silo 44.3 wide; the orifice is set
    by moving the inner ends of the two floor segments;
  - 3D (silo3d.toml): 8000 spheres, a square silo 24 wide; silo_floor.py writes a floor mesh
    with a round orifice of diameter D into the run's directory.
From each run:
  - W: the slope of the time series' `crossed` (grains through the floor's plane) over the
    steady window: from SETTLE (the grains, started as a gas above the floor, have fallen
    onto it and a pile drains) until LAST have gone through, and in 3D at most WINDOW time
    units; its error from the spread of the slopes of four equal parts of the window
    (standard error);
  - rho: the bulk density of the pile in a box above the floor, from the trajectory frames
    inside the window (its mean and standard error).
Then fits the law: for each k on a grid, a weighted straight line of log(W / rho sqrt g)
against log(D - k d) gives n and C; the k of least chi^2 is kept, and its range is where
chi^2 rises by 1; n's range is where the least chi^2 with n fixed (C and k fitted) is
within 1 of the best. Then again with n fixed at Beverloo's, for C and k alone. Prints
the table and the fits, writes OUTPUT/beverloo<d>d.json and draws W(D) with the fits
(OUTPUT/beverloo<d>d.png).

Usage: /usr/bin/python3 data/studies/beverloo/beverloo.py --dimension 2|3
           [--widths D ...] [--quick] [--jobs N] [--choc PATH] [--output DIR]
(--quick: three widths and short windows, to check the chain: several minutes a width.
OUTPUT is out/studies/beverloo<d>d by default. A width whose directory holds a finished run
of the length needed is not run again: the same command redoes only the fit and the figure.)
Debian's python3-numpy and python3-matplotlib.
"""

import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
G = 1.0  # gravity in both configs; the grain's diameter is 1


@dataclass
class Silo:
    config: str
    centre: float  # the orifice's centre along x (and y in 3D)
    floor: float  # the floor's height
    exponent: float  # Beverloo's n
    widths: list
    quick_widths: list
    settle: float  # the start of every window
    last: int  # the window ends when this many grains have gone through ...
    quick_last: int
    window: float  # ... or after this long
    density_box: tuple  # (low, high) corners of the box where rho is measured
    rate: tuple  # (c, k): about the rate seen in trials, c (D - k)^n, to size the runs

    def guess(self, d):
        """The trials' rate at width d (a run lasts 1.3 times as long as it needs)."""
        c, k = self.rate
        return c * (d - k) ** self.exponent


SILOS = {
    2: Silo("silo2d.toml", 22.15, 50.0, 1.5, [4, 5, 6, 8, 10, 12], [4, 5, 6], 25.0, 1400, 500,
            math.inf, ((4.0, 52.0), (40.0, 64.0)), (1.0, 1.0)),
    3: Silo("silo3d.toml", 12.0, 10.0, 2.5, [5, 6, 7, 8, 9], [6, 7, 8], 15.0, 2500, 600,
            120.0, ((3.0, 3.0, 12.0), (21.0, 21.0, 16.0)), (0.6, 1.5)),
}


def run(choc, silo, dimension, out, d, last):
    """One silo of orifice width d, run long enough for its window (not again when out
    holds a finished run that long)."""
    os.makedirs(out, exist_ok=True)
    duration = round(silo.settle + min(silo.window, 1.3 * last / silo.guess(d)), 1)
    try:
        with open(os.path.join(out, "summary.json")) as f:
            if json.load(f)["sim_time"] >= duration - 1e-9:
                return
    except (OSError, ValueError, KeyError):
        pass
    if dimension == 2:
        sets = [f"walls[0].to=[{silo.centre - d / 2}, {silo.floor}]",
                f"walls[1].from=[{silo.centre + d / 2}, {silo.floor}]"]
    else:
        mesh = os.path.join(out, "floor.stl")
        subprocess.run([sys.executable, os.path.join(HERE, "silo_floor.py"), mesh, str(d),
                        str(2 * silo.centre), str(silo.floor)], check=True,
                       stdout=subprocess.DEVNULL)
        sets = [f'walls[0].mesh="{mesh}"']
    # rows often enough for a fast discharge's window, frames for the density
    sets += [f"run.time={duration}", "output.timeseries.every=0.2",
             "output.trajectory.every=2.5"]
    cmd = [choc, "run", os.path.join(HERE, silo.config), "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, cwd=out, check=True, stdout=subprocess.DEVNULL)


def series(out):
    with open(os.path.join(out, "series.csv")) as f:
        lines = [line for line in f if not line.startswith("#")]
    columns = lines[0].strip().split(",")
    data = np.array([[float(x) for x in line.split(",")] for line in lines[1:]])
    return data[:, columns.index("time")], data[:, columns.index("crossed")]


def density(out, box, t0, t1):
    """Mass per area (2D) or volume (3D) of the pile inside box, over the frames in
    [t0, t1] (unit masses)."""
    low, high = np.array(box[0]), np.array(box[1])
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
            x = np.array([[float(v) for v in r[1:1 + len(low)]] for r in rows])
            inside = np.all((x >= low) & (x <= high), axis=1)
            values.append(inside.sum() / np.prod(high - low))
    values = np.array(values)
    if len(values) < 2:
        return float("nan"), float("nan")
    return values.mean(), values.std(ddof=1) / np.sqrt(len(values))


def rate(silo, t, crossed, last):
    """W and its error over the window."""
    inside = (t >= silo.settle) & (crossed <= last) & (t <= silo.settle + silo.window)
    tw, cw = t[inside], crossed[inside]
    if len(tw) < 8:
        raise RuntimeError(f"only {len(tw)} samples in the window: run longer")
    slope = np.polyfit(tw, cw, 1)[0]
    parts = [np.polyfit(a, b, 1)[0] for a, b in zip(np.array_split(tw, 4), np.array_split(cw, 4))]
    return slope, np.std(parts, ddof=1) / 2.0, tw[0], tw[-1]


def fit(D, W, W_err, rho, n=None):
    """Beverloo's W = C rho sqrt(g) (D - k)^n: k on a grid, and for each k a weighted
    straight line of log(W / rho sqrt g) against log(D - k) (n and C), or with n given a
    weighted mean (C alone); the k of least chi^2 is kept."""
    y = np.log(W / (rho * np.sqrt(G)))
    w = (W / W_err) ** 2  # 1 / (the error of log W)^2
    best = None
    chi2 = []
    ks = np.arange(0.0, min(D) - 0.05, 0.005)
    for k in ks:
        x = np.log(D - k)
        if n is None:
            A = np.stack([np.ones_like(x), x], axis=1)
            cov = np.linalg.inv(A.T @ (A * w[:, None]))
            coef = cov @ (A.T @ (w * y))
        else:
            cov = np.array([[1.0 / w.sum(), 0.0], [0.0, 0.0]])
            coef = np.array([np.sum(w * (y - n * x)) / w.sum(), n])
        c2 = float(np.sum(w * (y - coef[0] - coef[1] * x) ** 2))
        chi2.append(c2)
        if best is None or c2 < best[0]:
            best = (c2, k, coef, cov)
    chi2 = np.array(chi2)
    c2, k, coef, cov = best
    within = ks[chi2 <= c2 + 1.0]
    return {"k": k, "k_low": within.min(), "k_high": within.max(), "n": coef[1],
            "n_err": np.sqrt(cov[1, 1]), "C": np.exp(coef[0]),
            "C_err": np.exp(coef[0]) * np.sqrt(cov[0, 0]), "chi2": c2,
            "dof": len(D) - (3 if n is None else 2)}


def plot(path, dimension, D, W, W_err, rho, result, fixed):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    ax.errorbar(D, W, yerr=W_err, fmt="o", color="#7a5a1e", label=f"choc, {dimension}D silo",
                zorder=3)
    grid = np.linspace(max(result["k"], fixed["k"]) + 0.05, D.max() * 1.05, 200)
    for r, style, what in ((result, "-", "fit"), (fixed, "--", "n fixed")):
        ax.plot(grid, r["C"] * rho * np.sqrt(G) * (grid - r["k"]) ** r["n"], style,
                color="black", lw=1,
                label=f"{what}: n = {r['n']:.2f}, k = {r['k']:.2f}, C = {r['C']:.2f}")
    if dimension == 3:  # Beverloo, Leniger and van de Velde (1961), as usually quoted
        ax.plot(grid, 0.58 * rho * np.sqrt(G) * np.clip(grid - 1.4, 0.0, None) ** 2.5, ":",
                color="#3060a0", label="Beverloo et al. 1961: C = 0.58, k = 1.4")
    ax.set_xlabel("orifice " + ("width" if dimension == 2 else "diameter") +
                  " D (grain diameters)")
    ax.set_ylabel("discharge rate W (grains per unit time)")
    ax.set_title(f"Beverloo's law in {dimension}D: W = C ρ √g (D − k d)^n", fontsize=10)
    ax.legend(fontsize=7.5)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(prog="beverloo.py")
    parser.add_argument("--dimension", type=int, choices=(2, 3), required=True)
    parser.add_argument("--widths", type=float, nargs="+")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--choc", default=os.path.join(ROOT, "build", "apps", "choc"))
    parser.add_argument("--output")
    args = parser.parse_args()
    dimension = args.dimension
    silo = SILOS[dimension]
    widths = args.widths or (silo.quick_widths if args.quick else silo.widths)
    widest = 2.0 * silo.centre - 2.0  # a floor at least a diameter wide on either side
    if (len(set(widths)) < max(3, len(widths)) or
            any(not 1.0 < d < widest for d in widths)):
        parser.error(f"--widths: at least three different widths between 1 and {widest:g}")
    if args.jobs < 1:
        parser.error("--jobs: at least 1")
    last = silo.quick_last if args.quick else silo.last
    base = os.path.abspath(args.output or os.path.join(ROOT, "out", "studies",
                                                       f"beverloo{dimension}d"))
    outs = {d: os.path.join(base, f"D{d:g}") for d in widths}
    print(f"{dimension}D: running widths {widths} ({args.jobs} at a time)", file=sys.stderr,
          flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for future in [pool.submit(run, args.choc, silo, dimension, outs[d], d, last)
                       for d in widths]:
            future.result()
    table, checks = [], []
    for d in widths:
        with open(os.path.join(outs[d], "summary.json")) as f:
            summary = json.load(f)
        checks.append({"width": d, "valid": summary["valid"],
                       "max_overlap": summary["max_overlap"],
                       "collisions": summary["collisions"]})
        t, crossed = series(outs[d])
        W, W_err, t0, t1 = rate(silo, t, crossed, last)
        rho, rho_err = density(outs[d], silo.density_box, t0, t1)
        table.append((d, W, W_err, rho, rho_err))
        print(f"D = {d:5.2f}  W = {W:8.3f} +- {W_err:6.3f}  rho = {rho:.4f} +- {rho_err:.4f}  "
              f"(window t = {t0:g} to {t1:g})", flush=True)
    D, W, W_err, rho, _ = (np.array(c) for c in zip(*table))
    result = fit(D, W, W_err, rho.mean())
    fixed = fit(D, W, W_err, rho.mean(), silo.exponent)
    # n's range: k trades against n (a larger k, a smaller n fits as well), so the line's
    # error at the best k understates it; the range is where the least chi^2 with n fixed
    # (C and k fitted) is within 1 of the best
    ns = np.arange(result["n"] - 1.0, result["n"] + 1.0, 0.005)
    profile = np.array([fit(D, W, W_err, rho.mean(), n)["chi2"] for n in ns])
    inside = ns[profile <= result["chi2"] + 1.0]
    result["n_low"], result["n_high"] = float(inside.min()), float(inside.max())
    print(f"fit W = C rho sqrt(g) (D - k d)^n, rho = {rho.mean():.4f}: "
          f"n = {result['n']:.3f} ({result['n_low']:.3f} to {result['n_high']:.3f}; "
          f"+- {result['n_err']:.3f} at that k) (Beverloo: {silo.exponent:g}), "
          f"C = {result['C']:.3f} +- {result['C_err']:.3f}, "
          f"k = {result['k']:.2f} ({result['k_low']:.2f} to {result['k_high']:.2f}), "
          f"chi2 = {result['chi2']:.2f} for {result['dof']} degrees of freedom")
    print(f"with n = {silo.exponent:g}: C = {fixed['C']:.3f} +- {fixed['C_err']:.3f}, "
          f"k = {fixed['k']:.2f} ({fixed['k_low']:.2f} to {fixed['k_high']:.2f}), "
          f"chi2 = {fixed['chi2']:.2f} for {fixed['dof']} degrees of freedom")
    name = os.path.join(base, f"beverloo{dimension}d")
    with open(name + ".json", "w") as f:
        json.dump({"dimension": dimension, "widths": D.tolist(), "W": W.tolist(),
                   "W_err": W_err.tolist(), "rho": rho.tolist(), "expected_n": silo.exponent,
                   "fit": result, "fit_fixed_n": fixed, "runs": checks}, f, indent=1)
    plot(name + ".png", dimension, D, W, W_err, rho.mean(), result, fixed)
    print(f"wrote {name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
