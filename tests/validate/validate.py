#!/usr/bin/env python3
"""choc against the reference physics of docs/PHYSICS.md.

    python3 tests/validate/validate.py CHOC_EXECUTABLE quick|full

`full` is the `validate` meson suite (a few minutes); `quick` runs the same checks on
small systems with tolerances wide enough for their noise, in the default `cli` suite.
Each check prints the measured value, the reference, the statistical error and the
tolerance, and why the tolerance is what it is.

The reference formulas are in tests/support/reference_physics.py; beside them the exact identity
    Z - 1 = (sigma / (2 d)) sqrt(pi m / kT) Gamma
between the measured pressure and collision rate of an elastic fluid.
"""

import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time

# tests/support/: reference_physics.py, which tests/cli/ uses too
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from reference_physics import contact_value as implied_contact  # noqa: E402
from reference_physics import enskog_rate, maxwell_h, z_reference  # noqa: E402


def solve(matrix, rhs):
    """x with matrix x = rhs, by Gauss-Jordan elimination with partial pivoting."""
    k = len(rhs)
    a = [row[:] + [r] for row, r in zip(matrix, rhs)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda row: abs(a[row][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for row in range(k):
            if row != col:
                factor = a[row][col] / a[col][col]
                a[row] = [u - factor * v for u, v in zip(a[row], a[col])]
    return [a[i][k] / a[i][i] for i in range(k)]


def contact_value(rows, sigma=1.0, width=0.2, degree=3):
    """g(sigma) and its statistical error, from a least-squares cubic through the g(r)
    shells with centres in (sigma, sigma + width). g falls steeply and convexly from
    contact: in the data of data/studies/eos3d a straight line through 0.1 sigma lands 2 %
    low at eta = 0.40, a parabola through 0.2 sigma 0.8 % low, a cubic through 0.2 sigma
    within 0.3 % (and within 0.4 % for discs at phi = 0.6). The error is that of the fitted intercept, from the scatter of the shells
    about the cubic: s^2 [(X^T X)^-1]_00 with s^2 = sum of squared residuals / (n - 4)."""
    points = [(r["r"] - sigma, r["g"]) for r in rows if sigma < r["r"] < sigma + width]
    k = degree + 1
    normal = [[sum(x ** (i + j) for x, _ in points) for j in range(k)] for i in range(k)]
    c = solve(normal, [sum(y * x ** i for x, y in points) for i in range(k)])
    residuals = [y - sum(c[i] * x ** i for i in range(k)) for x, y in points]
    s2 = sum(r * r for r in residuals) / (len(points) - k)
    inverse_00 = solve(normal, [1.0] + [0.0] * (k - 1))[0]
    return c[0], math.sqrt(s2 * inverse_00)


# --- running choc --------------------------------------------------------------------

def config_text(d, fraction, species, lattice, velocities, run, output, seed=1):
    lines = [f"dimension = {d}", "", "[box]", f"packing_fraction = {fraction}"]
    for s in species:
        lines += ["", "[[species]]"] + [f"{k} = {json.dumps(v)}" for k, v in s.items()]
    lines += ["", "[init]", f'lattice = "{lattice}"', f'velocities = "{velocities}"',
              f"seed = {seed}", "", "[run]"] + [f"{k} = {v}" for k, v in run.items()]
    lines += ["", "[output]", 'summary = "summary.json"'] + output
    return "\n".join(lines) + "\n"


class Run:
    """One `choc run` in its own directory: the summary and any CSV outputs."""

    def __init__(self, choc, workdir, name, text):
        self.directory = os.path.join(workdir, name)
        os.makedirs(self.directory, exist_ok=True)
        with open(os.path.join(self.directory, "config.toml"), "w") as f:
            f.write(text)
        start = time.monotonic()
        result = subprocess.run([choc, "run", "config.toml", "--quiet"], cwd=self.directory,
                                capture_output=True, text=True)
        self.seconds = time.monotonic() - start
        if result.returncode != 0:
            raise RuntimeError(f"{name}: choc exited {result.returncode}: {result.stderr}")
        with open(os.path.join(self.directory, "summary.json")) as f:
            self.summary = json.load(f)

    def csv(self, name):
        with open(os.path.join(self.directory, name)) as f:
            # (the time series' provenance comes first, as "#" comment lines)
            rows = csv.DictReader(line for line in f if not line.startswith("#"))
            return [{k: float(v) for k, v in row.items()} for row in rows]


# --- checks ---------------------------------------------------------------------------

class Checks:
    def __init__(self):
        self.failed = 0
        self.count = 0

    def within(self, what, measured, reference, tolerance, error=None, sigmas=3.0, why=""):
        """|measured - reference| <= tolerance, and <= sigmas * error when error is given."""
        self.count += 1
        deviation = measured - reference
        ok = abs(deviation) <= tolerance
        text = (f"{what}: measured {measured:.6g}, reference {reference:.6g}, "
                f"deviation {deviation:+.3g} ({deviation / reference:+.3%})")
        if error is not None:
            ok = ok and abs(deviation) <= sigmas * error
            text += f", error {error:.3g} ({error / abs(reference):.3%}), {abs(deviation) / error:.2f} sigma"
        text += f"; tolerance {tolerance:.3g}" + (f" and {sigmas:g} sigma" if error else "")
        print(("ok   " if ok else "FAIL ") + text + (f"  [{why}]" if why else ""), flush=True)
        self.failed += not ok

    def true(self, what, condition, detail):
        self.count += 1
        print(("ok   " if condition else "FAIL ") + f"{what}: {detail}", flush=True)
        self.failed += not condition


def mean_and_error(values):
    """Mean and its standard error, treating the values as independent."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def blocked_mean_and_error(rows, key, span=5.0):
    """Mean of rows[key] and its standard error from blocks of `span` collisions per
    particle: samples closer than a few collisions per particle are correlated, block
    means that far apart are nearly independent."""
    blocks = {}
    for r in rows:
        blocks.setdefault(int(r["collisions_per_particle"] // span), []).append(r[key])
    means = [sum(b) / len(b) for b in blocks.values()]
    mean = sum(r[key] for r in rows) / len(rows)
    if len(means) < 2:
        return mean, float("inf")
    return mean, mean_and_error(means)[1]


# Systems per mode. Each equation-of-state run: (d, packing fraction, lattice, N,
# equilibration time, measured collisions); each relaxation run: (d, packing fraction,
# lattice, N, run time); the mixture: (d, packing fraction, lattice, N, run time).
FULL = {
    # N = 32000 spheres (fcc 20^3) and 32400 discs (hex 180^2): the O(1/N) finite-size
    # shift of Z is ~1e-4, below the 0.3 % tolerance; 1.2e7 collisions (375 per particle)
    # give a block error of ~0.05 % of Z. Discs melt from the hexagonal lattice slowly: after
    # 5 time units (60 collisions per particle) at phi = 0.6 g(r) near contact was still
    # 1.2 % low (Z already right), after 20 it is not.
    "eos": [(3, 0.25, "fcc", 32000, 5.0, 12_000_000), (3, 0.40, "fcc", 32000, 5.0, 12_000_000),
            (2, 0.40, "hex", 32400, 20.0, 12_000_000), (2, 0.60, "hex", 32400, 20.0, 12_000_000)],
    "z_tolerance": 0.003,       # the 0.3 %, with 3 sigma
    "identity_tolerance": 0.005,
    "rate_tolerance": 0.005,
    # the cubic extrapolation's own bias: up to ~0.4 % where g is steepest (2D, phi = 0.6,
    # in a long run: -0.40 % +- 0.49 %), added to three standard errors of the intercept
    "contact_tolerance": 0.005,
    # kurtosis: 10976 spheres (fcc 14^3), 10000 discs, dilute, from equal speeds
    "relax": [(3, 0.10, "fcc", 10976, 100.0), (2, 0.20, "hex", 10000, 200.0)],
    "kurtosis_tolerance": 0.01,
    "mixture": (3, 0.20, "fcc", 4000, 40.0),
}
QUICK = {
    # 2048/2000 particles, 4e5 collisions: Z's block error ~0.3 %; the finite-size shift at
    # N ~ 2000 is still ~0.1 %. 2 % is wide enough for 4-6 sigma of that noise yet catches
    # a wrong virial prefactor (a factor 2 in Z - 1 is a 30-50 % error) or wrong units.
    "eos": [(3, 0.30, "fcc", 2048, 3.0, 400_000), (2, 0.50, "hex", 2000, 3.0, 400_000)],
    "z_tolerance": 0.02,
    # The identity holds per collision on average: its noise is that of the mean normal
    # relative speed at contact, ~1/sqrt(collisions) = 0.2 % here; 1 % is five of it.
    "identity_tolerance": 0.01,
    "rate_tolerance": 0.03,
    # g(r) is sampled once per 20 collisions per particle: 20 snapshots of 2000 particles
    # leave ~1.5 % noise per shell near contact, which the cubic extrapolation amplifies
    # to ~3.5 %, too much to test anything; the full suite checks it.
    "contact_tolerance": None,
    # 2048 spheres / 2000 discs: a snapshot's kurtosis scatters by ~K/sqrt(N) ~ 4 %; the
    # mean over ~20 late samples by ~1 %; 3 % is three of that and far from the starting
    # value 1 (equal speeds).
    "relax": [(3, 0.10, "fcc", 2048, 20.0), (2, 0.20, "hex", 2000, 30.0)],
    "kurtosis_tolerance": 0.03,
    "mixture": (3, 0.20, "fcc", 1000, 30.0),
}


def check_eos(choc, workdir, mode, checks):
    for d, fraction, lattice, n, equilibrate, collisions in mode["eos"]:
        name = f"eos{d}d_{fraction}"
        text = config_text(d, fraction, [{"name": "A", "count": n}], lattice, "maxwell",
                           {"equilibrate": equilibrate, "collisions": collisions},
                           ['rdf = "gr.csv"'] if mode["contact_tolerance"] else [])
        run = Run(choc, workdir, name, text)
        s = run.summary
        print(f"-- {name}: N = {s['N']}, {s['collisions']} collisions, sim_time "
              f"{s['sim_time']:.4g}, {run.seconds:.0f} s", flush=True)
        z, z_err = s["pressure"]["Z"], s["pressure"]["Z_err"]
        reference = z_reference(d, fraction)
        label = "Hansen-Goos" if d == 3 else "Kolafa-Rottner"
        checks.within(f"{d}D Z at {fraction} vs {label}", z, reference,
                      mode["z_tolerance"] * reference, z_err,
                      why=f"{mode['z_tolerance']:.1%} and 3 block standard errors")
        # Z - 1 = (sigma / (2 d)) sqrt(pi m / kT) Gamma, with the measured kT and Gamma.
        kT, rate = s["temperature"], s["collision_rate"]
        from_rate = 1.0 + math.sqrt(math.pi / kT) * rate / (2.0 * d)
        checks.within(f"{d}D identity Z - 1 = sqrt(pi m/kT) Gamma / (2d) at {fraction}",
                      from_rate - 1.0, z - 1.0, mode["identity_tolerance"] * (z - 1.0),
                      why="exact in equilibrium; noise of the mean impulse only")
        # g(r) at contact, extrapolated from the shells within 0.2 sigma of it, against
        # the contact value the measured Z implies (Z = 1 + 4 eta g(sigma) in 3D,
        # 1 + 2 phi g(sigma) in 2D: exact for hard particles).
        if mode["contact_tolerance"] is not None:
            contact, contact_err = contact_value(run.csv("gr.csv"))
            implied = implied_contact(d, fraction, z)
            relation = "(Z - 1)/(4 eta)" if d == 3 else "(Z - 1)/(2 phi)"
            # The cubic's own bias plus three standard errors of its intercept.
            checks.within(f"{d}D g(sigma) from g(r) at {fraction} vs {relation}",
                          contact, implied,
                          mode["contact_tolerance"] * implied + 3.0 * contact_err,
                          why="cubic through 0.2 sigma of shells 0.02 sigma wide: "
                              f"{mode['contact_tolerance']:.1%} bias + 3 x its error {contact_err:.2g}")
        checks.within(f"{d}D collision rate at {fraction} vs Enskog with g(sigma) from {label}",
                      rate, enskog_rate(d, fraction, reference, kT),
                      mode["rate_tolerance"] * enskog_rate(d, fraction, reference, kT),
                      why="equals the Z check through the identity")


def check_relaxation(choc, workdir, mode, checks):
    for d, fraction, lattice, n, duration in mode["relax"]:
        name = f"relax{d}d"
        text = config_text(d, fraction, [{"name": "A", "count": n}], lattice, "fixed_speed",
                           {"time": duration},
                           ['timeseries = { path = "series.csv", every = 0.5 }'])
        run = Run(choc, workdir, name, text)
        rows = run.csv("series.csv")
        n = run.summary["N"]
        print(f"-- {name}: N = {n}, {run.summary['collisions']} collisions, {run.seconds:.0f} s",
              flush=True)
        # After 20 collisions per particle the distribution is Maxwellian to well below
        # the noise (it relaxes within a few collisions per particle, see the relax studies
        # in data/studies); average the late samples.
        late = [r for r in rows if r["collisions_per_particle"] >= 20.0]
        checks.true(f"{d}D relaxation run long enough", len(late) >= 10,
                    f"{len(late)} samples after 20 collisions per particle")
        if len(late) < 2:
            continue
        k, k_err = blocked_mean_and_error(late, "kurtosis")
        target = 5.0 / 3.0 if d == 3 else 2.0
        checks.within(f"{d}D kurtosis <v^4>/<v^2>^2 after relaxation", k, target,
                      mode["kurtosis_tolerance"] * target, k_err, sigmas=4.0,
                      why="mean over late samples; snapshot noise ~K/sqrt(N)")
        # H non-increasing within its noise: the scatter of H once relaxed (its standard
        # deviation over the late samples) is the sample noise; the difference of two
        # samples scatters by sqrt(2) times that. A rise of more than 4 such standard
        # deviations between two samples is a real increase.
        h_late = [r["H"] for r in late]
        noise = math.sqrt(2.0) * math.sqrt(
            sum((h - sum(h_late) / len(h_late)) ** 2 for h in h_late) / (len(h_late) - 1))
        steps = [(a["time"], b["H"] - a["H"]) for a, b in zip(rows, rows[1:])]
        rises = [step for step in steps if step[1] > 4.0 * noise]
        checks.true(f"{d}D H non-increasing", not rises,
                    f"largest step {max(step for _, step in steps):+.3g}, allowed "
                    f"+{4 * noise:.3g} (4 sigma of the relaxed scatter); "
                    f"H {rows[0]['H']:.4g} -> {rows[-1]['H']:.4g}" +
                    (f"; rises at {rises[:3]}" if rises else ""))
        h, h_err = blocked_mean_and_error(late, "H")
        h_mb = maxwell_h(d, late[-1]["temperature"])
        # Shells 0.1 sqrt(kT) wide bias H by O(h^2) ~ 1e-3 (unit test of the observer).
        checks.within(f"{d}D H after relaxation vs Maxwell-Boltzmann", h, h_mb,
                      0.003 + 4.0 * h_err, why="binning bias 0.003 plus 4 standard errors")


def check_mixture(choc, workdir, mode, checks):
    d, fraction, lattice, n, duration = mode["mixture"]
    half = n // 2
    species = [{"name": "A", "count": half, "mass": 1.0, "temperature": 2.0},
               {"name": "B", "count": n - half, "mass": 4.0, "temperature": 0.5}]
    text = config_text(d, fraction, species, lattice, "maxwell", {"time": duration},
                       ['timeseries = { path = "series.csv", every = 1.0 }'])
    run = Run(choc, workdir, "mixture", text)
    rows = run.csv("series.csv")
    print(f"-- mixture: N = {run.summary['N']}, masses 1 and 4, kT 2 and 0.5, "
          f"{run.summary['collisions']} collisions, {run.seconds:.0f} s", flush=True)
    final = (half * 2.0 + (n - half) * 0.5) / n  # sum_s x_s T_s(0)
    checks.within("mixture: starting species temperatures",
                  rows[0]["temperature_A"] - rows[0]["temperature_B"], 1.5, 1e-9,
                  why="set exactly at the start")
    # Equipartition within a few collisions per particle; the second half is relaxed.
    late = [r for r in rows if r["time"] >= duration / 2]
    for s in ("A", "B"):
        t, t_err = blocked_mean_and_error(late, "temperature_" + s)
        checks.within(f"mixture: final temperature of {s} vs sum_s x_s T_s(0)", t, final,
                      4.0 * t_err, why="4 standard errors of the late samples")
    for r in late:
        r["difference"] = r["temperature_A"] - r["temperature_B"]
    diff, diff_err = blocked_mean_and_error(late, "difference")
    checks.true("mixture: T_A - T_B after relaxation", abs(diff) <= 4.0 * diff_err,
                f"{diff:+.4g} +- {diff_err:.2g} (4 standard errors allowed)")


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("quick", "full"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    choc, mode = os.path.abspath(sys.argv[1]), FULL if sys.argv[2] == "full" else QUICK
    checks = Checks()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="choc-validate-") as workdir:
        check_eos(choc, workdir, mode, checks)
        check_relaxation(choc, workdir, mode, checks)
        check_mixture(choc, workdir, mode, checks)
    print(f"{checks.count - checks.failed} of {checks.count} checks passed in "
          f"{time.monotonic() - start:.0f} s")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
