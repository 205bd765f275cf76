"""JupyterLab server settings for `make lab` (the Makefile passes this file with --config).

The Makefile starts the server with the course environment's bin/ first on PATH. Terminals
inherit that PATH, so `pdc grade` works in a JupyterLab terminal, provided the terminal's shell
does not reset PATH: a login shell (what jupyter_server starts when its output is not a
terminal) reads /etc/profile, which on Debian and Ubuntu sets PATH from scratch. Terminals
therefore run the user's shell as an ordinary interactive shell.
"""

import os
import shutil
from pathlib import Path

COURSE = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((COURSE / "notebooks").glob("[0-9][0-9]_*.ipynb"))

c = get_config()  # noqa: F821 - traitlets provides get_config() to config files

c.ServerApp.root_dir = str(COURSE)
# Terminals open in the course folder, where `pdc grade exercises/NN_name.ipynb` works.
shell = os.environ.get("SHELL") or shutil.which("bash") or "/bin/sh"
c.ServerApp.terminado_settings = {"shell_command": [shell]}
# Land on the first chapter itself rather than on the launcher or a file listing.
c.LabApp.default_url = (
    f"/lab/tree/notebooks/{CHAPTERS[0].name}" if CHAPTERS else "/lab/tree/notebooks"
)
