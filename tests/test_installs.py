"""Every supported install resolves: stack files checked offline, pip dry runs online.

The online test reaches the package index and takes about three minutes, so it is marked
``network``, deselected by default and run by ``make check-installs`` (its own CI step).
"""

import re
import urllib.request
from pathlib import Path

import pytest

from pdc.backends import _probe
from tests import install_check as ic

ROOT = Path(__file__).resolve().parents[1]


def pins(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"{path.name}: expected NAME==VERSION, got {line!r}"
            out[re.sub(r"[-_.]+", "-", name).lower()] = version
    return out


@pytest.mark.parametrize("stack,major", [("cu12", 12), ("cu13", 13)])
def test_each_cuda_stack_pins_one_cuda_major(stack, major):
    stack_pins = pins(ROOT / "stacks" / f"{stack}.txt")
    assert ic.mixed_majors(stack_pins, major) == []
    assert stack_pins["cuda-bindings"].split(".")[0] == str(major)
    assert stack_pins["cuda-toolkit"].split(".")[0] == str(major)
    # numba-cuda links with nvJitLink of the same major (no PTX JIT in an older driver).
    jitlink = "nvidia-nvjitlink-cu12" if major == 12 else "nvidia-nvjitlink"
    assert stack_pins[jitlink].split(".")[0] == str(major)
    assert f"cupy-cuda{major}x" in stack_pins


def test_stacks_do_not_repeat_the_shared_pins():
    shared = pins(ROOT / "constraints.txt")
    for stack in ("cpu", "cu12", "cu13"):
        both = set(shared) & set(pins(ROOT / "stacks" / f"{stack}.txt"))
        assert not both, f"stacks/{stack}.txt repeats {sorted(both)} from constraints.txt"


def test_mixed_majors_names_the_wheels_of_another_cuda():
    installs = {
        "nvidia-cuda-nvrtc-cu12": "12.8.93",
        "nvidia-cublas": "13.1.1.3",
        "cuda-bindings": "13.5.0",
        "cuda-core": "1.2.2",
    }
    assert ic.mixed_majors(installs, 12) == ["cuda-bindings==13.5.0", "nvidia-cublas==13.1.1.3"]
    assert ic.mixed_majors(installs, 13) == ["nvidia-cuda-nvrtc-cu12==12.8.93"]


def test_pip_problem_keeps_the_conflict_lines():
    stderr = (
        "Collecting torch==2.13.0\n"
        "ERROR: Cannot install numba-cuda[cu12]==0.30.4 and torch==2.13.0 because these package "
        "versions have conflicting dependencies.\n"
        "    numba-cuda[cu12] 0.30.4 depends on cuda-toolkit==12.*\n"
        "    torch 2.13.0 depends on cuda-toolkit==13.0.3\n"
        "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io\n"
    )
    text = ic.pip_problem(stderr)
    assert "depends on cuda-toolkit==12.*" in text and "ResolutionImpossible" in text
    assert "Collecting" not in text


def test_the_combinations_are_the_makefile_stacks_and_the_hosted_images():
    names = {c.name for c in ic.COMBINATIONS}
    assert {"cpu", "cu12", "cu13", "colab-like", "kaggle-like"} <= names
    makefile = (ROOT / "Makefile").read_text()
    assert "-c constraints.txt -c stacks/$(STACK).txt" in makefile
    for combo in ic.COMBINATIONS:
        for c in combo.constraints:
            assert (ROOT / c).is_file(), c
    with pytest.raises(ValueError, match=r"\[install check\] unknown combination"):
        ic.check_all(["cu11"])


@pytest.mark.parametrize(
    "version,stack", [(0, "cpu"), (11080, "cpu"), (12020, "cu12"), (12090, "cu12"), (13000, "cu13")]
)
def test_the_stack_follows_the_driver_cuda_version(version, stack):
    assert _probe.cuda_stack(version) == stack


def _index_reachable() -> bool:
    try:
        urllib.request.urlopen(ic.INDEX + "/pip/", timeout=10).close()
        return True
    except OSError:
        return False


@pytest.mark.network
@pytest.mark.timeout(900)
def test_every_supported_install_resolves_and_the_a1_conflict_is_caught():
    if not _index_reachable():
        pytest.skip(f"the package index {ic.INDEX} cannot be reached from here")
    # What `make env` did on a GPU machine before stacks: the CUDA 12 extra beside torch 2.13.0.
    conflict = ic.Combination(
        "numba-cuda-cu12-with-torch-2.13", ("numba-cuda[cu12]==0.30.4", "torch==2.13.0")
    )
    outcomes = ic.check_many([*ic.COMBINATIONS, conflict])
    by_name = {o.name: o for o in outcomes}
    failed = {o.name: o.problems for o in outcomes if not o.ok and o.name != conflict.name}
    assert not failed, failed
    bad = by_name[conflict.name]
    assert not bad.ok and "ResolutionImpossible" in bad.problems[0], bad.problems
    assert re.search(r"torch 2\.13\.0 depends on cuda-(bindings|toolkit)", bad.problems[0])
    # The hosted images keep their torch and CuPy.
    assert by_name["colab-like"].installs["torch"] == "2.9.0"
    assert by_name["kaggle-like"].installs["cupy-cuda12x"] == "13.4.1"
    assert by_name["cu12"].installs["torch"] == "2.10.0"
