"""Exercise 12: a row softmax in Triton; pdc.grade.triton holds its spec, cases and criteria."""

from pdc.grade.triton.exercises import SOFTMAX as EXERCISE

__all__ = ["EXERCISE"]
