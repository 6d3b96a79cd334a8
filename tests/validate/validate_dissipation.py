#!/usr/bin/env python3
"""choc with dissipation and fields against docs/PHYSICS.md, through the command line.

    python3 tests/validate/validate_dissipation.py CHOC_EXECUTABLE quick|full

`quick` (default `cli` suite, seconds): Haff's per-collision law on a small 3D gas, a gas
cooled by drag alone, and a ball bouncing on an inelastic floor (collapse detection and the
TC model). `full` (`validate` suite): Haff's law on a larger gas, and a dilute elastic gas
under gravity against the barometric profile with Maxwell-Boltzmann at every height.
Every check prints the measured value, the reference, the statistical error and
the tolerance with its reason.
"""

import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time

from validate import Checks, mean_and_error


# --- running choc --------------------------------------------------------------------

def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return repr(value)


def toml_text(config):
    """TOML of a dict: scalars at the top, then tables, then arrays of tables (lists of
    dicts)."""
    lines = [f"{k} = {toml_value(v)}" for k, v in config.items() if not isinstance(v, (dict, list))]
    for k, v in config.items():
        if isinstance(v, dict):
            lines += ["", f"[{k}]"] + [f"{kk} = {toml_value(vv)}" for kk, vv in v.items()]
    for k, v in config.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            for entry in v:
                lines += ["", f"[[{k}]]"] + [f"{kk} = {toml_value(vv)}" for kk, vv in entry.items()]
    return "\n".join(lines) + "\n"


class Run:
    """One `choc run --quiet` of `config` in a fresh directory under `workdir`, with
    `files` ({name: text}) written beside the config. Keeps the exit status, stderr,
    the wall-clock seconds and the list of files the run left."""

    def __init__(self, choc, workdir, name, config, files=None):
        self.directory = os.path.join(workdir, name)
        os.makedirs(self.directory)
        inputs = {"config.toml": toml_text(config), **(files or {})}
        for file, text in inputs.items():
            with open(os.path.join(self.directory, file), "w") as f:
                f.write(text)
        start = time.monotonic()
        result = subprocess.run([choc, "run", "config.toml", "--quiet"], cwd=self.directory,
                                capture_output=True, text=True, timeout=1800)
        self.seconds = time.monotonic() - start
        self.status, self.stderr = result.returncode, result.stderr
        self.outputs = sorted(set(os.listdir(self.directory)) - set(inputs))

    def require_success(self):
        if self.status != 0:
            raise RuntimeError(f"{self.directory}: choc exited {self.status}: {self.stderr}")

    def csv(self, name):
        with open(os.path.join(self.directory, name)) as f:
            # (the time series' provenance comes first, as "#" comment lines)
            rows = csv.DictReader(line for line in f if not line.startswith("#"))
            return [{k: float(v) for k, v in row.items()} for row in rows]

    def frames(self, name):
        """Extended XYZ frames: (time, [(y, v^2)] per particle) for 2D runs."""
        with open(os.path.join(self.directory, name)) as f:
            while True:
                header = f.readline()
                if not header:
                    return
                n = int(header)
                comment = f.readline()
                t = float(comment.split("Time=")[1].split()[0])
                rows = []
                for _ in range(n):
                    # type x y z vx vy vz radius mass px py pz
                    w = f.readline().split()
                    vx, vy = float(w[4]), float(w[5])
                    rows.append((float(w[2]), vx * vx + vy * vy))
                yield t, rows


# --- Haff's law, per collision -------------------------------------------------------

# Haff (docs/PHYSICS.md, "Inelastic gases"): per collision per particle ln T falls by (1 - e^2)/d. It follows from
# the binary rule alone: a collision loses (1 - e^2) mu u_n^2 / 2 with mu = m/2, and with a
# Maxwellian the collision-weighted <u_n^2> is 4 kT/m, so each collision takes (1 - e^2) kT
# from d N kT / 2, and one collision per particle is N/2 collisions. No collision frequency,
# no g(sigma): the law tests the restitution rule and the bookkeeping of temperature and
# collisions. Corrections: the homogeneous cooling state is not quite Maxwellian (Sonine
# a2 = -0.015 at e = 0.9 in 3D, van Noije & Ernst 1998, lowers <u_n^2> by ~a2/4 = -0.4 %),
# and at finite density correlations between colliding pairs lower it further. Measured
# slopes over c = 2..20 (N = 16384): -0.4 % at eta = 0.05, -0.8 % at 0.10, -1.6 % at 0.15;
# at eta = 0.10 with N = 32000: -1.24 % (fcc, seed 1), -0.73 % (seed 2), -0.9 % (random
# start). Hence eta = 0.10 and a tolerance of 2 %; a wrong e by 1 % moves the slope 8 %.
HAFF = {
    # N = 8788 spheres (fcc 13^3), 1e5 collisions, c from 2 to 22: the slope's statistical
    # error is ~0.35 % (each collision's loss scatters by ~100 %, 1/sqrt(88000) collisions).
    "quick": {"n": 8788, "window": (2.0, 22.0), "every": 0.1},
    # N = 32000 (fcc 20^3), 3.8e5 collisions, c from 2 to 22 (T falls to 0.25 T0), error ~0.2 %.
    "full": {"n": 32000, "window": (2.0, 22.0), "every": 0.1},
}


def check_haff(choc, workdir, mode, checks):
    d, e, eta = 3, 0.9, 0.10
    p = HAFF[mode]
    low, high = p["window"]
    config = {
        "dimension": d,
        "box": {"packing_fraction": eta},
        "species": [{"name": "A", "count": p["n"]}],
        "collisions": {"restitution": e},
        "init": {"lattice": "fcc", "velocities": "maxwell", "seed": 1},
        "run": {"time": 1e4, "collisions": int(p["n"] * (high + 2.0) / 2)},
        "output": {"summary": "summary.json",
                   "timeseries": {"path": "series.csv", "every": p["every"]}},
    }
    run = Run(choc, workdir, f"haff_{mode}", config)
    run.require_success()
    rows = run.csv("series.csv")
    print(f"-- haff ({mode}): {d}D, N = {p['n']}, eta = {eta}, e = {e}, "
          f"{rows[-1]['collisions_per_particle']:.1f} collisions per particle, "
          f"T {rows[0]['temperature']:.3g} -> {rows[-1]['temperature']:.3g}, "
          f"{run.seconds:.1f} s", flush=True)
    # Blocks of 2 collisions per particle between the rows nearest their edges: the kinetic
    # energy changes only at collisions, so each block's slope -d ln T / dc is the loss of
    # its own collisions, independent of the other blocks'. The start (c < 2) is left out:
    # the fcc lattice melts and the velocity distribution settles into the cooling state.
    edges = [low + 2.0 * k for k in range(int((high - low) / 2.0) + 1)]
    at = [min(rows, key=lambda r: abs(r["collisions_per_particle"] - c)) for c in edges]
    slopes = [-(math.log(b["temperature"]) - math.log(a["temperature"])) /
              (b["collisions_per_particle"] - a["collisions_per_particle"])
              for a, b in zip(at, at[1:])]
    slope = -(math.log(at[-1]["temperature"]) - math.log(at[0]["temperature"])) / (
        at[-1]["collisions_per_particle"] - at[0]["collisions_per_particle"])
    error = mean_and_error(slopes)[1]
    reference = (1.0 - e * e) / d
    checks.within(f"Haff: -d ln T / d(collisions per particle), c = {low:g}..{high:g}",
                  slope, reference, 0.02 * reference,
                  why="Sonine and density corrections ~1 % at eta = 0.10; "
                      f"statistical error {error / reference:.2%}")
    # The test must be able to see a 2 % error: its noise has to be well below it.
    checks.true("Haff: statistical error well below the tolerance", error < 0.006 * reference,
                f"{error / reference:.2%} of the slope (< 0.6 % asked)")
    # Before clustering the blocks agree: first and last third within their noise.
    third = len(slopes) // 3
    early, late = mean_and_error(slopes[:third]), mean_and_error(slopes[-third:])
    drift = late[0] - early[0]
    spread = math.hypot(early[1], late[1])
    checks.true("Haff: no drift of the slope over the window (no clustering yet)",
                abs(drift) <= max(4.0 * spread, 0.01 * reference),
                f"last third - first third = {drift / reference:+.2%} of the slope, "
                f"allowed 4 sigma = {4 * spread / reference:.2%} (or 1 %)")


# --- drag ----------------------------------------------------------------------------

def check_drag(choc, workdir, checks):
    # Linear drag dv/dt = -gamma v on every particle, elastic collisions: collisions keep
    # the kinetic energy, drag takes it as K(t) = K0 exp(-2 gamma t) exactly, whatever the
    # collisions do. choc integrates the flights exactly, so the time series must follow
    # to round-off: 1e-9 relative after ~1e4 collisions (each adds ~1e-16).
    gamma, duration = 0.1, 10.0
    config = {
        "dimension": 2,
        "box": {"packing_fraction": 0.3},
        "species": [{"name": "A", "count": 1000}],
        "field": {"drag": gamma},
        "init": {"lattice": "hex", "velocities": "maxwell", "temperature": 1.0, "seed": 3},
        "run": {"time": duration},
        "output": {"summary": "summary.json",
                   "timeseries": {"path": "series.csv", "every": 0.5}},
    }
    run = Run(choc, workdir, "drag", config)
    run.require_success()
    rows = run.csv("series.csv")
    worst = max(abs(r["temperature"] / math.exp(-2.0 * gamma * r["time"]) - 1.0) for r in rows)
    print(f"-- drag: 1000 discs at phi = 0.3, gamma = {gamma}, "
          f"{rows[-1]['collisions_per_particle']:.1f} collisions per particle, "
          f"T {rows[0]['temperature']:.6g} -> {rows[-1]['temperature']:.6g}, "
          f"{run.seconds:.1f} s", flush=True)
    checks.true("drag: T(t) = T0 exp(-2 gamma t) at every row", len(rows) == 21 and worst < 1e-9,
                f"{len(rows)} rows, largest relative deviation {worst:.2g} (< 1e-9: exact flights)")
    checks.true("drag: collisions happened", rows[-1]["collisions_per_particle"] > 5,
                f"{rows[-1]['collisions_per_particle']:.1f} per particle")


# --- a ball bouncing on an inelastic floor -------------------------------------------

# One disc of radius 0.5 launched straight up from a floor: a plane wall ([[walls]]) at
# y = 1 with restitution e, in a box periodic along x with elastic walls at y = 0 and 20
# (never reached: the apex is at 1.5 + v0^2 / 2g). It lands at t_k = (2 v0/g)(1 - e^k)/(1 - e), infinitely often before
# t_inf = 2 v0 / (g (1 - e)).
BALL_G, BALL_V0 = 1.0, 1.5


def ball_config(e, **collisions):
    return {
        "dimension": 2,
        "box": {"boundary": ["periodic", "wall"]},
        "species": [{"name": "A", "count": 1}],
        "collisions": collisions,
        "walls": [{"normal": [0.0, 1.0], "point": [0.0, 1.0], "restitution": e}],
        "field": {"gravity": [0.0, -BALL_G]},
        "init": {"from": "ball.xyz"},
        "run": {"time": 100.0},
        "output": {"summary": "summary.json",
                   "timeseries": {"path": "series.csv", "every": 1.0},
                   "trajectory": {"path": "trajectory.xyz", "every": 10.0}},
    }


BALL_XYZ = (
    "1\n"
    'Lattice="4 0 0 0 20 0 0 0 1" Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1 '
    'Time=0 pbc="T F F" dimension=2\n'
    f"A 2 1.5 0 0 {BALL_V0} 0 0.5 1\n")


def collapse_time(stderr):
    """t of `inelastic collapse at t = ...` in a message, or None."""
    marker = "inelastic collapse at t = "
    if marker not in stderr:
        return None
    return float(stderr.split(marker)[1].split(":")[0])


def check_collapse_outputs(run, what, checks):
    """A collapse is a physical outcome (exit 3), not bad input: every output of the part
    run is written, the summary says "collapsed": true and is otherwise that of a valid
    run."""
    checks.true(f"{what}: the outputs of the part run are written",
                run.outputs == ["series.csv", "summary.json", "trajectory.xyz"],
                f"left {run.outputs}")
    if "summary.json" not in run.outputs:
        return None
    with open(os.path.join(run.directory, "summary.json")) as f:
        summary = json.load(f)
    checks.true(f"{what}: the summary says collapsed, valid, not interrupted",
                summary.get("collapsed") is True and summary.get("valid") is True and
                summary.get("interrupted") is False,
                f"collapsed {summary.get('collapsed')!r}, valid {summary.get('valid')!r}, "
                f"interrupted {summary.get('interrupted')!r}")
    return summary


def check_ball_collapse(choc, workdir, e, checks):
    """Without TC the collapse stops the run: exit 3 (a physical outcome, not bad input),
    one error line naming the inelastic floor (walls[0].restitution), t close to t_inf,
    the outputs up to the collapse with the summary's sim_time at it. At e = 0.5 the ball
    used to fall through the floor first (a landing fired while it still left the floor,
    the reflection turned it in, and once u^2 underflowed no landing was predicted)."""
    run = Run(choc, workdir, f"ball_stop_{e}", ball_config(e), {"ball.xyz": BALL_XYZ})
    t_inf = 2.0 * BALL_V0 / (BALL_G * (1.0 - e))
    lines = run.stderr.strip().splitlines()
    print(f"-- ball, e = {e}, no TC: exit {run.status}, {run.seconds:.2f} s; stderr: "
          f"{run.stderr.strip()[:160]}", flush=True)
    checks.true(f"ball e = {e}: a collapse stops the run with exit 3", run.status == 3,
                f"exit status {run.status}")
    checks.true(f"ball e = {e}: one `choc: error:` line naming walls[0].restitution",
                len(lines) == 1 and lines[0].startswith("choc: error: walls[0].restitution:"),
                f"{len(lines)} stderr lines")
    summary = check_collapse_outputs(run, f"ball e = {e}", checks)
    t = collapse_time(run.stderr)
    if t is None:
        checks.true(f"ball e = {e}: the message gives the collapse time", False, run.stderr)
        return
    # The clock stops at the Zeno point: the bounces are resolved until their flights fall
    # below the round-off of t (~1e-15 t), then events go on at a frozen clock until the
    # watch has seen 8 chunks of 65536 of them. The remaining flights of the geometric
    # series then add up to ~1e-13 t_inf; the message prints t with 6 decimals. 1e-5 t_inf
    # is far above both and far below any real flight (a detection one bounce early
    # would be e^k t_inf off; a late one after the ball fell through the floor, seconds).
    checks.within(f"ball e = {e}: collapse time vs t_inf = 2 v0 / (g (1 - e))", t, t_inf,
                  1e-5 * t_inf + 1e-6, why="clock frozen at the Zeno point; 6 printed decimals")
    if summary is not None:
        checks.within(f"ball e = {e}: the summary's sim_time is the collapse time",
                      summary["sim_time"], t, 1e-5 * t_inf,
                      why="no equilibration: the measured phase ends at the collapse")


def check_ball_collapse_in_equilibration(choc, workdir, e, checks):
    """A collapse during run.equilibrate: exit 3, the outputs of an empty measured phase
    (sim_time 0, no collisions), as an interrupt there gives."""
    config = ball_config(e)
    config["run"] = {"time": 100.0, "equilibrate": 100.0}
    # a start from a snapshot is equilibrated only when asked
    config["init"]["equilibrate"] = True
    run = Run(choc, workdir, f"ball_equilibrate_{e}", config, {"ball.xyz": BALL_XYZ})
    print(f"-- ball, e = {e}, collapse in equilibration: exit {run.status}, "
          f"{run.seconds:.2f} s", flush=True)
    checks.true(f"ball e = {e}, in equilibration: exit 3", run.status == 3,
                f"exit status {run.status}")
    summary = check_collapse_outputs(run, f"ball e = {e}, in equilibration", checks)
    if summary is not None:
        checks.true(f"ball e = {e}, in equilibration: the measured phase is empty",
                    summary["sim_time"] == 0 and summary["collisions"] == 0 and
                    summary["wall_collisions"] == 0,
                    f"sim_time {summary['sim_time']}, collisions {summary['collisions']}, "
                    f"wall_collisions {summary['wall_collisions']}")


def check_ball_tc(choc, workdir, e, checks):
    """With TC from the start (tc > 0) the run ends normally: the last inelastic landing
    leaves the ball bouncing elastically, nothing overlaps."""
    tc = 0.01
    run = Run(choc, workdir, f"ball_tc_{e}", ball_config(e, tc=tc), {"ball.xyz": BALL_XYZ})
    print(f"-- ball, e = {e}, tc = {tc} from the start: exit {run.status}, "
          f"{run.seconds:.2f} s", flush=True)
    checks.true(f"ball e = {e}, tc = {tc}: runs to the end", run.status == 0 and
                "summary.json" in run.outputs, f"exit {run.status}, outputs {run.outputs}")
    if run.status != 0:
        return
    rows = run.csv("series.csv")
    # Flight k (after landing k; k = 0 the launch) lasts 2 e^k v0 / g, and landing k + 1
    # is elastic when that flight was shorter than tc. So the ball keeps v* = e^K v0, K the
    # first k with 2 e^k v0 / g < tc, and its energy at the end (kinetic plus potential
    # above the floor contact) is v*^2 / 2.
    k = 0
    while 2.0 * BALL_V0 * e ** k / BALL_G >= tc:
        k += 1
    v_star = BALL_V0 * e ** k
    frames = list(run.frames("trajectory.xyz"))
    y, v2 = frames[-1][1][0]
    energy = 0.5 * v2 + BALL_G * (y - 1.5)
    checks.within(f"ball e = {e}, tc = {tc}: final energy vs (e^k v0)^2 / 2 of the last "
                  "inelastic landing", energy, 0.5 * v_star ** 2, 1e-6 * 0.5 * v_star ** 2,
                  why="exact flights; the energy changes only at inelastic landings")
    checks.true(f"ball e = {e}, tc = {tc}: the time series reaches the end",
                rows[-1]["time"] == 100.0, f"last row at t = {rows[-1]['time']}")


def check_ball_tc_on_collapse(choc, workdir, e, checks):
    """collisions.on_collapse = "tc" cannot restart a ball that has come to rest on the
    floor (its elastic bounces at zero speed take no time either): the collapse switches
    TC on with a warning, the second detection stops the run with exit 3 and a message
    naming collisions.on_collapse that says to set tc from the start."""
    run = Run(choc, workdir, f"ball_switch_{e}", ball_config(e, tc=0.01, on_collapse="tc"),
              {"ball.xyz": BALL_XYZ})
    print(f"-- ball, e = {e}, on_collapse = \"tc\": exit {run.status}, {run.seconds:.2f} s; "
          f"stderr: {run.stderr.strip()[:200]}", flush=True)
    checks.true(f"ball e = {e}, on_collapse = tc: warns that TC switched on",
                "TC model is on" in run.stderr, run.stderr.strip()[:200])
    errors = [l for l in run.stderr.splitlines() if l.startswith("choc: error:")]
    checks.true(f"ball e = {e}, on_collapse = tc: then stops, naming collisions.on_collapse",
                run.status == 3 and len(errors) == 1 and
                errors[0].startswith("choc: error: collisions.on_collapse:") and
                "from the start" in errors[0], f"exit {run.status}, {errors}")
    check_collapse_outputs(run, f"ball e = {e}, on_collapse = tc", checks)


# --- gas in gravity: the barometric profile ------------------------------------------

# A dilute elastic 2D gas between a floor and a ceiling, periodic sideways. From a uniform
# start (random positions, kT0 = 0.35) it falls and heats to kT ~ 1 through collisions; then
# its frames are compared with n(y) ~ exp(-m g y / kT) and Maxwell-Boltzmann at every height.
#
# Relaxation: the mean free time at the floor is ~250, but a particle that flies high
# crosses the dense layer only once per flight (~25 time units) and collides there with
# probability ~2 %, so how much energy the high fliers carry changes only over thousands of
# time units. In a run of 64000 (seed 1) the first 8000 were still out of equilibrium (the
# top slab 13 % cold), and after that the top slab's kT in windows of 8000 scattered by
# 1.5 % about the mean: blocks of 2000 gave standard errors about half the true size. Hence
# equilibration 8000 and 8 blocks of 8000.
# Density: the local decay rate is mg / (kT (Z + n dZ/dn)) = mg/kT / (1 + 4 phi + ...) in
# 2D. At the floor phi = 0.0025 here (0.0012 on average over the profile), so the profile
# is flatter by ~1 % at the floor, and the fitted rate is 0.4 % lower: well below the 3 %
# tolerance of the dilute law, but a few standard errors (0.2 %). So a second comparison takes the
# profile of the second virial coefficient, ln n + 2 B2 n = C - m g z / kT with
# 2 B2 = pi sigma^2 (the next term, O(phi^2), is ~1e-5), within the statistical error.
# Finite N: at fixed total energy T(y) has corrections of order m g (y range) / N =
# 0.2 * 15 / 8000 = 4e-4 kT, far below the 1.5 % tolerance on slab temperatures.
# Correlations: positions decorrelate within a few flights, but the sharing of energy
# among particles only over thousands of time units (above), so the errors are standard
# errors of blocks 8000 time units long.
BARO = {"n": 8000, "size": [530000.0, 16.0], "g": 0.2, "kT0": 0.35,
        "equilibrate": 8000.0, "time": 64000.0, "every": 200.0, "blocks": 8, "slabs": 5}


def truncated_exponential_rate(mean, width):
    """beta with mean height `mean` of p(z) ~ exp(-beta z) on [0, width]:
    <z> = 1/beta - width / (exp(beta width) - 1), decreasing in beta; bisection."""
    lo, hi = 1e-9 / width, 1e3 / width
    for _ in range(200):
        beta = 0.5 * (lo + hi)
        value = 1.0 / beta - width / math.expm1(min(beta * width, 700.0))
        lo, hi = (beta, hi) if value > mean else (lo, beta)
    return 0.5 * (lo + hi)


def virial_profile(beta, width, per_length, edges, points=3000):
    """Hard discs (sigma = 1) at second-virial order under gravity: ln n + pi n = C - beta z
    on [0, width], C such that the integral of n is `per_length` (particles per unit
    length of floor). Returns the fractions of particles between `edges` and the mean z."""
    def density(a):  # n with ln n + pi n = a, by Newton steps on u = ln n
        u = a
        for _ in range(50):
            step = (u + math.pi * math.exp(u) - a) / (1.0 + math.pi * math.exp(u))
            u -= step
            if abs(step) < 1e-14:
                break
        return math.exp(u)

    z = [width * k / points for k in range(points + 1)]

    def integrate(values, lo=0, hi=points):  # trapezoids between grid indices lo and hi
        h = width / points
        return h * (sum(values[lo:hi + 1]) - 0.5 * (values[lo] + values[hi]))

    lo, hi = math.log(per_length / width) - 30.0, math.log(per_length / width) + 30.0
    for _ in range(100):
        c = 0.5 * (lo + hi)
        n = [density(c - beta * x) for x in z]
        lo, hi = (lo, c) if integrate(n) > per_length else (c, hi)
    total = integrate(n)
    index = [round(e / width * points) for e in edges]
    fractions = [integrate(n, a, b) / total for a, b in zip(index, index[1:])]
    mean = integrate([x * v for x, v in zip(z, n)]) / total
    return fractions, mean


def check_barometric(choc, workdir, checks):
    p = BARO
    radius, g = 0.5, p["g"]
    bottom, width = radius, p["size"][1] - 2 * radius  # centres in [0.5, 15.5]
    config = {
        "dimension": 2,
        "box": {"size": p["size"], "boundary": ["periodic", "wall"]},
        "species": [{"name": "A", "count": p["n"], "radius": radius}],
        "field": {"gravity": [0.0, -g]},
        "init": {"lattice": "random", "temperature": p["kT0"], "seed": 1},
        "run": {"equilibrate": p["equilibrate"], "time": p["time"]},
        "output": {"summary": "summary.json",
                   "trajectory": {"path": "trajectory.xyz", "every": p["every"]}},
    }
    run = Run(choc, workdir, "barometric", config)
    run.require_success()
    slabs, blocks = p["slabs"], p["blocks"]
    span = p["time"] / blocks
    # per block: frames, particles, sum of heights above the floor contact, kT of the
    # frames; per slab: count, sum v^2, sum v^4
    acc = [{"n": 0, "z": 0.0, "T": 0.0, "frames": 0, "count": [0] * slabs,
            "v2": [0.0] * slabs, "v4": [0.0] * slabs} for _ in range(blocks)]
    frames = 0
    for t, rows in run.frames("trajectory.xyz"):
        if t == 0.0:
            continue  # the first frame belongs to no block of (0, time]
        frames += 1
        a = acc[min(int((t - 1e-9) // span), blocks - 1)]
        a["frames"] += 1
        a["T"] += sum(v2 for _, v2 in rows) / (2.0 * len(rows))  # kT = m <v^2> / d
        for y, v2 in rows:
            z = y - bottom
            a["n"] += 1
            a["z"] += z
            s = min(max(int(z / width * slabs), 0), slabs - 1)
            a["count"][s] += 1
            a["v2"][s] += v2
            a["v4"][s] += v2 * v2
    kT, kT_err = mean_and_error([a["T"] / a["frames"] for a in acc])
    beta = g / kT
    edges = [width * s / slabs for s in range(slabs + 1)]
    virial_fractions, virial_mean = virial_profile(beta, width, p["n"] / p["size"][0], edges)
    # the dilute law's decay rate over the rate a mean-height fit gives the virial profile
    flattening = truncated_exponential_rate(virial_mean, width) / beta
    print(f"-- barometric: 2D, N = {p['n']}, box {p['size'][0]:g} x {p['size'][1]:g}, "
          f"g = {g}, kT = {kT:.4f} +- {kT_err:.2g}, {frames} frames in {blocks} blocks, "
          f"{run.seconds:.0f} s; second-virial flattening of the fitted rate "
          f"{flattening - 1:+.2%}", flush=True)
    # Decay rate: the maximum-likelihood rate of each block's mean height (exact for a
    # truncated exponential) times the block's kT/mg; the dilute law says 1.
    ratios = [truncated_exponential_rate(a["z"] / a["n"], width) * (a["T"] / a["frames"]) / g
              for a in acc]
    ratio, ratio_err = mean_and_error(ratios)
    checks.within("barometric: decay rate of n(y) in units of mg/kT (dilute law)", ratio, 1.0,
                  0.03, why=f"3 %: density flattening {flattening - 1:+.2%}; "
                            f"statistical error {ratio_err:.2%}")
    checks.within("barometric: decay rate vs the second-virial profile", ratio, flattening,
                  0.001 + 3.0 * ratio_err,
                  why="0.1 % (O(phi^2), finite N) + 3 block standard errors")
    total = sum(a["n"] for a in acc)
    norm = -math.expm1(-beta * width)
    for s in range(slabs):
        dilute = (math.exp(-beta * edges[s]) - math.exp(-beta * edges[s + 1])) / norm
        fraction, fraction_err = mean_and_error([a["count"][s] / a["n"] for a in acc])
        where = f"slab {s} (y - 0.5 in [{edges[s]:g}, {edges[s + 1]:g}))"
        checks.within(f"barometric: fraction of particles in {where} vs exp(-mgy/kT)",
                      fraction, dilute, 0.03 * dilute,
                      why="3 % (density flattening ~1 % at the floor); "
                          f"statistical error {fraction_err / dilute:.2%}")
        checks.within(f"barometric: fraction in {where} vs the second-virial profile",
                      fraction, virial_fractions[s],
                      0.001 * virial_fractions[s] + 3.0 * fraction_err,
                      why="0.1 % + 3 block standard errors")
        temperatures = [a["v2"][s] / (2.0 * a["count"][s]) for a in acc]
        t_slab, t_err = mean_and_error(temperatures)
        checks.within(f"barometric: kT in {where} vs the whole gas", t_slab, kT,
                      0.015 * kT, math.hypot(t_err, kT_err), sigmas=4.0,
                      why="1.5 % (finite-N correction ~4e-4) and 4 block errors")
        kurtoses = [a["v4"][s] * a["count"][s] / a["v2"][s] ** 2 for a in acc]
        k_slab, k_err = mean_and_error(kurtoses)
        checks.within(f"barometric: kurtosis <v^4>/<v^2>^2 in {where} vs 2 (2D MB)",
                      k_slab, 2.0, 0.03 * 2.0, k_err, sigmas=4.0, why="3 % and 4 block errors")
    print(f"   ({total} particle positions sampled)")


def main():
    modes = ("quick", "full")
    if len(sys.argv) != 3 or sys.argv[2] not in modes:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    choc, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
    checks = Checks()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="choc-dissipation-") as workdir:
        if mode == "quick":
            check_haff(choc, workdir, "quick", checks)
            check_drag(choc, workdir, checks)
            check_ball_collapse(choc, workdir, 0.8, checks)
            check_ball_collapse(choc, workdir, 0.5, checks)
            check_ball_collapse_in_equilibration(choc, workdir, 0.8, checks)
            check_ball_tc(choc, workdir, 0.8, checks)
            check_ball_tc(choc, workdir, 0.5, checks)
            check_ball_tc_on_collapse(choc, workdir, 0.8, checks)
        else:
            check_haff(choc, workdir, "full", checks)
            check_barometric(choc, workdir, checks)
    print(f"{checks.count - checks.failed} of {checks.count} checks passed in "
          f"{time.monotonic() - start:.0f} s")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
