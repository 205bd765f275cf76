"""Tier 1: the README's Python examples run as written, and its commands exist."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_python_blocks_run(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks, "the README has no python example"
    for i, code in enumerate(blocks):
        script = tmp_path / f"block{i}.py"
        script.write_text(code)
        out = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=300
        )
        assert out.returncode == 0, f"README python block {i} failed:\n{code}\n{out.stderr}"


def test_make_targets_named_in_the_readme_exist():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z-]+):", makefile, flags=re.M))
    for target in set(re.findall(r"`make ([a-z-]+)", README)):
        assert target in targets, f"README mentions `make {target}` but the Makefile lacks it"
