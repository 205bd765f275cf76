"""Tier 1: the pins live in constraints.txt and stacks/*.txt; environment.yml and pyproject.toml
agree with them."""

import re
import subprocess
from pathlib import Path

import pytest
import yaml

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python >= 3.11")

ROOT = Path(__file__).resolve().parents[1]


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def constraints(stack: str = "cpu") -> dict[str, str]:
    """The pins of one install: constraints.txt and stacks/STACK.txt together."""
    pins = {}
    for path in (ROOT / "constraints.txt", ROOT / "stacks" / f"{stack}.txt"):
        for line in path.read_text().splitlines():
            line = line.split("#")[0].strip()
            if line:
                name, _, version = line.partition("==")
                assert version, f"{path.name}: expected NAME==VERSION, got {line!r}"
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


# The extras each stack installs (the Makefile's EXTRAS); `hosted` keeps a hosted image's pins.
STACK_EXTRAS = {
    "cpu": ("course", "dev", "metal", "ptx"),
    "cu12": ("course", "dev", "metal", "cuda12"),
    "cu13": ("course", "dev", "metal", "cuda13"),
}


@pytest.mark.parametrize("stack", sorted(STACK_EXTRAS))
def test_every_dependency_of_pyproject_is_pinned(stack):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in STACK_EXTRAS[stack]:
        reqs += project["optional-dependencies"][extra]
    pins = constraints(stack)
    for req in reqs:
        name = norm(re.split(r"[\[<>=;! ]", req, maxsplit=1)[0])
        assert name in pins, f"{req!r} from pyproject.toml has no pin for the {stack} stack"


def test_compiler_wheels_are_pinned_where_pdc_ptx_needs_them():
    # Without a GPU, `pdc ptx`, `pdc.resources` and the exercise checks compile with these.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = constraints("cpu")
    for wheel in ("nvidia-cuda-nvcc-cu12", "nvidia-cuda-nvrtc-cu12"):
        assert pins[wheel] == "12.9.86"
        assert any(r.startswith(wheel) for r in project["optional-dependencies"]["ptx"]), wheel
    # On a GPU machine the compiler comes with the stack, in its CUDA major.
    assert constraints("cu12")["nvidia-cuda-nvcc-cu12"].startswith("12.")
    assert constraints("cu13")["nvidia-cuda-nvcc"].startswith("13.")


def test_torch_is_pinned_per_stack_to_a_build_of_its_cuda_major():
    # torch on the package index: 2.10.0 is built with CUDA 12.8, 2.13.0 with CUDA 13.0.
    assert constraints("cpu")["torch"] == "2.13.0"
    assert constraints("cu12")["torch"] == "2.10.0"
    assert constraints("cu13")["torch"] == "2.13.0"


def test_triton_is_pinned_per_stack_to_the_release_its_torch_requires():
    # torch 2.13.0's Linux wheel requires triton 3.7.1 (pip's dry run against the index),
    # torch 2.10.0's triton 3.6.0.
    assert constraints("cpu")["triton"] == "3.7.1"
    assert constraints("cu12")["triton"] == "3.6.0"
    assert constraints("cu13")["triton"] == "3.7.1"


def test_makefile_installs_with_the_constraints_of_its_stack():
    makefile = (ROOT / "Makefile").read_text()
    assert "-c constraints.txt -c stacks/$(STACK).txt" in makefile
    for stack, extras in STACK_EXTRAS.items():
        run = subprocess.run(
            ["make", "-n", "--no-print-directory", "env", f"STACK={stack}", "VENV=/nonexistent"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert f'-c stacks/{stack}.txt -e ".[{",".join(extras)}]"' in run.stdout, run.stdout
