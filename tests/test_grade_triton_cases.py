"""The Triton exercises' hidden cases reach what a kernel must handle beyond the public
ones: inputs stored transposed (a kernel must use the strides it is given) and rows wider
than any fixed tile (a kernel must loop over a row)."""

from __future__ import annotations

import numpy as np

from pdc.grade.triton import exercises as tx


def test_matmul_hidden_draws_store_a_and_b_transposed():
    for seed in range(5):
        cases = [
            tx.make_matmul(np.random.default_rng(seed), s)
            for s in tx._hidden_matmul(np.random.default_rng(seed))
        ]
        stored = {c.dims["transposed"] for c in cases}
        assert {"A", "B"} <= stored, stored


def test_a_transposed_input_keeps_its_strides_and_its_product():
    rows = tx.make_matmul(np.random.default_rng(3), (5, 3, 4))
    for which in ("A", "B"):
        case = tx.make_matmul(np.random.default_rng(3), (5, 3, 4, which))
        a, b = case.args["a_ptr"], case.args["b_ptr"]
        # the same logical matrices, stored column-major: the transposed one's strides swap
        if which == "A":
            assert a.shape == (3, 5) and (case.args["stride_am"], case.args["stride_ak"]) == (1, 5)
            np.testing.assert_array_equal(a.T, rows.args["a_ptr"])
        else:
            assert b.shape == (4, 3) and (case.args["stride_bk"], case.args["stride_bn"]) == (1, 3)
            np.testing.assert_array_equal(b.T, rows.args["b_ptr"])
        want = tx.matmul_spec(rows.args["a_ptr"], rows.args["b_ptr"])
        np.testing.assert_array_equal(tx.matmul_reference(case.args)["c_ptr"], want)


def test_softmax_hidden_draws_hold_a_row_wider_than_eight_blocks():
    for seed in range(5):
        sizes = tx._hidden_softmax(np.random.default_rng(seed))
        widest = max(size[1] for size in sizes)  # (rows, cols, shift, pad[, rise])
        assert widest > 8 * tx.SOFTMAX_BLOCK, widest


def _run(case, loads_per_element: dict):
    from pdc.grade.triton.criteria import Run

    return Run(
        loads={
            k: np.full(v.size, loads_per_element.get(k, 0), np.int64)
            for k, v in case.args.items()
            if isinstance(v, np.ndarray)
        }
    )


def test_reading_a_copy_back_from_the_output_counts_as_global_loads():
    """Two passes over x, or one over x and two over its copy in y: the same traffic."""
    from pdc.grade.triton import criteria

    case = tx.make_softmax(np.random.default_rng(0), (2, 300, 3.0, 0))
    # y is padded per row like x is not: count per element of each tensor
    assert criteria.softmax_loads(None, [(case, _run(case, {"x_ptr": 2}))])[0] == 1.0
    score, why = criteria.softmax_loads(None, [(case, _run(case, {"x_ptr": 1, "y_ptr": 2}))])
    assert score == 0.0 and "y read back included" in why
    mm = tx.make_matmul(np.random.default_rng(0), (64, 32, 64))
    assert criteria.matmul_loads(None, [(mm, _run(mm, {"a_ptr": 2, "b_ptr": 2}))])[0] == 1.0
    score, why = criteria.matmul_loads(None, [(mm, _run(mm, {"a_ptr": 2, "b_ptr": 2, "c_ptr": 1}))])
    assert score == 0.0 and "C read back included" in why
