"""``python -m pdc``: the same commands as the ``pdc`` console script."""

import sys

from .cli import main

sys.exit(main())
