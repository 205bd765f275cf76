"""The course book: build, offline assets, search, and rendering in headless Chromium.

The site is built once per session with book/build.py, unless `make book` left a build whose
recorded input digest matches the current sources. Pages are served from 127.0.0.1 and opened in
Chromium with every other host unreachable, so the checks also prove the site works offline.
Screenshots land in book/_build/screenshots/ for a person to look at.
"""

from __future__ import annotations

import functools
import html.parser
import http.server
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
SITE = BOOK / "_build" / "html"
SHOTS = BOOK / "_build" / "screenshots"
TITLE = "GPU Programming for Python Developers"
WINDOW = (1280, 900)
TALL = 6000  # window height for the full-page chapter screenshot
GLOSSARY_TERMS = ["SM", "warp", "occupancy", "coalescing", "pinned memory", "ring kernel"]


def _load_build_module():
    spec = importlib.util.spec_from_file_location("book_build", BOOK / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def build():
    """book/build.py as a module (the source lists and the freshness check)."""
    return _load_build_module()


@pytest.fixture(scope="module")
def site(build) -> Path:
    """A fresh build of the book: reused from `make book`, otherwise built now (once, when
    several test workers ask at the same moment: build.py builds under a lock)."""
    if not build.is_fresh():
        proc = subprocess.run(
            [sys.executable, str(BOOK / "build.py"), "--if-stale"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, (
            f"[book build] expected exit code 0, got {proc.returncode}:\n"
            f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
        )
    assert (SITE / "index.html").exists(), "[book build] expected book/_build/html/index.html"
    return SITE


@pytest.fixture(scope="module")
def server(site):
    """Base URL of the site served by http.server on 127.0.0.1."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep pytest output clean
            pass

    handler = functools.partial(Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    """Runs headless Chromium; every host except 127.0.0.1 is unreachable."""
    exe = _chromium()
    if exe is None:
        msg = "chromium is not installed (Debian: apt-get install -y chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"[book] {msg}; CI must run the browser checks")
        pytest.skip(msg)
    profile = tempfile.mkdtemp(prefix="pdc-book-chromium-")

    def run(*args: str, url: str) -> str:
        cmd = [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            "--virtual-time-budget=15000",
            *args,
            url,
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, f"[chromium {url}] exit code {proc.returncode}: {proc.stderr}"
        return proc.stdout

    yield run
    shutil.rmtree(profile, ignore_errors=True)


# ----------------------------------------------------------------------------- parsing pages


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class _Elements(html.parser.HTMLParser):
    """Every (tag, attrs) of a page, its title, inline CSS, and what its math elements hold."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.title = ""
        self.styles: list[str] = []
        self.math: list[dict] = []  # per element of class "math": its text and nested tags
        self._open: list[tuple[str, dict | None]] = []  # open elements inside a math element
        self._data_target = ""

    def _active(self) -> list[dict]:
        return [rec for _, rec in self._open if rec is not None]

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        self.elements.append((tag, a))
        self._data_target = tag if tag in {"title", "style"} else ""
        for rec in self._active():
            rec["tags"].add(tag)
        if tag in VOID:
            return
        if tag in {"span", "div"} and "math" in a.get("class", "").split():
            rec = {"text": "", "tags": set()}
            self.math.append(rec)
            self._open.append((tag, rec))
        elif self._open:
            self._open.append((tag, None))

    def handle_endtag(self, tag):
        self._data_target = ""
        if any(t == tag for t, _ in self._open):
            while self._open and self._open.pop()[0] != tag:
                pass

    def handle_data(self, data):
        if self._data_target == "title":
            self.title += data
        elif self._data_target == "style":
            self.styles.append(data)
        for rec in self._active():
            rec["text"] += data


def _parse(text: str) -> _Elements:
    parser = _Elements()
    parser.feed(text)
    return parser


def _text(page: Path) -> str:
    """The visible text of a page, whitespace collapsed (code spans split words into tags)."""
    parser = html.parser.HTMLParser()
    chunks: list[str] = []
    parser.handle_data = chunks.append
    parser.feed(page.read_text(encoding="utf-8"))
    return " ".join(" ".join(chunks).split())


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


REMOTE = re.compile(r"^\s*(https?:)?//", re.I)
CSS_REF = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+(?:url\()?['"]?([^'")\s;]+)""", re.I)


# ----------------------------------------------------------------------------- static checks


def test_every_chapter_and_exercise_is_a_page(site, build):
    chapters = build.chapter_notebooks()
    exercises = build.exercise_notebooks()
    assert chapters, "[book] expected chapter notebooks in notebooks/, got none"
    for nb in chapters:
        page = site / "chapters" / f"{nb.stem}.html"
        assert page.exists(), f"[book] expected {page.relative_to(site)} for {nb.name}"
        text = _text(page)
        assert f"notebooks/{nb.name}" in text and "make lab" in text, (
            f"[book] expected the JupyterLab note naming notebooks/{nb.name} on {page.name}"
        )
    for nb in exercises:
        page = site / "exercises" / f"{nb.stem}.html"
        assert page.exists(), f"[book] expected {page.relative_to(site)} for {nb.name}"
        assert f"exercises/{nb.name}" in _text(page)
    # Solutions are never published, only the generated student versions.
    assert not list(site.rglob("solutions*")), "[book] expected no solution pages in the site"
    for name in ["index", "exercises", "instructor", "glossary", "api", "api/pdc", "search"]:
        assert (site / f"{name}.html").exists(), f"[book] expected {name}.html"


def test_every_notebook_page_opens_its_repository_notebook_in_colab(site, build):
    from pdc.course.hosted import REPOSITORY

    blob = REPOSITORY.replace("https://github.com/", "https://colab.research.google.com/github/")
    pages = [("chapters", "notebooks", nb) for nb in build.chapter_notebooks()]
    pages += [("exercises", "exercises", nb) for nb in build.exercise_notebooks()]
    for folder, repo_folder, nb in pages:
        page = site / folder / f"{nb.stem}.html"
        links = {a.get("href", "") for tag, a in _parse(page.read_text()).elements if tag == "a"}
        want = f"{blob}/blob/main/{repo_folder}/{nb.name}"
        assert want in links, f"[book] expected a Colab button to {want} on {folder}/{page.name}"


def test_landing_page_says_what_who_how_and_hardware(site):
    text = _text(site / "index.html")
    for needed in ["make lab", "make test", "Who it is for", "What hardware you need", "no GPU"]:
        assert needed in text, f"[index.html] expected {needed!r} on the landing page"


def test_no_page_loads_anything_from_the_network(site):
    offending = []
    for page in _pages(site):
        parsed = _parse(page.read_text(encoding="utf-8", errors="replace"))
        for tag, a in parsed.elements:
            url = ""
            if tag == "script":
                url = a.get("src", "")
            elif tag == "link" and "stylesheet" in a.get("rel", "").lower().split():
                url = a.get("href", "")
            if url and REMOTE.match(url):
                offending.append(f"{page.relative_to(site)}: <{tag}> {url}")
        for css in parsed.styles:
            for m in CSS_REF.finditer(css):
                if REMOTE.match(m.group(1) or m.group(2)):
                    offending.append(f"{page.relative_to(site)}: <style> {m.group(0)}")
    for sheet in sorted(site.rglob("*.css")):
        for m in CSS_REF.finditer(sheet.read_text(encoding="utf-8", errors="replace")):
            if REMOTE.match(m.group(1) or m.group(2)):
                offending.append(f"{sheet.relative_to(site)}: {m.group(0)}")
    assert offending == [], "[book] expected only local scripts and stylesheets, got:\n" + (
        "\n".join(offending)
    )


def test_mathjax_is_served_by_the_site(site):
    page = next(p for p in _pages(site) if 'class="math' in p.read_text())
    srcs = [
        a["src"] for t, a in _parse(page.read_text()).elements if t == "script" and a.get("src")
    ]
    mathjax = [s for s in srcs if "tex-chtml.js" in s]
    assert mathjax, f"[{page.name}] expected a MathJax script, got {srcs}"
    local = (page.parent / mathjax[0].split("?")[0]).resolve()
    assert local.is_file() and local.is_relative_to(site), f"expected {local} inside the site"
    fonts = list((site / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert fonts, "[book] expected MathJax's web fonts in mathjax/output/chtml/fonts/woff-v2"


def test_search_index_knows_the_glossary(site):
    text = (site / "searchindex.js").read_text()
    match = re.match(r"Search\.setIndex\((.*)\)\s*$", text, re.S)
    assert match, "[searchindex.js] expected Search.setIndex({...})"
    index = json.loads(match.group(1))
    docnames = index["docnames"]
    for term in ["warp", "occup", "coalesc"]:  # Sphinx stores stemmed words
        assert term in index["terms"], f"[searchindex.js] expected the term {term!r}"
        hits = index["terms"][term]
        hits = hits if isinstance(hits, list) else [hits]
        assert "glossary" in {docnames[i] for i in hits}, f"expected {term!r} in glossary"


def test_glossary_terms_are_linkable(site):
    parsed = _parse((site / "glossary.html").read_text())
    ids = {a.get("id", "") for _, a in parsed.elements}
    for term in GLOSSARY_TERMS:
        anchor = "term-" + term.replace(" ", "-")
        assert anchor in ids, f"[glossary.html] expected an anchor #{anchor}"
    links = [a.get("href", "") for t, a in _parse((site / "index.html").read_text()).elements]
    assert any(h.startswith("glossary.html#term-") for h in links), (
        "[index.html] expected links into the glossary"
    )


def test_api_reference_documents_pdc(site):
    """Sphinx's autosummary gives every module a page; each object is on its module's page."""
    import pkgutil

    import pdc

    for info in pkgutil.walk_packages(pdc.__path__, "pdc."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            assert (site / "api" / f"{info.name}.html").is_file(), f"expected api/{info.name}"
    for name in ["UnifiedBuffer", "MemoryPool", "kernel", "get_backend"]:
        obj = getattr(pdc, name)
        page = site / "api" / f"{obj.__module__}.html"
        ids = {a.get("id", "") for _, a in _parse(page.read_text()).elements}
        assert f"{obj.__module__}.{name}" in ids, f"[{page.name}] expected an entry for {name}"
    ids = {a.get("id", "") for _, a in _parse((site / "api/pdc.buffer.html").read_text()).elements}
    assert any(i.startswith("pdc.buffer.UnifiedBuffer.") for i in ids), "expected its methods"


# ----------------------------------------------------------------------------- in the browser


def _chapter_with_plot(site: Path) -> Path:
    """The first chapter page with a PNG output, preferring one that also has math."""
    candidates = []
    for page in sorted((site / "chapters").glob("*.html")):
        text = page.read_text()
        if re.search(r'<img[^>]+src="[^"]*_images/[^"]+\.png"', text):
            candidates.append((('class="math' not in text), page))
    assert candidates, "[book] expected a chapter with a plot (PNG output)"
    return sorted(candidates)[0][1]


def _check_screenshot(path: Path, size: tuple[int, int] = WINDOW) -> None:
    from PIL import Image

    with Image.open(path) as img:
        assert img.size == size, f"[{path.name}] expected {size}, got {img.size}"
        colors = img.convert("RGB").getcolors(maxcolors=1 << 20)
        assert colors is not None and len(colors) > 50, f"[{path.name}] looks blank"


def _check_math_typeset(dom: _Elements, where: str) -> None:
    assert dom.math, f"[{where}] expected math on the page"
    for rec in dom.math:
        assert "mjx-container" in rec["tags"], (
            f"[{where}] expected MathJax output for {rec['text'][:60]!r}"
        )
        assert "\\(" not in rec["text"] and "\\[" not in rec["text"], (
            f"[{where}] expected typeset math, got raw TeX {rec['text'][:60]!r}"
        )


def test_landing_page_renders(site, server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / "landing.png"
    shot.unlink(missing_ok=True)
    browser(f"--screenshot={shot}", url=f"{server}/index.html")
    _check_screenshot(shot)
    dom = _parse(browser("--dump-dom", url=f"{server}/index.html"))
    assert TITLE in dom.title, f"[index.html] expected title {TITLE!r}, got {dom.title!r}"
    nav_links = {a.get("href", "") for t, a in dom.elements if t == "a"}
    assert any(h.startswith("chapters/") for h in nav_links), "expected chapter links"
    assert "glossary.html" in nav_links and "api.html" in nav_links


def test_chapter_renders_math_and_plot(site, server, browser):
    page = _chapter_with_plot(site)
    url = f"{server}/chapters/{page.name}"
    shot = SHOTS / "chapter.png"
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot.unlink(missing_ok=True)
    browser(f"--screenshot={shot}", url=url)
    _check_screenshot(shot)
    # Headless Chromium paints nothing when asked to scroll to an anchor, so the formulas and
    # plots further down are photographed with a tall window instead.
    tall = SHOTS / "chapter-full.png"
    tall.unlink(missing_ok=True)
    browser(f"--screenshot={tall}", f"--window-size={WINDOW[0]},{TALL}", url=url)
    _check_screenshot(tall, (WINDOW[0], TALL))
    dom = _parse(browser("--dump-dom", url=url))
    assert TITLE in dom.title, f"[{page.name}] expected the course title in {dom.title!r}"
    assert any(t == "nav" for t, _ in dom.elements), f"[{page.name}] expected navigation"
    if 'class="math' in page.read_text():
        _check_math_typeset(dom, page.name)
    images = [a["src"] for t, a in dom.elements if t == "img" and "_images/" in a.get("src", "")]
    pngs = [s for s in images if s.endswith(".png")]
    assert pngs, f"[{page.name}] expected a PNG plot, got {images}"

    import io

    import numpy as np
    from PIL import Image

    data = urllib.request.urlopen(f"{server}/chapters/{pngs[0]}", timeout=10).read()
    pixels = np.asarray(Image.open(io.BytesIO(data)).convert("L"))
    assert pixels.size > 100 * 100, f"[{pngs[0]}] expected a plot, got {pixels.shape}"
    assert pixels.std() > 5, f"[{pngs[0]}] expected a non-blank image"


def test_glossary_math_is_typeset(server, browser):
    _check_math_typeset(_parse(browser("--dump-dom", url=f"{server}/glossary.html")), "glossary")


def test_search_page_finds_a_term(server, browser):
    dom = _parse(browser("--dump-dom", url=f"{server}/search.html?q=occupancy"))
    hits = [a.get("href", "") for t, a in dom.elements if t == "a"]
    assert any(h.startswith("glossary.html") for h in hits), (
        f"[search.html?q=occupancy] expected a result in the glossary, got {hits[:40]}"
    )


# ----------------------------------------------------------------------------- strictness


BROKEN = {  # a broken reference -> the warning that must fail the build
    "See {doc}`a page that does not exist <nowhere>`.": "unknown document: 'nowhere'",
    "A {term}`term that is not in any glossary`.": "term not in glossary",
    "A [link](missing.md) to a missing file.": "cross-reference target not found: 'missing.md'",
    "A {py:func}`pdc.no_such_function`.": "reference target not found: pdc.no_such_function",
}


def _widget_notebook(path: Path) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    model = {"model_name": "IntSliderModel", "model_module": "@jupyter-widgets/controls"}
    model |= {"model_module_version": "2.0.0", "state": {"value": 0}}
    state = {"state": {"0": model}, "version_major": 2, "version_minor": 0}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": state}
    cell = nbformat.v4.new_code_cell("import ipywidgets\nipywidgets.IntSlider()")
    view = {"model_id": "0", "version_major": 2, "version_minor": 0}
    data = {"application/vnd.jupyter.widget-view+json": view, "text/plain": "IntSlider(value=0)"}
    cell.outputs = [nbformat.v4.new_output("execute_result", data=data, execution_count=1)]
    nb.cells = [nbformat.v4.new_markdown_cell("# Widgets\n\nMath: $x^2$."), cell]
    nbformat.write(nb, path)


@pytest.mark.parametrize("broken", [False, True], ids=["clean", "broken"])
def test_broken_internal_reference_fails_the_build(build, tmp_path, broken):
    """The book's configuration and build command turn every broken reference into a failure."""
    src = tmp_path / "mini"
    (src / "_mathjax" / "site").mkdir(parents=True)
    shutil.copy(BOOK / "_config.yml", src / "_config.yml")
    (src / "_static").mkdir()
    shutil.copy(BOOK / "_static" / "scorer.js", src / "_static")  # named by the configuration
    toc = "format: jb-book\nroot: index\nchapters:\n  - file: page\n  - file: widgets\n"
    (src / "_toc.yml").write_text(toc)
    (src / "index.md").write_text("# Mini book\n\nSee {doc}`page`.\n")
    body = "\n\n".join(BROKEN) if broken else "Nothing broken here."
    (src / "page.md").write_text(f"# Page\n\n{body}\n")
    _widget_notebook(src / "widgets.ipynb")
    cmd, env = build.jupyter_book_command(src)
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    if not broken:
        assert proc.returncode == 0, f"[mini book] expected a clean build, got:\n{out}"
        # A notebook with saved widget state must not pull require.js or the widget
        # embedder from a CDN (myst-nb's default).
        page = (src / "_build" / "html" / "widgets.html").read_text()
        scripts = [a.get("src", "") for t, a in _parse(page).elements if t == "script"]
        assert not [u for u in scripts if REMOTE.match(u)], f"[widgets.html] got {scripts}"
        return
    assert proc.returncode != 0, "[mini book] expected broken references to fail the build"
    for ref, reason in BROKEN.items():
        assert reason in out, f"[mini book] expected {reason!r} for {ref!r}, got:\n{out}"
