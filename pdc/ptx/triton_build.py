"""Triton kernels compiled for a real GPU without one: TTIR, TTGIR, PTX, then ``ptxas -v``.

``triton.compile(ASTSource(fn, signature, constexprs), target=GPUTarget("cuda", 90, 32))``
lowers a ``@triton.jit`` function for sm_90 on a machine with no GPU. The figures a reader
wants come after: ``ptxas -v`` (the one Triton itself runs for that target) on Triton's PTX
gives registers and spills; Triton's metadata gives the shared memory, which Triton
allocates dynamically (``ptxas`` reports none).

Compiling runs in a child process (``python -m pdc.ptx.triton_build``): in a process whose
kernels run on Triton's interpreter (``TRITON_INTERPRET=1``), ``triton.jit`` makes
interpreted functions, which ``triton.compile`` cannot lower.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pdc import pyast

from .build import Build, parse_ptxas

PRELUDE = "import math\nimport triton\nimport triton.language as tl\n"
TRITON_CCS: tuple[tuple[int, int], ...] = ((8, 0), (9, 0))


def installed() -> bool:
    """True when the ``triton`` package can be imported here."""
    return importlib.util.find_spec("triton") is not None


def _ptxas(cc: tuple[int, int]) -> str:
    """The ptxas Triton runs for ``cc`` (Triton ships its own, newer than the nvcc wheel's)."""
    from triton.backends.nvidia import compiler

    if hasattr(compiler, "get_ptxas"):
        return compiler.get_ptxas(cc[0] * 10 + cc[1]).path
    from triton import knobs  # Triton releases before ptxas-blackwell

    return knobs.nvidia.ptxas.path


def _assemble(build: Build, arch: str) -> None:
    with tempfile.TemporaryDirectory(prefix="pdc-triton-") as tmp:
        src = Path(tmp) / "kernel.ptx"
        src.write_text(build.ptx)
        run = subprocess.run(
            [_ptxas(build.cc), f"-arch={arch}", "-v", str(src), "-o", str(Path(tmp) / "k.cubin")],
            capture_output=True,
            text=True,
            timeout=120,
        )
    if run.returncode != 0:
        msg = (run.stderr or run.stdout).strip()
        build.ok, build.error_full = False, msg
        build.error = "ptxas: " + next((ln for ln in msg.splitlines() if "error" in ln), msg)[:300]
        return
    figures = parse_ptxas(run.stderr + run.stdout)
    shared = build.shared_bytes  # Triton's dynamic shared memory, kept over ptxas's static 0
    for key, value in figures.items():
        setattr(build, key, value)
    build.shared_bytes = max(shared, figures["shared_bytes"])
    build.ok = True


def compile_fn(
    fn: Any,
    signature: dict[str, str],
    constexprs: dict[str, Any],
    cc: tuple[int, int],
    num_warps: int = 4,
    num_stages: int = 3,
    where: str = "",
    keep: tuple[str, ...] = (),
    divisible: tuple[str, ...] = (),
) -> tuple[Build, dict[str, str]]:
    """Compile a ``triton.jit`` function for ``cc`` in this process (not an interpreted one).

    Args:
        fn: The JITFunction.
        signature: Parameter -> Triton type (``"*fp32"``, ``"i32"``, ``"fp32"``); constexprs
            may be left out.
        constexprs: Parameter -> value for every ``tl.constexpr`` parameter.
        cc: Compute capability, e.g. ``(9, 0)``.
        num_warps: Warps per program.
        num_stages: Software-pipelining stages of loops with loads.
        where: The file the kernel comes from.
        keep: Stages of Triton's output to return ("ttgir", "ptx", ...).
        divisible: Parameters known to be multiples of 16 (pointers: 16-byte aligned), the
            hint Triton's launcher adds on a GPU when an argument is; it allows vector loads.

    Returns:
        The Build (registers, shared memory, spills) and the kept stages' text.
    """
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    t0 = time.perf_counter()
    build = Build(fn.__name__, tuple(cc), where=where)  # type: ignore[arg-type]
    sig = dict(signature)
    sig.update({k: "constexpr" for k in constexprs})
    try:
        names = list(fn.arg_names)
        attrs = {(names.index(p),): [["tt.divisibility", 16]] for p in divisible}
        src = ASTSource(fn, sig, dict(constexprs), attrs)
        options = {"num_warps": num_warps, "num_stages": num_stages}
        kernel = triton.compile(
            src, target=GPUTarget("cuda", cc[0] * 10 + cc[1], 32), options=options
        )
    except Exception as exc:  # reported as the build's error, one line
        text = f"{type(exc).__name__}: {exc}"
        build.error, build.error_full = _one_line(exc, text)[:300], text
        build.seconds = time.perf_counter() - t0
        return build, {}
    build.ptx = kernel.asm["ptx"]
    build.shared_bytes = int(kernel.metadata.shared)
    target = next(ln.split()[1] for ln in build.ptx.splitlines() if ln.startswith(".target"))
    _assemble(build, target.rstrip(","))
    build.seconds = time.perf_counter() - t0
    return build, {k: kernel.asm[k] for k in keep if k in kernel.asm}


def load_module(text: str, folder: Path, stem: str = "triton_kernels") -> Any:
    """Import ``text`` as a module from a file in ``folder`` (Triton reads a kernel's source
    with ``inspect``, which needs a file)."""
    path = folder / f"{stem}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[stem] = module
    spec.loader.exec_module(module)
    return module


def _plain(fn: Any) -> Any:
    """The JITFunction under an autotuner or heuristics wrapper."""
    while not hasattr(fn, "arg_names") and hasattr(fn, "fn"):
        fn = fn.fn
    return fn


def run_jobs(jobs: list[dict]) -> list[dict]:
    """Compile jobs in this process: each has ``source`` (module text), ``name``, ``signature``,
    ``constexprs``, ``ccs``, optional ``num_warps``, ``where``, ``keep``."""
    os.environ.pop("TRITON_INTERPRET", None)
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    out = []
    with tempfile.TemporaryDirectory(prefix="pdc-triton-src-") as tmp:
        modules: dict[str, Any] = {}
        for k, job in enumerate(jobs):
            for cc in job["ccs"]:
                try:
                    if job["source"] not in modules:
                        modules[job["source"]] = load_module(job["source"], Path(tmp), f"tk{k}")
                    fn = _plain(getattr(modules[job["source"]], job["name"]))
                except Exception as exc:  # a module that does not define its kernel
                    b = Build(job["name"], tuple(cc), error=f"{type(exc).__name__}: {exc}"[:300])
                    b.where = job.get("where", "")
                    out.append({"build": b.to_dict(), "stages": {}})
                    continue
                b, stages = compile_fn(
                    fn,
                    job["signature"],
                    job["constexprs"],
                    tuple(cc),
                    num_warps=job.get("num_warps", 4),
                    num_stages=job.get("num_stages", 3),
                    where=job.get("where", ""),
                    keep=tuple(job.get("keep", ())),
                    divisible=tuple(job.get("divisible", ())),
                )
                out.append({"build": b.to_dict(), "stages": stages})
    return out


def compile_in_child(jobs: list[dict], timeout: float = 600) -> list[tuple[Build, dict]]:
    """Compile jobs (see ``run_jobs``) in a fresh Python without Triton's interpreter.

    Raises:
        RuntimeError: If the child process fails or Triton is not installed.
    """
    if not installed():
        raise RuntimeError("[pdc ptx] Triton is not installed: pip install triton (Linux only)")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    run = subprocess.run(
        [sys.executable, "-m", "pdc.ptx.triton_build"],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    if run.returncode != 0:
        raise RuntimeError(f"[pdc ptx] the Triton compiler process failed: {run.stderr[-800:]}")
    results = json.loads(run.stdout.strip().splitlines()[-1])
    return [(Build.from_dict(r["build"]), r["stages"]) for r in results]


def main() -> int:
    """Child side: jobs on stdin, one JSON line of results on stdout."""
    jobs = json.loads(sys.stdin.read())
    results = run_jobs(jobs)
    sys.stdout.write("\n" + json.dumps(results) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())


def is_triton(kernel: Any) -> bool:
    """True for a ``triton.jit`` kernel, interpreted or not, or an autotuner around one."""
    return type(kernel).__module__.startswith("triton.")


def module_from_kernel(kernel: Any) -> tuple[str, str]:
    """Module text that defines ``kernel`` (and the Triton functions and numeric constants it
    names) as plain ``triton.jit`` functions, and the kernel's name."""
    import ast
    import inspect
    import textwrap

    fn = kernel
    while hasattr(fn, "fn"):
        fn = fn.fn
    parts, seen = [PRELUDE], set()

    def add(func: Any) -> None:
        if func.__name__ in seen:
            return
        seen.add(func.__name__)
        tree = pyast.parse(textwrap.dedent(inspect.getsource(func)))
        node = tree.body[0]
        assert isinstance(node, ast.FunctionDef)
        node.decorator_list = [pyast.parse_expr("triton.jit")]
        for name in func.__code__.co_names:
            value = func.__globals__.get(name)
            if is_triton(value) and hasattr(value, "fn"):
                add(value.fn if not hasattr(value.fn, "fn") else value.fn.fn)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                parts.append(f"{name} = {value!r}")
        parts.append(ast.unparse(node))

    add(fn)
    return "\n\n".join(parts) + "\n", fn.__name__


def signature_of(args: tuple) -> dict[str, str]:
    """Triton types of example arguments (torch tensors, NumPy arrays, ints, floats)."""
    names = {
        "float32": "fp32",
        "float16": "fp16",
        "bfloat16": "bf16",
        "int32": "i32",
        "int64": "i64",
    }
    out = []
    for a in args:
        if hasattr(a, "dtype") and len(getattr(a, "shape", ())):
            out.append("*" + names[str(a.dtype).replace("torch.", "")])
        elif isinstance(a, float):
            out.append("fp32")
        elif isinstance(a, int):
            out.append("i32")
        else:
            raise TypeError(
                f"[pdc.resources] expected tensors, ints or floats, got {type(a).__name__}"
            )
    return {f"_{k}": t for k, t in enumerate(out)}


def triton_builds(
    kernel: Any,
    args: tuple,
    constexprs: dict,
    ccs: list,
    num_warps: int = 4,
    keep: tuple = (),
    divisible: tuple = (),
) -> list[tuple[Build, dict]]:
    """Compile a Triton kernel defined in this process for ``ccs`` (in a child process).

    Args:
        kernel: The ``triton.jit`` kernel (interpreted or not).
        args: Example arguments for its parameters other than constexprs.
        constexprs: Its ``tl.constexpr`` values.
        ccs: Compute capabilities, e.g. ``[(8, 0), (9, 0)]``.
        num_warps: Warps per program.
        keep: Stages of Triton's output to return with each build ("ttgir", "ptx", ...).
        divisible: Parameters to compile as multiples of 16 (see ``compile_fn``).

    Returns:
        ``(Build, stages)`` per target.
    """
    import inspect

    text, name = module_from_kernel(kernel)
    fn = kernel
    while hasattr(fn, "fn"):
        fn = fn.fn
    params = [p for p in inspect.signature(fn).parameters if p not in constexprs]
    if len(params) != len(args):
        raise ValueError(
            f"[pdc.resources] expected {len(params)} arguments for {name} ({', '.join(params)}) "
            f"besides its constexprs, got {len(args)}"
        )
    sig = dict(zip(params, signature_of(args).values()))
    job: dict[str, Any] = {"source": text, "name": name, "signature": sig}
    job["constexprs"] = constexprs
    job.update(ccs=[list(cc) for cc in ccs], num_warps=num_warps, keep=list(keep))
    job["divisible"] = list(divisible)
    return compile_in_child([job])


def _one_line(exc: Exception, text: str) -> str:
    """A compile error in one line: Triton's ``CompilationError`` ends with a caret under the
    kernel's line, and its reason (when it gives one) or the exception it wraps names the
    problem, so the line of the kernel and that reason are kept."""
    last = text.strip().splitlines()[-1] if text.strip() else text
    src, lineno = getattr(exc, "src", None), getattr(getattr(exc, "node", None), "lineno", None)
    if not (src and isinstance(lineno, int)):
        return last
    cause = exc.__cause__
    why = getattr(exc, "error_message", None) or (
        type(cause).__name__ + (f": {cause}" if str(cause).strip() else "") if cause else ""
    )
    lines = src.split("\n")
    code = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
    reason = why.strip().splitlines()[-1] if why.strip() else "does not compile"
    return f"kernel line {lineno}: {code}: {reason}"
