"""The host side of ring kernels: what a program holds to talk to a launched kernel.

``kernel`` (``RingKernel``) composes the parts, each owning one lock and its invariant:
``producer`` (sends, backpressure) and ``consumer`` (receives, calls, with the ``stash``
where replies wait), sharing ``life`` (can the kernel still answer) and ``drops`` (ids the
device dropped). ``rings`` (``RingHost``) is the only host code that touches the rings'
words; ``messages`` checks what a send is given, ``replies`` is what comes back,
``waiting`` how the host waits, ``aio`` and ``aio_steps`` the asyncio side, and ``fast``
and ``quick`` the cpu backend's compiled ``call``. This layer imports the protocol, the
handlers and the engines, never the API (``pdc.ring.runtime``) or the tools.
"""
