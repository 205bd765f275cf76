"""Build the course book (book/ -> book/_build/html) with Jupyter Book 1.x, fully offline.

Usage (what `make book` runs)::

    .venv/bin/python book/build.py

Steps:

1. Install MathJax 3 with npm (pinned in book/_mathjax/package-lock.json) and stage the parts
   the site needs in book/_mathjax/site/mathjax/, which Sphinx copies to the site root.
2. Generate the git-ignored source folders from the files they present:
   chapters/ (notebooks/NN_*.ipynb, committed outputs, with a note on how to run each one),
   exercises/ (student versions from exercises/, see nbcopy.py) and _generated/ (fragments
   included by committed pages: the instructor notes, the classroom workflow, the GPU
   reference reports of book/reference/, see gpureport.py). Sphinx's autosummary writes api/
   (one page per pdc module) during the build.
3. Run ``jupyter-book build --all -W -n --keep-going``: every warning, including a broken
   internal reference, fails the build. Notebooks are not executed.
4. Check that no page loads a script, stylesheet or font from the network, then record a
   digest of the inputs in book/_build/inputs.sha256 so that tests can reuse a fresh build.
"""

from __future__ import annotations

import argparse
import hashlib
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no lock, one build at a time is up to the user
    fcntl = None  # type: ignore[assignment]

BOOK = Path(__file__).resolve().parent
sys.path.insert(0, str(BOOK))
import gpureport  # noqa: E402 - modules beside this script, importable once BOOK is on sys.path
import nbcopy  # noqa: E402

ROOT = BOOK.parent
HTML = BOOK / "_build" / "html"
STAMP = BOOK / "_build" / "inputs.sha256"
# Committed GPU reference reports (report.json files of `make gpu-report`).
REFERENCE = BOOK / "reference"

MATHJAX_NPM = BOOK / "_mathjax"
MATHJAX_SITE = MATHJAX_NPM / "site" / "mathjax"
# What the site serves of the npm package's es5/ folder: the TeX-to-HTML bundle plus the
# pieces it loads on demand (fonts, TeX extensions, menu, accessibility and speech modules).
MATHJAX_PARTS = ["tex-chtml.js", "output", "input", "ui", "a11y", "sre", "adaptors"]

# Generated source folders inside book/ (all git-ignored).
GENERATED = ["chapters", "exercises", "api", "_generated"]

NOTEBOOK_GLOB = "[0-9][0-9]_*.ipynb"
# Files next to the notebooks that pages may show (images the notebooks reference).
ASSET_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"}


def log(msg: str) -> None:
    """Print one progress line."""
    print(f"[book] {msg}", flush=True)


# ----------------------------------------------------------------------------- MathJax


def _mathjax_wanted_version() -> str:
    lock = json.loads((MATHJAX_NPM / "package-lock.json").read_text())
    return lock["packages"]["node_modules/mathjax"]["version"]


def install_mathjax() -> None:
    """Install MathJax with npm (once per version) and stage it for html_extra_path."""
    wanted = _mathjax_wanted_version()
    pkg = MATHJAX_NPM / "node_modules" / "mathjax"
    installed = None
    if (pkg / "package.json").exists():
        installed = json.loads((pkg / "package.json").read_text())["version"]
    if installed != wanted:
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("[book] expected npm on PATH to install MathJax, got none")
        log(f"npm ci: mathjax {wanted}")
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
            cwd=MATHJAX_NPM,
            check=True,
        )
    marker = MATHJAX_NPM / "site.version"  # outside site/, which is published as is
    if marker.exists() and marker.read_text() == wanted:
        return
    shutil.rmtree(MATHJAX_SITE, ignore_errors=True)
    MATHJAX_SITE.mkdir(parents=True)
    for part in MATHJAX_PARTS:
        src = pkg / "es5" / part
        if src.is_dir():
            shutil.copytree(src, MATHJAX_SITE / part)
        else:
            shutil.copy2(src, MATHJAX_SITE / part)
    marker.write_text(wanted)


# ----------------------------------------------------------------------------- sources


# Where chapters and exercises come from (options of main() may point elsewhere).
SOURCES = {"notebooks": ROOT / "notebooks", "exercises": ROOT / "exercises"}


def chapter_notebooks() -> list[Path]:
    """The chapter notebooks, in order."""
    return sorted(SOURCES["notebooks"].glob(NOTEBOOK_GLOB))


def exercise_notebooks() -> list[Path]:
    """The student versions of the exercises, in order."""
    return sorted(SOURCES["exercises"].glob(NOTEBOOK_GLOB))


def _chapter_note(rel: str) -> str:
    return (
        ":::{admonition} Run this chapter yourself\n"
        ":class: tip\n"
        "This page shows the notebook with the outputs it produced when it was last run. "
        "To run it yourself, type `make lab` in the course folder and open "
        f"`{rel}` in JupyterLab. No GPU is needed. The rocket button at the top of the page "
        "opens it in Colab, where its first cell installs the course package.\n"
        ":::\n"
    )


def _exercise_note(rel: str) -> str:
    return (
        ":::{admonition} Work on this exercise\n"
        ":class: tip\n"
        f"Type `make lab` in the course folder, open `{rel}` in JupyterLab, fill in every "
        "`# FILL ME IN`, and run the notebook's check cells. "
        "{doc}`../exercises` explains how to check and submit your work.\n"
        ":::\n"
    )


def generate_pages() -> None:
    """Write the generated source folders from notebooks/, exercises/, solutions/ and pdc/."""
    for name in GENERATED:
        shutil.rmtree(BOOK / name, ignore_errors=True)
        (BOOK / name).mkdir()

    chapters = chapter_notebooks()
    exercises = exercise_notebooks()
    if not chapters:
        raise SystemExit(f"[book] expected chapter notebooks notebooks/{NOTEBOOK_GLOB}, got none")
    for src in chapters:
        nbcopy.copy_notebook(
            src, BOOK / "chapters" / src.name, _chapter_note(f"notebooks/{src.name}")
        )
    for asset in SOURCES["notebooks"].rglob("*"):
        if asset.suffix.lower() in ASSET_SUFFIXES and ".ipynb_checkpoints" not in asset.parts:
            dest = BOOK / "chapters" / asset.relative_to(SOURCES["notebooks"])
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(asset, dest)
    for src in exercises:
        nbcopy.copy_notebook(
            src,
            BOOK / "exercises" / src.name,
            _exercise_note(f"exercises/{src.name}"),
            solution=ROOT / "solutions" / src.name,
        )
    log(f"{len(chapters)} chapters, {len(exercises)} exercises")

    gen = BOOK / "_generated"
    instructor = ROOT / "solutions" / "INSTRUCTOR.md"
    if instructor.exists():
        # instructor.md includes it one heading level down (:heading-offset: 1).
        shutil.copy2(instructor, gen / "instructor_notes.md")
    else:
        (gen / "instructor_notes.md").write_text(
            "The detailed instructor notes (`solutions/INSTRUCTOR.md`) are not in this copy "
            "of the course.\n"
        )
    classroom = ROOT / "solutions" / "classroom" / "github-classroom.yml"
    if classroom.exists():
        body = classroom.read_text()
        fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", body)), default=0))
        (gen / "classroom.md").write_text(
            f"The workflow, `solutions/classroom/github-classroom.yml`:\n\n{fence}yaml\n"
            f"{body.rstrip()}\n{fence}\n"
        )
    else:
        (gen / "classroom.md").write_text(
            "The workflow file `solutions/classroom/github-classroom.yml` is not in this copy "
            "of the course.\n"
        )
    reports = sorted(REFERENCE.glob("*.json"))
    (gen / "gpu_reference.md").write_text(
        gpureport.render(reports, gen / "gpu_reference", "_generated/gpu_reference")
    )
    log(f"{len(reports)} GPU reference reports")


# ----------------------------------------------------------------------------- checks


class _ResourceFinder(html.parser.HTMLParser):
    """Collects the URLs a page loads as scripts, stylesheets, fonts or inline CSS."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "script" and a.get("src"):
            self.urls.append(a["src"])
        elif tag == "link":
            rel = set(a.get("rel", "").lower().split())
            if rel & {"stylesheet", "preload", "modulepreload", "prefetch", "icon"}:
                self.urls.append(a.get("href", ""))
        elif tag == "style":
            self._in_style = True
        if "style" in a:
            self.urls += css_urls(a["style"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.urls += css_urls(data)


_CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""", re.I)


def css_urls(css: str) -> list[str]:
    """URLs referenced by url(...) and @import in CSS text."""
    return [a or b for a, b in _CSS_URL.findall(css)]


def is_remote(url: str) -> bool:
    """True for URLs that leave the site (http:, https:, protocol-relative)."""
    return bool(re.match(r"^(https?:)?//", url.strip(), re.I))


def remote_resources(html_dir: Path = HTML) -> list[str]:
    """Every script, stylesheet or CSS import/url() of the site that points off-site."""
    found = []
    for page in sorted(html_dir.rglob("*.html")):
        finder = _ResourceFinder()
        finder.feed(page.read_text(encoding="utf-8", errors="replace"))
        found += [f"{page.relative_to(html_dir)}: {u}" for u in finder.urls if is_remote(u)]
    for sheet in sorted(html_dir.rglob("*.css")):
        text = sheet.read_text(encoding="utf-8", errors="replace")
        found += [f"{sheet.relative_to(html_dir)}: {u}" for u in css_urls(text) if is_remote(u)]
    return found


# ----------------------------------------------------------------------------- freshness


def input_files() -> list[Path]:
    """Every file whose content the site depends on."""
    files = [
        p
        for p in BOOK.rglob("*")
        if p.is_file()
        and p.relative_to(BOOK).parts[0] not in {"_build", "_mathjax", *GENERATED}
        and "__pycache__" not in p.parts
    ]
    files += [MATHJAX_NPM / "package.json", MATHJAX_NPM / "package-lock.json"]
    files += chapter_notebooks() + exercise_notebooks()
    files += [p for p in SOURCES["notebooks"].rglob("*") if p.suffix.lower() in ASSET_SUFFIXES]
    files += [p for p in (ROOT / "pdc").rglob("*.py")]
    files += [p for p in (ROOT / "solutions").glob("INSTRUCTOR.md")]
    files += [p for p in (ROOT / "solutions" / "classroom").glob("*.yml")]
    return sorted(set(files))


def inputs_digest() -> str:
    """SHA-256 over the paths and contents of input_files()."""
    h = hashlib.sha256()
    for p in input_files():
        h.update(os.path.relpath(p, ROOT).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def is_fresh() -> bool:
    """True when book/_build/html was built by this script from the current inputs."""
    return (
        STAMP.exists()
        and (HTML / "index.html").exists()
        and STAMP.read_text().strip() == inputs_digest()
    )


# ----------------------------------------------------------------------------- main


def jupyter_book_command(source: Path) -> tuple[list[str], dict[str, str]]:
    """The strict jupyter-book build of `source` (warnings and broken links fail), and its env."""
    env = dict(os.environ)
    # The course package for autodoc, and the book's own Sphinx extension (book/_ext).
    paths = [str(ROOT), str(BOOK / "_ext"), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    # Importing modules for autodoc must never need a GPU.
    env.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    runner = "import sys; from jupyter_book.cli.main import main; sys.exit(main())"
    cmd = [sys.executable, "-c", runner, "build", str(source)]
    cmd += ["--builder", "html", "--all", "-W", "-n", "--keep-going"]
    return cmd, env


def build() -> None:
    """Run every step; raise SystemExit on failure."""
    start = time.perf_counter()
    STAMP.unlink(missing_ok=True)
    # Start from an empty site so that nothing of an earlier build (a renamed chapter, a file
    # of an extension no longer used) is published.
    shutil.rmtree(HTML, ignore_errors=True)
    install_mathjax()
    generate_pages()
    cmd, env = jupyter_book_command(BOOK)
    log("jupyter-book " + " ".join(cmd[3:]))
    proc = subprocess.run(cmd, cwd=ROOT, env=env)
    if proc.returncode != 0 or not (HTML / "index.html").exists():
        raise SystemExit(f"[book] jupyter-book build failed (exit code {proc.returncode})")
    remote = remote_resources()
    if remote:
        raise SystemExit(
            "[book] expected no off-site scripts or stylesheets, got:\n  " + "\n  ".join(remote)
        )
    STAMP.write_text(inputs_digest() + "\n")
    log(f"built {HTML.relative_to(ROOT)} in {time.perf_counter() - start:.0f} s")


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--if-stale", action="store_true", help="skip the build when the last one is fresh"
    )
    parser.add_argument(
        "--notebooks", type=Path, help="take chapters from this folder instead of notebooks/"
    )
    parser.add_argument(
        "--exercises", type=Path, help="take exercises from this folder instead of exercises/"
    )
    args = parser.parse_args(argv)
    for key in SOURCES:
        if getattr(args, key):
            SOURCES[key] = getattr(args, key).resolve()
    # One build at a time in this folder (test workers, `make book` in a second terminal): a
    # second one waits, then finds the site fresh when it asked only for a stale one.
    (BOOK / "_build").mkdir(exist_ok=True)
    with open(BOOK / "_build" / ".lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        if args.if_stale and is_fresh():
            log("up to date")
            return 0
        build()
    return 0


if __name__ == "__main__":
    sys.exit(main())
