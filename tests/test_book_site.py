"""The course book as a reader meets it: links, layout at 1,400 px, images, navigation.

Uses the build and the headless Chromium of tests/test_book.py. The layout is measured in the
browser: a page on the test server loads each book page in a 1,400 px wide frame and reports
every code or output block that would scroll sideways; at 400 px it reports pages that
scroll sideways and plots shrunk below their drawn size. Screenshots at 1,400 px and 400 px
land in book/_build/screenshots/.
"""

from __future__ import annotations

import functools
import html
import html.parser
import http.server
import json
import re
import subprocess
import threading
import urllib.parse
from pathlib import Path

import pytest

from tests import test_book as book_tests
from tests.test_book import BOOK, ROOT, SHOTS, TITLE, _check_screenshot, _parse, _text

# The book's fixtures: one build, one Chromium profile per module.
build = book_tests.build
site = book_tests.site
browser = book_tests.browser

WIDE, NARROW, HEIGHT = 1400, 400, 900
SKIP_SCHEMES = ("http:", "https:", "mailto:", "javascript:", "data:", "tel:")


# ----------------------------------------------------------------------------- links


class _Anchors(html.parser.HTMLParser):
    """The ids a page defines and the relative URLs it points at."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.urls: list[tuple[str, str]] = []  # (tag, url)

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        for key in ("id", "name") if tag == "a" else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        if tag in {"a", "link"} and "href" in a:
            self.urls.append((tag, a["href"]))
        elif tag in {"img", "script", "iframe", "source"} and a.get("src"):
            self.urls.append((tag, a["src"]))


def _anchors(page: Path, cache: dict[Path, _Anchors]) -> _Anchors:
    if page not in cache:
        parser = _Anchors()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        cache[page] = parser
    return cache[page]


def test_no_broken_internal_links(site):
    """Every relative URL of every page names a file of the site, and its #anchor exists."""
    cache: dict[Path, _Anchors] = {}
    broken = []
    # _static/ holds the theme's Jinja fragments, copied as they are; they are not pages.
    pages = [p for p in sorted(site.rglob("*.html")) if p.relative_to(site).parts[0] != "_static"]
    checked = 0
    for page in pages:
        for tag, url in _anchors(page, cache).urls:
            url = url.strip()
            if not url or url.lower().startswith(SKIP_SCHEMES) or url.startswith("//"):
                continue
            parts = urllib.parse.urlsplit(url)
            target = page if not parts.path else (page.parent / urllib.parse.unquote(parts.path))
            target = target.resolve()
            checked += 1
            where = f"{page.relative_to(site)}: <{tag}> {url}"
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or not target.is_relative_to(site):
                broken.append(f"{where} (no file {target})")
                continue
            fragment = urllib.parse.unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                if fragment not in _anchors(target, cache).ids:
                    broken.append(f"{where} (no id {fragment!r} in {target.relative_to(site)})")
    assert checked > 1000, f"[book links] expected to check many links, checked {checked}"
    assert broken == [], f"[book links] {len(broken)} broken of {checked}:\n" + "\n".join(
        broken[:60]
    )


# ----------------------------------------------------------------------------- images


HASH_NAME = re.compile(r"^[0-9a-f]{16,}(\.\w+)?$")


def test_every_plot_has_meaningful_alt_text(site):
    bad = []
    count = 0
    for page in sorted(site.rglob("*.html")):
        for tag, a in _parse(page.read_text(encoding="utf-8")).elements:
            if tag != "img" or "_images/" not in a.get("src", ""):
                continue
            count += 1
            alt = a.get("alt", "").strip()
            holes = "…" in alt[:-1] or re.search(r"[:;],", alt)  # "…x… array", "Roofline:,"
            if len(alt.split()) < 3 or HASH_NAME.match(alt) or alt in a["src"] or holes:
                bad.append(f"{page.relative_to(site)}: {a['src']} alt={alt!r}")
    assert count, "[book] expected plots in the chapters"
    assert bad == [], "[book] expected a descriptive alt text for every plot:\n" + "\n".join(bad)


def test_widget_outputs_become_a_picture_and_a_note(site, build):
    import nbformat

    mime = "application/vnd.jupyter.widget-view+json"
    # tqdm's text form of a progress bar that never moved (a widget saved at its start).
    progress = re.compile(r"(?<![\d.])0%\|.*?\|\s*0/\d+")

    def widgets(nb):
        outs = [o for c in nbformat.read(nb, as_version=4).cells for o in c.get("outputs", [])]
        return [o["data"].get("text/plain", "") for o in outs if mime in o.get("data", {})]

    with_widgets = [
        nb for nb in build.chapter_notebooks() if any(not progress.search(t) for t in widgets(nb))
    ]
    for nb in with_widgets:
        page = site / "chapters" / f"{nb.stem}.html"
        text = _text(page)
        assert "interactive when the notebook runs in JupyterLab" in text, (
            f"[{page.name}] expected the note that replaces the widget"
        )
        assert not re.search(r"\b(VBox|HBox|IntSlider)\(", text), (
            f"[{page.name}] expected no widget repr text on the page"
        )
        html_text = page.read_text()
        note = html_text.index("interactive when the notebook runs")
        assert "<img" in html_text[note : note + 3000], f"[{page.name}] expected a picture"
    for page in sorted((site / "chapters").glob("*.html")):
        text = _text(page)
        assert "VBox(children=" not in text, f"[{page.name}] shows a widget repr"
        # A progress bar saved at 0 % is noise on a static page; the book drops it.
        assert not progress.search(text), f"[{page.name}] shows a saved progress bar"


def test_consecutive_stream_outputs_are_one_box(site):
    # A cell's printed lines belong in one box: two stream boxes in a row are a split output.
    split = re.compile(
        r'<div class="output stream[^"]*">\s*<div class="highlight"><pre>[^<]*</pre></div>\s*'
        r'</div>\s*<div class="output stream'
    )
    for page in sorted((site / "chapters").glob("*.html")) + sorted(
        (site / "exercises").glob("*.html")
    ):
        assert not split.search(page.read_text()), f"[{page.name}] has a split stream output"


def test_stream_merge_keeps_order_and_streams():
    from tests.test_book import _load_build_module

    nbcopy = _load_build_module().nbcopy
    outs = [
        {"output_type": "stream", "name": "stdout", "text": "a\n"},
        {"output_type": "stream", "name": "stdout", "text": ["b\n", "c\n"]},
        {"output_type": "stream", "name": "stderr", "text": "warn\n"},
        {"output_type": "stream", "name": "stdout", "text": "d\n"},
    ]
    merged = nbcopy.merge_streams(outs)
    assert [(o["name"], o["text"]) for o in merged] == [
        ("stdout", "a\nb\nc\n"),
        ("stderr", "warn\n"),
        ("stdout", "d\n"),
    ]


def test_alt_text_comes_from_the_figure_or_the_prose():
    from tests.test_book import _load_build_module

    nbcopy = _load_build_module().nbcopy
    code = 'ax.set_title("Bandwidth by size")\nax.set_xlabel("bytes")\nax.set_ylabel("GB/s")\n'
    assert nbcopy.alt_text(code, "") == "Plot: Bandwidth by size, GB/s against bytes"
    prose = "The same calculation as a picture: occupancy against registers. More text."
    assert nbcopy.alt_text("plt.plot(x)", prose) == ("Plot: The same calculation as a picture")


def test_alt_text_never_shows_the_holes_of_an_f_string():
    from tests.test_book import _load_build_module

    nbcopy = _load_build_module().nbcopy
    code = 'ax.set_title(f"{c} stream(s)")\nax.set_xlabel("time")\nax.set_ylabel("engine")\n'
    prose = "## 5. Streams: overlapping copies with compute\n\nA stream is a queue."
    alt = nbcopy.alt_text(code, prose)
    assert alt == "Plot: Streams: overlapping copies with compute, engine against time", alt
    code = 'ax.set_title("Roofline:")\nax.set_title(f"{{literal}} braces")\n'
    assert nbcopy.alt_text(code, "") == "Plot: Roofline; {literal} braces"


def test_exercise_pages_get_the_diagrams_but_never_the_model_answer():
    from tests.test_book import _load_build_module

    nbcopy = _load_build_module().nbcopy
    png = {"output_type": "display_data", "data": {"image/png": "iVBOR"}, "metadata": {}}

    def code(source, outputs=()):
        return {"cell_type": "code", "source": source, "outputs": list(outputs), "metadata": {}}

    solution = [
        code("def kernel(a):\n    # BEGIN SOLUTION\n    a[0] = 1\n    # END SOLUTION\n"),
        code("draw_banks()", [png]),
        code("plot(kernel)", [png]),
    ]
    exercise = [code("def kernel(a):\n    ...\n"), code("draw_banks()"), code("plot(kernel)")]
    assert nbcopy.figures_from_solution(exercise, solution) == 1
    assert exercise[1]["outputs"][0]["data"] == {"image/png": "iVBOR"}
    assert exercise[2]["outputs"] == [], "a figure of the student's function would show the answer"


def test_exercise_pages_say_why_outputs_are_missing(tmp_path):
    import nbformat

    from tests.test_book import _load_build_module

    nbcopy = _load_build_module().nbcopy
    png = nbformat.v4.new_output("display_data", data={"image/png": "iVBOR"})
    exercise = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# Banks\n\nText."),
            nbformat.v4.new_code_cell("draw()"),
        ]
    )
    solution = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("draw()", outputs=[png])])
    nbformat.write(exercise, tmp_path / "ex.ipynb")
    for solution_cells, expected in (
        (solution.cells, "the figure shown here"),
        ([], "without outputs"),
    ):
        solution.cells = solution_cells
        nbformat.write(solution, tmp_path / "sol.ipynb")
        out = tmp_path / "page.ipynb"
        nbcopy.copy_notebook(tmp_path / "ex.ipynb", out, "NOTE", solution=tmp_path / "sol.ipynb")
        note = next(
            c.source for c in nbformat.read(out, as_version=4).cells if c.get("id") == "book-note"
        )
        assert note.startswith("NOTE") and expected in note, note
    assert "2 figures" in nbcopy.figures_note(2)
    with pytest.raises(ValueError, match="figures_note"):
        nbcopy.figures_note(-1)


# ----------------------------------------------------------------------------- navigation


class _Nav(html.parser.HTMLParser):
    """Links of the sidebar navigation, each with whether a closed <details> hides it."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []  # (tag, closed details)
        self.links: dict[str, bool] = {}

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "a":
            hidden = any(closed for _, closed in self.stack)
            self.links[a.get("href", "")] = hidden
        if tag not in {"a", "img", "br", "input", "meta", "link", "hr"}:
            self.stack.append((tag, tag == "details" and "open" not in a))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break


def test_exercises_are_visible_in_the_sidebar(site, build):
    text = (site / "index.html").read_text()
    nav = text[text.index("bd-docs-nav") :]
    nav = nav[: nav.index("</nav>")]
    parser = _Nav()
    parser.feed(nav)
    for nb in build.exercise_notebooks():
        href = f"exercises/{nb.stem}.html"
        assert href in parser.links, f"[index.html] expected {href} in the sidebar"
        assert not parser.links[href], f"[index.html] {href} is hidden in a collapsed section"


def test_home_page_title_is_not_doubled(site):
    assert _parse((site / "index.html").read_text()).title.strip() == TITLE
    chapter = sorted((site / "chapters").glob("*.html"))[0]
    assert _parse(chapter.read_text()).title.strip().endswith(f"— {TITLE}")


def test_landing_page_names_serve_book(site):
    assert "make serve-book" in _text(site / "index.html"), "[index.html] expected serve-book"
    dry = subprocess.run(
        ["make", "-n", "serve-book"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert "http.server" in dry.stdout and "book/_build/html" in dry.stdout, dry.stdout


# ----------------------------------------------------------------------------- API


def test_api_reference_links_every_export_to_its_definition(site):
    import pdc

    page = site / "api" / "pdc.html"
    links = [a.get("href", "") for t, a in _parse(page.read_text()).elements if t == "a"]
    for name in pdc.__all__:
        obj = getattr(pdc, name)
        if name.startswith("_") or not callable(obj):
            continue
        module, qualname = obj.__module__, obj.__qualname__
        if qualname == name and not any(p.startswith("_") for p in module.split(".")):
            anchor = f"{module}.{qualname}"
        else:
            anchor = f"pdc.{name}"
        assert any(h.endswith(f"#{anchor}") for h in links), (
            f"[api/pdc.html] expected a link to #{anchor} for pdc.{name}"
        )


def test_api_signatures_show_real_types(site):
    text = (site / "api" / "pdc.buffer.html").read_text()
    sigs = re.findall(r'<dt class="sig sig-object py" id="([^"]+)">(.*?)</dt>', text, re.S)
    plain = {i: " ".join(html.unescape(re.sub(r"<[^>]+>", "", s)).split()) for i, s in sigs}
    assert "pdc.buffer.UnifiedBuffer.from_array" in plain, sorted(plain)
    assert re.search(
        r"→ (pdc\.buffer\.)?UnifiedBuffer", plain["pdc.buffer.UnifiedBuffer.from_array"]
    )
    init = plain["pdc.buffer.UnifiedBuffer"]
    assert re.search(r"shape: (pdc\.backends\.base\.)?ShapeLike", init), init
    assert re.search(r"dtype: (pdc\.backends\.base\.)?DTypeLike", init), init
    assert not [s for s in plain.values() if "_SupportsArray" in s], "expected ArrayLike by name"
    assert "Bases: object" not in text and not re.search(r"Bases:\s*</p>", text), "empty bases"
    assert not [s for s in plain.values() if "~" in s], f"[api] raw names in signatures: {plain}"


# ----------------------------------------------------------------------------- GPU reference


def test_gpu_reference_page(site):
    reports = sorted((BOOK / "reference").glob("*.json"))
    text = _text(site / "gpu_reference.html")
    if not reports:
        assert "No GPU reference is recorded yet" in text
    for report in reports:
        assert report.name in text, f"[gpu_reference.html] expected a section for {report.name}"


def test_gpu_report_renders_any_json_as_tables_and_plots(tmp_path):
    from tests.test_book import _load_build_module

    gpureport = _load_build_module().gpureport
    report = tmp_path / "h100.json"
    report.write_text(
        json.dumps(
            {
                "device": "NVIDIA H100",
                "driver": "550.54",
                "kernels": [
                    {"name": "saxpy", "registers": 16, "ms": 0.02},
                    {"name": "matmul_tiled", "registers": 40, "ms": 1.5},
                ],
                "new_field": {"anything": [1, 2, 3]},
            }
        )
    )
    md = gpureport.render([report], tmp_path / "img", "img")
    assert "| device | NVIDIA H100 |" in md and "| name | registers | ms |" in md
    assert "| matmul_tiled | 40 | 1.5 |" in md and "### new_field" in md
    assert (tmp_path / "img" / "h100-kernels.png").is_file()
    assert "![Bar charts of registers, ms for each name" in md
    assert "No GPU reference" in gpureport.render([], tmp_path / "img", "img")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ValueError, match="expected JSON"):
        gpureport.render([tmp_path / "bad.json"], tmp_path / "img", "img")


# ----------------------------------------------------------------------------- in the browser

HARNESS = """<!doctype html><html><body style="margin:0">
<iframe id="f" style="width:{width}px;height:{height}px;border:0"></iframe>
<pre id="result">pending</pre>
<script>
const pages = {pages};
const found = {{}};
const frame = document.getElementById("f");
let i = 0;
function measure() {{
  const d = frame.contentDocument;
  const blocks = [...d.querySelectorAll(
    "div.highlight, div.highlight pre, div.cell_output pre, div.output pre")];
  const page = d.scrollingElement;
  const plots = [...d.querySelectorAll("div.cell_output img")].filter(im => im.naturalWidth);
  found[pages[i]] = {{
    blocks: blocks.length,
    wide: blocks.filter(b => !b.closest("table"))
      .filter(b => b.scrollWidth > b.clientWidth + 1)
      .map(b => [b.scrollWidth, b.clientWidth, b.textContent.trim().slice(0, 70)]),
    page: [page.scrollWidth, page.clientWidth],
    plots: plots.length,
    shrunk: plots.filter(im => im.getBoundingClientRect().width < 0.95 * im.naturalWidth)
      .map(im => [Math.round(im.getBoundingClientRect().width), im.naturalWidth, im.alt.slice(0, 60)]),
  }};
  i += 1;
  if (i < pages.length) {{ frame.src = pages[i]; }}
  else {{ document.getElementById("result").textContent = JSON.stringify(found); }}
}}
frame.addEventListener("load", () => setTimeout(measure, 50));
frame.src = pages[0];
</script></body></html>"""


@pytest.fixture(scope="module")
def harness_server(site):
    """The site on 127.0.0.1, plus /__fit.html?w=WIDTH, the measuring page."""
    pages = [
        p.relative_to(site).as_posix()
        for p in sorted(site.rglob("*.html"))
        if p.relative_to(site).parts[0] not in {"_modules", "_sources"}
        and p.name not in {"search.html", "genindex.html", "py-modindex.html"}
    ]

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path.startswith("/__fit.html"):
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                width = int(query.get("w", [WIDE])[0])
                body = HARNESS.format(width=width, height=HEIGHT, pages=json.dumps(pages))
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            super().do_GET()

    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(site))
    )
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", pages
    httpd.shutdown()
    httpd.server_close()


def _measure(base: str, pages: list[str], browser, width: int) -> dict:
    """Each page's layout in a frame ``width`` px wide (see HARNESS)."""
    out = browser(
        f"--window-size={width + 20},{HEIGHT + 200}",
        "--virtual-time-budget=600000",
        "--dump-dom",
        url=f"{base}/__fit.html?w={width}",
    )
    match = re.search(r'<pre id="result">(.*?)</pre>', out, re.S)
    assert match and match.group(1) != "pending", "[book layout] the measuring page did not finish"
    found = json.loads(html.unescape(match.group(1)))
    assert set(found) == set(pages), f"[book layout] measured {len(found)} of {len(pages)} pages"
    return found


def test_code_and_outputs_fit_at_1400px(harness_server, browser):
    base, pages = harness_server
    found = _measure(base, pages, browser, WIDE)
    blocks = sum(r["blocks"] for r in found.values())
    assert blocks > 100, f"[book layout] expected code blocks to measure, found {blocks}"
    wide = {page: r["wide"] for page, r in found.items() if r["wide"]}
    assert wide == {}, (
        f"[book layout] blocks that scroll sideways at {WIDE} px "
        f"(scrollWidth, clientWidth, text):\n" + json.dumps(wide, indent=1, ensure_ascii=False)
    )


def test_phone_width_keeps_pages_narrow_and_plots_readable(harness_server, browser):
    """At 400 px no page scrolls sideways (long API titles wrap), and every plot keeps its
    drawn size, in a box of its own that scrolls, so its labels stay readable."""
    base, pages = harness_server
    found = _measure(base, pages, browser, NARROW)
    wide_pages = {p: r["page"] for p, r in found.items() if r["page"][0] > r["page"][1] + 1}
    assert wide_pages == {}, f"[book layout] pages wider than {NARROW} px: {wide_pages}"
    assert sum(r["plots"] for r in found.values()) > 10, "[book layout] expected plots to measure"
    shrunk = {p: r["shrunk"] for p, r in found.items() if r["shrunk"]}
    assert shrunk == {}, (
        f"[book layout] plots shrunk below their drawn size at {NARROW} px: {shrunk}"
    )


def test_search_for_pdc_grade_leads_with_the_instructor_guide(harness_server, browser):
    base, _ = harness_server
    out = browser("--dump-dom", url=f"{base}/search.html?q=pdc+grade")
    results = out[out.find('<ul class="search"') :] if '<ul class="search"' in out else ""
    hits = re.findall(r'<a [^>]*href="([^"?#]+)', results)
    assert hits, "[book search] no results for 'pdc grade'"
    assert hits[0].endswith("instructor.html"), f"[book search] first results: {hits[:5]}"
    assert any("/api/" in h or h.startswith("api/") for h in hits), "API entries still found"


def _shot_pages(site: Path, build) -> dict[str, str]:
    chapter = build.chapter_notebooks()[1 if len(build.chapter_notebooks()) > 1 else 0]
    return {
        "landing": "index.html",
        "chapter": f"chapters/{chapter.stem}.html",
        "exercise": f"exercises/{build.exercise_notebooks()[0].stem}.html",
        "api": "api/pdc.buffer.html",
    }


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_screenshots_at_desktop_and_phone_width(site, build, harness_server, browser, width):
    base, _ = harness_server
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, path in _shot_pages(site, build).items():
        assert (site / path).is_file(), f"[book] expected {path}"
        shot = SHOTS / f"{name}-{width}.png"
        shot.unlink(missing_ok=True)
        browser(f"--screenshot={shot}", f"--window-size={width},{HEIGHT}", url=f"{base}/{path}")
        _check_screenshot(shot, (width, HEIGHT))


def test_carriage_returns_leave_the_last_state_of_a_line():
    from tests.test_book import _load_build_module

    nbcopy = _load_build_module().nbcopy
    text = "a\n 0%|  | 0/3\r 33%|# | 1/3\r100%|##| 3/3\r\ndone\n"
    assert nbcopy.apply_carriage_returns(text) == "a\n100%|##| 3/3\ndone\n"
