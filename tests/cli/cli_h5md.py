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

import csv
import json
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

try:
    import h5py
    import numpy
except ImportError as e:
    print(f"FAIL: h5py is not importable ({e}); install Debian's python3-h5py and run this "
          "with /usr/bin/python3", flush=True)
    sys.exit(1)


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


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
    with open(os.path.join(d, "config.toml"), "w") as f:
        f.write(text)
    return subprocess.run([choc, "run", "config.toml", "--quiet", *args], cwd=d,
                          capture_output=True, text=True, timeout=120)


def comment_fields(comment):
    """key=value and key="quoted value" pairs of an extended XYZ comment line (a backslash
    escapes the next character inside quotes, as choc writes its provenance keys)."""
    fields, i = {}, 0
    while i < len(comment):
        while i < len(comment) and comment[i] == " ":
            i += 1
        if i == len(comment):
            break
        eq = comment.index("=", i)
        key, i = comment[i:eq], eq + 1
        value = ""
        if i < len(comment) and comment[i] == '"':
            i += 1
            while comment[i] != '"':
                if comment[i] == "\\":
                    i += 1
                value += comment[i]
                i += 1
            i += 1
        else:
            end = comment.find(" ", i)
            end = len(comment) if end < 0 else end
            value, i = comment[i:end], end
        fields[key] = value
    return fields


def read_xyz(path):
    """[(time, lattice, pbc, [(type, [x y z], [vx vy vz], radius, mass)])] of every frame,
    the columns found by the Properties= key (so either layout choc writes is read)."""
    frames = []
    with open(path) as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        n = int(lines[i])
        fields = comment_fields(lines[i + 1])
        props, column = fields["Properties"].split(":"), {}
        at = 0
        for k in range(0, len(props), 3):
            column[props[k]] = at
            at += int(props[k + 2])
        mass = column.get("masses", column.get("mass"))
        lattice = [float(w) for w in fields["Lattice"].split()]
        particles = []
        for line in lines[i + 2 : i + 2 + n]:
            w = line.split()
            pos, velo = column["pos"], column["velo"]
            particles.append((w[column["type"]], [float(x) for x in w[pos : pos + 3]],
                              [float(x) for x in w[velo : velo + 3]],
                              float(w[column["radius"]]), float(w[mass])))
        frames.append((float(fields["Time"]), lattice, fields["pbc"].split(), particles))
        i += 2 + n
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
        with open(os.path.join(h5_dir, "summary.json")) as f:
            summary = json.load(f)
        frames = read_xyz(os.path.join(xyz_dir, "t.xyz"))
        n = len(frames[0][3])
        check(len(frames) == 5, f"{len(frames)} XYZ frames, expected 5 (t = 0, 0.5, ..., 2)")
        with open(os.path.join(h5_dir, "series.csv")) as f:  # ('#' lines: provenance)
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))

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
        r = run(choc, d, config_text(3, "t.h5", "hdf5"))
        lines = r.stderr.splitlines()
        check(r.returncode == 2, f"exit {r.returncode}, expected 2: {r.stderr}")
        check(len(lines) == 1 and lines[0].startswith("choc: error:") and
              "output.trajectory.format" in lines[0] and '"hdf5"' in lines[0],
              f"stderr {r.stderr!r}")
        check(os.listdir(d) == ["config.toml"], f"files written: {os.listdir(d)}")


def case_missing_directory(choc):
    """A trajectory path in a missing directory: refused up front, nothing written."""
    with tempfile.TemporaryDirectory(prefix="choc-h5md-") as d:
        r = run(choc, d, config_text(2, "missing/t.h5", "h5md"))
        check(r.returncode == 2 and "output.trajectory.path" in r.stderr,
              f"exit {r.returncode}: {r.stderr}")
        check(os.listdir(d) == ["config.toml"], f"files written: {os.listdir(d)}")


class Skip(Exception):
    pass


def refused_cleanly(r, d, keys, keep=()):
    """Exit 2, one `choc: error:` line naming one of `keys` (no HDF5 error stack printed),
    and nothing of the run left behind: no output, no temporary."""
    lines = r.stderr.splitlines()
    check(r.returncode == 2, f"exit {r.returncode}, expected 2: {r.stderr!r}")
    check(len(lines) == 1 and lines[0].startswith("choc: error:") and
          any(k in lines[0] for k in keys), f"stderr {r.stderr!r}")
    left = set(os.listdir(d)) - {"config.toml", *keep}
    check(not left, f"left behind {sorted(left)}")


def case_full_disk(choc):
    """A 4 MB file system: an H5MD trajectory that outgrows half of it stops the run
    (there is no up-front bound for compressed frames); on a disk full but for two pages
    the file cannot even start. Either way exit 2 and nothing left."""
    if os.geteuid() != 0:
        raise Skip("mounting a tmpfs needs root")
    d = tempfile.mkdtemp(prefix="choc-h5md-")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", d],
                      capture_output=True).returncode != 0:
        os.rmdir(d)
        raise Skip("mount -t tmpfs not permitted here")
    try:
        text = config_text(2, "t.h5", "h5md").replace("every = 0.5", "every = 0.002")
        refused_cleanly(run(choc, d, text), d, ["output.trajectory.every"])
        with open(os.path.join(d, "filler"), "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * 4096)
            except OSError:
                pass
        os.truncate(os.path.join(d, "filler"), os.path.getsize(os.path.join(d, "filler")) - 8192)
        refused_cleanly(run(choc, d, config_text(2, "t.h5", "h5md")), d,
                        ["output.trajectory.every", "output.trajectory.path"], keep={"filler"})
    finally:
        subprocess.run(["umount", d])
        os.rmdir(d)


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
                with open(os.path.join(d, out + ".json")) as f:
                    summary = json.load(f)
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
                with open(os.path.join(e, "config.toml"), "w") as f:
                    f.write(text)
                start = time.monotonic()
                try:
                    r = subprocess.run([choc, "run", "config.toml", "--quiet", "--set",
                                        f"init.from={name}"], cwd=e, capture_output=True,
                                       text=True, timeout=30)
                except subprocess.TimeoutExpired:
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
            with open(os.path.join(e, "config.toml"), "w") as f:
                f.write(text)
            p = subprocess.Popen([choc, "run", "config.toml", "--quiet", "--set",
                                  "init.from=from.h5"], cwd=e, stdout=subprocess.DEVNULL,
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
        with open(os.path.join(d, "config.toml"), "w") as f:
            f.write(text)
        p = subprocess.Popen([choc, "run", "config.toml", "--quiet"], cwd=d,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while p.poll() is None and not os.path.exists(os.path.join(d, "state.chk")):
            time.sleep(0.002)
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
            p = subprocess.Popen([choc, "run", "config.toml", "--quiet"], cwd=d,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            while p.poll() is None and not os.path.exists(os.path.join(d, "state.chk")):
                time.sleep(0.002)
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


CASES = [("h5md_2d_against_xyz", case_2d), ("h5md_3d_against_xyz", case_3d),
         ("bad_format", case_bad_format), ("checkpoint", case_checkpoint),
         ("killed_mid_write", case_killed_mid_write), ("init_from", case_init_from),
         ("init_from_damaged_heap", case_init_from_damaged_heap),
         ("signal_during_hdf5_read", case_signal_during_hdf5_read),
         ("bad_frames", case_bad_frames), ("missing_directory", case_missing_directory),
         ("full_disk", case_full_disk)]


def main():
    # CASE...: only the named cases (`cli_h5md.py CHOC killed_mid_write`, to repeat one)
    if len(sys.argv) < 2 or any(a not in dict(CASES) for a in sys.argv[2:]):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    choc = os.path.abspath(sys.argv[1])
    failed = 0
    for name, case in [c for c in CASES if len(sys.argv) == 2 or c[0] in sys.argv[2:]]:
        try:
            case(choc)
            print(f"ok {name}", flush=True)
        except Skip as e:
            print(f"skip {name}: {e}", flush=True)
        except Failure as e:
            print(f"FAIL {name}: {e}", flush=True)
            failed += 1
        except (KeyError, TypeError, ValueError, IndexError) as e:
            print(f"FAIL {name}: file not as docs/REFERENCE.md says: {e!r}", flush=True)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
