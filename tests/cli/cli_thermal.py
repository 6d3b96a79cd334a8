#!/usr/bin/env python3
"""Driven transport (docs/REFERENCE.md "heat_conduction", "shear_flow", "sliding_shear",
"Profile CSV"; docs/PHYSICS.md "Transport between thermal walls", "Viscosity from steady
shear"). Thermal walls: the
conductivity from Fourier's law between a hot and a cold wall, and the viscosity from
Newton's law between two walls moving apart, agree with the equilibrium (Einstein-Helfand)
values of the same fluid, all measured against Enskog's at their own state; the summary's
flux and stress are its walls' heat and momentum; the slab profiles count every particle
of every sample, lie between the walls' temperatures and, sheared, rise monotonically.
Sliding boundaries: the viscosity from the stress of a thermostatted steady shear agrees
with the equilibrium one, the velocity profile is the imposed line, and without the
thermostat the fluid heats at the rate that viscosity predicts.

Usage: python3 tests/cli/cli_thermal.py CHOC_EXECUTABLE REPO_ROOT
"""

import csv
import math
import os
import re
import sys
import tempfile

import choc_cli as cli
from choc_cli import check


def run(choc, text, files=()):
    """The summary of a run of config `text` and the text of `files` it wrote."""
    with tempfile.TemporaryDirectory(prefix="choc-thermal-") as d:
        summary = cli.run_summary(choc, d, toml=text, config=os.path.join(d, "config.toml"),
                                  timeout=300, what="choc run failed")
        texts = {}
        for name in files:
            with open(os.path.join(d, name)) as f:
                texts[name] = f.read()
        return summary, texts


# Spheres at packing fraction 0.3 (about 125 mean free paths across 20 diameters), between
# a wall at 1.2 and one at 0.8: a gradient of about 0.02 kT per diameter, small enough
# that lambda ~ sqrt(T) barely bends the profile.
DRIVEN = """dimension = 3
[box]
size = [20.0, 6.0, 6.0]
boundary = ["wall", "periodic", "periodic"]
wall_temperature = [1.2, 0.8]
[[species]]
name = "A"
count = 400
[init]
lattice = "random"
seed = 5
[run]
equilibrate = 50
time = 1000
[output]
summary = "summary.json"
profile = { path = "profile.csv", slabs = 20 }
"""

# The same fluid in equilibrium, periodic.
EQUILIBRIUM = """dimension = 3
[box]
packing_fraction = 0.3
[[species]]
name = "A"
count = 500
[init]
lattice = "fcc"
seed = 3
[run]
equilibrate = 20
time = 1000
[output]
summary = "summary.json"
"""


_equilibrium = []


def equilibrium_summary(choc):
    """The EQUILIBRIUM run's summary, run once for both comparisons."""
    if not _equilibrium:
        _equilibrium.append(run(choc, EQUILIBRIUM)[0])
    return _equilibrium[0]


def agrees_with_equilibrium(choc, what, driven, key):
    """A driven coefficient over Enskog's against the equilibrium one of the same fluid
    (key: its summary entry): within 3 combined standard errors, which fails by chance 3
    times in 1000."""
    e = equilibrium_summary(choc)[key]
    combined = math.hypot(driven["ratio_err"], e["ratio_err"])
    check(abs(driven["ratio"] - e["ratio"]) < 3 * combined,
          f"{what} over Enskog's {driven['ratio']:.3f} +- {driven['ratio_err']:.3f} against "
          f"equilibrium {e['ratio']:.3f} +- {e['ratio_err']:.3f}")
    print(f"  {what} over Enskog's = {driven['ratio']:.3f} +- {driven['ratio_err']:.3f}, "
          f"equilibrium {e['ratio']:.3f} +- {e['ratio_err']:.3f}")


def enskog_lambda(fraction, kT):
    """Enskog's lambda (reference_physics: arithmetic independent of choc's)."""
    return cli.reference_physics().enskog_transport(fraction, kT)[1]


def profile_rows(text):
    """The slabs of a profile.csv: its provenance comment lines checked (the time series'
    header: docs/REFERENCE.md, "Profile (CSV)") and left out, every number in shortest
    round-trip form (more than the 10 significant digits written before, issue 43)."""
    comments = [line for line in text.splitlines() if line.startswith("#")]
    check(len(comments) >= 8 and comments[0].startswith("# choc_version: ") and
          "# config:" in comments, f"profile.csv: no provenance header: {comments[:3]}")
    rows = list(csv.DictReader(line for line in text.splitlines() if not line.startswith("#")))
    digits = max(len(re.sub(r"[^0-9]", "", v.split("e")[0]).lstrip("0"))
                 for r in rows for v in r.values() if v not in ("", "nan"))
    check(digits > 10, f"profile.csv: at most {digits} significant digits in any value")
    return rows


def case_driven_against_equilibrium(choc):
    driven, files = run(choc, DRIVEN, ["profile.csv"])
    h = driven["heat_conduction"]
    check(h is not None, "no heat_conduction between two thermal walls")
    check(h["axis"] == "x" and h["wall_temperature"] == [1.2, 0.8], f"walls: {h}")
    # q is the mean of the heat in at the hot wall and out at the cold one
    check(abs(h["flux"] - (h["wall_heat"][0] - h["wall_heat"][1]) / 2) < 1e-12 * h["flux"],
          f"flux {h['flux']} is not the walls' mean heat {h['wall_heat']}")
    # a steady state: what comes in goes out, within the fluctuation of the stored energy
    check(abs(h["wall_heat"][0] + h["wall_heat"][1]) < 4 * 2 * h["flux_err"],
          f"not steady: wall heat {h['wall_heat']}, flux error {h['flux_err']}")
    check(h["gradient"] < 0 and h["flux"] > 0, "heat flows against the gradient")
    # the middle's state lies between the walls, and Enskog's value there is recomputed
    check(0.8 < h["temperature"] < 1.2, f"middle temperature {h['temperature']}")
    expected = enskog_lambda(h["packing_fraction"], h["temperature"])
    check(abs(h["lambda_enskog"] - expected) < 1e-4 * expected,
          f"lambda_enskog {h['lambda_enskog']}, recomputed {expected}")
    check(h["lambda_err"] is not None and h["lambda_err"] < 0.15 * h["lambda"],
          f"driven lambda {h['lambda']} +- {h['lambda_err']}: too uncertain to compare")

    t = equilibrium_summary(choc)["thermal_conductivity"]
    check(t["lambda"] is not None and t["lambda_err"] < 0.1 * t["lambda"],
          f"equilibrium lambda {t['lambda']} +- {t['lambda_err']}")
    # Each against Enskog at its own state (the driven fluid's middle is a little cooler
    # and less dense), then against each other: agreement within 3 combined standard
    # errors (about 0.15 of Enskog here) fails by chance 3 times in 1000.
    driven_ratio, driven_err = h["ratio"], h["ratio_err"]
    eq_ratio, eq_err = t["ratio"], t["ratio_err"]
    combined = math.hypot(driven_err, eq_err)
    check(abs(driven_ratio - eq_ratio) < 3 * combined,
          f"driven lambda/lambda_E {driven_ratio:.3f} +- {driven_err:.3f} against equilibrium "
          f"{eq_ratio:.3f} +- {eq_err:.3f}")
    print(f"  driven lambda/lambda_E = {driven_ratio:.3f} +- {driven_err:.3f}, equilibrium "
          f"{eq_ratio:.3f} +- {eq_err:.3f}")

    rows = profile_rows(files["profile.csv"])
    check(len(rows) == 20, f"{len(rows)} slabs, not 20")
    # every particle of every sample is in some slab: sum of n * slab volume is N
    slab_volume = 1.0 * 6.0 * 6.0
    total = sum(float(r["density"]) for r in rows) * slab_volume
    check(abs(total - 400) < 1e-9 * 400, f"the slabs hold {total} particles, not 400")
    temperatures = [float(r["temperature"]) for r in rows]
    check(all(0.8 < x < 1.2 for x in temperatures),
          f"slab temperatures outside the walls': {temperatures}")
    # mean velocity zero along the flux within its error (no net flow between walls)
    for r in rows:
        check(abs(float(r["u_x"])) < 5 * float(r["u_x_err"]) + 1e-12,
              f"slab at x = {r['x']} drifts: u_x = {r['u_x']} +- {r['u_x_err']}")


# The same gas between walls at one temperature moving at -0.5 and +0.5 along y: a
# Couette flow with a shear rate of about 0.05 per time unit (0.005 per mean free
# time: the linear regime), whose viscous heat the walls take away.
COUETTE = DRIVEN.replace("wall_temperature = [1.2, 0.8]",
                         "wall_temperature = [1.0, 1.0]\n"
                         "wall_velocity = [[0.0, -0.5, 0.0], [0.0, 0.5, 0.0]]")


def case_couette_against_equilibrium(choc):
    sheared, files = run(choc, COUETTE, ["profile.csv"])
    check(sheared["heat_conduction"] is None, "heat_conduction between walls at one temperature")
    f = sheared["shear_flow"]
    check(f is not None, "no shear_flow between two moving thermal walls")
    check(f["direction"] == [0.0, 1.0, 0.0], f"flow direction {f['direction']}")
    check(abs(f["stress"] - (f["wall_momentum"][0] - f["wall_momentum"][1]) / 2)
          < 1e-12 * abs(f["stress"]), "stress is not the walls' mean momentum")
    check(abs(f["wall_momentum"][0] + f["wall_momentum"][1]) < 4 * 2 * f["stress_err"],
          f"not steady: wall momentum {f['wall_momentum']}")
    check(f["shear_rate"] > 0 and f["stress"] < 0, "momentum flows up the velocity gradient")
    # the walls hold the gas near their temperature; the viscous heat warms the middle
    check(1.0 < f["temperature"] < 1.1, f"middle temperature {f['temperature']}")
    rows = profile_rows(files["profile.csv"])
    u = [float(r["u_y"]) for r in rows]
    check(all(a < b for a, b in zip(u, u[1:])), f"velocity profile not increasing: {u}")
    check(-0.5 < u[0] < -0.4 and 0.4 < u[-1] < 0.5, f"slip at the walls out of range: {u}")

    agrees_with_equilibrium(choc, "Couette eta", f, "shear_viscosity")


def case_not_a_pair(choc):
    """One thermal wall (a heated floor of a gas under gravity): heat flows, but there is
    no pair to put Fourier's law between, so heat_conduction is null; the profile is
    still written, along the walled axis."""
    summary, files = run(choc, """dimension = 2
[box]
size = [10.0, 10.0]
boundary = ["periodic", "wall"]
[[walls]]
normal = [0.0, 1.0]
point = [0.0, 0.0]
temperature = 1.5
[[species]]
name = "A"
count = 40
[field]
gravity = [0.0, -0.5]
[init]
lattice = "random"
[run]
time = 20
[output]
summary = "summary.json"
profile = "profile.csv"
""", ["profile.csv"])
    check(summary["heat_conduction"] is None, "heat_conduction without a pair of walls")
    check(summary["valid"], "the run broke an invariant")
    rows = profile_rows(files["profile.csv"])
    check(len(rows) == 20 and abs(float(rows[0]["x"]) - 0.25) < 1e-12,
          "the default profile is not 20 slabs along y")


# The equilibrium fluid between sliding boundaries (Lees-Edwards) at a shear rate of 0.05
# (0.004 per mean free time: the linear regime), thermostatted at kT = 1.
SLIDING = EQUILIBRIUM.replace("packing_fraction = 0.3",
                              "packing_fraction = 0.3\nshear_rate = 0.05\nshear_temperature = 1.0"
                              ).replace('summary = "summary.json"',
                                        'summary = "summary.json"\n'
                                        'profile = { path = "profile.csv", axis = "y", slabs = 10 }')


def slope(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys))
            / sum((x - mx) ** 2 for x in xs))


def case_sliding_against_equilibrium(choc):
    sheared, files = run(choc, SLIDING, ["profile.csv"])
    f = sheared["sliding_shear"]
    check(f is not None, "no sliding_shear between sliding boundaries")
    check(f["shear_rate"] == 0.05 and f["stress"] < 0, f"stress {f['stress']} at rate 0.05")
    check(abs(f["eta"] + f["stress"] / 0.05) < 1e-12 * f["eta"], "eta is not -stress / rate")
    # the thermostat holds kT = 1 within the heat of one interval (~1e-3 here)
    for key in ("temperature", "temperature_first", "temperature_last"):
        check(abs(f[key] - 1.0) < 0.01, f"{key} {f[key]} not held at 1")
    check(abs(f["heating"]) < 1e-3, f"heating {f['heating']} with a thermostat")
    expected = cli.reference_physics().enskog_transport(f["packing_fraction"], f["temperature"])[0]
    check(abs(f["eta_enskog"] - expected) < 1e-4 * expected,
          f"eta_enskog {f['eta_enskog']}, recomputed {expected}")
    # equilibrium measures are not made in a sheared box
    for key in ("pressure", "diffusion", "shear_viscosity", "thermal_conductivity"):
        check(sheared[key] is None, f"{key} given under shear")
    check(sheared["valid"], f"invalid: {sheared['violation']}")

    # the mean velocity along x rises linearly across y at the imposed rate (the slabs'
    # u_x errors are ~0.01, the fitted slope's ~1e-3 of 0.05)
    rows = profile_rows(files["profile.csv"])
    ys, us = [float(r["x"]) for r in rows], [float(r["u_x"]) for r in rows]
    fitted = slope(ys, us)
    check(abs(fitted - 0.05) < 0.1 * 0.05, f"profile slope {fitted}, imposed 0.05: {us}")
    residual = max(abs(u - fitted * (y - ys[0]) - us[0]) for y, u in zip(ys, us))
    check(residual < 0.05, f"profile not a line: {us}")

    agrees_with_equilibrium(choc, "sliding eta", f, "shear_viscosity")


def case_sliding_heats(choc):
    """Without the thermostat the fluid warms at 2 eta gamma^2 / (d n): the heating the
    summary reports agrees with the viscosity from the stress (the energy gained is -gamma
    times the shear moment, so this checks the temperature's bookkeeping: the flow's
    energy and the drift taken off)."""
    text = SLIDING.replace("\nshear_temperature = 1.0", "").replace("shear_rate = 0.05",
                                                                     "shear_rate = 0.1")
    text = text.replace("time = 1000", "time = 100")
    f = run(choc, text)[0]["sliding_shear"]
    check(f["temperature_last"] > f["temperature_first"] + 0.2,
          f"no heating: {f['temperature_first']} -> {f['temperature_last']}")
    n = 0.3 * 6 / math.pi
    predicted = 2 * f["eta"] * 0.1 ** 2 / (3 * n)
    check(abs(f["heating"] - predicted) < 0.15 * predicted,
          f"heating {f['heating']} against 2 eta gamma^2 / (d n) = {predicted}")


CASES = [("driven lambda against equilibrium lambda", case_driven_against_equilibrium),
         ("Couette eta against equilibrium eta", case_couette_against_equilibrium),
         ("one thermal wall", case_not_a_pair),
         ("sliding eta against equilibrium eta", case_sliding_against_equilibrium),
         ("sliding without a thermostat heats", case_sliding_heats)]


if __name__ == "__main__":
    # (REPO_ROOT is not used: choc_cli finds reference_physics)
    sys.exit(cli.main(__doc__, CASES, 2, given=1, catch=(KeyError, OSError)))
