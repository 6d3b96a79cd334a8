"""data/bench/compare: two choc binaries alternated on the same cases; see that file."""

import argparse
import math
import os
import statistics
import sys

import benchlib
from benchlib import ROOT


def spread(ratios):
    """Mean, standard error and range of the per-round ratios."""
    mean = statistics.fmean(ratios)
    error = statistics.stdev(ratios) / math.sqrt(len(ratios)) if len(ratios) > 1 else math.nan
    return mean, error, min(ratios), max(ratios)


def main():
    parser = argparse.ArgumentParser(
        prog="data/bench/compare",
        description="Alternates two choc binaries on the same benchmark cases and prints the "
                    "speed of NEW against OLD per case (collisions per second, NEW / OLD).")
    parser.add_argument("old", help="the reference choc binary")
    parser.add_argument("new", help="the choc binary to compare with it")
    parser.add_argument("cases", nargs="*", help="case names (default: spheres_32k spheres_256k)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds; each runs both binaries once per case (default 5)")
    parser.add_argument("--collisions", type=int, default=None,
                        help="measured pair collisions per run instead of the case's own")
    args = parser.parse_args()
    for binary in (args.old, args.new):
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            benchlib.fail(f"not an executable: {binary}")
    if args.rounds < 1:
        benchlib.fail(f"--rounds must be at least 1, not {args.rounds}")
    if args.collisions is not None and args.collisions < 1:
        benchlib.fail(f"--collisions must be at least 1, not {args.collisions}")
    cases = args.cases or ["spheres_32k", "spheres_256k"]
    benchlib.check_cases(cases)
    binaries = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}

    # A round runs every case with both binaries, the order of the two swapped from one
    # round to the next (old-new, new-old, ...), so a drift of the machine's speed during
    # a round weighs on both alike. The ratio is taken within a round, case by case.
    rates = {name: {"old": [], "new": []} for name in cases}
    memory = {name: {"old": None, "new": None} for name in cases}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for name in cases:
            for which in order:
                out = os.path.join(ROOT, "out", "bench", "compare", name, which)
                f = benchlib.run_case(binaries[which], name, out, args.collisions)
                if f is None:
                    benchlib.fail(f"{which} binary failed on {name}: see {out}/")
                rates[name][which].append(f["rate"])
                memory[name][which] = f["peak_bytes"]
            old, new = rates[name]["old"][-1], rates[name]["new"][-1]
            print(f"round {r + 1}/{args.rounds} {name}: old {old:.0f}/s, new {new:.0f}/s, "
                  f"new/old {new / old:.3f}", file=sys.stderr, flush=True)

    print(f"old: {binaries['old']}\nnew: {binaries['new']}\n{args.rounds} rounds, alternated")
    print(f"{'case':<13} {'old coll/s':>11} {'new coll/s':>11} {'new/old':>8} {'+-':>6} "
          f"{'range':>13} {'peak MiB old':>12} {'new':>6}")
    for name in cases:
        old, new = rates[name]["old"], rates[name]["new"]
        mean, error, low, high = spread([b / a for a, b in zip(old, new)])
        mib = [m / 2**20 if m else None for m in (memory[name]["old"], memory[name]["new"])]
        print(f"{name:<13} {statistics.median(old):>11.0f} {statistics.median(new):>11.0f} "
              f"{mean:>8.3f} {error:>6.3f} {low:>6.3f}-{high:<6.3f} "
              f"{benchlib.fixed(mib[0]):>12} {benchlib.fixed(mib[1]):>6}")
    print("(coll/s: median of the rounds; new/old: mean of the per-round ratios, its "
          "standard error and range)")


if __name__ == "__main__":
    main()
