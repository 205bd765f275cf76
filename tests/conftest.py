"""Shared fixtures: the backend tiers and the `gpu` marker.

Tier 1 tests take no backend fixture. Tier 2 tests take ``any_backend`` and run once per
available backend. Tier 3 tests take ``backend``: the one named by ``PDC_BACKEND`` (or the
default), so the same suite runs unchanged on a GPU machine with ``PDC_BACKEND=cuda``.
"""

from __future__ import annotations

import pytest

import pdc

# numba.cuda is the simulator or the real driver for a whole process, chosen at its first
# import: choose it here, before any test module imports it, so that no test depends on
# which module pytest happens to collect first.
pdc.numba_cuda()

GPU_REASON = "needs a real CUDA GPU (none found by the driver); runs unchanged on a GPU machine"


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    _share_module_fixtures(items)
    _slow_first(items)
    if pdc.has_gpu():
        return
    skip = pytest.mark.skip(reason=GPU_REASON)
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def _share_module_fixtures(items) -> None:
    """Tests that ask for one module- or session-scoped fixture run on one worker.

    pytest-xdist builds such a fixture once per worker that runs a test asking for it, so
    two workers would each build ``pdc ptx``'s whole-course report (minutes). With
    ``--dist loadgroup`` a group runs on one worker. Autouse fixtures are left out: they
    would put a whole module on one worker.
    """
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or any(item.iter_markers("xdist_group")):
            continue
        shared = []
        autouse = set(info.initialnames) - set(info.argnames)
        for name in info.names_closure:
            defs = info.name2fixturedefs.get(name) or ()
            d = defs[-1] if defs else None
            if d is not None and d.scope in ("module", "session") and name not in autouse:
                if d.baseid.startswith("tests/"):  # the suite's own, not a plugin's
                    shared.append(f"{d.baseid}::{name}")
        if shared:
            item.add_marker(pytest.mark.xdist_group(min(shared)))


def _slow_first(items) -> None:
    """Tests marked ``slow`` (with the rest of their xdist group) run first.

    pytest-xdist hands tests out in this order: a test of minutes handed out last runs alone
    while the other worker has nothing left to do. Started first, it runs beside the many
    short ones. The order within each part is kept.
    """

    def group(item):
        m = item.get_closest_marker("xdist_group")
        return (m.args[0] if m.args else m.kwargs.get("name")) if m else None

    slow_groups = {group(i) for i in items if i.get_closest_marker("slow")} - {None}
    front = [i for i in items if i.get_closest_marker("slow") or group(i) in slow_groups]
    if front:
        chosen = {id(i) for i in front}
        items[:] = front + [i for i in items if id(i) not in chosen]


@pytest.fixture(params=pdc.available_backends())
def any_backend(request) -> str:
    """Every backend available on this machine, one test run each."""
    return request.param


@pytest.fixture
def backend() -> str:
    """The backend under test: PDC_BACKEND, or the machine's default."""
    return pdc.default_backend()


@pytest.fixture(params=["cpu", "cuda", "metal"])
def engine(request) -> str:
    """A ring engine name; skipped with the reason when its module does not import here."""
    from pdc.ring.engines.base import engine_class

    try:
        engine_class(request.param)
    except ImportError as exc:
        pytest.skip(f"the {request.param} ring engine does not import here: {exc}")
    if request.param not in pdc.available_backends():  # metal's engine imports without MLX
        pytest.skip(f"the {request.param} backend is not installed here (MLX for metal)")
    return request.param
