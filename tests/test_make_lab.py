"""Tier 1: `make lab` starts JupyterLab on the course and it answers on its port."""

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_make_lab_answers_on_its_port(tmp_path):
    port = free_port()
    env = dict(os.environ, NO_BROWSER="1", JUPYTER_RUNTIME_DIR=str(tmp_path))
    proc = subprocess.Popen(
        [
            "make",
            "--no-print-directory",
            "lab",
            f"PORT={port}",
            "JUPYTER_TOKEN_ARGS=--IdentityProvider.token=",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=2) as r:
                    status = json.load(r)
                break
            except OSError:
                time.sleep(0.5)
        assert status and "version" in status, f"JupyterLab did not answer on port {port}"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab", timeout=5) as r:
            assert r.status == 200
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
