"""The book's copy of a notebook: what a static page needs that JupyterLab does not.

book/build.py copies every chapter and exercise through `copy_notebook`, which

- merges consecutive stream outputs of the same name (a cell that prints in several steps
  shows one output box, as JupyterLab does) and applies carriage returns as a terminal
  does (a text progress bar shows its last state, not every step),
- gives every plot an alt text taken from its figure's title and axis labels, or else from
  the prose just above the cell,
- drops progress bars (a tqdm widget saved at 0 % says nothing on a static page), and
  replaces any other widget output, which a static page cannot run, by a note that it is interactive
  in JupyterLab and a picture: the cell's own plot or, failing that, the chapter's latest plot
  above it, and
- gives an exercise page the figures of its solution's run that do not depend on the
  student's code (a diagram of the problem), and says under its title why the other outputs
  are missing,
- drops machine-readable data meant for the course's tools (vendor JSON mime types such as
  the measurement records the tests read), keeping the text shown beside it, and
- inserts the book's note on how to run the notebook right under its title.

The notebooks themselves are never modified.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
IMAGE_MIMES = ("image/png", "image/jpeg", "image/svg+xml", "image/gif")
WIDGET_NOTE = (
    "*This output is interactive when the notebook runs in JupyterLab (`make lab`). "
    "The book cannot run it, so it shows {what} instead.*"
)
ALT_MAX = 240  # characters: screen readers read alt text in one go, so keep it to a sentence

# One or more adjacent string literals (Python joins "a " "b" into "a b").
_STRINGS = r"""((?:[fFrR]{0,2}(?:"[^"\n]*"|'[^'\n]*')\s*)+)"""
_LITERAL = re.compile(r"""([fFrR]{0,2})("|')(.*?)\2""")
_TITLE = re.compile(r"\b(?:set_title|suptitle|title)\(\s*" + _STRINGS)
_XLABEL = re.compile(r"\b(?:set_xlabel\(|xlabel\(|xlabel\s*=)\s*" + _STRINGS)
_YLABEL = re.compile(r"\b(?:set_ylabel\(|ylabel\(|ylabel\s*=)\s*" + _STRINGS)
_KWARG = {name: re.compile(rf"\b{name}\s*=\s*" + _STRINGS) for name in ("title",)}
# tqdm's text form of a progress bar: "label:  40%|####      | 2/5 [...]".
_PROGRESS = re.compile(r"\d+%\|.*\|\s*\d+/\d+")


def merge_streams(outputs: list[dict]) -> list[dict]:
    """Join consecutive stream outputs of the same stream into one output.

    Args:
        outputs: A code cell's outputs (nbformat v4 dictionaries).

    Returns:
        The outputs with each run of stdout (or stderr) chunks joined into one.
    """
    merged: list[dict] = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (
            prev is not None
            and out.get("output_type") == "stream"
            and prev.get("output_type") == "stream"
            and prev.get("name") == out.get("name")
        ):
            prev["text"] = _text(prev["text"]) + _text(out["text"])
        else:
            merged.append(out)
    for out in merged:
        if out.get("output_type") == "stream":
            out["text"] = apply_carriage_returns(_text(out["text"]))
    return merged


def apply_carriage_returns(text: str) -> str:
    """Each line as a terminal leaves it: what follows its last carriage return.

    Args:
        text: Printed text, possibly with ``\\r`` redrawing a line (tqdm does).

    Returns:
        The text with every redrawn line replaced by its final state.
    """
    lines = []
    for line in text.split("\n"):
        parts = [p for p in line.split("\r") if p]
        lines.append(parts[-1] if parts else "")
    return "\n".join(lines)


def drop_tool_data(outputs: list[dict]) -> None:
    """Remove vendor JSON mime types (``application/vnd.*+json``) other than widgets, in place."""
    for out in outputs:
        data = out.get("data", {})
        for mime in list(data):
            if mime.startswith("application/vnd.") and mime.endswith("+json"):
                if mime != WIDGET_MIME and len(data) > 1:
                    del data[mime]


def _text(value: str | list[str]) -> str:
    return value if isinstance(value, str) else "".join(value)


def _literal(match: re.Match[str]) -> str:
    """The text of matched adjacent string literals, or "" when an f-string has fields.

    The values of an f-string's fields are known only when the notebook runs, so a title built
    from one cannot be spelled out here; it is left out rather than shown with holes.
    """
    text = ""
    for prefix, _, body in _LITERAL.findall(match.group(1)):
        if "f" in prefix.lower() and re.search(r"\{[^{}]*\}", body.replace("{{", "")):
            return ""
        text += body.replace("{{", "{").replace("}}", "}") if "f" in prefix.lower() else body
    return " ".join(text.replace("\\n", " ").split()).rstrip(":;, ")


def _plain(markdown: str) -> str:
    """Markdown reduced to its first sentence of plain text."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    # a heading ends like a sentence, and its section number ("## 5. Streams") is no sentence
    text = re.sub(r"^#+\s*(?:\d+(?:\.\d+)*\.?\s+)?(.*)$", r"\1.", text, flags=re.M)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images keep their text
    text = re.sub(r"\{[a-z:]+\}`([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", text)  # MyST roles
    text = re.sub(r"[`*_#>]", "", text)
    text = " ".join(text.split())
    first = re.split(r"(?<=[.!?:])\s", text, maxsplit=1)[0]
    if len(first.split()) < 3:  # "Streams:" says nothing; take the whole sentence
        first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return first.rstrip(":.")


def alt_text(source: str, prose_above: str) -> str:
    """Alt text for the plots a code cell draws.

    Args:
        source: The cell's code.
        prose_above: The markdown of the nearest markdown cell above it ("" if none).

    Returns:
        "Plot: " and the figure titles with the axes, or the first sentence of the prose
        above the cell when the code names no title.
    """
    titles = [_literal(m) for m in _TITLE.finditer(source)]
    titles += [_literal(m) for m in _KWARG["title"].finditer(source)]
    titles = [t for t in dict.fromkeys(titles) if t]
    xs = [t for t in (_literal(m) for m in _XLABEL.finditer(source)) if t]
    ys = [t for t in (_literal(m) for m in _YLABEL.finditer(source)) if t]
    parts = []
    if titles:
        parts.append("; ".join(titles))
    else:  # no title readable from the code: the prose above says what the plot shows
        sentence = _plain(prose_above)
        parts.append(sentence if sentence else "a figure drawn by the code above")
    if xs and ys:
        parts.append(f"{ys[0]} against {xs[0]}")
    alt = "Plot: " + ", ".join(parts)
    return alt if len(alt) <= ALT_MAX else alt[: ALT_MAX - 1].rstrip() + "…"


def _images(outputs: list[dict]) -> list[dict]:
    return [o for o in outputs if any(m in o.get("data", {}) for m in IMAGE_MIMES)]


def _picture(image_output: dict) -> dict:
    data = {m: v for m, v in image_output["data"].items() if m in IMAGE_MIMES}
    return {"output_type": "display_data", "data": data, "metadata": {}}


def _note(what: str) -> dict:
    text = WIDGET_NOTE.format(what=what)
    return {"output_type": "display_data", "data": {"text/markdown": text}, "metadata": {}}


def replace_widgets(cells: list[Any]) -> int:
    """Replace widget outputs by a note and a static picture, in place.

    Args:
        cells: The notebook's cells, in order.

    Returns:
        How many widget outputs were replaced.
    """
    replaced = 0
    last_plot: tuple[dict, str] | None = None  # (image output, its cell's alt text)
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        outputs = cell.get("outputs", [])
        own = _images(outputs)
        new: list[dict] = []
        for out in outputs:
            if WIDGET_MIME not in out.get("data", {}):
                new.append(out)
                continue
            replaced += 1
            if _PROGRESS.search(_text(out["data"].get("text/plain", ""))):
                continue
            if own:
                new.append(_note("the plot this cell draws"))
            elif last_plot is not None:
                new.append(_note("the chapter's plot of the same calculation, from above"))
                new.append(_picture(last_plot[0]))
                image = cell.setdefault("metadata", {}).setdefault("mystnb", {})
                image.setdefault("image", {})["alt"] = (
                    "Static stand-in for the interactive explorer. " + last_plot[1]
                )
            else:
                new.append(_note("this note"))
        cell["outputs"] = new
        if own:
            alt = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt", "")
            last_plot = (own[-1], alt)
    return replaced


def describe_plots(cells: list[Any]) -> None:
    """Set the alt text of every code cell that draws a plot, in place."""
    prose = ""
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            prose = _text(cell.get("source", ""))
            continue
        if cell.get("cell_type") != "code" or not _images(cell.get("outputs", [])):
            continue
        image = cell.setdefault("metadata", {}).setdefault("mystnb", {}).setdefault("image", {})
        image.setdefault("alt", alt_text(_text(cell.get("source", "")), prose))


_DEF = re.compile(r"^\s*def\s+(\w+)", re.M)


def figures_from_solution(cells: list[Any], solution_cells: list[Any]) -> int:
    """Give an exercise's code cells the figures of the model run, where they cannot leak it.

    A student's notebook is published without outputs. A figure is copied from the solution
    notebook to the identical cell of the exercise when that cell names no function whose
    definition the student writes (a cell holding ``# BEGIN SOLUTION``): a diagram of the
    problem, never a picture of the model answer's behaviour.

    Args:
        cells: The exercise's cells, changed in place.
        solution_cells: The solution notebook's cells.

    Returns:
        How many cells received figures.
    """
    written = set()
    for cell in solution_cells:
        if cell.get("cell_type") == "code" and "BEGIN SOLUTION" in _text(cell.get("source", "")):
            written.update(_DEF.findall(_text(cell.get("source", ""))))
    figures = {}
    for cell in solution_cells:
        if cell.get("cell_type") == "code" and _images(cell.get("outputs", [])):
            figures[_text(cell.get("source", ""))] = _images(cell["outputs"])
    copied = 0
    for cell in cells:
        source = _text(cell.get("source", ""))
        if cell.get("cell_type") != "code" or source not in figures:
            continue
        if any(re.search(rf"\b{re.escape(name)}\b", source) for name in written):
            continue
        cell["outputs"] = [_picture(o) for o in figures[source]]
        copied += 1
    return copied


def figures_note(copied: int) -> str:
    """What an exercise page says about its outputs, given how many figures it received.

    Args:
        copied: The figures :func:`figures_from_solution` gave the page.

    Returns:
        One markdown paragraph: every other output comes from the student's own code, so it
        appears only when the notebook runs.
    """
    if copied < 0:
        raise ValueError(f"[figures_note] expected a count of figures >= 0, got {copied}")
    if copied == 0:
        return (
            "*This page shows the exercise as you receive it, without outputs: they come from "
            "running the notebook with your code filled in.*"
        )
    if copied == 1:
        shown = "the figure shown here does not depend on your code (it comes"
    else:
        shown = f"the {copied} figures shown here do not depend on your code (they come"
    return f"*Outputs appear when you run the notebook; {shown} from a run of the model answer).*"


def copy_notebook(src: Path, dest: Path, note: str, solution: Path | None = None) -> None:
    """Copy a notebook with its outputs, prepared for a static page.

    Args:
        src: The notebook to copy.
        dest: Where to write the copy.
        note: Markdown to insert right after the notebook's title.
        solution: For an exercise, its solution notebook: figures that do not depend on the
            student's code are taken from there (see :func:`figures_from_solution`), and the
            note gains a line on why the page shows no other outputs (:func:`figures_note`).
    """
    import nbformat

    nb = nbformat.read(src, as_version=4)
    if solution is not None:
        copied = 0
        if solution.is_file():
            copied = figures_from_solution(nb.cells, nbformat.read(solution, as_version=4).cells)
        note = f"{note}\n{figures_note(copied)}\n"
    at = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and re.search(r"^# ", cell.source, re.M):
            # Split the title line from the rest so the note sits directly under it.
            head, _, rest = cell.source.partition("\n")
            if head.startswith("# ") and rest.strip():
                cell.source = head
                nb.cells.insert(i + 1, nbformat.v4.new_markdown_cell(rest.lstrip("\n")))
            at = i + 1
            break
    for cell in nb.cells:
        if cell.cell_type == "code":
            drop_tool_data(cell.outputs)
            cell.outputs = [nbformat.from_dict(o) for o in merge_streams(cell.outputs)]
    describe_plots(nb.cells)
    replace_widgets(nb.cells)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.from_dict(o) for o in cell.outputs]
    note_cell = nbformat.v4.new_markdown_cell(note)
    note_cell.metadata["tags"] = ["book-note"]
    # nbformat >= 5.1 wants cell ids; give the note a stable one.
    note_cell["id"] = "book-note"
    nb.cells.insert(at, note_cell)
    for cell in nb.cells:
        if "id" not in cell:
            cell["id"] = hashlib.sha1(cell.source.encode()).hexdigest()[:8]
    nbformat.write(nb, dest)
