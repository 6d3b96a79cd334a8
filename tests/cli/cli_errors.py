#!/usr/bin/env python3
"""Bad input to `choc run` must fail cleanly (docs/REFERENCE.md, exit status): status 2, exactly
one stderr line starting `choc: error:` that names the key or file, and no output file
left behind. One good tiny run must succeed.

Usage: python3 tests/cli/cli_errors.py CHOC_EXECUTABLE REPO_ROOT
"""

import json
import os
import resource
import sys
import tempfile

import choc_cli as cli

# A valid 3D config (fixtures/gas3d.toml, as its sections); each case changes one thing.
# Outputs are relative to the cwd, which is a fresh temporary directory, so any file a
# failing run leaves behind is seen.
BASE = cli.sections(cli.fixture("gas3d.toml"))


def config(**changes):
    """TOML text of BASE with sections replaced (None drops a section)."""
    return cli.toml_of(BASE, **changes)


def xyz(*particles, pbc="T T T"):
    """An extended XYZ frame of species-A particles in a 10^3 box, each "x y z vx vy vz"."""
    lines = [
        str(len(particles)),
        f'Lattice="10 0 0 0 10 0 0 0 10" Properties=type:S:1:pos:R:3:velo:R:3 pbc="{pbc}" '
        "dimension=3",
    ]
    return "\n".join(lines + ["A " + p for p in particles]) + "\n"


# A 2D walled box with random placement, for segments.
WALLED_2D = {
    "dimension": "2",
    "box": 'size = [20.0, 20.0]\nboundary = "wall"',
    "species": 'name = "A"\ncount = 50',
    "init": 'lattice = "random"',
}

# A 3D walled box with random placement, for triangles.
WALLED_3D = {
    "box": 'size = [10.0, 10.0, 10.0]\nboundary = "wall"',
    "species": 'name = "A"\ncount = 50',
    "init": 'lattice = "random"',
}


def ascii_stl(*facets):
    """An ASCII STL file of the given facets, each three [x, y, z] vertices."""
    lines = ["solid test"]
    for facet in facets:
        lines += ["  facet normal 0 0 0", "    outer loop"]
        lines += [f"      vertex {x} {y} {z}" for x, y, z in facet]
        lines += ["    endloop", "  endfacet"]
    return "\n".join(lines + ["endsolid test"]) + "\n"


# A restart from start.xyz: the box comes from the frame.
RESTART = {"box": 'boundary = "periodic"', "init": 'from = "start.xyz"'}

# (case name, config text or None for no config file, extra arguments, any of these
# strings must appear in the message[, options]). Options: "files", entries created in the
# run directory before the run ({name: text or bytes, or None for a directory}, created in
# order); "memory", an address-space limit in bytes for the run; "config", where the config
# file is written and the path given to choc (default config.toml; an absolute path is
# given as it is, and nothing is written); "ascii": every byte of the message must be
# printable ASCII (nothing of the input echoed raw); "short": the message's most characters.
SPECIES_2 = 'name = "A"\ncount = 2\nradius = 0.5\nmass = 1.0'
XYZ_COLUMNS = (
    '2\nLattice="10 0 0 0 10 0 0 0 10" Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1 '
    'pbc="T T T" dimension=3\n'
)
MANY_SPECIES = "\n\n[[species]]\n".join(f'name = "S{k}"\ncount = 1' for k in range(1025))

CASES = [
    # issue 11: extremes that hung (huge radius), broke the arithmetic (masses) or
    # exhausted memory (species, /dev/zero)
    ("radius 1e300 (3D, hung)", config(), ["--set", "species.0.radius=1e300"],
     ["--set: species[0].radius: must be of magnitude within [1e-50, 1e+50]"]),
    ("radius 1e152 (2D, hung)", config(**WALLED_2D), ["--set", "species.0.radius=1e152"],
     ["--set: species[0].radius"]),
    ("mass 1e155 (NaN energies)", config(), ["--set", "species.0.mass=1e155"],
     ["species[0].mass: must be of magnitude"]),
    ("mass 1e-162 (reduced mass 0)", config(), ["--set", "species.0.mass=1e-162"],
     ["species[0].mass: must be of magnitude"]),
    ("gravity 1e60", config(), ["--set", "field.gravity=[0, 0, 1e60]"], ["field.gravity[2]"]),
    # Fields the clock cannot resolve at the run's end t = 10 (ulp 1.8e-15; issue 41: they
    # crawled for ever, or stopped with a collapse blamed on the restitution or on TC). Fall
    # time over a radius 0.5: sqrt(1 / g), 1e-25 at 1e50 and 3.2e-16 at 1e31. The same
    # fields over a run short enough are accepted and run (check_strong_field_short_run).
    ("gravity 1e50 with TC (crawled)", config(**WALLED_2D), [
        "--set", "field.gravity=[0, -1e50]", "--set", "collisions.tc=1e-3",
        "--set", "collisions.restitution=0.9", "--set", "run.time=10"],
     ["--set: field.gravity: a particle of radius 0.5 falls its radius in 9.99"]),
    ("gravity 1e31", config(**WALLED_2D), [
        "--set", "field.gravity=[0, -1e31]", "--set", "run.time=9", "--set", "run.equilibrate=1"],
     ["field.gravity: a particle of radius 0.5 falls its radius in 3.16"]),
    ("drag 1e40 with gravity 1e40 (crawled)", config(**WALLED_2D), [
        "--set", "field.drag=1e40", "--set", "field.gravity=[0, -1e40]", "--set", "run.time=10"],
     ["--set: field.drag: velocities relax in 1 / drag = 1e-40, less than the clock's"]),
    ("thermostat 1e50 above the start (contact distance, exit 1)",
     config(box="packing_fraction = 0.3\nshear_rate = 0.05\nshear_temperature = 1e50"), [],
     ["box.shear_temperature: 1e+50 is 1e+50 times the start temperature 1"]),
    ("thermostat 1e7 above a species' start",
     config(box="packing_fraction = 0.3\nshear_rate = 0.05\nshear_temperature = 1.0",
            species='name = "A"\ncount = 108\ntemperature = 1e-7'), [],
     ["box.shear_temperature: 1 is 10000000 times the start temperature 1e-07"]),
    # The rest model (issue 40) needs gravity and the event-driven engine.
    ("rest model without gravity", config(), ["--set", "collisions.rest_speed=0.01"],
     ["collisions.rest_speed: needs field.gravity"]),
    ("rest model negative", config(**WALLED_2D), [
        "--set", "field.gravity=[0, -1]", "--set", "collisions.rest_speed=-1"],
     ["collisions.rest_speed"]),
    ("packing fraction giving a huge box", config(),
     ["--set", "species.0.radius=1e45", "--set", "box.packing_fraction=1e-40"],
     ["box.packing_fraction: gives a box edge of"]),
    ("1025 species (pair tables)", config(species=MANY_SPECIES), [],
     ["species: 1025 species, more than the limit of 1024"]),
    ("config is /dev/zero", None, [], ["/dev/zero: cannot read file: not a regular file"],
     {"config": "/dev/zero"}),
    ("config over 16 MiB", config() + "#" * (17 << 20) + "\n", [],
     ["config.toml: cannot read file: larger than the limit of 16 MiB"]),
    ("init.from is /dev/zero", config(**RESTART, species=SPECIES_2),
     ["--set", "init.from=/dev/zero"], ["/dev/zero: cannot read file: not a regular file"]),
    # names and raw bytes
    ("species name with a newline", config(species='name = "A\\nB"\ncount = 108'), [],
     ["species[0].name: \"A\\x0aB\" is not a valid species name"], {"ascii": True}),
    ("species name with a right-to-left override",
     config(species='name = "A\\u202eB"\ncount = 108'), [],
     ["species[0].name: \"A\\xe2\\x80\\xaeB\" is not a valid species name"], {"ascii": True}),
    ("species name of 65 characters", config(species='name = "' + "A" * 65 + '"\ncount = 108'),
     [], ["species[0].name"]),
    ("binary init.from", config(**RESTART, species=SPECIES_2), [],
     ["init.from: start.xyz:1: expected the particle count of a frame, found \"\\x1b[31m\\x00"],
     {"files": {"start.xyz": b"\x1b[31m\x00\xff\xfe garbage\n"}, "ascii": True}),
    ("unknown key with control characters", config(box='"packing\\u0007" = 0.3'), [],
     ["config.toml: box.packing\\x07: unknown key"], {"ascii": True}),
    # issue 11 item 12: the source of a missing key
    ("--set creates a table without its required key", config(),
     ["--set", "output.timeseries.every=1"],
     ["--set: output.timeseries.path: required key is missing"]),
    # init.from: columns that disagree with the config, paths relative to the config
    ("init.from radius disagreeing with the config", config(**RESTART, species=SPECIES_2), [],
     ["init.from: start.xyz:4: column radius is 0.6 but species \"A\" has radius = 0.5"],
     {"files": {"start.xyz": XYZ_COLUMNS + "A 5 5 5 1 0 0 0.5 1\nA 1 1 1 -1 0 0 0.6 1\n"}}),
    ("init.from mass disagreeing with the config", config(**RESTART, species=SPECIES_2), [],
     ["init.from: start.xyz:3: column mass is 2 but species \"A\" has mass = 1"],
     {"files": {"start.xyz": XYZ_COLUMNS + "A 5 5 5 1 0 0 0.5 2\nA 1 1 1 -1 0 0 0.5 1\n"}}),
    ("init.from overlapping beyond the contact tolerance", config(**RESTART, species=SPECIES_2),
     [], ["init.from: the starting configuration overlaps (largest overlap 1e-08"],
     {"files": {"start.xyz": xyz("0.1 5 5 1 0 0", "1.09999999 5 5 -1 0 0")}}),
    ("init.from relative to the config's directory", config(**RESTART, species=SPECIES_2), [],
     ["init.from: sub/start.xyz:4: position component 1"],
     {"config": "sub/config.toml",
      "files": {"sub": None, "sub/start.xyz": xyz("5 5 5 1 0 0", "1 nan 1 -1 0 0")}}),
    ("init.from with --set relative to the working directory",
     config(**RESTART, species=SPECIES_2), ["--set", "init.from=start.xyz"],
     ["init.from: start.xyz:4: position component 1"],
     {"config": "sub/config.toml",
      "files": {"sub": None, "start.xyz": xyz("5 5 5 1 0 0", "1 nan 1 -1 0 0")}}),

    ("missing config file", None, [], ["config.toml"]),
    ("TOML syntax error", config(box="packing_fraction = = 0.3"), [], ["config.toml:4:"]),
    ("unknown key", config(box="packing_fracton = 0.3"), [], ["box.packing_fracton"]),
    ("wrong type", config(species='name = "A"\ncount = "many"'), [], ["species[0].count"]),
    ("packing fraction 1.5", config(box="packing_fraction = 1.5"), [], ["box.packing_fraction"]),
    ("restitution 2", config(collisions="restitution = 2"), [], ["collisions.restitution"]),
    ("missing species", config(species=None), [], ["species"]),
    ("missing run time and collisions", config(run="equilibrate = 1.0"), [], ["run"]),
    # the time-stepped integrator's keys
    ("timestep without dt", config(run='time = 1.0\nintegrator = "timestep"'), [], ["run.dt"]),
    ("dt with the event-driven integrator", config(run="time = 1.0\ndt = 0.01"), [],
     ["run.dt: belongs to run.integrator"]),
    ("timestep with epsilon", config(run='time = 1.0\nintegrator = "timestep"\ndt = 0.01',
                                     collisions="epsilon = 0.001"), [],
     ["collisions.epsilon"]),
    ("unknown integrator", config(), ["--set", 'run.integrator="verlet"'], ["run.integrator"]),
    ("bad --set syntax", config(), ["--set", "init.seed"], ["init.seed"]),
    ("--set of an unknown key", config(), ["--set", "box.colour=red"], ["box.colour"]),
    ("lattice not matching dimension", config(dimension="2"), [], ["init.lattice"]),
    ("init.from missing file", config(init='from = "missing.xyz"'), [], ["init.from"]),
    (
        "unwritable output path",
        config(output='summary = "no_such_dir/summary.json"'),
        [],
        ["no_such_dir"],
    ),
    ("packing fraction too high for fcc", config(box="packing_fraction = 0.8"), [],
     ["box.packing_fraction"]),
    (
        "particle larger than the box",
        config(box="size = [0.5, 0.5, 0.5]", species='name = "A"\ncount = 1\nradius = 0.5'),
        [],
        ["box.size", "species[0].radius"],
    ),
    (
        "overlapping init.from frame",
        config(**RESTART, species='name = "A"\ncount = 2'),
        [],
        ["init.from"],
        {"files": {"start.xyz": xyz("5 5 5 1 0 0", "5 5 5 -1 0 0")}},
    ),
    (
        # the pbc mismatch logs a warning before the overlap is found: the warning must be
        # held back so that the error stays the only line
        "warning before an error (still one line)",
        config(box='boundary = "wall"', init='from = "start.xyz"', species='name = "A"\ncount = 2'),
        [],
        ["init.from"],
        {"files": {"start.xyz": xyz("5 5 5 1 0 0", "5 5 5 -1 0 0")}},
    ),
    (
        "garbage init.from file",
        config(**RESTART, species='name = "A"\ncount = 2'),
        [],
        ["init.from: start.xyz:1:"],
        {"files": {"start.xyz": "this is not\nan XYZ file\n"}},
    ),
    (
        "nan in init.from",
        config(**RESTART, species='name = "A"\ncount = 2'),
        [],
        ["init.from: start.xyz:4: position component 1 \"nan\" is not a finite number"],
        {"files": {"start.xyz": xyz("5 5 5 1 0 0", "1 nan 1 -1 0 0")}},
    ),
    (
        "inf velocity in init.from",
        config(**RESTART, species='name = "A"\ncount = 2'),
        [],
        ["init.from: start.xyz:3: velocity component 0 \"inf\" is not a finite number"],
        {"files": {"start.xyz": xyz("5 5 5 inf 0 0", "1 1 1 -1 0 0")}},
    ),
    (
        "init.from velocity beyond 1e50",
        config(**RESTART, species='name = "A"\ncount = 2'),
        [],
        [
            "init.from: start.xyz:4: particle 1 (counting from 0 in the last frame): velocity "
            "component 0 must be of magnitude within [1e-50, 1e+50]"
        ],
        {"files": {"start.xyz": xyz("5 5 5 1 0 0", "1 1 1 1e200 0 0")}},
    ),
    (
        "init.from position outside a walled axis",
        config(
            box='boundary = ["periodic", "periodic", "wall"]',
            init='from = "start.xyz"',
            species='name = "A"\ncount = 2',
        ),
        [],
        ["init.from: start.xyz: particle 1"],
        {"files": {"start.xyz": xyz("5 5 5 1 0 0", "1 1 -3 -1 0 0", pbc="T T F")}},
    ),
    (
        "output.summary is an existing directory",
        config(output='summary = "out"'),
        [],
        ["output.summary"],
        {"files": {"out": None}},
    ),
    (
        "wall cutting through the lattice",
        config(
            box='packing_fraction = 0.3\nboundary = ["periodic", "periodic", "wall"]',
            walls="normal = [0.0, 0.0, 1.0]\npoint = [0.0, 0.0, 2.0]",
        ),
        [],
        ["walls[0]:"],
    ),
    (
        "wall normal along a periodic axis",
        config(walls="normal = [0.0, 1.0, 1.0]\npoint = [0.0, 0.0, 0.0]"),
        [],
        ["walls[0].normal: must be perpendicular to every periodic axis (axis 1 is periodic)"],
    ),
    # thermal walls
    (
        "wall temperature without walls",
        config(box="packing_fraction = 0.3\nwall_temperature = 1.0"),
        [],
        ["box.wall_temperature: the box has no walls"],
    ),
    (
        "wall temperature zero",
        config(box='packing_fraction = 0.3\nboundary = "wall"\nwall_temperature = [1.0, 0.0]'),
        [],
        ["box.wall_temperature[1]: must be > 0"],
    ),
    (
        "wall temperature with wall restitution",
        config(box='packing_fraction = 0.3\nboundary = "wall"\nwall_temperature = 1.0\n'
                   "wall_restitution = 0.9"),
        [],
        ["box.wall_temperature: thermal walls re-emit"],
    ),
    (
        "thermal walls with epsilon",
        config(box='packing_fraction = 0.3\nboundary = "wall"\nwall_temperature = 1.0',
               collisions="epsilon = 1e-9"),
        [],
        ["collisions.epsilon: must be 0 with thermal walls (box.wall_temperature)"],
    ),
    (
        "thermal wall with the time-stepped integrator",
        config(box='packing_fraction = 0.3\nboundary = ["wall", "periodic", "periodic"]',
               walls="normal = [1.0, 0.0, 0.0]\npoint = [0.0, 0.0, 0.0]\ntemperature = 2.0",
               run='time = 1.0\nintegrator = "timestep"\ndt = 0.01'),
        [],
        ["run.integrator: thermal walls (walls[0].temperature)"],
    ),
    (
        "thermal wall with restitution",
        config(box='packing_fraction = 0.3\nboundary = ["wall", "periodic", "periodic"]',
               walls="normal = [1.0, 0.0, 0.0]\npoint = [0.0, 0.0, 0.0]\ntemperature = 2.0\n"
                     "restitution = 0.5"),
        [],
        ["walls[0].temperature: a thermal wall re-emits"],
    ),
    (
        "shear rate not a number",
        config(box='packing_fraction = 0.3\nshear_rate = "fast"'),
        [],
        ["box.shear_rate"],
    ),
    (
        "shear temperature without a shear rate",
        config(box='packing_fraction = 0.3\nshear_temperature = 1.0'),
        [],
        ["box.shear_temperature: needs box.shear_rate"],
    ),
    (
        "shear temperature not positive",
        config(box='packing_fraction = 0.3\nshear_rate = 0.1\nshear_temperature = 0.0'),
        [],
        ["box.shear_temperature"],
    ),
    (
        "shear rate absurdly fast",
        config(box='packing_fraction = 0.3\nshear_rate = 1e6'),
        [],
        ["box.shear_rate: the sliding speed |shear_rate| L_y = "],
    ),
    (
        "shear rate with particles at rest",
        config(box='packing_fraction = 0.3\nshear_rate = 0.1',
               init='lattice = "fcc"\nvelocities = "maxwell"\ntemperature = 1e-300\nseed = 1'),
        [],
        ["box.shear_rate: the sliding speed", "init.temperature"],
    ),
    (
        "shear rate from a frame with slid images",
        # (two spheres 0.45 apart across the y face with the images aligned: a sheared
        # run's frame at an offset of about 0.2 would have them clear)
        config(box='boundary = "periodic"\nshear_rate = 0.3', init='from = "start.xyz"',
               species=SPECIES_2),
        [],
        ["continue such a run from its checkpoint"],
        {"files": {"start.xyz": xyz("1 0.3 5 1 0 0", "1.2 9.9 5 -1 0 0")}},
    ),
    (
        "shear rate with a walled axis",
        config(box='packing_fraction = 0.3\nboundary = ["wall", "periodic", "periodic"]\n'
                   "shear_rate = 0.1"),
        [],
        ["box.boundary: must be \"periodic\" on every axis with box.shear_rate"],
    ),
    (
        "shear rate with a plane wall",
        config(dimension="2", box='size = [20.0, 20.0]\nshear_rate = 0.1',
               species='name = "A"\ncount = 50', init='lattice = "random"',
               walls="from = [5.0, 5.0]\nto = [15.0, 5.0]",
               output='summary = "summary.json"'),
        [],
        ["walls[0]: a box with box.shear_rate"],
    ),
    (
        "shear rate with gravity",
        config(box='packing_fraction = 0.3\nshear_rate = 0.1') + "[field]\ngravity = [0.0, -1.0, 0.0]\n",
        [],
        ["field.gravity: must be 0 with box.shear_rate"],
    ),
    (
        "shear rate with drag",
        config(box='packing_fraction = 0.3\nshear_rate = 0.1') + "[field]\ndrag = 0.5\n",
        [],
        ["field.drag: must be 0 with box.shear_rate"],
    ),
    (
        "shear rate with epsilon",
        config(box='packing_fraction = 0.3\nshear_rate = 0.1',
               collisions="restitution = 1.0\nepsilon = 1e-9"),
        [],
        ["collisions.epsilon: must be 0 with box.shear_rate"],
    ),
    (
        "shear rate with time steps",
        config(box='packing_fraction = 0.3\nshear_rate = 0.1',
               run='time = 1.0\nintegrator = "timestep"\ndt = 0.01'),
        [],
        ["run.integrator: sliding boundaries (box.shear_rate)"],
    ),
    (
        "shear rate with g(r)",
        config(box='packing_fraction = 0.3\nshear_rate = 0.1',
               output='summary = "summary.json"\nrdf = "rdf.csv"'),
        [],
        ["output.rdf: is not measured with box.shear_rate"],
    ),
    (
        "shear rate with the velocity autocorrelation",
        config(box='packing_fraction = 0.3\nshear_rate = 0.1',
               output='summary = "summary.json"\nvacf = "vacf.csv"'),
        [],
        ["output.vacf: is not measured with box.shear_rate"],
    ),
    (
        "wall velocity without wall temperature",
        config(box='packing_fraction = 0.3\nboundary = ["wall", "periodic", "periodic"]\n'
                   "wall_velocity = [[0.0, 1.0, 0.0], [0.0, -1.0, 0.0]]"),
        [],
        ["box.wall_velocity: needs box.wall_temperature"],
    ),
    (
        "wall velocity across the wall",
        config(box='packing_fraction = 0.3\nboundary = ["wall", "periodic", "periodic"]\n'
                   "wall_temperature = 1.0\n"
                   "wall_velocity = [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0]]"),
        [],
        ["box.wall_velocity[0]: must be 0 along every walled axis (axis 0)"],
    ),
    (
        "plane wall velocity across its normal",
        config(box='packing_fraction = 0.3\nboundary = ["wall", "periodic", "periodic"]',
               walls="normal = [1.0, 0.0, 0.0]\npoint = [0.0, 0.0, 0.0]\ntemperature = 2.0\n"
                     "velocity = [0.5, 1.0, 0.0]"),
        [],
        ["walls[0].velocity: must lie in the wall's plane"],
    ),
    (
        "profile axis z in 2D",
        config(dimension="2", box="packing_fraction = 0.3",
               init='lattice = "hex"\nseed = 1',
               output='summary = "summary.json"\nprofile = { path = "p.csv", axis = "z" }'),
        [],
        ["output.profile.axis: must be one of \"x\", \"y\""],
    ),
    (
        "profile with no slabs",
        config(output='summary = "summary.json"\nprofile = { path = "p.csv", slabs = 0 }'),
        [],
        ["output.profile.slabs"],
    ),
    (
        "segment in 3D",
        config(walls="from = [1.0, 1.0, 1.0]\nto = [2.0, 2.0, 2.0]"),
        [],
        ["walls[0].from: segments (from, to) are 2D walls"],
    ),
    (
        "segment outside the box",
        config(
            **WALLED_2D,
            walls="from = [1.0, 1.0]\nto = [25.0, 1.0]",
        ),
        [],
        ["walls[0].to: 25 is outside the box [0, 20] on axis 0"],
    ),
    (
        "segment through the hex lattice",
        config(
            dimension="2",
            box='size = [20.0, 20.0]\nboundary = "wall"',
            species='name = "A"\ncount = 300',
            init='lattice = "hex"',
            walls="from = [1.0, 10.1]\nto = [19.0, 10.3]",
        ),
        [],
        ["walls[0]: particle"],
    ),
    (
        "segment and plane in one entry",
        config(
            **WALLED_2D,
            walls="from = [1.0, 1.0]\nto = [5.0, 1.0]\npoint = [0.0, 0.0]",
        ),
        [],
        ["walls[0].point: give either normal and point (a plane) or from and to"],
    ),
    (
        "triangle in 2D",
        config(**WALLED_2D, walls="vertices = [[1.0, 1.0], [2.0, 1.0], [1.0, 2.0]]"),
        [],
        ["walls[0].vertices: triangles (vertices, mesh) are 3D walls"],
    ),
    (
        "degenerate triangle",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]"),
        [],
        ["walls[0].vertices: the triangle is degenerate"],
    ),
    (
        "triangle with two points",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]"),
        [],
        ["walls[0].vertices: expected three points"],
    ),
    (
        "triangle outside the box",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [12.0, 1.0, 1.0], [1.0, 2.0, 1.0]]"),
        [],
        ["walls[0].vertices: vertex 1 has 12 outside the box [0, 10] on axis 0"],
    ),
    (
        "triangle moved out of the box",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0]]\n"
               "translate = [0.0, 0.0, 9.5]"),
        [],
        ["walls[0].vertices: vertex 0 has 10.5 outside the box"],
    ),
    (
        "triangle with three sides",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0]]\n"
               "sides = 3"),
        [],
        ["walls[0].sides: must be 1 (a wall on the side its normal points to"],
    ),
    (
        "triangle with no sides",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0]]\n"
               "sides = 0"),
        [],
        ["walls[0].sides"],
    ),
    (
        "one-sided plane",
        config(**WALLED_3D, walls="normal = [0.0, 0.0, 1.0]\npoint = [0.0, 0.0, 1.0]\nsides = 1"),
        [],
        ["walls[0].sides: only triangle walls (vertices, mesh) can be one-sided"],
    ),
    (
        "one-sided triangle through the fcc lattice",
        config(
            box='size = [6.0, 6.0, 6.0]\nboundary = "wall"',
            walls="vertices = [[0.5, 0.5, 3.1], [5.5, 0.5, 2.9], [3.0, 5.5, 3.0]]\nsides = 1",
        ),
        [],
        ["walls[0]: particle"],
    ),
    (
        "triangle through the fcc lattice",
        config(
            box='size = [6.0, 6.0, 6.0]\nboundary = "wall"',
            walls="vertices = [[0.5, 0.5, 3.1], [5.5, 0.5, 2.9], [3.0, 5.5, 3.0]]",
        ),
        [],
        ["walls[0]: particle"],
    ),
    (
        "triangle and plane in one entry",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0]]\n"
               "normal = [0.0, 0.0, 1.0]"),
        [],
        ["walls[0].normal: a triangle wall (vertices) takes no normal"],
    ),
    (
        "vertices and mesh in one entry",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0]]\n"
               'mesh = "m.stl"'),
        [],
        ["walls[0].mesh: give either vertices"],
    ),
    (
        "thermal triangle",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0]]\n"
               "temperature = 2.0"),
        [],
        ["walls[0].temperature: only plane walls"],
    ),
    (
        "triangle with the time-stepped integrator",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0]]",
               run="time = 1.0\nintegrator = \"timestep\"\ndt = 0.01"),
        [],
        ["run.integrator: triangle walls (walls[0])"],
    ),
    (
        "scale on a plane wall",
        config(**WALLED_3D, walls="normal = [0.0, 0.0, 1.0]\npoint = [0.0, 0.0, 1.0]\nscale = 2.0"),
        [],
        ["walls[0].scale: only triangle walls"],
    ),
    (
        "negative scale",
        config(**WALLED_3D, walls="vertices = [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0]]\n"
               "scale = [1.0, -1.0, 1.0]"),
        [],
        ["walls[0].scale: must be > 0"],
    ),
    (
        "mesh file missing",
        config(**WALLED_3D, walls='mesh = "vessel.stl"'),
        [],
        ["walls[0].mesh: cannot read file"],
    ),
    (
        "mesh that is a device",
        config(**WALLED_3D, walls='mesh = "/dev/zero"'),
        [],
        ["walls[0].mesh: \"/dev/zero\" is not a regular file"],
    ),
    (
        "mesh file not STL",
        config(**WALLED_3D, walls='mesh = "vessel.obj"'),
        [],
        ["walls[0].mesh", "expected an STL file"],
        {"files": {"vessel.obj": "v 0 0 0\n"}},
    ),
    (
        "mesh file without facets",
        config(**WALLED_3D, walls='mesh = "vessel.stl"'),
        [],
        ["walls[0].mesh"],
        {"files": {"vessel.stl": "solid empty\nendsolid empty\n"}},
    ),
    (
        "mesh file of garbage",
        config(**WALLED_3D, walls='mesh = "vessel.stl"'),
        [],
        ["walls[0].mesh"],
        {"files": {"vessel.stl": bytes(range(256)) * 3}},
    ),
    (
        "mesh with a degenerate facet",
        config(**WALLED_3D, walls='mesh = "vessel.stl"'),
        [],
        ["walls[0].mesh: facet 1 is degenerate"],
        {"files": {"vessel.stl": ascii_stl([[1, 1, 1], [2, 1, 1], [1, 2, 1]],
                                           [[1, 1, 1], [2, 2, 2], [3, 3, 3]])}},
    ),
    (
        "mesh through the particles",
        config(
            box='size = [6.0, 6.0, 6.0]\nboundary = "wall"',
            walls='mesh = "vessel.stl"',
        ),
        [],
        ["walls[0]: particle", "mesh (facet"],
        {"files": {"vessel.stl": ascii_stl([[0.5, 0.5, 3.1], [5.5, 0.5, 2.9], [3.0, 5.5, 3.0]])}},
    ),
    # issue 41: Assimp reads past what does not fit an ASCII STL file without a word
    (
        "ASCII STL cut at a facet (no endsolid)",
        config(**WALLED_3D, walls='mesh = "vessel.stl"'),
        [],
        ['walls[0].mesh: "vessel.stl": line 15: the file ends without "endsolid" for the solid '
         "of line 1"],
        {"files": {"vessel.stl": ascii_stl([[1, 1, 1], [2, 1, 1], [1, 2, 1]],
                                           [[5, 5, 5], [6, 5, 5], [5, 6, 5]])
                   .replace("endsolid test\n", "")}},
    ),
    (
        "ASCII STL facet with a fourth vertex",
        config(**WALLED_3D, walls='mesh = "vessel.stl"'),
        [],
        ['walls[0].mesh: "vessel.stl": line 14: a fourth vertex in the facet of line 9'],
        {"files": {"vessel.stl": ascii_stl([[1, 1, 1], [2, 1, 1], [1, 2, 1]],
                                           [[5, 5, 5], [6, 5, 5], [5, 6, 5], [6, 6, 5]])}},
    ),
    (
        "ASCII STL facet with two vertices",
        config(**WALLED_3D, walls='mesh = "vessel.stl"'),
        [],
        ['walls[0].mesh: "vessel.stl": line 6: the facet of line 2 has 2 vertices'],
        {"files": {"vessel.stl": ascii_stl([[1, 1, 1], [2, 1, 1]])}},
    ),
    (
        "ASCII STL with a word for a number (a megabyte of it quoted by Assimp)",
        config(**WALLED_3D, walls='mesh = "vessel.stl"'),
        [],
        ['walls[0].mesh: "vessel.stl": line 4: "x1" is not a number'],
        {"files": {"vessel.stl": ascii_stl([[1, 1, 1], [2, 1, 1], [1, 2, 1]])
                   .replace("vertex 1 1 1", "vertex x1 1 1") + "x" * (1 << 20)},
         "short": 400},
    ),
    (
        "crossing plane tilted along a periodic axis",
        config(output='summary = "summary.json"\n'
               "crossing = { point = [1.0, 1.0, 1.0], normal = [0.0, 0.0, 1.0] }"),
        [],
        ["output.crossing.normal: must be perpendicular to every periodic axis"],
    ),
    (
        "crossing plane without a normal",
        config(**WALLED_3D, output='summary = "summary.json"\ncrossing = { point = [1.0, 1.0, 1.0] }'),
        [],
        ["output.crossing.normal: required key is missing"],
    ),
    (
        "too many trajectory frames",
        config(output='summary = "summary.json"\ntrajectory = { path = "traj.xyz", every = 1e-7 }'),
        [],
        ["output.trajectory.every"],
    ),
    (
        "trajectory.every nan",
        config(output='summary = "summary.json"\ntrajectory = { path = "traj.xyz", every = nan }'),
        [],
        ["output.trajectory.every: must be a finite number"],
    ),
    (
        "trajectory path same as the summary",
        config(output='summary = "summary.json"\ntrajectory = { path = "./summary.json", every = 0.5 }'),
        [],
        ["output.trajectory.path"],
    ),
    (
        "too many particles",
        config(species='name = "A"\ncount = 3000000000'),
        [],
        ["species[0].count"],
    ),
    (
        "too many particles over two species",
        config(species='name = "A"\ncount = 2000000000\n\n[[species]]\nname = "B"\ncount = 2000000000'),
        [],
        ["species[1].count"],
    ),
    (
        "--set species[0].radius is checked like the file",
        config(),
        ["--set", "species[0].radius=-1"],
        ["--set: species[0].radius: must be > 0"],
    ),
    (
        "time series in a missing directory",
        config(output='summary = "summary.json"\ntimeseries = { path = "no/such/s.csv", every = 0.5 }'),
        [],
        ["output.timeseries.path"],
    ),
    (
        "histogram in a missing directory (checked before the run)",
        config(output='summary = "summary.json"\nhistogram = "no/such/h.csv"'),
        [],
        ["output.histogram"],
    ),
    (
        "g(r) path is a directory",
        config(output='summary = "summary.json"\nrdf = "gr"'),
        [],
        ["output.rdf"],
        {"files": {"gr": None}},
    ),
    (
        "g(r) with walls",
        config(
            box='packing_fraction = 0.3\nboundary = ["periodic", "periodic", "wall"]',
            output='summary = "summary.json"\nrdf = "gr.csv"',
        ),
        [],
        ["output.rdf: needs a periodic box on every axis"],
    ),
    (
        "too many time-series rows",
        config(output='summary = "summary.json"\ntimeseries = { path = "s.csv", every = 1e-7 }'),
        [],
        ["output.timeseries.every"],
    ),
    (
        "histogram and time series on one path",
        config(
            output='summary = "summary.json"\nhistogram = "a.csv"\n'
            'timeseries = { path = "./a.csv", every = 0.5 }'
        ),
        [],
        ["output.histogram: \"a.csv\" is the same file as output.timeseries.path"],
    ),
    (
        "--summary onto the time series",
        config(output='summary = "summary.json"\ntimeseries = { path = "s.csv", every = 0.5 }'),
        ["--summary", "s.csv"],
        ["--summary: s.csv is also output.timeseries.path"],
    ),
    (
        "an option of choc sweep given to choc run",
        config(),
        ["--jobs", "2"],
        ["--jobs is an option of `choc sweep`, not of `choc run`"],
    ),
    (
        "an option no command has",
        config(),
        ["--bogus"],
        ["`choc run` has no option --bogus"],
    ),
    (
        "--set cannot add a species",
        config(),
        ["--set", "species.1.count=10"],
        ["cannot add one: add a [[species]] table to the config file"],
    ),
    (
        "species temperature not positive",
        config(species='name = "A"\ncount = 108\ntemperature = 0.0'),
        [],
        ["species[0].temperature: must be > 0"],
    ),
    (
        "not enough memory",
        config(species='name = "A"\ncount = 2147483648'),
        [],
        ["config.toml: not enough memory for this system (N = 2147483648 particles)"],
        {"memory": 2 << 30},
    ),
]

# The small 2D gas of fixtures/gas2d.toml with 64 discs and 1000 collisions (and BASE's
# elastic collisions)
GOOD = config(**dict(cli.sections(cli.fixture("gas2d.toml")), species='name = "A"\ncount = 64',
                     run="collisions = 1000"))


def run_choc(choc, text, args, options=None):
    """Runs `choc run config.toml ARGS` in a fresh directory. Returns (result, new files)."""
    options = options or {}
    given = options.get("files", {})
    memory = options.get("memory")

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    config_name = options.get("config", "config.toml")
    with tempfile.TemporaryDirectory(prefix="choc-cli-") as directory:
        for name, content in given.items():
            if content is None:
                os.mkdir(os.path.join(directory, name))
            else:
                with open(os.path.join(directory, name),
                          "wb" if isinstance(content, bytes) else "w") as f:
                    f.write(content)
        if text is not None and not os.path.isabs(config_name):
            cli.write(directory, config_name, text)
        result = cli.run(choc, directory, *args, config=config_name, errors="replace",
                         preexec_fn=limit_memory if memory else None)
        files = {}  # every new entry, with its text when it is a file
        for name in sorted(set(os.listdir(directory)) - {"config.toml"} - set(given)):
            path = os.path.join(directory, name)
            files[name] = ""
            if os.path.isfile(path):
                with open(path, errors="replace") as f:
                    files[name] = f.read()
        return result, files


def check_bad(choc, text, args, names, options=None):
    """Returns why the case failed, or None."""
    try:
        result, files = run_choc(choc, text, args, options)
    except cli.Failure:
        return "did not finish within 60 s"
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    if options and options.get("memory") and "AddressSanitizer" in result.stderr:
        # A sanitizer build reserves terabytes of shadow memory at start-up, which an
        # address-space limit forbids: the case cannot run there, and says so.
        print("note: address-space limit not usable under AddressSanitizer; case skipped")
        return None
    if result.returncode != 2:
        return f"exit status {result.returncode}, expected 2; stderr: {result.stderr!r}"
    if len(lines) != 1:
        return f"expected one stderr line, got {len(lines)}: {result.stderr!r}"
    if not lines[0].startswith("choc: error:"):
        return f"stderr does not start with 'choc: error:': {lines[0]!r}"
    if options and options.get("short") and len(lines[0]) > options["short"]:
        return f"message of {len(lines[0])} characters, more than {options['short']}"
    if options and options.get("ascii") and not all(" " <= c <= "~" for c in lines[0]):
        return f"message holds bytes that are not printable ASCII: {lines[0]!r}"
    if not any(name in lines[0] for name in names):
        return f"message names none of {names}: {lines[0]!r}"
    if files:
        return f"left files behind: {sorted(files)}"
    return None


def check_good(choc, args=(), n=64):
    try:
        result, files = run_choc(choc, GOOD, list(args))
    except cli.Failure:
        return "did not finish within 60 s"
    if result.returncode != 0:
        return f"exit status {result.returncode}; stderr: {result.stderr!r}"
    if set(files) != {"summary.json"}:
        return f"expected only summary.json, found {sorted(files)}"
    try:
        summary = json.loads(files["summary.json"])
    except ValueError as e:
        return f"summary.json is not JSON: {e}"
    if summary.get("N") != n or summary.get("dimension") != 2:
        return f"summary has N={summary.get('N')}, dimension={summary.get('dimension')}"
    return None


def check_touching_start(choc):
    """An init.from pair a rounding (2.2e-16 relative) inside contact starts: the contact
    tolerance of `choc collide` applies."""
    text = config(**RESTART, species=SPECIES_2, output='summary = "summary.json"')
    start = xyz("0.1 5 5 -1 0 0", "1.0999999999999999 5 5 1 0 0")
    result, files = run_choc(choc, text, [], {"files": {"start.xyz": start}})
    if result.returncode != 0:
        return f"exit status {result.returncode}; stderr: {result.stderr!r}"
    return None if "summary.json" in files else f"no summary.json: {sorted(files)}"


def check_strong_field_short_run(choc):
    """Gravity 1e40 and drag 1e19 over run.time = 1e-19: a fall over a radius takes 1e-20
    and the velocities relax in 1e-19, both far above the clock's resolution there (1.5e-35),
    so the run is accepted and ends (392 collisions), as the same physics in other units."""
    text = config(**WALLED_2D).replace("[run]\ntime = 1.0",
                                       "[field]\ngravity = [0.0, -1e40]\ndrag = 1e19\n\n"
                                       "[run]\ntime = 1e-19")
    with tempfile.TemporaryDirectory() as directory:
        result = cli.run(choc, directory, toml=text)
        if result.returncode != 0:
            return f"exit {result.returncode}: {result.stderr.strip()[-300:]}"
        summary = cli.read_summary(directory)
    if summary["sim_time"] != 1e-19 or summary["collisions"] == 0:
        return f"sim_time {summary['sim_time']}, {summary['collisions']} collisions"
    return None


def main():
    args = cli.arguments(__doc__, 2)
    if args is None:
        return 2
    choc = args[0]
    failed = 0
    for name, text, args, names, *options in CASES:
        failed += cli.report(name, check_bad(choc, text, args, names, *options))
    failed += cli.report("good tiny run", check_good(choc))
    failed += cli.report("strong field, short run", check_strong_field_short_run(choc))
    failed += cli.report("touching init.from start", check_touching_start(choc))
    # the spelling of every message works in --set
    failed += cli.report("--set species[0].count",
                         check_good(choc, ["--set", "species[0].count=81"], 81))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
