"""pdc.sim's operators as numba lowers them: each case is a class the expression fuzzer
(tests/test_sim_fuzz.py) found, checked against the same function under ``numba.njit``."""

import numba
import numpy as np
import pytest
from numba import cuda, int32, njit

import pdc.sim as sim


def kinds(rep) -> dict:
    return {k: v["count"] for k, v in rep.findings.items()}


def oracle(fn, *columns):
    """``fn`` compiled by numba for the CPU with numba-cuda's error model, per element."""
    f = numba.njit(error_model="numpy")(fn.py_func)
    return [f(*vals) for vals in zip(*columns)]


@njit
def shifts(a, b):
    return (a << b) + (a >> (b + 16))  # int16 and int64: numba shifts in int64


def k_shifts(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = shifts(a[i], b[i])


def test_an_int16_shifts_in_numbas_result_type_int64():
    """numba lowers ``int16 << int64`` in the result type: 1 << 20 is 2**20, not 0."""
    a = np.array([1, 3, -2, 32767, -32768, 5], np.int16)
    b = np.array([20, 31, 40, 0, 1, 15], np.int64)
    out = np.zeros(6, np.int64)
    assert kinds(sim.launch(k_shifts, 1, 32, [a, b, out])) == {}
    assert out[0] == (1 << 20) and out.tolist() == oracle(shifts, a, b)


@njit
def bits(a, b):
    return (a | b) ^ (b & a)  # uint16 and bool: an int64 operation in numba


def k_bits(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = bits(a[i], b[i])


def test_bitwise_operators_of_mixed_types_compute_in_the_result_type():
    a = np.array([0, 1, 65535, 32768, 7], np.uint16)
    b = np.array([True, False, True, True, False])
    out = np.zeros(5, np.int64)
    assert kinds(sim.launch(k_bits, 1, 32, [a, b, out])) == {}
    assert out.tolist() == oracle(bits, a, b)


@njit
def cube(x):
    return x**3


@njit
def power(x, n):
    return x**n


@njit
def root(x):
    return x**0.5


def k_powers(x, n, k, out_f, out_i):
    i = cuda.grid(1)
    if i < out_f.shape[0]:
        out_f[i, 0] = cube(x[i])
        out_f[i, 1] = power(x[i], n[i])
        out_f[i, 2] = root(x[i])
        out_i[i, 0] = power(k[i], n[i])
        out_i[i, 1] = power(k[i], -1)


def _same(m, t) -> bool:
    m, t = np.asarray(m), np.asarray(t, m.dtype)
    both_nan = np.isnan(m) & np.isnan(t)  # a NaN's sign bit means nothing
    return bool((both_nan | ((m == t) & (np.signbit(m) == np.signbit(t)))).all())


def test_powers_with_an_integer_exponent_square_and_multiply_as_numba_does():
    """float ** int is repeated multiplication in the result type (each product rounded:
    not NumPy's pow); int ** -n is 0 but for a base of 1 or -1, and 0 ** -n is the most
    negative int64; float ** 0.5 is C's pow (-inf ** 0.5 is inf), not a square root."""
    rng = np.random.default_rng(5)
    x = np.concatenate([[-np.inf, -0.0, 1.5, -2.0], rng.uniform(-3, 3, 28)]).astype(np.float32)
    n = np.concatenate([[2, 3, -1, -2], rng.integers(1, 9, 28)]).astype(np.int64)
    k = np.array([0, 1, -1, 2, -3, 5, 0, 7] * 4, np.int64)
    out_f, out_i = np.zeros((32, 3), np.float32), np.zeros((32, 2), np.int64)
    assert kinds(sim.launch(k_powers, 1, 32, [x, n, k, out_f, out_i])) == {}
    assert _same(out_f[:, 0], oracle(cube, x)) and _same(out_f[:, 1], oracle(power, x, n))
    assert _same(out_f[:, 2], oracle(root, x))
    assert out_i[:, 0].tolist() == oracle(power, k, n)
    assert out_i[:, 1].tolist() == oracle(power, k, np.full(32, -1))
    assert out_i[0, 1] == np.iinfo(np.int64).min and out_i[2, 1] == -1 and out_i[3, 1] == 0
    assert out_f[0, 2] == np.inf and not np.signbit(out_f[1, 2])
    # numba's x*x*x is not a correctly rounded pow for some float32 x: so neither is ours
    cubes = (x.astype(np.float64) ** 3).astype(np.float32)
    assert (out_f[:, 0] == x * x * x).all() and (out_f[:, 0] != cubes).any()


@njit
def inverse_square(x):
    return x**-2


def k_inverse_square(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = 1.0
        out[i, 1] = inverse_square(x[i])
        out[i, 2] = 3.0


def test_zero_to_a_negative_integer_power_stops_the_thread_as_numba_raises():
    """numba compiles the ``1.0 / r`` of ``x ** -n`` with Python's error model, so a zero
    ``r`` raises ZeroDivisionError (under njit too); on a GPU that thread returns there."""
    x = np.array([0.0, 2.0, 1e-30, -0.0, 4.0], np.float32)  # 1e-30 ** 2 underflows to 0
    out = np.zeros((5, 3), np.float32)
    rep = sim.launch(k_inverse_square, 1, 32, [x, out])
    assert kinds(rep) == {"error": 3}
    assert "ZeroDivisionError" in rep.findings["error"]["examples"][0]
    f = numba.njit(error_model="numpy")(inverse_square.py_func)
    for i, v in enumerate(x):
        try:
            ref = [1.0, f(v), 3.0]
        except ZeroDivisionError:
            ref = [1.0, 0.0, 0.0]  # stored before the raise, not after
            assert i in (0, 2, 3)
        assert out[i].tolist() == ref, (i, out[i], ref)


def k_bit_counts(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cuda.clz(x[i])
        out[i, 1] = cuda.popc(x[i])
        out[i, 2] = cuda.ffs(x[i])


def test_bit_counts_of_64_bit_values_are_exact():
    """clz/popc/ffs of random 32- and 64-bit values against Python's int: clz of a 64-bit
    value near 2**64 once went through a float log2 (2**64 - 1 gave -1, 2**60 - 1 gave 3).
    numba's own simulator formats values as 32 bits, so it is no oracle for int64."""
    rng = np.random.default_rng(9)
    edge = [0, 1, 7, 2**31 - 1, 2**31, 2**53 + 1, 2**60 - 1, 2**63, 2**64 - 1]
    for dt in (np.uint64, np.int64, np.uint32, np.int32):
        bits = np.dtype(dt).itemsize * 8
        wide = rng.integers(0, 2**63, 23, dtype=np.uint64) << np.uint64(1)
        x = np.concatenate([np.array(edge, np.uint64), wide]).astype(dt)
        out = np.zeros((x.size, 3), np.int64)
        assert kinds(sim.launch(k_bit_counts, 1, 32, [x, out])) == {}
        u = [int(v) % 2**bits for v in x.tolist()]
        ref = [[bits - v.bit_length(), v.bit_count(), (v & -v).bit_length()] for v in u]
        assert out.tolist() == ref, dt


@njit
def negated(b):
    return -b + (+b) * 10  # bool: numba converts to int64, then negates


def k_negated(b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = negated(b[i])


def test_a_negated_bool_is_an_int64():
    b = np.array([True, False, True])
    out = np.zeros(3, np.int64)
    assert kinds(sim.launch(k_negated, 1, 32, [b, out])) == {}
    assert out.tolist() == oracle(negated, b) == [9, 0, 9]


def k_fma(a, b, c, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.fma(a[i], b[i], c[i])


def _rounded_once(a, b, c) -> np.float32:
    """The float32 nearest to the exact a * b + c (ties to even), by exact fractions."""
    from fractions import Fraction

    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    r = np.float32(float(exact))
    near = [r, np.nextafter(r, np.float32(np.inf)), np.nextafter(r, np.float32(-np.inf))]
    return min(near, key=lambda v: (abs(Fraction(float(v)) - exact), int(v.view(np.int32)) & 1))


def test_float32_fma_rounds_once_as_the_gpu_instruction_does():
    """cuda.fma is one rounding: (1 + 2**-12)**2 - (1 + 2**-11) is 2**-24, not 0."""
    rng = np.random.default_rng(4)
    a = np.concatenate([[1 + 2**-12], rng.uniform(-2, 2, 31)]).astype(np.float32)
    b = np.concatenate([[1 + 2**-12], rng.uniform(-2, 2, 31)]).astype(np.float32)
    c = (-(a * b) + rng.uniform(-1e-6, 1e-6, 32)).astype(np.float32)
    c[0] = 1 + 2**-11
    c[0] = -c[0]
    out = np.zeros(32, np.float32)
    assert kinds(sim.launch(k_fma, 1, 32, [a, b, c, out])) == {}
    assert out[0] == np.float32(2**-24) and a[0] * b[0] + c[0] == 0
    assert out.tolist() == [_rounded_once(*v) for v in zip(a, b, c)]


@njit
def quotients(a, b):
    return a // b, a % b, divmod(a, b)[0]


def k_quotients(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        q, r, d = quotients(a[i], b[i])
        out[i, 0] = q
        out[i, 1] = r
        out[i, 2] = d


def test_the_minimum_integer_divided_by_minus_one_is_zero_as_numba_defines_it():
    """numba's int_divmod_signed returns 0, 0 for INT64_MIN // -1 (the division would trap
    on x86); NumPy gives INT64_MIN."""
    lo = np.iinfo(np.int64).min
    a = np.array([lo, lo, lo + 1, -7, 7, lo], np.int64)
    b = np.array([-1, 1, -1, 2, -2, 0], np.int64)
    out = np.zeros((6, 3), np.int64)
    rep = sim.launch(k_quotients, 1, 32, [a, b, out])
    assert set(kinds(rep)) == {"error"}  # the division by zero, only
    assert out.tolist() == [list(v) for v in oracle(quotients, a, b)]
    assert out[0].tolist() == [0, 0, 0]


@njit
def power32(x, n):
    return x ** int32(n)


def k_power32(x, n, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = power32(x[i], n[i])


def test_the_most_negative_int32_exponent_stops_the_thread_as_numba_raises():
    """numba's int_power negates the exponent in its own type: -(-2**31) is still negative,
    and it raises OverflowError (njit too); on a GPU that thread returns."""
    x = np.array([2.0, 1.5, -3.0], np.float64)
    n = np.array([-(2**31), 3, -2], np.int64)
    out = np.zeros(3, np.float64)
    rep = sim.launch(k_power32, 1, 32, [x, n, out])
    assert kinds(rep) == {"error": 1} and "OverflowError" in rep.findings["error"]["examples"][0]
    f = numba.njit(error_model="numpy")(power32.py_func)
    with pytest.raises(OverflowError):
        f(x[0], n[0])
    assert out.tolist() == [0.0, f(x[1], n[1]), f(x[2], n[2])]
