#!/usr/bin/python3
"""The relaxation to Maxwell–Boltzmann of data/studies/relax3d.toml through the Python module
(README "Python"): the speed histogram at a few times from equal speeds, against MB, and the
kurtosis of the speeds against its MB value 5/3.

    PYTHONPATH=build/python /usr/bin/python3 data/studies/mb_convergence.py [PNG]

Writes PNG (default mb_convergence.png). A few seconds: 10976 spheres, 20 time units.
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import choc  # noqa: E402

config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "relax3d.toml")
sim = choc.Simulation(config)
fig, (speeds, kurtosis) = plt.subplots(1, 2, figsize=(12, 4.5))
for step in (0.3, 0.4, 0.8, 1.5, 17.0):  # to t = 0.3, 0.7, 1.5, 3 and 20
    sim.run(time=step)
    h, c = sim.speed_histogram(), 2 * sim.summary()["collisions"] / sim.summary()["N"]
    speeds.step(h["speed_high"], h["density"], label=f"t = {sim.time:g} ({c:.2f} coll./particle)")
speeds.plot(h["speed"], h["maxwell_boltzmann"], "k-", lw=2, label="Maxwell–Boltzmann")
# (the starting spike at √3 is far taller than Maxwell–Boltzmann: clipped)
speeds.set(xlabel="speed", ylabel="density", ylim=(0, 1.5), title="speeds from |v| = √3, kT = 1")
speeds.legend(fontsize=8)
series = sim.timeseries()
kurtosis.plot(series["collisions_per_particle"], series["kurtosis"], label="choc")
kurtosis.axhline(5 / 3, color="k", ls="--", label="Maxwell–Boltzmann: 5/3")
kurtosis.set(xlabel="collisions per particle", ylabel="⟨v⁴⟩ / ⟨v²⟩²", title="kurtosis")
kurtosis.legend()
fig.tight_layout()
fig.savefig(sys.argv[1] if len(sys.argv) > 1 else "mb_convergence.png", dpi=110)
