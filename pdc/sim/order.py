"""The order in which the SIMT machine visits a function's basic blocks."""

from __future__ import annotations


def loop_order(cfg, exits=frozenset()) -> list:
    """A topological order (back edges left out) in which every loop's body comes before
    the blocks its exits lead to.

    The machine always runs the lowest-ranked block any thread is at, so this order makes
    threads that leave a loop early wait at its exit for the others. A plain reverse
    postorder does not promise it: the code after a loop may come before the loop's body.
    Successors that stay deeper in loops are visited last, so they come first; blocks in
    ``exits`` (a return and nothing else) come before any other successor, so that threads
    which return early leave at once, as a GPU's do, instead of waiting at the end.
    """
    depth: dict = {}
    for loop in cfg.loops().values():
        for node in loop.body:
            depth[node] = depth.get(node, 0) + 1
    back = set(cfg._back_edges)
    post: list = []
    seen: set = set()
    stack: list = [(cfg.entry_point(), None)]
    # An iterative DFS (kernels can have thousands of blocks once numba inlines calls).
    while stack:
        node, it = stack.pop()
        if it is None:
            if node in seen:
                continue
            seen.add(node)
            succs = [d for d, _ in cfg.successors(node) if (node, d) not in back]
            succs.sort(key=lambda d: (d in exits, depth.get(d, 0)))
            it = iter(succs)
        for d in it:
            if d not in seen:
                stack.append((node, it))
                stack.append((d, None))
                break
        else:
            post.append(node)
    post.reverse()
    return post
