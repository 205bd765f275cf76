"""Pictures and tables of what a simulated launch did to memory.

``access_map`` draws which thread (or warp, or block) touched each element of an array last,
from a report made with ``sim.launch(..., record=True)``; ``bank_table`` lists shared-memory
bank conflicts per kernel line. matplotlib is imported only when something is drawn.
"""

from __future__ import annotations

import numpy as np

from pdc.grade.simreport import LaunchReport

_COLOR_BY = ("thread", "warp", "block")
_LABEL_CELLS = 1024  # write ids into the cells of arrays up to this size


def _ids(report: LaunchReport, thread: np.ndarray, color_by: str) -> np.ndarray:
    """Thread ids turned into warp or block ids (-1 stays -1)."""
    if color_by == "thread":
        return thread
    tpb = int(np.prod(report.block))
    block = thread // tpb
    if color_by == "block":
        return np.where(thread < 0, -1, block)
    wpb = -(-tpb // 32)
    return np.where(thread < 0, -1, block * wpb + (thread % tpb) // 32)


def _as_2d(a: np.ndarray) -> np.ndarray:
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a.reshape(1, -1)
    return a.reshape(-1, a.shape[-1])


def _oob_points(shape: tuple, oob: list) -> tuple[list, list]:
    """Cell coordinates (x, y) just outside the frame for out-of-range attempts."""
    rows, cols = _as_2d(np.zeros(shape)).shape
    xs, ys = [], []
    for _thread, idx in oob:
        idx = tuple(idx)
        if len(shape) <= 1:
            r, c = 0, idx[0] if idx else 0
        else:
            c = idx[-1]
            r = int(np.ravel_multi_index(idx[:-1], shape[:-1], mode="clip"))
            if any(i < 0 for i in idx[:-1]):
                r = -1
            elif any(i >= d for i, d in zip(idx[:-1], shape[:-1])):
                r = rows
        xs.append(min(max(c, -1), cols))
        ys.append(min(max(r, -1), rows))
    return xs, ys


def access_map(
    report: LaunchReport,
    name: str,
    *,
    ax=None,
    color_by: str = "thread",
    title: str | None = None,
):
    """Draw which thread, warp or block touched each element of one array last.

    Elements nobody touched stay white; out-of-range attempts are red crosses just outside
    the array's frame. A colour bar and a legend say what the colours and marks mean, and
    the axes are labelled. Arrays of more than two dimensions are drawn with their leading
    dimensions stacked as rows. A shared array is titled with the student's variable name.

    Args:
        report: A report from ``sim.launch(..., record=True)``.
        name: A global argument name, or ``"shared:<k>"`` for block 0's k-th shared array.
        ax: The matplotlib Axes to draw on (default: a new figure).
        color_by: ``"thread"``, ``"warp"`` or ``"block"``.
        title: The title (default: the array's name and what colours mean).

    Returns:
        The matplotlib Axes.

    Raises:
        ValueError: The report has no access maps, ``name`` is not one of them, or
            ``color_by`` is not one of the three.
    """
    if report.access is None:
        raise ValueError("[access_map] expected a report from launch(..., record=True)")
    if name not in report.access:
        raise ValueError(f"[access_map] expected one of {sorted(report.access)}, got {name!r}")
    if color_by not in _COLOR_BY:
        raise ValueError(f"[access_map] expected color_by in {_COLOR_BY}, got {color_by!r}")
    import matplotlib.pyplot as plt

    m = report.access[name]
    ids = _as_2d(_ids(report, np.asarray(m["thread"]), color_by))
    rows, cols = ids.shape
    if ax is None:
        _, ax = plt.subplots(figsize=(min(12, 1 + cols * 0.35), min(8, 1 + rows * 0.35)))
    shown = np.ma.masked_less(ids, 0)
    cmap = plt.get_cmap("viridis" if color_by == "thread" else "tab20").with_extremes(bad="white")
    aspect = "auto" if cols > 8 * rows else "equal"  # a long 1-D array: a band, not a line
    image = ax.imshow(shown, cmap=cmap, interpolation="nearest", aspect=aspect)
    if shown.count():  # a colour bar needs at least one touched element
        ax.figure.colorbar(image, ax=ax, label=f"last {color_by} (global id)", shrink=0.8)
    if ids.size <= _LABEL_CELLS and cols <= 40 and ids.max() < 100:  # two digits fit a cell
        for (r, c), v in np.ndenumerate(ids):
            if v >= 0:
                dark = color_by == "thread" and image.norm(v) < 0.6  # viridis: dark below
                color = "white" if dark else "black"
                ax.text(c, r, str(v), ha="center", va="center", fontsize=6, color=color)
    ax.add_patch(
        plt.Rectangle(
            (-0.5, -0.5), cols, rows, fill=False, edgecolor="black", linewidth=1.5, label="array"
        )
    )
    ax.add_patch(
        plt.Rectangle((0, 0), 0, 0, facecolor="white", edgecolor="grey", label="not touched")
    )
    if m["oob"]:
        xs, ys = _oob_points(tuple(m["shape"]), m["oob"])
        ax.scatter(xs, ys, marker="x", color="red", s=40, label="out of range", zorder=3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=3, fontsize=7, frameon=False)
    ax.set_xlim(-1.5, cols + 0.5)
    ax.set_ylim(rows + 0.5, -1.5)
    ax.set_xlabel("column (last index)")
    ax.set_ylabel("row" if len(m["shape"]) <= 2 else "row (leading indices stacked)")
    label = m.get("name", name)
    ax.set_title(title or f"{label}: last {color_by} to touch each element")
    return ax


def bank_table(report: LaunchReport) -> str:
    """Shared-memory bank conflicts per kernel line, as readable text.

    Args:
        report: A LaunchReport (any launch; no recording needed).

    Returns:
        One row per line that accessed shared memory: line, accesses, wavefronts, the
        worst degree and the code, then the extra wavefronts in total.
    """
    if not report.bank_conflicts:
        return "no shared-memory accesses"
    rows = [f"{'line':>5} {'accesses':>9} {'wavefronts':>11} {'worst':>6}  code"]
    for line, v in sorted(report.bank_conflicts.items()):
        worst = f"{v['worst']}-way" if v["worst"] > 1 else "none"
        rows.append(f"{line:>5} {v['accesses']:>9} {v['wavefronts']:>11} {worst:>6}  {v['text']}")
    extra = report.conflicts()
    verdict = "conflict-free" if extra == 0 else f"{extra} extra wavefronts from bank conflicts"
    rows.append(f"total: {verdict}")
    return "\n".join(rows)
