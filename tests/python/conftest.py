"""Shared set-up of the Python module's tests (run by tests/python/meson.build with Debian's
/usr/bin/python3 -m pytest; PYTHONPATH points at the built module, CHOC at the choc
program, CHOC_SOURCE at the source tree)."""

import json
import os
import subprocess

import pytest

# (absolute: the tests run choc in their own temporary directories)
CHOC = os.path.abspath(os.environ["CHOC"]) if os.environ.get("CHOC") else ""
SOURCE = os.environ.get("CHOC_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))


def data(*parts):
    return os.path.join(os.path.abspath(SOURCE), "data", *parts)


def run_cli(args, cwd):
    """`choc ARGS` in `cwd`: (exit status, stdout, stderr)."""
    assert CHOC, "CHOC (the choc program) is not set"
    p = subprocess.run([CHOC] + args, cwd=cwd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def cli_summary(config, sets, cwd):
    """The summary of `choc run CONFIG --set ... --quiet` run in `cwd`."""
    args = ["run", config, "--quiet", "--summary", "summary.json"]
    for s in sets:
        args += ["--set", s]
    status, _, err = run_cli(args, cwd)
    assert status == 0, err
    with open(os.path.join(cwd, "summary.json")) as f:
        return json.load(f)


# Keys of the summary that differ between two runs of the same physics.
NOT_PHYSICS = ("wall_seconds", "collisions_per_second", "provenance")


def physics(summary):
    return {k: v for k, v in summary.items() if k not in NOT_PHYSICS}


@pytest.fixture
def small3d():
    """A 3D gas of 500 spheres with a time series, g(r) and the velocity autocorrelation,
    4 time units."""
    return data("examples", "gas3d.toml"), [
        "species.0.count=500", "run.time=4", "run.equilibrate=1",
        "output.trajectory.every=1",
        'output.timeseries={path="series.csv", every=0.25}', 'output.rdf="rdf.csv"',
        'output.vacf="vacf.csv"']
