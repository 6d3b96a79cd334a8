"""choc.collide against `choc collide --json`."""

import glob
import json

import pytest

import choc
from conftest import data, run_cli


@pytest.mark.parametrize("path", sorted(glob.glob(data("collide", "*.toml"))))
def test_same_as_cli(path, tmp_path):
    status, out, err = run_cli(["collide", path, "--json"], tmp_path)
    assert status == 0, err
    assert choc.collide(path) == json.loads(out)
    with open(path) as f:
        assert choc.collide(f.read()) == json.loads(out)


def test_dict_group():
    # a disc at rest hit head-on by an equal one: they swap velocities
    result = choc.collide({
        "dimension": 2,
        "bodies": [
            {"position": [0.0, 0.0], "velocity": [1.0, 0.0], "radius": 0.5, "mass": 1.0},
            {"position": [1.0, 0.0], "velocity": [0.0, 0.0], "radius": 0.5, "mass": 1.0},
        ],
    })
    assert result["bodies"][0]["velocity_after"] == pytest.approx([0.0, 0.0])
    assert result["bodies"][1]["velocity_after"] == pytest.approx([1.0, 0.0])
    assert result["contacts"][0]["impulse"] == pytest.approx([-1.0, 0.0])
    assert result["kinetic_energy"]["before"] == pytest.approx(result["kinetic_energy"]["after"])


def test_bad_group_same_message_as_cli(tmp_path):
    path = tmp_path / "apart.toml"
    path.write_text("dimension = 2\n"
                    "[[bodies]]\nposition = [0.0, 0.0]\nvelocity = [1.0, 0.0]\n"
                    "radius = 0.5\nmass = 1.0\n"
                    "[[bodies]]\nposition = [3.0, 0.0]\nvelocity = [0.0, 0.0]\n"
                    "radius = 0.5\nmass = 1.0\n")
    status, _, err = run_cli(["collide", str(path)], tmp_path)
    assert status == 2
    with pytest.raises(choc.InputError) as e:
        choc.collide(str(path))
    assert "choc: error: " + str(e.value) == err.strip().splitlines()[-1]
