"""Where pdc keeps what it compiled: ``$XDG_CACHE_HOME/pdc/<kind>`` (``~/.cache/pdc/<kind>``).

One folder per kind (``ptx`` for real-GPU builds and the compile gate's verdicts, ``ring``
for the cpu ring's machine code). Emptying it only costs compile time.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(kind: str) -> Path:
    """The folder of one kind of kept build (not created here)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pdc" / kind
