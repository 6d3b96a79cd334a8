#!/usr/bin/env python3
"""Shear viscosity, thermal conductivity and the pressure tensor in the summary of
`choc run` (docs/REFERENCE.md, docs/PHYSICS.md "Viscosity and heat conduction"): a dilute
gas gives Boltzmann's values with their Sonine corrections (Enskog's at its density), the
pressure tensor's diagonal is Z n kT and its off-diagonal entries vanish within their
errors, 2D reports lags but no coefficient, and runs where the fluxes mean nothing report
null.

Usage: python3 tests/cli/cli_transport.py CHOC_EXECUTABLE REPO_ROOT
"""

import math
import os
import sys
import tempfile

import choc_cli as cli
from choc_cli import check


def run(choc, text):
    """The summary of a run of config `text` (run in a fresh directory)."""
    with tempfile.TemporaryDirectory(prefix="choc-transport-") as d:
        return cli.run_summary(choc, d, toml=text + '\n[output]\nsummary = "summary.json"\n',
                               config=os.path.join(d, "config.toml"), timeout=300,
                               what="choc run failed")


def gas(dimension, fraction, count, run, extra=""):
    return (f"dimension = {dimension}\n[box]\npacking_fraction = {fraction}\n"
            f'[[species]]\nname = "A"\ncount = {count}\n{extra}'
            f'[init]\nvelocities = "maxwell"\nseed = 3\n[run]\n{run}\n')


def enskog(fraction, kT):
    """Enskog's eta and lambda (reference_physics: arithmetic independent of choc's)."""
    return cli.reference_physics().enskog_transport(fraction, kT)


def case_dilute(choc):
    """A dilute gas (packing fraction 0.02, 256 spheres, about 8000 mean free times): eta
    and lambda against Enskog's values at this density, which are Boltzmann's with their
    Sonine corrections (1.016, 1.025) and a 2-3 % density correction. Enskog is exact to
    well below the statistical error here, so the check is statistical: within 3.5 errors,
    and the errors below 12 % (about 1 / sqrt(pairs) at 10-20 mean free times)."""
    s = run(choc, gas(3, 0.02, 256, "equilibrate = 50.0\ncollisions = 1000000"))
    eta_e, lambda_e = enskog(s["packing_fraction"], s["temperature"])
    for key, name, expected in (("shear_viscosity", "eta", eta_e),
                                ("thermal_conductivity", "lambda", lambda_e)):
        c = s[key]
        value, error = c[name], c[name + "_err"]
        check(value is not None and error is not None, f"{key}: {c}")
        check(abs(c[name + "_enskog"] - expected) <= 1e-9 * expected,
              f"{key}: Enskog's value {c[name + '_enskog']}, expected {expected}")
        check(error < 0.12 * expected, f"{key}: error {error} too large to test {expected}")
        check(abs(value - expected) < 3.5 * error,
              f"{key}: {value} +- {error} against Enskog's {expected}")
        check(abs(c["ratio"] - value / expected) < 1e-9 and abs(c["ratio_err"] - error / expected) < 1e-9,
              f"{key}: ratio {c['ratio']} +- {c['ratio_err']}")
        # `windows`: of the lags of ten mean free times or more with 16 pairs or more, the
        # first from which the next rises by no more than its error (the plateau), else the
        # last; the lags double, as D's do, on the same grid
        lags = c["lags"]
        check([l["lag"] for l in lags] == [l["lag"] for l in s["diffusion"]["lags"]],
              f"{key}: lags differ from diffusion's")
        usable = [l for l in lags if l["lag"] >= 10 * s["mean_free_time"] and l["pairs"] >= 16]
        at = next((a for a, b in zip(usable, usable[1:]) if b[name] - a[name] <= b[name + "_err"]),
                  None)
        check(c["windows"] == (at or usable[-1]) and c["plateau"] == (at is not None)
              and value == c["windows"][name], f"{key}: windows {c['windows']}, lags {usable}")
    # D at infinite size: Yeh-Hummer's correction with the measured viscosity, added to D
    # from many time origins, its error with the viscosity's share (docs/PHYSICS.md)
    d, eta = s["diffusion"], s["shear_viscosity"]
    edge = (s["N"] * math.pi / 6 / s["packing_fraction"]) ** (1 / 3)  # sigma = 1
    correction = 2.837297 * s["temperature"] / (6 * math.pi * eta["eta"] * edge)
    error = math.hypot(d["windows"]["D_err"], correction * eta["eta_err"] / eta["eta"])
    check(d["finite_size"] == {"correction": d["finite_size"]["correction"], "D_from": "windows",
                               "eta_from": "measured"}
          and abs(d["finite_size"]["correction"] - correction) <= 1e-9 * correction
          and abs(d["D_infinite"] - d["windows"]["D"] - correction) <= 1e-9 * d["D_infinite"]
          and abs(d["D_infinite_err"] - error) <= 1e-9 * error,
          f"D_infinite {d['D_infinite']} +- {d['D_infinite_err']}, finite_size "
          f"{d['finite_size']}; expected correction {correction}, error {error}")


def case_pressure_tensor(choc):
    """The pressure tensor of a dense fluid: its trace is d Z n kT (the virial and the
    kinetic energy integral are the tensor's trace, to round-off) and its off-diagonal
    entries are zero within 4 of their errors."""
    s = run(choc, gas(3, 0.4, 500, "equilibrate = 5.0\ntime = 60.0"))
    p = s["pressure"]
    tensor, error = p["tensor"], p["tensor_err"]
    check(len(tensor) == 3 and all(len(row) == 3 for row in tensor), f"tensor {tensor}")
    n = s["packing_fraction"] / (math.pi / 6)
    trace = sum(tensor[a][a] for a in range(3)) / 3
    check(abs(trace - p["Z"] * n * s["temperature"]) < 1e-9 * trace,
          f"trace / 3 = {trace}, Z n kT = {p['Z'] * n * s['temperature']}")
    for a in range(3):
        for b in range(3):
            check(tensor[a][b] == tensor[b][a] and error[a][b] > 0, f"tensor {tensor}, error {error}")
            if a != b:
                check(abs(tensor[a][b]) < 4 * error[a][b], f"P_{a}{b} = {tensor[a][b]} +- {error[a][b]}")
    # the diagonal's spread against Z's error: each entry is an independent estimate of
    # Z n kT with an error of the same order
    check(all(abs(tensor[a][a] - trace) < 5 * error[a][a] for a in range(3)), f"diagonal {tensor}")


def case_2d(choc):
    """In 2D the coefficients grow with the lag without limit: the lags are there, the
    values are null (D's as well as eta's and lambda's)."""
    s = run(choc, gas(2, 0.3, 400, "time = 400.0"))
    for key, name in (("shear_viscosity", "eta"), ("thermal_conductivity", "lambda")):
        c = s[key]
        check(c is not None and len(c["lags"]) > 3 and c[name] is None and c[name + "_err"] is None
              and c["windows"] is not None and c[name + "_enskog"] is not None and c["ratio"] is None,
              f"2D {key}: {c}")
    check(len(s["pressure"]["tensor"]) == 2, f"2D tensor {s['pressure']['tensor']}")
    d = s["diffusion"]
    check(d is not None and d["D"] is None and d["D_err"] is None and d["ratio"] is None
          and d["species"] == [] and len(d["lags"]) > 3 and d["windows"] is not None
          and d["D_enskog"] > 0, f"2D diffusion {d}")
    # the finite-time D grows from lag to lag once past the ballistic start
    grown = [l["D"] for l in d["lags"] if l["lag"] >= s["mean_free_time"] and l["pairs"] >= 16]
    check(len(grown) >= 3 and grown[-1] > grown[0], f"2D D(lag) {d['lags']}")


def case_null(choc):
    """No coefficients where the fluxes mean nothing: walls (and no tensor either), an
    inelastic gas (the tensor stays); no conductivity and no Enskog value in a mixture."""
    s = run(choc, gas(3, 0.2, 200, "time = 5.0").replace(
        "packing_fraction = 0.2", 'packing_fraction = 0.2\nboundary = "wall"'))
    check(s["shear_viscosity"] is None and s["thermal_conductivity"] is None and s["pressure"] is None,
          f"walls: {s['shear_viscosity']}, {s['thermal_conductivity']}, {s['pressure']}")
    s = run(choc, gas(3, 0.2, 200, "time = 5.0") + "[collisions]\nrestitution = 0.9\n")
    check(s["shear_viscosity"] is None and s["thermal_conductivity"] is None
          and len(s["pressure"]["tensor"]) == 3, f"inelastic: {s['shear_viscosity']}, {s['pressure']}")
    mixture = gas(3, 0.2, 200, "time = 20.0",
                  extra='[[species]]\nname = "B"\ncount = 100\nradius = 0.3\n')
    s = run(choc, mixture)
    c = s["shear_viscosity"]
    check(c is not None and c["lags"] and c["eta_enskog"] is None and s["thermal_conductivity"] is None,
          f"mixture: {c}, {s['thermal_conductivity']}")


def case_vacf(choc):
    """output.vacf: C(0) is kT/m within its error; lags even within levels and doubling
    between them; and its integral is D (Green-Kubo). The windows' D at lag tau is
    integral_0^tau C + integral_tau^2tau (2 - s/tau) C ds (MSD(2 tau) - MSD(tau) over 2 d tau),
    which the CSV's lags give by the trapezoid rule; the two estimates come from different
    particles (1024 against 4096 tagged) with errors near 1 %, so 4 % apart at most."""
    with tempfile.TemporaryDirectory(prefix="choc-transport-") as d:
        s = cli.run_summary(choc, d, toml=gas(3, 0.3, 2000, "equilibrate = 2.0\ntime = 40.0")
                            + '\n[output]\nsummary = "summary.json"\nvacf = "vacf.csv"\n',
                            config=os.path.join(d, "config.toml"), timeout=300,
                            what="choc run failed")
        with open(os.path.join(d, "vacf.csv")) as f:
            lines = f.read().splitlines()
    check(lines[0] == "lag,vacf,vacf_err,normalized,origins", f"header {lines[0]}")
    rows = [[float(x) for x in line.split(",")] for line in lines[1:]]
    t = [r[0] for r in rows]
    c = [r[1] for r in rows]
    check(t[0] == 0 and rows[0][3] == 1 and abs(c[0] - s["temperature"]) < 3 * rows[0][2],
          f"C(0) = {c[0]} +- {rows[0][2]}, kT = {s['temperature']}")
    step = t[1]
    check(all(abs(t[k] - k * step) < 1e-9 * t[k] for k in range(1, 16))
          and abs(t[16] - 16 * step) < 1e-9 * t[16] and abs(t[17] - 18 * step) < 1e-9 * t[17],
          f"lags {t[:20]}")

    def integral(upper, weight):
        total = 0.0
        for k in range(1, len(t)):
            if t[k] > upper + 1e-12:
                break
            total += 0.5 * (weight(t[k - 1]) * c[k - 1] + weight(t[k]) * c[k]) * (t[k] - t[k - 1])
        return total

    windows = next(l for l in s["diffusion"]["lags"] if l["lag"] >= 10 * s["mean_free_time"])
    tau = windows["lag"]
    # (the CSV's lags need not fall on 2 tau: to the last below, where the weight is near 0)
    d_vacf = integral(2 * tau, lambda x: 2 - x / tau if x > tau else 1.0)
    print(f"  Green-Kubo {d_vacf:.4f}, windows {windows['D']:.4f} at lag {tau:.3g}")
    check(abs(d_vacf - windows["D"]) < 0.04 * windows["D"],
          f"Green-Kubo {d_vacf} against the windows' D {windows['D']} at lag {tau}")


CASES = [("dilute gas against Boltzmann and Enskog", case_dilute),
         ("velocity autocorrelation and Green-Kubo", case_vacf),
         ("pressure tensor", case_pressure_tensor),
         ("2D: lags, no coefficient", case_2d),
         ("null where the fluxes mean nothing", case_null)]


if __name__ == "__main__":
    # (REPO_ROOT is not used: choc_cli finds reference_physics)
    sys.exit(cli.main(__doc__, CASES, 2, given=1, catch=(KeyError, TypeError, StopIteration)))
