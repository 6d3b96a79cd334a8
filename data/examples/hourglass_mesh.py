#!/usr/bin/python3
"""Writes the triangle mesh of a 3D hourglass as a binary STL file: a closed vessel of
revolution about the vertical axis x = y = CENTRE, from the bottom up:

    a floor disc at z = 0.5, a cylinder of radius R up to z = 10, a cone narrowing to the
    neck (radius NECK at z = 20), a cone widening back to R at z = 30, a cylinder up to
    z = 40 and a lid disc there.

Every ring has SIDES vertices, the same angles on every ring, so neighbouring facets share
their edges and vertices exactly. The facets' vertex order points their normals inwards
(choc's triangles are two-sided; the order only matters to other programs).

Usage: /usr/bin/python3 data/examples/hourglass_mesh.py OUT.stl [NECK]
(NECK: the neck's radius in sphere diameters, default 2.5.) Debian's python3-numpy.
"""

import sys

import numpy as np

CENTRE = 9.0  # the axis, in the middle of an 18 x 18 box
R = 8.0  # the bulbs' radius
SIDES = 48  # vertices per ring
# (height, radius) of each ring, bottom to top; the neck's radius is filled in below
PROFILE = [(0.5, R), (10.0, R), (20.0, None), (30.0, R), (40.0, R)]


def ring(z, r):
    angles = 2.0 * np.pi * np.arange(SIDES) / SIDES
    return np.stack([CENTRE + r * np.cos(angles), CENTRE + r * np.sin(angles),
                     np.full(SIDES, z)], axis=1)


def facets(neck):
    """The facets as an array of shape (n, 3, 3)."""
    rings = [ring(z, neck if r is None else r) for z, r in PROFILE]
    out = []
    for low, high in zip(rings, rings[1:]):  # each band: two facets per side
        for k in range(SIDES):
            j = (k + 1) % SIDES
            out.append([low[k], high[k], low[j]])
            out.append([low[j], high[k], high[j]])
    for cap, sign in ((rings[0], 1.0), (rings[-1], -1.0)):  # floor and lid: fans
        centre = np.array([CENTRE, CENTRE, cap[0, 2]])
        for k in range(SIDES):
            j = (k + 1) % SIDES
            out.append([centre, cap[k], cap[j]] if sign > 0 else [centre, cap[j], cap[k]])
    return np.array(out)


def write_stl(path, triangles):
    """Binary STL: an 80-byte header, the count, then per facet a normal (left zero:
    readers recompute it), three vertices (32-bit floats) and a 2-byte attribute."""
    record = np.dtype([("normal", "<f4", 3), ("vertices", "<f4", (3, 3)), ("attribute", "<u2")])
    data = np.zeros(len(triangles), dtype=record)
    data["vertices"] = triangles
    with open(path, "wb") as f:
        f.write(b"choc hourglass".ljust(80, b" "))
        f.write(np.array([len(triangles)], dtype="<u4").tobytes())
        f.write(data.tobytes())


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    neck = float(sys.argv[2]) if len(sys.argv) == 3 else 2.5
    if not 0.5 < neck < R:
        print(f"NECK must lie between 0.5 and {R}, got {neck}", file=sys.stderr)
        return 2
    triangles = facets(neck)
    write_stl(sys.argv[1], triangles)
    print(f"{sys.argv[1]}: {len(triangles)} facets, neck radius {neck}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
