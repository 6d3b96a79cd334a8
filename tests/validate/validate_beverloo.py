#!/usr/bin/python3
"""Beverloo's law of silo discharge, from the study data/studies/beverloo/beverloo.py:

    python3 tests/validate/validate_beverloo.py CHOC_EXECUTABLE 2|3 [OUTPUT_DIR]

Runs the study in 2D (six slot widths, 2400 discs) or 3D (five round orifices, 8000
spheres) into OUTPUT_DIR, or a temporary directory; about half an hour on two cores each.
Checks:
- every run ends valid (the runtime invariants held) with no overlap beyond 1e-9 (the
  runtime tolerance; round-off leaves about 1e-14);
- the discharge rate rises with the opening, every step by more than three combined errors
  (a counter that misses grains, or a floor that leaks, breaks this first);
- the fitted exponent n of W = C rho sqrt(g) (D - k d)^n is Beverloo's, 3/2 in 2D and 5/2
  in 3D, within 10 %: the law is an empirical fit, and with k free the exponent fitted to
  a handful of openings moves by several percent with the range of openings (Mankoc et al.,
  Granular Matter 9, 407 (2007));
- Beverloo's n fits the data: with n fixed at it (C and k fitted), chi^2 is no more than 9
  above the best fit's (3 standard deviations of one parameter);
- k, the excluded rim in grain diameters, lies between 0 and 3, with n fitted or fixed:
  positive (grains do not pass at the rim as freely as at the centre) and not beyond the
  values reported for real grains, about 1 to 3 (the frictionless grains here come out
  near 0.5 to 1).
"""

import json
import os
import subprocess
import sys
import tempfile

from validate import Checks


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in ("2", "3"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    choc = os.path.abspath(sys.argv[1])
    dimension = int(sys.argv[2])
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    study = os.path.join(root, "data", "studies", "beverloo", "beverloo.py")
    with tempfile.TemporaryDirectory(prefix="choc-beverloo-") as scratch:
        out = os.path.abspath(sys.argv[3]) if len(sys.argv) == 4 else scratch
        result = subprocess.run([sys.executable, study, "--dimension", str(dimension), "--choc",
                                 choc, "--output", out], capture_output=True, text=True,
                                timeout=3300)
        print(result.stdout, end="")
        if result.returncode != 0:
            print(f"FAIL the study exited {result.returncode}: {result.stderr}")
            return 1
        with open(os.path.join(out, f"beverloo{dimension}d.json")) as f:
            study = json.load(f)
    c = Checks()
    for r in study["runs"]:
        c.true(f"the run at D = {r['width']:g} valid, no overlap beyond 1e-9",
               r["valid"] and r["max_overlap"] <= 1e-9,
               f"valid {r['valid']}, max_overlap {r['max_overlap']:.3g}, "
               f"{r['collisions']} collisions")
    widths, W, err = study["widths"], study["W"], study["W_err"]
    for i in range(1, len(widths)):
        step = W[i] - W[i - 1]
        combined = (err[i] ** 2 + err[i - 1] ** 2) ** 0.5
        c.true(f"W rises from D = {widths[i - 1]:g} to {widths[i]:g}", step > 3 * combined,
               f"{W[i - 1]:.3f} -> {W[i]:.3f} (combined error {combined:.3f})")
    fit, fixed, n = study["fit"], study["fit_fixed_n"], study["expected_n"]
    c.within(f"Beverloo's exponent n in {dimension}D", fit["n"], n, 0.1 * n,
             why="an empirical law fitted to a few openings: within 10 %")
    rise = fixed["chi2"] - fit["chi2"]
    c.true(f"n = {n:g} fits: chi^2 with n fixed within 9 of the best (3 sigma)", rise <= 9.0,
           f"chi^2 {fixed['chi2']:.2f} against {fit['chi2']:.2f}; n's range "
           f"{fit['n_low']:.3f} to {fit['n_high']:.3f}")
    for what, r in (("n fitted", fit), ("n fixed", fixed)):
        c.true(f"k between 0 and 3 grain diameters ({what})", 0.0 < r["k"] < 3.0,
               f"k = {r['k']:.2f} ({r['k_low']:.2f} to {r['k_high']:.2f})")
    print(f"{c.count - c.failed} of {c.count} checks passed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
