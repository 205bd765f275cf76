"""Tier 1: `make lab` starts JupyterLab on the course, as a student meets it.

One server is started for the module with `make lab` itself. The tests then talk to it the way
JupyterLab's front end does: its settings API, its landing redirect, and a terminal opened
through the terminal REST API and driven over the terminal's websocket.
"""

import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Base URL of a server started with `make lab` (no token, no browser)."""
    port = free_port()
    runtime = tmp_path_factory.mktemp("jupyter-runtime")
    # A PATH without the course venv: the server must put it there for its terminals.
    path = os.pathsep.join(
        p for p in os.environ.get("PATH", "").split(os.pathsep) if Path(p) != VENV_BIN
    )
    env = dict(os.environ, NO_BROWSER="1", JUPYTER_RUNTIME_DIR=str(runtime), PATH=path)
    proc = subprocess.Popen(
        [
            "make",
            "--no-print-directory",
            "lab",
            f"PORT={port}",
            f"VENV={VENV_BIN.parent}",
            "JUPYTER_TOKEN_ARGS=--IdentityProvider.token=",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"{base}/api", timeout=2) as r:
                    status = json.load(r)
                break
            except OSError:
                time.sleep(0.5)
        if not (status and "version" in status):
            log = proc.stdout.read().decode(errors="replace") if proc.poll() is not None else ""
            pytest.fail(f"[make lab] expected JupyterLab on port {port}, got none\n{log[-3000:]}")
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.slow
def test_make_lab_answers_on_its_port(lab):
    with urllib.request.urlopen(f"{lab}/lab", timeout=5) as r:
        assert r.status == 200


@pytest.mark.slow
def test_lab_lands_on_the_first_chapter(lab):
    first = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))[0].name
    with urllib.request.urlopen(f"{lab}/", timeout=5) as r:
        landed = r.geturl()
    assert landed.endswith(f"/lab/tree/notebooks/{first}"), (
        f"[make lab] expected / to open notebooks/{first}, got {landed}"
    )


@pytest.mark.slow
def test_lab_news_prompt_is_off(lab):
    url = f"{lab}/lab/api/settings/@jupyterlab/apputils-extension:notification"
    with urllib.request.urlopen(url, timeout=5) as r:
        settings = json.load(r)
    # Overrides replace the defaults in the schema the front end receives.
    defaults = {k: v.get("default") for k, v in settings["schema"]["properties"].items()}
    assert defaults.get("fetchNews") == "false", (
        f"[make lab] expected fetchNews 'false' from notebooks/.lab/overrides.json, got {defaults}"
    )
    assert defaults.get("checkForUpdates") is False, f"[make lab] got {defaults}"


def _terminal_output(ws, until: re.Pattern, timeout: float) -> str:
    """Read the terminal's stdout messages until `until` matches their text."""
    text = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ws.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            kind, *payload = json.loads(ws.recv())
        except TimeoutError:
            break
        if kind == "stdout":
            text += payload[0]
            if until.search(text):
                return text
    raise AssertionError(f"[lab terminal] expected {until.pattern!r}, got:\n{text[-2000:]}")


@pytest.mark.slow
def test_lab_terminal_runs_pdc_from_the_course_venv(lab):
    import websocket  # websocket-client, a dependency of jupyter_server

    # Like the front end: the page sets the _xsrf cookie that every POST must echo.
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{lab}/lab", timeout=10).close()
    xsrf = next(c.value for c in jar if c.name == "_xsrf")
    headers = {"Content-Type": "application/json", "X-XSRFToken": xsrf}
    request = urllib.request.Request(
        f"{lab}/api/terminals", data=b"{}", method="POST", headers=headers
    )
    with opener.open(request, timeout=10) as r:
        name = json.load(r)["name"]
    ws_url = lab.replace("http://", "ws://") + f"/terminals/websocket/{name}"
    ws = websocket.create_connection(ws_url, timeout=10, cookie=f"_xsrf={xsrf}")
    try:
        # Markers built by the shell (not echoed verbatim) tell the answer from the echo.
        ws.send(json.dumps(["stdin", 'pdc --version; echo "E""ND $(command -v pdc) $PWD"\r']))
        out = _terminal_output(ws, re.compile(r"END (\S*) (\S+)"), timeout=60)
    finally:
        ws.close()
        opener.open(
            urllib.request.Request(f"{lab}/api/terminals/{name}", method="DELETE", headers=headers),
            timeout=10,
        ).close()
    import pdc

    assert f"pdc {pdc.__version__}" in out, f"[lab terminal] expected pdc's version, got:\n{out}"
    where, cwd = re.search(r"END (\S*) (\S+)", out).groups()
    assert Path(where) == VENV_BIN / "pdc", f"[lab terminal] expected the venv's pdc, got {where}"
    assert Path(cwd).resolve() == ROOT, f"[lab terminal] expected to start in {ROOT}, got {cwd}"
