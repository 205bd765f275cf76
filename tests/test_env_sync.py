"""Tier 1: the pins live in constraints.txt; environment.yml and pyproject.toml agree with it."""

import re
from pathlib import Path

import pytest
import yaml

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python >= 3.11")

ROOT = Path(__file__).resolve().parents[1]


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def constraints() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: expected NAME==VERSION, got {line!r}"
            pins[norm(name)] = version
    return pins


def test_environment_yml_pip_section_matches_the_pins():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    pins = constraints()
    checked = 0
    for req in pip:
        if req.startswith("-e"):
            continue
        spec = req.split(";")[0].strip()  # an environment marker may follow the pin
        name, _, version = spec.partition("==")
        assert version, f"environment.yml: expected a pinned NAME==VERSION, got {req!r}"
        assert pins.get(norm(name)) == version, (
            f"environment.yml pins {name}=={version}, constraints.txt has {pins.get(norm(name))}"
        )
        checked += 1
    assert checked >= 15


def test_every_dependency_of_pyproject_is_pinned():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for group in project["optional-dependencies"].values():
        reqs += group
    pins = constraints()
    for req in reqs:
        name = norm(re.split(r"[\[<>=;! ]", req, maxsplit=1)[0])
        assert name in pins, f"{req!r} from pyproject.toml has no pin in constraints.txt"


def test_compiler_wheels_are_pinned_where_pdc_ptx_needs_them():
    # `pdc ptx`, `pdc.resources` and the exercise checks compile for sm_80/sm_90 with these.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = constraints()
    for wheel in ("nvidia-cuda-nvcc-cu12", "nvidia-cuda-nvrtc-cu12"):
        assert pins[wheel] == "12.9.86"
        for extra in ("dev", "course"):
            reqs = project["optional-dependencies"][extra]
            assert any(r.startswith(f"{wheel}==12.9.86") for r in reqs), (wheel, extra)


def test_torch_is_pinned_to_the_cpu_build_version():
    # An unpinned torch pulls a multi-GB CUDA build; 2.13.0 is the local CPU wheel.
    assert constraints()["torch"] == "2.13.0"


def test_makefile_installs_with_the_constraints():
    makefile = (ROOT / "Makefile").read_text()
    assert "-c constraints.txt" in makefile
