"""Exercise 13: a tiled matmul in Triton; pdc.grade.triton holds its spec, cases and criteria."""

from pdc.grade.triton.exercises import MATMUL as EXERCISE

__all__ = ["EXERCISE"]
