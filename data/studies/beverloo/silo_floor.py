#!/usr/bin/python3
"""Writes the floor of the 3D Beverloo silo as a binary STL file: a horizontal square of
side SIDE at height FLOOR, covering the box's whole cross-section, with a round orifice of
diameter D in its centre. The box's own walls are the silo's sides.

The orifice is a regular polygon of POINTS vertices whose area is that of the circle of
diameter D (its vertices lie at D/2 sqrt(2 pi / (POINTS sin(2 pi / POINTS))), 0.08 % outside
the circle for 64 points). Each polygon vertex is joined to the point of the square's edge
at the same angle; POINTS is a multiple of 8, so the square's corners are among those points
and every quad between the two rings lies on one side of the square. Each quad is two
facets that share their edges exactly, as a flat floor needs (choc feels it as one plane).

Usage: /usr/bin/python3 data/studies/beverloo/silo_floor.py OUT.stl D [SIDE FLOOR]
(defaults: SIDE 24, FLOOR 10, the box of silo3d.toml.) Debian's python3-numpy.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples"))
from hourglass_mesh import write_stl  # noqa: E402  (the binary STL writer)

POINTS = 64


def facets(d, side, floor):
    centre = side / 2.0
    angles = 2.0 * np.pi * np.arange(POINTS) / POINTS
    c, s = np.cos(angles), np.sin(angles)
    r = d / 2.0 * np.sqrt(2.0 * np.pi / (POINTS * np.sin(2.0 * np.pi / POINTS)))
    # the square's edge along each ray from the centre, exactly on the sides
    reach = centre / np.maximum(np.abs(c), np.abs(s))
    inner = np.stack([centre + r * c, centre + r * s, np.full(POINTS, floor)], axis=1)
    outer = np.stack([centre + reach * c, centre + reach * s, np.full(POINTS, floor)], axis=1)
    outer[:, :2] = np.clip(np.round(outer[:, :2], 12), 0.0, side)
    out = []
    for k in range(POINTS):
        j = (k + 1) % POINTS
        out.append([inner[k], outer[k], inner[j]])
        out.append([inner[j], outer[k], outer[j]])
    return np.array(out)


def main():
    if len(sys.argv) not in (3, 5):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    d = float(sys.argv[2])
    side, floor = (float(sys.argv[3]), float(sys.argv[4])) if len(sys.argv) == 5 else (24.0, 10.0)
    if not 0.0 < d < side - 2.0:
        print(f"D must lie between 0 and {side - 2.0}, got {d}", file=sys.stderr)
        return 2
    triangles = facets(d, side, floor)
    write_stl(sys.argv[1], triangles)
    print(f"{sys.argv[1]}: {len(triangles)} facets, orifice diameter {d:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
