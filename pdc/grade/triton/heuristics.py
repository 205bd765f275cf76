"""``@triton.heuristics``: the parameters a kernel computes from its launch's arguments.

``@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})`` adds the
parameter ``EVEN_K`` to every launch; Triton calls each lambda on the host with the launch's
arguments by name (the values of earlier heuristics included) before it compiles or runs.
The grader runs none of a notebook's host code, so it computes each lambda itself from its
syntax, here: integer and boolean arithmetic, comparisons, ``and``/``or``/``not``,
conditional expressions, ``min``/``max``/``abs``/``int``/``bool``, ``triton.cdiv`` and
``triton.next_power_of_2`` over the launch's integer arguments and constexprs. A lambda that
reads anything else (a tensor, a global, a call) is refused with its reason. Written by hand
because Triton's own path is to call the lambda, which is the student's host code.

Heuristics for launch options (``num_warps``, ``num_stages``) change nothing the grader
checks and are left out; every other key must be a parameter of the kernel.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pdc.grade import flow, source

#: Launch options a heuristic may set that are no parameter of the kernel.
OPTIONS = frozenset({"num_warps", "num_stages", "num_ctas", "maxnreg"})
#: Keep a computed value small: a heuristic is a flag or a block size.
LIMIT = 1 << 40

_BINOPS = source.BINOPS
_COMPARE = flow.COMPARE


def _cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def _next_power_of_2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


_CALLS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "int": int,
    "bool": bool,
    "triton.cdiv": _cdiv,
    "triton.next_power_of_2": _next_power_of_2,
}


class Refused(ValueError):
    """A heuristic the grader cannot compute; the message says what and why."""


@dataclass(frozen=True)
class Heuristic:
    """One ``name: lambda arg: body`` of a ``@triton.heuristics`` dict."""

    name: str
    arg: str
    body: ast.expr


def parse(fn: ast.FunctionDef) -> list[Heuristic]:
    """The heuristics of ``fn``'s decorators in the order Triton applies them (outermost
    first). Raises Refused for a heuristic that is not a dict entry of a one-argument lambda."""
    out: list[Heuristic] = []
    for deco in fn.decorator_list:
        if not (isinstance(deco, ast.Call) and getattr(deco.func, "attr", "") == "heuristics"):
            continue
        for arg in [*deco.args, *(k.value for k in deco.keywords)]:  # values={...} too
            if not isinstance(arg, ast.Dict):
                raise Refused("@triton.heuristics takes a dict written in the decorator")
            for key, value in zip(arg.keys, arg.values):
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    raise Refused("a @triton.heuristics key must be a parameter's name in quotes")
                lam = value
                if not (
                    isinstance(lam, ast.Lambda)
                    and len(lam.args.args) == 1
                    and not (lam.args.vararg or lam.args.kwarg or lam.args.kwonlyargs)
                ):
                    raise Refused(
                        f"the heuristic for {key.value} must be a lambda of the launch's "
                        f"arguments, lambda args: ..."
                    )
                out.append(Heuristic(key.value, lam.args.args[0].arg, lam.body))
    return [h for h in out if h.name not in OPTIONS]


def placement(name: str, got: tuple, added: set, params: tuple, constants: dict) -> str:
    """Why the heuristics' parameters ``added`` cannot sit where kernel ``name``'s signature
    ``got`` has them, or "": each must be a parameter, after every parameter the launch
    passes by position (those of ``params`` not in ``constants``)."""
    last = max((got.index(p) for p in params if p not in constants), default=-1)
    late = [a for a in got[:last] if a in added]
    if late:
        return (
            f"{name}: {', '.join(late)} from @triton.heuristics comes before {got[last]}, "
            f"which the launch passes by position: put it after the arguments passed by "
            f"position, beside the constexprs"
        )
    missing = sorted(added - set(got))
    if missing:
        return (
            f"{name}: @triton.heuristics computes {', '.join(missing)}, which is not a parameter "
            f"of the kernel: Triton passes each heuristic to the parameter of its name, and "
            f"raises KeyError at launch for an unrecognised one"
        )
    return ""


def check(heuristics: list[Heuristic], scalars: set[str], tensors: frozenset[str]) -> None:
    """Raise Refused unless every heuristic reads only ``args["NAME"]`` of a scalar argument,
    a constexpr or an earlier heuristic, through the operations this module computes."""
    known = set(scalars)
    for h in heuristics:
        keys = {id(n.slice) for n in ast.walk(h.body) if isinstance(n, ast.Subscript)}
        bases = {id(n.value) for n in ast.walk(h.body) if isinstance(n, ast.Subscript)}
        # the arguments read first: "reads the tensor x_ptr" says more than what it calls
        nodes = sorted(ast.walk(h.body), key=lambda n: not isinstance(n, ast.Subscript))
        for node in nodes:
            if isinstance(node, ast.Constant) and id(node) not in keys:
                if not isinstance(node.value, (bool, int, float)):
                    raise Refused(f"the heuristic for {h.name} uses {node.value!r}, {_WHAT}")
            if isinstance(node, ast.Name) and node.id == h.arg and id(node) not in bases:
                raise Refused(f'the heuristic for {h.name} must read {h.arg}["NAME"], {_WHAT}')
            if isinstance(node, ast.Name) and node.id not in (h.arg, "triton", *_CALLS):
                raise Refused(f"the heuristic for {h.name} reads {node.id}, {_WHAT}")
            if isinstance(node, ast.Subscript):
                key = _key(node, h)
                if key in tensors:
                    raise Refused(
                        f"the heuristic for {h.name} reads the tensor {key}: the grader "
                        f"computes heuristics from the integer arguments and constexprs"
                    )
                if key not in known:
                    raise Refused(
                        f"the heuristic for {h.name} reads args[{key!r}], which is not an "
                        f"argument of the launch (those are {', '.join(sorted(known))})"
                    )
            elif not isinstance(node, _ALLOWED):
                raise Refused(
                    f"the heuristic for {h.name} uses {type(node).__name__}, {_WHAT}: "
                    f"{ast.unparse(h.body)}"
                )
            if isinstance(node, ast.Call) and (_callee(node) not in _CALLS or node.keywords):
                raise Refused(f"the heuristic for {h.name} calls {ast.unparse(node.func)}, {_WHAT}")
            if isinstance(node, ast.Attribute) and ast.unparse(node) not in _CALLS:
                raise Refused(f"the heuristic for {h.name} reads {ast.unparse(node)}, {_WHAT}")
            odd = (
                isinstance(node, ast.BinOp)
                and type(node.op) not in _BINOPS
                or isinstance(node, ast.Compare)
                and any(type(op) not in _COMPARE for op in node.ops)
            )
            if odd:
                raise Refused(f"the heuristic for {h.name} uses {ast.unparse(node)}, {_WHAT}")
        known.add(h.name)


_WHAT = (
    "which the grader does not compute (it computes arithmetic, comparisons, min, max, abs, "
    'int, bool, triton.cdiv and triton.next_power_of_2 of args["..."])'
)
_ALLOWED = (
    ast.Constant,
    ast.Name,
    ast.Load,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Call,
    ast.Attribute,
    ast.Subscript,
    ast.operator,
    ast.unaryop,
    ast.boolop,
    ast.cmpop,
)


def _key(node: ast.Subscript, h: Heuristic) -> str:
    if not (
        isinstance(node.value, ast.Name)
        and node.value.id == h.arg
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    ):
        raise Refused(
            f'the heuristic for {h.name} must read arguments as {h.arg}["NAME"], '
            f"got {ast.unparse(node)}"
        )
    return node.slice.value


def _callee(node: ast.Call) -> str:
    return ast.unparse(node.func)


def values(heuristics: list[Heuristic], args: dict[str, Any]) -> dict[str, Any]:
    """Each heuristic's value for one launch whose scalar arguments and constexprs are
    ``args``, in order (a later heuristic sees the earlier ones). Raises Refused where the
    host would raise (a division by zero) or the value is no flag or number."""
    env = dict(args)
    out: dict[str, Any] = {}
    for h in heuristics:
        try:
            v = _eval(h.body, env)
        except (ArithmeticError, ValueError, TypeError, KeyError) as exc:
            raise Refused(
                f"the heuristic for {h.name} raised {type(exc).__name__} on the host for "
                f"{_show(args)}: {exc}"
            ) from None
        if isinstance(v, bool) or (isinstance(v, int) and abs(v) < LIMIT):
            out[h.name] = env[h.name] = v
        elif isinstance(v, float):
            out[h.name] = env[h.name] = v
        else:
            raise Refused(f"the heuristic for {h.name} gave {v!r}, not a flag or a number")
    return out


def _show(args: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in args.items())


def _eval(node: ast.expr, env: dict) -> Any:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (bool, int, float)):
            return node.value
        raise TypeError(f"{node.value!r} is not a number")
    if isinstance(node, ast.Subscript):
        return env[node.slice.value]  # type: ignore[attr-defined]  # checked by check()
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, env), _eval(node.right, env)
        if isinstance(node.op, (ast.Pow, ast.LShift)) and abs(b) > 64:
            raise ValueError("exponent too large")
        return _BINOPS[type(node.op)](a, b)
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not v
        if isinstance(node.op, ast.Invert):
            return ~v
        return -v if isinstance(node.op, ast.USub) else +v
    if isinstance(node, ast.BoolOp):
        v = _eval(node.values[0], env)
        for rest in node.values[1:]:  # Python's short circuit, and the operand it returns
            if bool(v) == isinstance(node.op, ast.Or):
                return v
            v = _eval(rest, env)
        return v
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            right = _eval(right_node, env)
            if type(op) not in _COMPARE:
                raise TypeError(f"{type(op).__name__} is not a comparison of numbers")
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, env) else node.orelse, env)
    if isinstance(node, ast.Call) and not node.keywords:
        return _CALLS[_callee(node)](*(_eval(a, env) for a in node.args))
    raise TypeError(f"{ast.unparse(node)} is not computed here")
