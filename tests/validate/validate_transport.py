#!/usr/bin/env python3
"""Transport coefficients of hard spheres against Enskog, from the study sweep
data/studies/transport/transport_sweep.toml (500 spheres, packing fraction 0.05 to 0.45,
four replicas of 10^4 mean free times each; about 3 minutes on two cores).

    python3 tests/validate/validate_transport.py CHOC_EXECUTABLE [OUTPUT_DIR]

Runs the sweep (into OUTPUT_DIR, or a temporary directory) and checks:
- the dilute limit (0.05): eta / eta_E and lambda / lambda_E are 1 (Enskog's values carry
  the higher Sonine orders, 1.016 and 1.025, and tend to Boltzmann's as n -> 0), and
  D / D_E is 1.019 (D_E = D0 / g uses the first Sonine D0; the next orders add 1.9 %);
  within 3.5 standard errors, and at most 0.08 off (first-order density corrections at
  packing fraction 0.05 are a few percent);
- the dense-fluid departures that molecular dynamics has shown since Alder, Gass and
  Wainwright (1970): D / D_E rises well above 1 at intermediate density (correlated
  back-flow; above 1.15 somewhere between 0.15 and 0.35) and falls back to Enskog's by
  0.45 (caging; below 1.1 there, and below the maximum, by 3.5 errors each); eta / eta_E stays within a few percent of 1 up to 0.30 and exceeds 1.15 at 0.45;
  lambda / lambda_E stays within 10 % of 1 throughout;
- steady shear between sliding boundaries (box.shear_rate = 0.05, thermostatted at kT = 1,
  10^7 collisions) at 0.30 and 0.45 gives the equilibrium eta / eta_E of the sweep within
  3.5 combined errors: the driven measure sees the same dense-fluid departure.
Each error is the larger of the standard error over the replicas and the runs' own error
over the square root of their number (four replicas give a rough spread on their own).
"""

import json
import math
import os
import subprocess
import sys
import tempfile

from validate import Checks


def error(point, key):
    """The ratio's error at one density (see the module's docstring)."""
    r = point["results"]
    n = r[f"{key}.ratio"]["n"]
    sem = r[f"{key}.ratio"]["sem"] or 0.0
    own = (r[f"{key}.ratio_err"]["mean"] or 0.0) / math.sqrt(n)
    return max(sem, own)


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[4].strip(), file=sys.stderr)
        return 2
    choc = os.path.abspath(sys.argv[1])
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    sweep = os.path.join(root, "data", "studies", "transport", "transport_sweep.toml")
    with tempfile.TemporaryDirectory(prefix="choc-transport-study-") as scratch:
        out = os.path.abspath(sys.argv[2]) if len(sys.argv) == 3 else os.path.join(scratch, "t")
        result = subprocess.run([choc, "sweep", sweep, "--output", out], capture_output=True,
                                text=True, timeout=3000)
        if result.returncode != 0:
            print(f"FAIL choc sweep exited {result.returncode}: {result.stderr}")
            return 1
        with open(os.path.join(out, "table.json")) as f:
            rows = json.load(f)["rows"]
    points = {round(r["axes"]["box.packing_fraction"], 2): r for r in rows}
    ratio = {k: {f: p["results"][f"{k}.ratio"]["mean"] for f, p in points.items()}
             for k in ("diffusion", "shear_viscosity", "thermal_conductivity")}
    err = {k: {f: error(p, k) for f, p in points.items()} for k in ratio}

    c = Checks()
    dilute = 0.05
    for key, limit in (("diffusion", 1.019), ("shear_viscosity", 1.0),
                       ("thermal_conductivity", 1.0)):
        c.within(f"{key} / Enskog at {dilute}", ratio[key][dilute], limit, 0.08,
                 err[key][dilute], sigmas=3.5, why="the dilute limit")
    # D: the back-flow maximum, then the cage
    middle = [f for f in ratio["diffusion"] if 0.15 <= f <= 0.35]
    peak = max(middle, key=lambda f: ratio["diffusion"][f] - 3.5 * err["diffusion"][f])
    low = ratio["diffusion"][peak] - 3.5 * err["diffusion"][peak]
    c.true("D / D_E above 1.15 between 0.15 and 0.35", low > 1.15,
           f"at {peak}: {ratio['diffusion'][peak]:.3f} +- {err['diffusion'][peak]:.3f}")
    high = ratio["diffusion"][0.45] + 3.5 * err["diffusion"][0.45]
    c.true("D / D_E back below 1.1 at 0.45, and below the maximum", high < min(1.1, low),
           f"{ratio['diffusion'][0.45]:.3f} +- {err['diffusion'][0.45]:.3f}")
    # eta: Enskog holds to a few percent up to 0.30, then the viscosity runs away
    for f in sorted(ratio["shear_viscosity"]):
        if f <= 0.30:
            c.within(f"eta / eta_E at {f}", ratio["shear_viscosity"][f], 1.0,
                     0.06 + 3.5 * err["shear_viscosity"][f],
                     why="Enskog within 6 % below 0.30, plus 3.5 errors")
    low = ratio["shear_viscosity"][0.45] - 3.5 * err["shear_viscosity"][0.45]
    c.true("eta / eta_E above 1.15 at 0.45", low > 1.15,
           f"{ratio['shear_viscosity'][0.45]:.3f} +- {err['shear_viscosity'][0.45]:.3f}")
    for f in sorted(ratio["thermal_conductivity"]):
        c.within(f"lambda / lambda_E at {f}", ratio["thermal_conductivity"][f], 1.0,
                 0.10 + 3.5 * err["thermal_conductivity"][f],
                 why="Enskog within 10 % at every density, plus 3.5 errors")
    # eta from steady shear, the same fluid as the sweep's at two of its densities
    config = os.path.join(root, "data", "studies", "transport", "transport.toml")
    for f in (0.30, 0.45):
        with tempfile.TemporaryDirectory(prefix="choc-sliding-") as d:
            result = subprocess.run(
                [choc, "run", config, "--quiet", "--set", f"box.packing_fraction={f}",
                 "--set", "box.shear_rate=0.05", "--set", "box.shear_temperature=1.0",
                 "--set", "run.collisions=10000000"],
                cwd=d, capture_output=True, text=True, timeout=600)
            if result.returncode != 0:
                print(f"FAIL choc run (sliding, {f}) exited {result.returncode}: {result.stderr}")
                return 1
            with open(os.path.join(d, "summary.json")) as j:
                shear = json.load(j)["sliding_shear"]
        combined = math.hypot(shear["ratio_err"], err["shear_viscosity"][f])
        c.within(f"sliding eta / eta_E at {f} against equilibrium", shear["ratio"],
                 ratio["shear_viscosity"][f], 3.5 * combined, combined, sigmas=3.5,
                 why="one viscosity, driven or at rest")
    print(f"{c.count - c.failed} of {c.count} checks passed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
