"""The grader's layout: exercises are modules that are discovered, the core names none of
them, pdc.ptx stands without pdc.grade, and ptx's tables agree with the exercises."""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from pathlib import Path

import pytest

from pdc.grade import exercises as exs

ROOT = Path(__file__).resolve().parents[1]
GRADE = ROOT / "pdc" / "grade"
PACKAGE = GRADE / "exercises"


def test_every_module_of_the_package_is_an_exercise_in_course_order():
    modules = sorted(p.stem for p in PACKAGE.glob("ex*.py"))
    assert len(modules) == len(exs.ALL_KEYS) >= 13
    assert [m.removeprefix("ex") for m in modules] == list(exs.ALL_KEYS)
    for key in exs.ALL_KEYS:
        assert exs.exercise(key).key == key


def test_a_new_module_is_discovered_without_being_listed(tmp_path, monkeypatch):
    pkg = tmp_path / "more_exercises"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ex99_toy.py").write_text(
        textwrap.dedent(
            """
            from pdc.grade.spec import Exercise
            EXERCISE = Exercise("99_toy", "A toy", [], {})
            """
        )
    )
    (pkg / "ex98_wrong_key.py").write_text(
        "from pdc.grade.spec import Exercise\nEXERCISE = Exercise('01_other', 'x', [], {})\n"
    )
    (pkg / "helpers.py").write_text("")  # not an exercise: no exNN_ prefix
    monkeypatch.syspath_prepend(str(tmp_path))
    found = exs.discover([str(pkg)], "more_exercises")
    assert found == {
        "98_wrong_key": "more_exercises.ex98_wrong_key",
        "99_toy": "more_exercises.ex99_toy",
    }
    assert exs.load("99_toy", found["99_toy"]).title == "A toy"
    with pytest.raises(TypeError, match=r"ex98_wrong_key\.EXERCISE .* '98_wrong_key', got '01_"):
        exs.load("98_wrong_key", found["98_wrong_key"])
    sys.modules.pop("more_exercises", None)


def test_an_unknown_key_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match=r"\[grade\] expected an exercise in \['01_elem"):
        exs.exercise("99_nothing")


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_ptx_imports_nothing_from_the_grader():
    files = sorted((ROOT / "pdc" / "ptx").glob("**/*.py"))
    assert len(files) > 5
    for path in files:
        bad = [n for n in _imports(path) if n == "pdc.grade" or n.startswith("pdc.grade.")]
        assert not bad, (path.name, bad)


def _words() -> set[str]:
    """Every exercise key, its name without the number, and every kernel (part) name."""
    out = set()
    for key in exs.ALL_KEYS:
        out |= {key, key[3:]}
        out |= {p.name for p in exs.exercise(key).parts}
    return out


def test_no_exercise_is_named_in_the_core():
    core = [p for p in sorted(GRADE.glob("*.py"))]
    assert {p.name for p in core} >= {"grader.py", "judge.py", "checking.py", "spec.py"}
    words = _words()
    assert {"conv1d", "softmax", "histogram", "ring", "block_sum"} <= words
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")\b")
    for path in core:
        for k, line in enumerate(path.read_text().splitlines(), 1):
            if line.lstrip().startswith(("import ", "from ")):
                continue  # importing a package (pdc.ring) is not naming an exercise
            hit = pattern.search(line)
            assert hit is None, f"{path.name}:{k} names {hit[0]!r}: {line.strip()}"


def test_ptx_types_are_those_of_each_exercise_first_public_case():
    import numba

    from pdc.ptx.compile import describe
    from pdc.ptx.manifest import EXERCISE_KERNELS

    graded = {}
    for key in exs.ALL_KEYS:
        for part in exs.exercise(key).parts:
            if part.runner is None:
                graded.setdefault(key, {})[part.name] = exs.public_cases(part)[0]
    assert set(EXERCISE_KERNELS) == set(graded)
    for key, kernels in graded.items():
        assert set(EXERCISE_KERNELS[key]) == set(kernels), key
        for name, case in kernels.items():
            listed = [numba.typeof(describe_type(t)) for t in EXERCISE_KERNELS[key][name]]
            want = [numba.typeof(a) for a in case.args.values()]
            assert listed == want, (key, name)
            assert [describe(a)[0] for a in case.args.values()]  # describable by ptx


def describe_type(text: str):
    """An example value of a numba type spelled as ptx's tables spell it."""
    import numpy as np

    m = re.fullmatch(r"(\w+)\[(.*)\]", text)
    if m is None:
        return np.dtype(text).type(0)
    ndim = m[2].count(",") + 1
    return np.zeros((1,) * ndim, dtype=m[1])


def test_triton_exercises_compile_as_ptx_lists_them():
    from pdc.grade.triton import exercises as tex
    from pdc.ptx.triton_kernels import TRITON

    for key in ("12_triton_softmax", "13_triton_matmul"):
        (part,) = exs.exercise(key).parts
        listed = TRITON[f"solutions/{key}.ipynb"][part.name]
        assert listed == tex.compile_spec(part.name), key


def test_a_submission_cells_are_parsed_once_for_every_part(monkeypatch):
    import uuid

    from pdc import pyast
    from pdc.grade import source
    from pdc.grade.exercises import ex06_ring

    calls: list[str] = []
    real = pyast.parse
    monkeypatch.setattr(
        pyast, "parse", lambda src, *a, **k: calls.append(src) or real(src, *a, **k)
    )
    cells = [
        f"# {uuid.uuid4()}\nfrom numba import cuda\nT = 4\n",
        "@cuda.jit\ndef first(x):\n    x[0] = T\n",
        "@cuda.jit\ndef second(x):\n    x[0] = 2 * T\n",
        "def detect(req, rep, state):\n    rep.flag = 0\n",
    ]
    one = source.extract(cells, ["first"], {"T": 4})
    two = source.extract(cells, ["second"], {"T": 4})
    assert set(one.written) == {"first"} and set(two.written) == {"second"}
    assert set(source.definitions(cells)) == {"first", "second", "detect"}
    assert ex06_ring.precheck(cells, "detect")[0] is not None
    one.constants["T"] = 99  # a caller's copy: the next extraction still sees T = 4
    assert source.extract(cells, ["first"], {"T": 4}).constants["T"] == 4
    assert sorted(calls) == sorted(cells)
