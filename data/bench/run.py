"""data/bench/run: each benchmark case once with build/apps/choc; see that file."""

import argparse
import json
import os
import subprocess
import sys

import benchlib
from benchlib import ROOT, fixed


def build():
    """A release build in build/, configured only if it is not yet."""
    if not os.path.isfile(os.path.join(ROOT, "build", "build.ninja")):
        subprocess.run(["meson", "setup", "build", "--buildtype=release"], cwd=ROOT,
                       check=True, stdout=sys.stderr)
    options = subprocess.run(["meson", "introspect", "build", "--buildoptions"], cwd=ROOT,
                             capture_output=True, text=True)
    kind = next((o["value"] for o in json.loads(options.stdout or "[]")
                 if o["name"] == "buildtype"), "unknown")
    if kind != "release":
        print(f"bench: warning: build/ is configured with buildtype={kind}, not release",
              file=sys.stderr)
    subprocess.run(["ninja", "-C", "build", f"-j{os.cpu_count()}", "apps/choc"], cwd=ROOT,
                   check=True, stdout=sys.stderr)


def main():
    parser = argparse.ArgumentParser(prog="data/bench/run",
                                     description="Runs benchmark cases once each.")
    parser.add_argument("cases", nargs="*", help="case names (default: every case)")
    args = parser.parse_args()
    cases = args.cases or benchlib.CASES
    benchlib.check_cases(cases)
    build()
    if not benchlib.have_timer():
        print("bench: /usr/bin/time not found (Debian package time): no peak memory figures",
              file=sys.stderr)

    choc = os.path.join(ROOT, "build", "apps", "choc")
    print(f"{'case':<13} {'N':>9} {'collisions':>11} {'coll/s':>10} {'ns/coll':>8} "
          f"{'pred/coll':>9} {'engine B/N':>10} {'peak B/N':>9}")
    results = {}
    for name in cases:
        f = benchlib.run_case(choc, name, os.path.join(ROOT, "out", "bench", name))
        if f is None:
            print(f"{name:<13} failed: see out/bench/{name}/")
            continue
        results[name] = f
        peak = f["peak_bytes"] / f["N"] if f["peak_bytes"] else None
        print(f"{name:<13} {f['N']:>9} {f['collisions']:>11} {f['rate']:>10.0f} "
              f"{f['ns_per_collision']:>8.0f} {fixed(f['predictions_per_collision'], 1):>9} "
              f"{fixed(f['engine_bytes_per_particle']):>10} {fixed(peak):>9}", flush=True)

    # The figures the cases exist for: growth with N, memory per particle, mixtures.
    lines = []
    for small, large in (("spheres_32k", "spheres_1m"), ("spheres_32k", "spheres_256k")):
        if small in results and large in results:
            a, b = results[small], results[large]
            lines.append(f"cost per collision {large} / {small}: "
                         f"{b['ns_per_collision'] / a['ns_per_collision']:.2f}")
            if a["peak_bytes"] and b["peak_bytes"]:
                per = (b["peak_bytes"] - a["peak_bytes"]) / (b["N"] - a["N"])
                lines.append(f"peak memory per particle, ({large} - {small}) / dN: {per:.0f} B")
    if "discs_1m" in results and "spheres_1m" in results:
        lines.append("cost per collision discs_1m / spheres_1m: "
                     f"{results['discs_1m']['ns_per_collision'] / results['spheres_1m']['ns_per_collision']:.2f}")
    for mix, ref in benchlib.REFERENCE.items():
        if mix in results and ref in results:
            lines.append(f"cost per collision {mix} / {ref}: "
                         f"{results[mix]['ns_per_collision'] / results[ref]['ns_per_collision']:.1f}")
    if lines:
        print()
        print("\n".join(lines))


if __name__ == "__main__":
    main()
