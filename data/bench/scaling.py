"""data/bench/scaling: cost per collision against N for spheres and discs; see that file."""

import argparse
import csv
import os
import sys

import benchlib
from benchlib import ROOT

# (label, case whose config is scaled, N values). Sphere counts are full fcc lattices
# (4 k^3), disc counts full enough hexagonal ones; the packing fraction is the case's.
SERIES = [
    ("spheres, packing fraction 0.45", "spheres_1m",
     [4 * k**3 for k in (10, 16, 20, 32, 40, 50, 63)]),
    ("discs, area fraction 0.70", "discs_1m",
     [4_000, 16_000, 32_000, 128_000, 256_000, 512_000, 1_000_000]),
]


def main():
    parser = argparse.ArgumentParser(prog="data/bench/scaling")
    parser.add_argument("--collisions", type=int, default=2_000_000,
                        help="measured pair collisions per run (default 2,000,000)")
    parser.add_argument("--equilibrate", type=float, default=0.2,
                        help="simulated time to melt the lattice first (default 0.2)")
    args = parser.parse_args()
    choc = os.path.join(ROOT, "build", "apps", "choc")
    if not os.access(choc, os.X_OK):
        benchlib.fail("build/apps/choc not found: build choc first (data/bench/run does)")

    out = os.path.join(ROOT, "out", "bench", "scaling")
    os.makedirs(out, exist_ok=True)
    rows = []
    for label, case, sizes in SERIES:
        for n in sizes:
            f = benchlib.run_case(choc, case, os.path.join(out, f"{case}_{n}"), args.collisions,
                                  [f"species.0.count={n}", f"run.equilibrate={args.equilibrate}"])
            if f is None:
                benchlib.fail(f"{case} with N = {n} failed: see {out}/{case}_{n}/")
            rows.append({"series": label, "N": f["N"],
                         "ns_per_collision": round(f["ns_per_collision"], 1),
                         "pair_predictions_per_collision":
                             round(f["predictions_per_collision"], 2),
                         "engine_bytes_per_particle": round(f["engine_bytes_per_particle"], 1)})
            print(f"{label}: N = {f['N']}, {f['ns_per_collision']:.0f} ns per collision, "
                  f"{f['predictions_per_collision']:.1f} pair predictions per collision",
                  flush=True)
    table = os.path.join(out, "scaling.csv")
    with open(table, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"table: {table}")
    plot(rows, os.path.join(HERE_FIGURES, "cost_vs_n.png"))


HERE_FIGURES = os.path.join(benchlib.HERE, "figures")


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for label, _, _ in SERIES:
        mine = [r for r in rows if r["series"] == label]
        ax.plot([r["N"] for r in mine], [r["ns_per_collision"] for r in mine], "o-",
                label=label)
    ax.set_xscale("log")
    ax.set_xlabel("N")
    ax.set_ylabel("wall time per pair collision (ns)")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    ax.set_title("choc, one core: cost per collision against system size")
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=120)
    print(f"figure: {path}")


if __name__ == "__main__":
    sys.exit(main())
