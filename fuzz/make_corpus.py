#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora into fuzz/corpus/<target>/ (run from anywhere).

Seeds: every config and collide file under data/ (the configs also with small particle
counts through --set, so the fuzzer builds their start), hand-written XYZ frames, and the
hostile cases of issue 11 (wrong types, NaN/inf, extreme values, duplicate and unknown
keys, garbage bytes, control characters in names), STL meshes and H5MD trajectories
(issue 41). The corpus is committed; rerun this script after changing it and commit the
result. The H5MD seeds are choc's own files: they are rewritten only when a choc program is
given (/usr/bin/python3 fuzz/make_corpus.py build/apps/choc, with h5py).
"""
import hashlib
import math
import os
import pathlib
import struct
import sys

root = pathlib.Path(__file__).resolve().parent.parent
corpus = root / "fuzz" / "corpus"


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def sets(*overrides):
    return "".join(f"--set {o}\n" for o in overrides)


# --- config ----------------------------------------------------------------------------
configs = sorted((root / "data" / "examples").glob("*.toml")) + sorted(
    (root / "data" / "studies").glob("*.toml"))
for path in configs:
    text = path.read_text()
    write("config", path.stem, text)
    write("config", path.stem + "_small", sets("species.0.count=16") + text)

small3d = """dimension = 3
[box]
packing_fraction = 0.2
boundary = "periodic"
[[species]]
name = "A"
count = 32
radius = 0.5
mass = 1.0
[init]
lattice = "fcc"
seed = 7
[run]
time = 1.0
[output]
summary = "s.json"
"""
small2d = small3d.replace("dimension = 3", "dimension = 2").replace(
    'lattice = "fcc"', 'lattice = "hex"')
write("config", "small3d", small3d)
write("config", "small2d", small2d)
hostile = {
    "bad_type_count": sets('species.0.count="many"'),
    "bad_type_radius": sets("species.0.radius=[1, 2]"),
    "nan_radius": sets("species.0.radius=nan"),
    "inf_mass": sets("species.0.mass=inf"),
    "neg_temperature": sets("init.temperature=-1"),
    "huge_count": sets("species.0.count=18446744073709551615"),
    "huge_mass": sets("species.0.mass=1e300"),
    "tiny_mass": sets("species.0.mass=1e-300"),
    "tiny_radius": sets("species.0.radius=1e-300"),
    "packing_one": sets("box.packing_fraction=1.0"),
    "random_dense": sets('init.lattice="random"', "box.packing_fraction=0.6"),
    "tiny_every": sets("output.trajectory.path=\"t.xyz\"", "output.trajectory.every=1e-300"),
    "timeseries_no_path": sets("output.timeseries.every=1"),
    "unknown_key": sets("box.colour=1"),
    "no_equals": sets("species.0.radius"),
    "empty_key": sets("=1"),
    "index_out": sets("species.99.radius=1"),
    "control_name": sets('species.0.name="A\\u0007\\n\\u202e"'),
    "from_file": sets('init.from="missing.xyz"'),
    # thermal walls and profiles (issue 17): on a periodic axis, out of range, misshapen
    "thermal_periodic": sets("box.wall_temperature=1.0"),
    "thermal_nan": sets('box.boundary="wall"', "box.wall_temperature=nan"),
    "thermal_extremes": sets('box.boundary=["wall", "periodic", "periodic"]',
                             "box.wall_temperature=[1e300, 1e-300]"),
    "wall_velocity_shape": sets('box.boundary=["wall", "periodic", "periodic"]',
                                "box.wall_temperature=1", "box.wall_velocity=[[0, 1]]"),
    "profile_slabs": sets('output.profile={path="p.csv", slabs=1e300}'),
    # sliding boundaries: absurd rates, a thermostat without them or at nothing
    "shear_huge": sets("box.shear_rate=1e6"),
    "shear_nan": sets("box.shear_rate=nan", "box.shear_temperature=1"),
    "shear_thermostat_alone": sets("box.shear_temperature=1e-300"),
    "shear_walls": sets('box.boundary="wall"', "box.shear_rate=-0.5"),
}
for name, prefix in hostile.items():
    write("config", name, prefix + small3d)
# triangle walls and the crossing plane (issue 18): slivers, non-finite and huge corners,
# scales, a device as a mesh, a plane along a periodic axis
walled3d = small3d.replace('boundary = "periodic"', 'boundary = "wall"').replace(
    'lattice = "fcc"', 'lattice = "random"')
triangle = "[[walls]]\nvertices = [[1.0, 1.0, 1.0], [3.0, 1.0, 1.5], [1.0, 3.0, 2.0]]\n"
triangles = {
    "triangle": "",
    "triangle_sliver": sets("walls.0.vertices=[[1,1,1],[2,2,2],[3,3,3.0000000001]]"),
    "triangle_nan": sets("walls.0.vertices=[[1,1,1],[nan,2,2],[3,1,3]]"),
    "triangle_huge": sets("walls.0.vertices=[[1e300,1,1],[2,2,2],[3,1,3]]"),
    "triangle_scale": sets("walls.0.scale=1e300", "walls.0.translate=[-1e300, 0, 0]"),
    "triangle_two_points": sets("walls.0.vertices=[[1,1,1],[2,2,2]]"),
    "crossing_periodic": sets('box.boundary="periodic"', 'init.lattice="fcc"',
                              "output.crossing={point=[1,1,1], normal=[0,0,1]}"),
    "crossing_nan": sets("output.crossing={point=[nan,1,1], normal=[0,0,1]}"),
}
for name, prefix in triangles.items():
    write("config", name, prefix + walled3d.replace("[init]", triangle + "[init]"))
for name, path in (("mesh_device", "/dev/zero"), ("mesh_directory", ".")):
    write("config", name, walled3d.replace("[init]", f'[[walls]]\nmesh = "{path}"\n[init]'))
# The sizes and magnitudes that once hung or broke a run (issue 11, items 2 and 3): a box
# volume that overflows, masses whose products leave double precision, at and just
# inside the accepted range.
extreme = {
    "huge_radius": sets("species.0.radius=1e300"),
    "huge_radius_edge": sets("species.0.radius=1e50"),
    "mass_1e155": sets("species.0.mass=1e155"),
    "mass_1e-162": sets("species.0.mass=1e-162"),
    "mass_edge": sets("species.0.mass=1e-50", "species.0.count=4"),
    "huge_box": sets("box={}", "box.size=[1e300, 1e300, 1e300]"),
}
for name, prefix in extreme.items():
    write("config", name, prefix + small3d)
write("config", "huge_radius_2d", sets("species.0.radius=1e152") + small2d)
write("config", "duplicate_key", small3d + "[box]\npacking_fraction = 0.3\n")
write("config", "duplicate_species_key", small3d.replace("count = 32", "count = 32\ncount = 8"))
write("config", "syntax_error", small3d.replace("[run]", "[run"))
write("config", "garbage", bytes(range(256)))
write("config", "nul_in_name", small3d.replace('name = "A"', 'name = "A\\u0000B"'))
write("config", "empty", "")

# --- collide ---------------------------------------------------------------------------
for path in sorted((root / "data" / "collide").glob("*.toml")):
    write("collide", path.stem, path.read_text())
base = (root / "data" / "collide" / "three_discs_b0.toml").read_text()
write("collide", "nan_velocity", base.replace("velocity = [1.0, 0.0]", "velocity = [nan, 0.0]"))
write("collide", "inf_mass", base.replace("mass = 1.0", "mass = inf", 1))
write("collide", "huge_mass", base.replace("mass = 1.0", "mass = 1e300", 1))
write("collide", "tiny_mass", base.replace("mass = 1.0", "mass = 1e-300", 1))
write("collide", "huge_radius", base.replace("radius = 1.0", "radius = 1e300"))
write("collide", "huge_position", base.replace("[-2.0, 0.0]", "[-1e300, 0.0]"))
write("collide", "tiny_mass_edge", base.replace("mass = 1.0", "mass = 1e-50"))
write("collide", "zero_radius", base.replace("radius = 1.0", "radius = 0.0", 1))
write("collide", "bad_type", base.replace("radius = 1.0", 'radius = "one"', 1))
write("collide", "duplicate_key", base.replace("mass = 1.0", "mass = 1.0\nmass = 2.0", 1))
write("collide", "unknown_key", base + "colour = 3\n")
write("collide", "wall", """dimension = 2
restitution = 0.5
[[bodies]]
position = [0.0, 1.0]
velocity = [0.0, -1.0]
radius = 1.0
mass = 1.0
[[walls]]
normal = [0.0, 1.0]
point = [0.0, 0.0]
restitution = 0.8
""")
chain = "dimension = 2\n" + "".join(
    f"[[bodies]]\nposition = [{2.0 * i}, 0.0]\nvelocity = [{1.0 if i == 0 else 0.0}, 0.0]\n"
    "radius = 1.0\nmass = 1.0\n" for i in range(12))
write("collide", "chain12", chain)
write("collide", "garbage", bytes(range(255, -1, -1)))

# --- xyz -------------------------------------------------------------------------------
header3 = ('Lattice="4 0 0 0 4 0 0 0 4" '
           "Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1 Time=0 "
           'pbc="T T T" dimension=3\n')
frame3 = "2\n" + header3 + "A 1 1 1 0.5 0 0 0.5 1\nB 3 3 3 -0.5 0 0 0.5 1\n"
write("xyz", "two3d", frame3)
write("xyz", "two_frames", frame3 + frame3.replace("Time=0", "Time=1.5"))
header2 = ('Lattice="5 0 0 0 5 0 0 0 1" '
           "Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1 Time=2 "
           'pbc="T T F" dimension=2\n')
write("xyz", "one2d", "1\n" + header2 + "A 1 2 0 0.1 0.2 0 0.5 1\n")
write("xyz", "inf_lattice", frame3.replace('Lattice="4', 'Lattice="inf'))
write("xyz", "nan_time", frame3.replace("Time=0", "Time=nan"))
write("xyz", "short_count", frame3.replace("2\n", "3\n", 1))
write("xyz", "huge_count", frame3.replace("2\n", "99999999999999999999\n", 1))
write("xyz", "species_property", frame3.replace("type:S:1", "species:S:1"))
write("xyz", "control_name", frame3.replace("A 1 1 1", "A\x07\x1b[31m\u202e 1 1 1"))
# the current layout: momenta and masses for ASE, provenance keys with escaped quotes
header_ase = ('Lattice="4 0 0 0 4 0 0 0 4" '
              "Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:masses:R:1:momenta:R:3 Time=0 "
              'pbc="T T T" dimension=3 seed=3 host="a \\"b\\"" '
              'config="_JSON \\"x = \\\\\\"y\\\\\\"\\\\nz = 1\\""\n')
write("xyz", "ase_layout", "2\n" + header_ase + "A 1 1 1 0.5 0 0 0.5 3 1.5 0 0\n"
      "B 3 3 3 -0.5 0 0 0.5 3 -1.5 0 0\n")
write("xyz", "momenta_only", "1\nLattice=\"4 0 0 0 4 0 0 0 4\" "
      "Properties=type:S:1:pos:R:3:masses:R:1:momenta:R:3\nA 1 2 3 4 2 -1 0.5\n")
write("xyz", "garbage", hashlib.sha512(b"choc").digest() * 4)
write("xyz", "empty", "")
write("xyz", "huge_time", frame3.replace("Time=0", "Time=1e300"))
write("xyz", "huge_lattice_axis", frame3.replace('Lattice="4', 'Lattice="1e300'))

# --- stl -------------------------------------------------------------------------------
# Meshes inside the 12-unit cube of fuzz_stl's config: binary and ASCII, a flat tiled floor
# (one flat patch a cell), a bumpy one (every facet loose), a tent, and the malformed files
# of issue 41 (cut without endsolid, a fourth vertex) and others (a binary count that does
# not fit the size, words for numbers, an empty solid).


def binary_stl(facets, header=b"choc fuzz seed"):
    out = bytearray(header.ljust(80, b" ")) + struct.pack("<I", len(facets))
    for f in facets:
        out += struct.pack("<12fH", 0, 0, 0, *[c for v in f for c in v], 0)
    return bytes(out)


def ascii_stl(facets):
    lines = ["solid seed"]
    for f in facets:
        lines += ["  facet normal 0 0 0", "    outer loop"]
        lines += [f"      vertex {x:g} {y:g} {z:g}" for x, y, z in f]
        lines += ["    endloop", "  endfacet"]
    return "\n".join(lines + ["endsolid seed"]) + "\n"


def grid_floor(n, height):
    """An n x n grid of squares (two facets each) over [1, 11]^2 at z = height(x, y)."""
    step = 10.0 / n
    out = []
    for i in range(n):
        for j in range(n):
            p = [(1 + (i + di) * step, 1 + (j + dj) * step) for di, dj in
                 ((0, 0), (1, 0), (1, 1), (0, 1))]
            a, b, c, d = [(x, y, height(x, y)) for x, y in p]
            out += [(a, b, c), (a, c, d)]
    return out


flat = grid_floor(6, lambda x, y: 2.0)
bumpy = grid_floor(6, lambda x, y: 2.0 + 0.3 * math.sin(x) * math.sin(y))
tent = [((2, 2, 2), (10, 2, 2), (6, 6, 8)), ((10, 2, 2), (10, 10, 2), (6, 6, 8)),
        ((10, 10, 2), (2, 10, 2), (6, 6, 8)), ((2, 10, 2), (2, 2, 2), (6, 6, 8))]
write("stl", "flat_binary", binary_stl(flat))
write("stl", "bumpy_binary", binary_stl(bumpy))
write("stl", "tent_binary", binary_stl(tent, header=b"solid tent (a binary file)"))
write("stl", "flat_ascii", ascii_stl(flat[:12]))
write("stl", "tent_ascii", ascii_stl(tent))
write("stl", "two_solids", ascii_stl(tent[:2]) + ascii_stl(tent[2:]))
write("stl", "cut_without_endsolid", ascii_stl(tent).replace("endsolid seed\n", ""))
write("stl", "fourth_vertex", ascii_stl(tent).replace(
    "    endloop", "      vertex 3 3 3\n    endloop", 1))
write("stl", "word_for_number", ascii_stl(tent).replace("vertex 2 2 2", "vertex 2 x 2", 1))
write("stl", "binary_count_wrong", binary_stl(tent)[:-10])
write("stl", "empty_solid", "solid empty\nendsolid empty\n")
write("stl", "garbage", hashlib.sha256(b"stl").digest() * 8)


# --- h5md ------------------------------------------------------------------------------
# Small trajectories choc itself wrote (2D and 3D), and the same with their last frame made
# hostile: a NaN or huge time, a non-diagonal or huge box, 400 million particles declared
# (chunks never written), a species index past the names. Written only when this script is
# given a choc program and runs with h5py (/usr/bin/python3 fuzz/make_corpus.py
# build/apps/choc); otherwise the committed ones stay.
def h5md_seeds(choc):
    import shutil
    import subprocess
    import tempfile

    import h5py

    config = """dimension = {d}
[box]
size = {size}
boundary = "periodic"
[[species]]
name = "A"
count = 6
[[species]]
name = "B"
count = 2
radius = 0.3
[init]
lattice = "random"
seed = 3
[run]
time = 1.0
[output]
summary = "s.json"
trajectory = {{ path = "t.h5", every = 0.5, format = "h5md" }}
"""
    with tempfile.TemporaryDirectory() as d:
        for dim in (2, 3):
            with open(os.path.join(d, "c.toml"), "w") as f:
                f.write(config.format(d=dim, size=[4.0] * dim))
            # (argv[0] "choc" and a neutral host: no path or name of this machine in a seed)
            subprocess.run(["choc", "run", "c.toml", "--quiet"], executable=choc, cwd=d,
                           check=True, stdout=subprocess.DEVNULL)
            with h5py.File(os.path.join(d, "t.h5"), "r+") as f:
                f["parameters/choc"].attrs.modify("host", "host")
                f["h5md/author"].attrs.modify("name", "author")
            write("h5md", f"small{dim}d", open(os.path.join(d, "t.h5"), "rb").read())
        base = os.path.join(d, "t.h5")  # the 3D one

        def variant(name, change):
            path = os.path.join(d, name + ".h5")
            shutil.copy(base, path)
            with h5py.File(path, "r+") as f:
                change(f["particles/all"])
            write("h5md", name, open(path, "rb").read())

        def set_time(value):
            return lambda g: g["position/time"].__setitem__(-1, value)

        def set_edge(a, b, value):
            def change(g):
                edges = g["box/edges/value"]
                last = edges[-1]
                last[a, b] = value
                edges[-1] = last
            return change

        def declare_many(g):
            for name in ("position", "velocity"):
                del g[name + "/value"]
                g.create_dataset(name + "/value", shape=(1, 400_000_000, 3), dtype="f8",
                                 chunks=(1, 4096, 3))

        def bad_species(g):
            species = g["species"]
            species[0] = 7

        variant("nan_time", set_time(float("nan")))
        variant("huge_time", set_time(1e300))
        variant("skew_box", set_edge(0, 1, 0.5))
        variant("huge_edge", set_edge(1, 1, 1e300))
        variant("many_particles", declare_many)
        variant("bad_species", bad_species)


# The damage fuzz_h5md found (issue 41): each global heap collection's free-space object
# given size 0, on which HDF5 1.10.8's parser of the collection never moves on (H5Aread of
# a variable-length string looped for ever). Made from the committed 3D seed, so it needs
# neither choc nor h5py. Collection: "GCOL", version 1, 3 reserved bytes, size (u64);
# objects: index (u16), references (u16), reserved (4), size (u64), bytes padded to 8.
def heap_without_free_space():
    data = bytearray((corpus / "h5md" / "small3d").read_bytes())
    at = 0
    while (at := data.find(b"GCOL", at)) >= 0:
        if data[at + 4] == 1:
            (size,) = struct.unpack_from("<Q", data, at + 8)
            o = at + 16
            while o + 16 <= at + size:
                index, _, _, object_size = struct.unpack_from("<HHIQ", data, o)
                if index == 0:
                    struct.pack_into("<Q", data, o + 8, 0)
                    break
                o += 16 + (object_size + 7) // 8 * 8
        at += 4
    write("h5md", "heap_free_space_zero", bytes(data))


if len(sys.argv) == 2:
    h5md_seeds(os.path.abspath(sys.argv[1]))
heap_without_free_space()
print(f"wrote the seed corpora under {corpus.relative_to(root)}/")
