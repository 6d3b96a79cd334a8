#!/usr/bin/python3
"""H5MD trajectories of `choc run` (docs/REFERENCE.md, "H5MD trajectory"), read with Debian's
h5py: the H5MD 1.1 structure, and every frame equal to the extended XYZ frame of the same
run (same config and seed, format = "xyz") bit for bit; the time-series observables
(crossed among them) equal the CSV's; provenance equal to the summary's; a bad format is
refused with exit 2.

h5py must be importable (Debian's python3-h5py, for /usr/bin/python3): without it the test
fails, it does not skip.

Usage: /usr/bin/python3 tests/cli/cli_h5md.py CHOC_EXECUTABLE [CASE...]
"""

import math
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

import choc_cli as cli
from choc_cli import Failure, check

try:
    import h5py
    import numpy
except ImportError as e:
    print(f"FAIL: h5py is not importable ({e}); install Debian's python3-h5py and run this "
          "with /usr/bin/python3", flush=True)
    sys.exit(1)


# Two species of different radius and mass; one walled axis, so that the boundary
# attribute has both kinds; frames every 0.5 and time-series rows every 0.25; a crossing
# plane across the walled axis (the observable `crossed`).
def config_text(dimension, trajectory, fmt):
    lattice = "fcc" if dimension == 3 else "hex"
    boundary = ('["periodic", "wall", "periodic"]' if dimension == 3
                else '["wall", "periodic"]')
    count_a, count_b = (90, 60) if dimension == 3 else (120, 80)
    crossing_normal = "[0.0, 1.0, 0.0]" if dimension == 3 else "[1.0, 0.0]"
    return f"""dimension = {dimension}
[box]
packing_fraction = 0.25
boundary = {boundary}
[[species]]
name = "small"
count = {count_a}
radius = 0.35
mass = 0.5
[[species]]
name = "big"
count = {count_b}
radius = 0.5
mass = 2.0
[init]
lattice = "random"
seed = 11
[run]
equilibrate = 0.5
time = 2.0
[output]
summary = "summary.json"
trajectory = {{ path = "{trajectory}", every = 0.5, format = "{fmt}" }}
timeseries = {{ path = "series.csv", every = 0.25 }}
crossing = {{ point = {[2.0] * dimension}, normal = {crossing_normal} }}
"""


def run(choc, d, text, *args):
    return cli.run(choc, d, *args, toml=text, timeout=120)


def read_xyz(path):
    """[(time, lattice, pbc, [(type, [x y z], [vx vy vz], radius, mass)])] of every frame,
    the columns found by the Properties= key (so either layout choc writes is read)."""
    frames = []
    for frame in cli.read_xyz(path):
        mass = "masses" if "masses" in frame.properties() else "mass"
        particles = [(t[0], x, v, r[0], m[0]) for t, x, v, r, m in zip(
            frame.column("type", str), frame.column("pos"), frame.column("velo"),
            frame.column("radius"), frame.column(mass))]
        lattice = [float(w) for w in frame.fields["Lattice"].split()]
        frames.append((frame.time, lattice, frame.fields["pbc"].split(), particles))
    return frames


def same(a, b):
    """Equal to the bit, NaN equal to NaN (a quantity not defined yet is NaN in both)."""
    return (math.isnan(a) and math.isnan(b)) or a == b


def case_against_xyz(choc, dimension):
    with tempfile.TemporaryDirectory(prefix="choc-h5md-") as d:
        h5_dir, xyz_dir = os.path.join(d, "h5md"), os.path.join(d, "xyz")
        os.mkdir(h5_dir)
        os.mkdir(xyz_dir)
        r = run(choc, h5_dir, config_text(dimension, "t.h5", "h5md"))
        check(r.returncode == 0, f"h5md run: exit {r.returncode}: {r.stderr}")
        r = run(choc, xyz_dir, config_text(dimension, "t.xyz", "xyz"))
        check(r.returncode == 0, f"xyz run: exit {r.returncode}: {r.stderr}")
        check(sorted(os.listdir(h5_dir)) == ["config.toml", "series.csv", "summary.json", "t.h5"],
              f"files of the h5md run: {sorted(os.listdir(h5_dir))} (a temporary left?)")
        summary = cli.read_summary(h5_dir)
        frames = read_xyz(os.path.join(xyz_dir, "t.xyz"))
        n = len(frames[0][3])
        check(len(frames) == 5, f"{len(frames)} XYZ frames, expected 5 (t = 0, 0.5, ..., 2)")
        rows = cli.read_rows(os.path.join(h5_dir, "series.csv"))  # ('#' lines: provenance)

        with h5py.File(os.path.join(h5_dir, "t.h5"), "r") as h5:
            # H5MD header
            check(list(h5["h5md"].attrs["version"]) == [1, 1], "h5md version is not [1, 1]")
            check(len(h5["h5md/author"].attrs["name"]) > 0, "no author name")
            creator = h5["h5md/creator"].attrs
            check(creator["name"] == "choc" and creator["version"] == summary["choc_version"],
                  f"creator {dict(creator)}")
            p = h5["particles/all"]
            # box
            box = p["box"].attrs
            check(int(box["dimension"]) == dimension, f"box dimension {box['dimension']}")
            expected_boundary = [("periodic" if flag == "T" else "none")
                                 for flag in frames[0][2][:dimension]]
            check(list(box["boundary"]) == expected_boundary,
                  f"boundary {list(box['boundary'])}, expected {expected_boundary}")
            edges = p["box/edges/value"][()]
            check(edges.shape == (5, dimension, dimension), f"box edges shape {edges.shape}")
            # per-particle constants against the XYZ columns
            names = list(h5["parameters/choc"].attrs["species_names"])
            species, mass, radius = p["species"][()], p["mass"][()], p["radius"][()]
            check(species.shape == (n,) and mass.shape == (n,) and radius.shape == (n,),
                  f"species/mass/radius shapes {species.shape} {mass.shape} {radius.shape}")
            for i, (name, _, _, rad, m) in enumerate(frames[0][3]):
                check(names[species[i]] == name and mass[i] == m and radius[i] == rad,
                      f"particle {i}: {names[species[i]]} {mass[i]} {radius[i]}, XYZ {name} "
                      f"{m} {rad}")
            # frames, bit for bit against XYZ (both fold periodic coordinates into [0, L))
            pos, vel = p["position/value"], p["velocity/value"]
            check(pos.shape == (5, n, dimension) and vel.shape == (5, n, dimension),
                  f"position {pos.shape}, velocity {vel.shape}, expected (5, {n}, {dimension})")
            check(pos.dtype == numpy.float64 and vel.dtype == numpy.float64, "not doubles")
            check(pos.chunks is not None and pos.compression == "gzip" and pos.shuffle,
                  f"position chunks {pos.chunks}, compression {pos.compression}")
            check(pos.maxshape[0] is None, "position not extensible along time")
            x, v = pos[()], vel[()]
            t, step = p["position/time"][()], p["position/step"][()]
            check(list(step) == list(range(5)), f"position steps {list(step)}")
            check(list(p["velocity/time"][()]) == list(t), "velocity times differ")
            for k, (time, lattice, _, particles) in enumerate(frames):
                check(t[k] == time, f"frame {k}: time {t[k]}, XYZ {time}")
                # the box vectors as rows of a diagonal matrix
                box_vectors = [[lattice[3 * a + b] for b in range(dimension)]
                               for a in range(dimension)]
                check(edges[k].tolist() == box_vectors,
                      f"frame {k}: edges {edges[k].tolist()}, XYZ lattice {lattice}")
                for i, (_, xi, vi, _, _) in enumerate(particles):
                    check(list(x[k, i]) == xi[:dimension] and list(v[k, i]) == vi[:dimension],
                          f"frame {k} particle {i}: {list(x[k, i])} {list(v[k, i])}, "
                          f"XYZ {xi} {vi}")
                    if dimension == 2:
                        check(xi[2] == 0.0 and vi[2] == 0.0, "XYZ 2D frame with z != 0")
            # collisions per frame: against the time series at the same times
            collisions = h5["observables/collisions/value"][()]
            check(list(h5["observables/collisions/time"][()]) == list(t), "collision times")
            check(collisions[0] == 0 and all(numpy.diff(collisions) >= 0) and
                  collisions[-1] <= summary["collisions"] and collisions[-1] > 0,
                  f"collisions per frame {list(collisions)}, summary {summary['collisions']}")
            by_time = {float(r["time"]): r for r in rows}
            for k in range(5):
                r = by_time[t[k]]
                check(2.0 * collisions[k] / n == float(r["collisions_per_particle"]),
                      f"frame {k}: {collisions[k]} collisions, series "
                      f"{r['collisions_per_particle']} per particle")
            # observables: the time-series CSV, value for value
            obs = h5["observables"]
            check(list(obs["temperature/time"][()]) == [float(r["time"]) for r in rows],
                  "observable times differ from the series")
            check(list(obs["temperature/step"][()]) == list(range(len(rows))),
                  "observable steps")
            for name in ("collisions_per_particle", "temperature", "Z", "kurtosis",
                         "ks_distance", "ks_pvalue", "H", "msd"):
                values = obs[name + "/value"][()]
                check(len(values) == len(rows), f"{name}: {len(values)} rows of {len(rows)}")
                for k, r in enumerate(rows):
                    check(same(values[k], float(r[name])),
                          f"{name} row {k}: {values[k]}, series {r[name]}")
            crossed = obs["crossed/value"]
            check(crossed.dtype == numpy.int64 and len(crossed) == len(rows),
                  f"crossed: {crossed.dtype}, {len(crossed)} rows of {len(rows)}")
            check(list(obs["crossed/time"][()]) == [float(r["time"]) for r in rows],
                  "crossed times differ from the series")
            check([int(c) for c in crossed[()]] == [int(r["crossed"]) for r in rows],
                  f"crossed {list(crossed[()])}, series {[r['crossed'] for r in rows]}")
            check(any(int(r["crossed"]) != 0 for r in rows), "nothing crossed: a weak test")
            species_t = obs["species_temperature/value"][()]
            check(species_t.shape == (len(rows), 2), f"species_temperature {species_t.shape}")
            for k, r in enumerate(rows):
                for s, name in enumerate(names):
                    check(same(species_t[k, s], float(r["temperature_" + name])),
                          f"species temperature {name} row {k}")
            # provenance
            prov = h5["parameters/choc"].attrs
            sp = summary["provenance"]
            for key in ("git_commit", "config", "started", "host"):
                check(prov[key] == sp[key], f"{key}: {prov[key]!r}, summary {sp[key]!r}")
            check(int(prov["seed"]) == sp["seed"] == 11, f"seed {prov['seed']}")
            check(list(prov["command_line"]) == sp["command_line"],
                  f"command line {list(prov['command_line'])}")
            check(len(prov["finished"]) == 20, f"finished {prov['finished']!r}")


def case_2d(choc):
    case_against_xyz(choc, 2)


def case_3d(choc):
    case_against_xyz(choc, 3)


def case_bad_format(choc):
    """A format other than xyz and h5md: exit 2, one line naming the key, no file."""
    with tempfile.TemporaryDirectory(prefix="choc-h5md-") as d:
        cli.check_refused(run(choc, d, config_text(3, "t.h5", "hdf5")), d,
                          all_of=["output.trajectory.format", '"hdf5"'])


def case_missing_directory(choc):
    """A trajectory path in a missing directory: refused up front, nothing written."""
    with tempfile.TemporaryDirectory(prefix="choc-h5md-") as d:
        r = run(choc, d, config_text(2, "missing/t.h5", "h5md"))
        check(r.returncode == 2 and "output.trajectory.path" in r.stderr,
              f"exit {r.returncode}: {r.stderr}")
        check(os.listdir(d) == ["config.toml"], f"files written: {os.listdir(d)}")


def refused_cleanly(r, d, keys, keep=()):
    """Exit 2, one `choc: error:` line naming one of `keys` (no HDF5 error stack printed),
    and nothing of the run left behind: no output, no temporary."""
    cli.check_refused(r, d, any_of=keys, keep=keep)


def case_full_disk(choc):
    """A 4 MB file system: an H5MD trajectory that outgrows half of it stops the run
    (there is no up-front bound for compressed frames); on a disk full but for two pages
    the file cannot even start. Either way exit 2 and nothing left."""
    with cli.small_file_system(prefix="choc-h5md-") as d:
        text = config_text(2, "t.h5", "h5md").replace("every = 0.5", "every = 0.002")
        refused_cleanly(run(choc, d, text), d, ["output.trajectory.every"])
        cli.fill(d, 8192)
        refused_cleanly(run(choc, d, config_text(2, "t.h5", "h5md")), d,
                        ["output.trajectory.every", "output.trajectory.path"], keep={"filler"})


def case_init_from(choc):
    """init.from reads the last frame of an H5MD trajectory as it reads the XYZ one: a run
    started from either goes the same way, to the bit (2D and 3D)."""
    for dimension in (2, 3):
        with tempfile.TemporaryDirectory() as d:
            for name, fmt in (("t.h5", "h5md"), ("t.xyz", "xyz")):
                r = run(choc, d, config_text(dimension, name, fmt))
                check(r.returncode == 0, f"{dimension}D {fmt}: exit {r.returncode}: {r.stderr}")
            again = {}
            for source in ("t.h5", "t.xyz"):
                out = "from_" + source.replace(".", "_")
                r = run(choc, d, config_text(dimension, out + ".xyz", "xyz"), "--set",
                        f"init.from={source}", "--set", f"output.summary={out}.json", "--set",
                        f"output.timeseries.path={out}.csv")
                check(r.returncode == 0, f"{dimension}D from {source}: exit {r.returncode}: "
                      f"{r.stderr}")
                summary = cli.read_summary(d, out + ".json")
                frames = read_xyz(os.path.join(d, out + ".xyz"))
                again[source] = (summary["kinetic_energy"], summary["momentum"],
                                 summary["collisions"], frames[-1][3], frames[-1][1],
                                 [f[0] for f in frames])
            check(again["t.h5"] == again["t.xyz"],
                  f"{dimension}D: the runs from the H5MD and the XYZ frame differ")
            check(again["t.h5"][5][0] == 2.0, f"{dimension}D: the clock did not go on from the "
                  f"frame's time ({again['t.h5'][5][0]})")


def zero_free_space(data):
    """The bytes of an H5MD file with the free-space object of each global heap collection
    (where its variable-length strings live) given size 0, as fuzz_h5md found it: HDF5
    1.10.8's parser of the collection then never moves on (H5Aread -> H5HG_read looped for
    ever). Collection: "GCOL", version 1, 3 reserved bytes, size (u64); objects: index
    (u16), references (u16), reserved (4), size (u64), the bytes padded to 8."""
    data = bytearray(data)
    at, patched = 0, 0
    while (at := data.find(b"GCOL", at)) >= 0:
        if data[at + 4] == 1:
            (size,) = struct.unpack_from("<Q", data, at + 8)
            o = at + 16
            while o + 16 <= at + size:
                index, _, _, object_size = struct.unpack_from("<HHIQ", data, o)
                if index == 0:
                    struct.pack_into("<Q", data, o + 8, 0)
                    patched += 1
                    break
                o += 16 + (object_size + 7) // 8 * 8
        at += 4
    check(patched > 0, "no global heap collection with free space found")
    return bytes(data)


def case_init_from_damaged_heap(choc):
    """init.from naming a trajectory whose heap collection of strings is damaged so that
    HDF5 would read it for ever (fuzz_h5md's finding): exit 2 within a few seconds, one
    `choc: error:` line naming init.from and the file, nothing written. (Before, `choc run`
    hung inside HDF5 and SIGTERM did not end it.) A FIFO given as init.from likewise: its
    signature check blocked opening it."""
    with tempfile.TemporaryDirectory() as d:
        r = run(choc, d, config_text(3, "t.h5", "h5md"))
        check(r.returncode == 0, f"the trajectory: exit {r.returncode}: {r.stderr}")
        with open(os.path.join(d, "t.h5"), "rb") as f:
            damaged = zero_free_space(f.read())
        with tempfile.TemporaryDirectory() as e:
            for name in ("damaged.h5", "fifo.h5"):
                if name == "fifo.h5":
                    os.mkfifo(os.path.join(e, name))
                else:
                    with open(os.path.join(e, name), "wb") as f:
                        f.write(damaged)
                text = config_text(3, "out.xyz", "xyz").replace("packing_fraction = 0.25\n", "")
                start = time.monotonic()
                try:
                    r = cli.run(choc, e, "--set", f"init.from={name}", toml=text, timeout=30)
                except Failure:
                    raise Failure(f"{name}: still running after 30 s (a hang)")
                took = time.monotonic() - start
                refused_cleanly(r, e, ["init.from"], keep={"damaged.h5", "fifo.h5"})
                check(name in r.stderr, f"{name}: stderr {r.stderr!r} does not name the file")
                check(took < 10, f"{name}: refused after {took:.1f} s")


def case_signal_during_hdf5_read(choc):
    """SIGTERM while `choc run` is inside an HDF5 read of init.from (held there by the test
    hook CHOC_TEST_HDF5_STALL, as a read that never returns would be: HDF5 polls no flag):
    status 130 within two seconds, "interrupted while reading init.from", and nothing
    written (the run's lock files removed)."""
    with tempfile.TemporaryDirectory() as d:
        r = run(choc, d, config_text(3, "t.h5", "h5md"))
        check(r.returncode == 0, f"the trajectory: exit {r.returncode}: {r.stderr}")
        with tempfile.TemporaryDirectory() as e:
            shutil.copy(os.path.join(d, "t.h5"), os.path.join(e, "from.h5"))
            text = config_text(3, "out.xyz", "xyz").replace("packing_fraction = 0.25\n", "")
            p = cli.start(choc, e, "--set", "init.from=from.h5", toml=text,
                          stderr=subprocess.PIPE, text=True,
                          env={**os.environ, "CHOC_TEST_HDF5_STALL": "1"})
            try:
                line = p.stderr.readline()  # the hook says when the read is held
                check("CHOC_TEST_HDF5_STALL" in line, f"no word from the hook: {line!r}")
                time.sleep(0.2)
                sent = time.monotonic()
                p.send_signal(signal.SIGTERM)
                try:
                    status = p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    raise Failure("still running 10 s after SIGTERM")
                took = time.monotonic() - sent
                rest = p.stderr.read()
            finally:
                p.kill()
                p.wait()
            check(status == 130, f"exit {status}, expected 130: {rest!r}")
            check(took < 2, f"ended {took:.1f} s after SIGTERM")
            check("interrupted while reading init.from" in rest and "nothing was written" in rest,
                  f"stderr {rest!r}")
            left = set(os.listdir(e)) - {"config.toml", "from.h5"}
            check(not left, f"left behind {sorted(left)}")


def case_bad_frames(choc):
    """init.from refuses a last frame that XYZ and H5MD alike cannot start from, naming the
    file and the datum: a time that is NaN or beyond the magnitude band (1e300 would label
    every frame), a box edge beyond it, a non-diagonal H5MD box (XYZ refuses one), and an
    H5MD frame that declares 400 million particles (not an out-of-memory message about the
    config's N). Exit 2, and nothing written."""
    with tempfile.TemporaryDirectory() as d:
        text = config_text(3, "t.h5", "h5md").replace("time = 2.0", "time = 0.5")
        r = run(choc, d, text)
        check(r.returncode == 0, f"writing t.h5: exit {r.returncode}: {r.stderr}")
        r = run(choc, d, config_text(3, "t.xyz", "xyz").replace("time = 2.0", "time = 0.5"))
        check(r.returncode == 0, f"writing t.xyz: exit {r.returncode}: {r.stderr}")
        with open(os.path.join(d, "t.xyz")) as f:
            lines = f.read().splitlines(keepends=True)
        last = max(i for i, line in enumerate(lines) if line.startswith("Lattice="))
        frame = lines[last - 1:]  # count line, comment line, particles

        def h5(change):
            def write(path):
                shutil.copy(os.path.join(d, "t.h5"), path)
                with h5py.File(path, "r+") as f:
                    change(f["particles/all"])
            return write

        def xyz(old, new):
            def write(path):
                with open(path, "w") as f:
                    f.write(frame[0] + frame[1].replace(old, new, 1) + "".join(frame[2:]))
            return write

        def set_time(value):
            def change(g):
                g["position/time"][-1] = value
            return change

        def set_edge(a, b, value):
            def change(g):
                edges = g["box/edges/value"]
                last = edges[-1]
                last[a, b] = value
                edges[-1] = last
            return change

        def declare_many(g):
            # 400 million particles, none of them stored (chunks never written: a small file)
            for name in ("position", "velocity"):
                del g[name + "/value"]
                g.create_dataset(name + "/value", shape=(1, 400_000_000, 3), dtype="f8",
                                 chunks=(1, 4096, 3))

        lattice = re.search(r'Lattice="([^"]*)"', frame[1]).group(1)
        edge = lattice.split()[0]
        time_value = re.search(r" Time=(\S+)", frame[1]).group(1)
        cases = [
            ("H5MD time NaN", "bad.h5", h5(set_time(float("nan"))),
             ["position/time", "got nan"]),
            ("H5MD time 1e300", "bad.h5", h5(set_time(1e300)), ["position/time", "1e+300"]),
            ("H5MD non-diagonal edges", "bad.h5", h5(set_edge(0, 1, 0.5)),
             ["box/edges: the last frame's box is not diagonal"]),
            ("H5MD edge 1e300", "bad.h5", h5(set_edge(1, 1, 1e300)), ["box/edges", "1e+300"]),
            ("H5MD 400 million particles", "bad.h5", h5(declare_many),
             ["holds 400000000 particles, more than the 150 of the config's [[species]]"]),
            ("XYZ time 1e300", "bad.xyz", xyz(f"Time={time_value}", "Time=1e300"),
             ["Time=", "1e+300"]),
            ("XYZ Lattice 1e300", "bad.xyz",
             xyz(f'Lattice="{edge} ', 'Lattice="1e300 '), ["Lattice=", "1e+300"]),
        ]
        for name, bad, write, names in cases:
            with tempfile.TemporaryDirectory() as e:
                write(os.path.join(e, bad))
                # (no packing fraction: the box is the frame's alone)
                text = config_text(3, "out.xyz", "xyz").replace("packing_fraction = 0.25\n", "")
                r = run(choc, e, text, "--set", f"init.from={bad}")
                try:
                    refused_cleanly(r, e, [n for n in names], keep={bad})
                    check(all(n in r.stderr for n in names) and bad in r.stderr,
                          f"stderr {r.stderr!r} does not name {bad} and all of {names}")
                except Failure as failure:
                    raise Failure(f"{name}: {failure}")


def h5md_arrays(path):
    """Every dataset of an H5MD file but the provenance, by path."""
    out = {}
    with h5py.File(path, "r") as f:
        def take(name, node):
            if isinstance(node, h5py.Dataset) and not name.startswith("parameters"):
                out[name] = node[()]
        f.visititems(take)
    return out


def case_checkpoint(choc):
    """A checkpointed H5MD run stopped (an extension of a shorter run, and SIGKILL after
    the first checkpoints) and continued has every dataset of one uninterrupted run,
    equal to the bit."""
    text = config_text(3, "t.h5", "h5md").replace(
        "time = 2.0", "time = 4.0") + 'checkpoint = { path = "state.chk", every = 0.3 }\n'
    with tempfile.TemporaryDirectory() as d:
        r = run(choc, d, text)
        check(r.returncode == 0, f"uninterrupted run: exit {r.returncode}: {r.stderr}")
        expected = h5md_arrays(os.path.join(d, "t.h5"))
        check(expected["particles/all/position/value"].shape[0] == 9, "expected 9 frames")

        def compare(what):
            got = h5md_arrays(os.path.join(d, "t.h5"))
            check(sorted(got) == sorted(expected), f"{what}: datasets {sorted(got)}")
            for name, value in expected.items():
                check(got[name].shape == value.shape and
                      numpy.array_equal(got[name], value, equal_nan=True),
                      f"{what}: {name} differs from the uninterrupted run")

        for limit in ("1.1", "2.5"):
            for f in ("t.h5", "state.chk"):
                os.remove(os.path.join(d, f))
            r = run(choc, d, text, "--set", f"run.time={limit}")
            check(r.returncode == 0, f"run.time = {limit}: exit {r.returncode}: {r.stderr}")
            r = run(choc, d, text, "--continue", "state.chk")
            check(r.returncode == 0, f"continued from {limit}: exit {r.returncode}: {r.stderr}")
            compare(f"run.time = {limit} continued")
        # killed outright once a checkpoint exists: the file holds frames past it, which
        # the continuation drops before it appends
        os.remove(os.path.join(d, "state.chk"))
        p = cli.start(choc, d, toml=text)
        cli.wait_for(p, os.path.join(d, "state.chk"), poll=0.002)
        p.kill()
        p.wait()
        if p.returncode == -9:
            r = run(choc, d, text, "--continue", "state.chk")
            check(r.returncode == 0, f"after SIGKILL: exit {r.returncode}: {r.stderr}")
            compare("continued after SIGKILL")

KILLED = """dimension = 3
[box]
packing_fraction = 0.2
[[species]]
name = "A"
count = 500
[init]
lattice = "fcc"
seed = 3
[run]
time = 0.8
[output]
summary = "summary.json"
trajectory = { path = "t.h5", every = 0.004, format = "h5md" }
timeseries = { path = "series.csv", every = 0.05 }
checkpoint = { path = "state.chk", every = 0.1 }
"""


def case_killed_mid_write(choc):
    """SIGKILL at a random moment of a run that spends most of its time in HDF5 writes
    (201 frames of 500 spheres): the continuation ends with status 0 and every dataset of
    the uninterrupted run, equal to the bit. (Reading the killed file with HDF5 failed or
    crashed: in place, 3 of 6 continuations failed mid-run with "cannot write position"
    and 2 of 12 crashed; through a checked copy, 2 of 3 crashed with "corrupted size vs.
    prev_size", a heap overflow in H5Fflush under ASan. The continuation now puts back the
    bytes HDF5 rewrote after the checkpoint from the file's journal first.) A refusal
    (status 2) would leave the file as the killed run left it, but none is expected: the
    journal always holds the checkpoint's bytes."""
    import hashlib
    import random
    rng = random.Random(41)
    with tempfile.TemporaryDirectory() as d:
        start = time.monotonic()
        r = run(choc, d, KILLED)
        wall = time.monotonic() - start
        check(r.returncode == 0, f"uninterrupted run: exit {r.returncode}: {r.stderr}")
        expected = h5md_arrays(os.path.join(d, "t.h5"))
        check(expected["particles/all/position/value"].shape[0] == 201, "expected 201 frames")
        for trial in range(3):
            for f in os.listdir(d):
                if f != "config.toml":
                    os.remove(os.path.join(d, f))
            p = cli.start(choc, d)
            cli.wait_for(p, os.path.join(d, "state.chk"), poll=0.002)
            delay = rng.uniform(0.0, 0.6) * wall
            time.sleep(delay)
            p.kill()
            p.wait()
            what = f"killed {delay:.2f} s after the first checkpoint"
            if p.returncode != -9:
                continue  # it ended first
            path = os.path.join(d, "t.h5")
            before = hashlib.sha256(open(path, "rb").read()).hexdigest()
            r = run(choc, d, KILLED, "--continue", "state.chk")
            if r.returncode == 2:
                check(hashlib.sha256(open(path, "rb").read()).hexdigest() == before,
                      f"{what}: the refused continuation changed the file: {r.stderr}")
            check(r.returncode == 0, f"{what}: --continue: exit {r.returncode}: {r.stderr}")
            got = h5md_arrays(path)
            check(sorted(got) == sorted(expected), f"{what}: datasets {sorted(got)}")
            for name, value in expected.items():
                check(got[name].shape == value.shape and
                      numpy.array_equal(got[name], value, equal_nan=True),
                      f"{what}: {name} differs from the uninterrupted run")


def case_mdanalysis(choc):
    """README's MDAnalysis recipe on a 3D file: every frame's time, box, velocities and
    collision count as h5py reads them (MDAnalysis in single precision). MDAnalysis comes
    with ./quickstart (Debian's python3-mdanalysis): without it the case fails."""
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # (its xdrlib import)
            import MDAnalysis as mda
    except ImportError as e:
        raise Failure(f"MDAnalysis is not importable ({e}): ./quickstart installs "
                      "python3-mdanalysis")
    with tempfile.TemporaryDirectory(prefix="choc-h5md-") as d:
        r = run(choc, d, config_text(3, "trajectory.h5", "h5md"))
        check(r.returncode == 0, f"h5md run: exit {r.returncode}: {r.stderr}")
        path = os.path.join(d, "trajectory.h5")
        with h5py.File(path, "r") as h5:
            p = h5["particles/all"]
            n = p["species"].shape[0]
            times = p["position/time"][()]
            edges = p["box/edges/value"][()]
            velocities = p["velocity/value"][()]
            collisions = h5["observables/collisions/value"][()]
        u = mda.Universe.empty(n, trajectory=True)
        u.load_new(path, format="H5MD", convert_units=False)
        check(len(u.trajectory) == len(times) == 5,
              f"MDAnalysis reads {len(u.trajectory)} frames, h5py {len(times)}")
        for k, ts in enumerate(u.trajectory):
            check(ts.time == numpy.float32(times[k]), f"frame {k}: time {ts.time}, {times[k]}")
            box = [float(numpy.float32(edges[k][a][a])) for a in range(3)]
            check(list(ts.dimensions) == box + [90.0, 90.0, 90.0],
                  f"frame {k}: dimensions {list(ts.dimensions)}, edges {box}")
            check(ts.velocities.shape == (n, 3) and
                  numpy.array_equal(ts.velocities, velocities[k].astype(numpy.float32)),
                  f"frame {k}: velocities differ from h5py's")
            check(int(ts.data["collisions"]) == int(collisions[k]),
                  f"frame {k}: collisions {ts.data['collisions']}, {collisions[k]}")


def case_unwrapped(choc):
    """Image counts (H5MD particles/all/image, the XYZ image column): the frames' positions
    plus image times edges, unwrapped, give the mean-squared displacement choc measures
    (its time series' msd at the same times), in 2D and 3D; the two formats give the same
    counts. A dilute gas over 30 time units crosses its box several times."""
    for dimension in (2, 3):
        with tempfile.TemporaryDirectory(prefix="choc-h5md-") as d:
            counts = {}
            for fmt in ("h5md", "xyz"):
                out = os.path.join(d, fmt)
                os.mkdir(out)
                text = f"""dimension = {dimension}
[box]
packing_fraction = 0.03
[[species]]
name = "a"
count = 40
radius = 0.5
[init]
lattice = "random"
seed = 5
[run]
time = 30.0
[output]
trajectory = {{ path = "t.{fmt}", every = 1.0, format = "{fmt}" }}
timeseries = {{ path = "series.csv", every = 1.0 }}
"""
                r = run(choc, out, text)
                check(r.returncode == 0, f"{dimension}D {fmt}: exit {r.returncode}: {r.stderr}")
                rows = cli.read_rows(os.path.join(out, "series.csv"))
                if fmt == "h5md":
                    with h5py.File(os.path.join(out, "t.h5md"), "r") as h5:
                        p = h5["particles/all"]
                        x, image = p["position/value"][()], p["image/value"][()]
                        times = p["position/time"][()]
                        edges = p["box/edges/value"][()]
                        check(p["image/value"].dtype == numpy.int64, "image is not int64")
                        check(list(p["image/time"][()]) == list(times), "image times")
                    lengths = numpy.array([edges[0][a][a] for a in range(dimension)])
                else:
                    frames = cli.read_xyz(os.path.join(out, "t.xyz"))
                    x = numpy.array([[q[:dimension] for q in f.column("pos")] for f in frames])
                    image = numpy.array([[q[:dimension] for q in f.column("image", int)]
                                         for f in frames])
                    times = [f.time for f in frames]
                counts[fmt] = (x, image)
                check(len(times) == 31, f"{len(times)} frames, expected 31")
                unwrapped = x + image * lengths
                by_time = {float(r["time"]): float(r["msd"]) for r in rows}
                for k, t in enumerate(times):
                    msd = numpy.mean(numpy.sum((unwrapped[k] - unwrapped[0]) ** 2, axis=1))
                    expected = by_time[float(t)]
                    # both are sums of the same exact steps: equal to round-off; one count
                    # wrong by one would move the mean by an edge squared over N, 2 or more
                    check(abs(msd - expected) <= 1e-9 * max(expected, 1.0),
                          f"{dimension}D {fmt} frame {k}: MSD from unwrapped frames {msd}, "
                          f"series msd {expected}")
                check(numpy.abs(image).max() >= 2,
                      f"{dimension}D {fmt}: images at most {numpy.abs(image).max()}: a weak test")
            check(numpy.array_equal(counts["h5md"][0], counts["xyz"][0]) and
                  numpy.array_equal(counts["h5md"][1], counts["xyz"][1]),
                  f"{dimension}D: XYZ and H5MD frames or image counts differ")


CASES = [("h5md_2d_against_xyz", case_2d), ("h5md_3d_against_xyz", case_3d),
         ("unwrapped", case_unwrapped),
         ("mdanalysis", case_mdanalysis),
         ("bad_format", case_bad_format), ("checkpoint", case_checkpoint),
         ("killed_mid_write", case_killed_mid_write), ("init_from", case_init_from),
         ("init_from_damaged_heap", case_init_from_damaged_heap),
         ("signal_during_hdf5_read", case_signal_during_hdf5_read),
         ("bad_frames", case_bad_frames), ("missing_directory", case_missing_directory),
         ("full_disk", case_full_disk)]


def main():
    # CASE...: only the named cases (`cli_h5md.py CHOC killed_mid_write`, to repeat one)
    if len(sys.argv) < 2 or any(a not in dict(CASES) for a in sys.argv[2:]):
        cli.usage(__doc__)
        return 2
    choc = os.path.abspath(sys.argv[1])
    chosen = [c for c in CASES if len(sys.argv) == 2 or c[0] in sys.argv[2:]]
    # (KeyError, ...: a file not as docs/REFERENCE.md says)
    return cli.run_cases(chosen, choc, catch=(KeyError, TypeError, ValueError, IndexError))


if __name__ == "__main__":
    sys.exit(main())
