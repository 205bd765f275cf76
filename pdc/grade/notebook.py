"""Read a submission notebook: which file answers which exercise, and the code it runs.

Three jobs, each built on the library that already knows the answer:

* ``read_notebook`` reads a file with nbformat and turns every way it can fail (a 0-byte
  upload, a file cut in half, a JSON file that is no notebook, bytes that are not UTF-8, no
  permission) into one :class:`NotebookError` that names the file and the reason, so the
  grader can score that exercise 0 and go on with the rest of the class.
* ``notebook_cells`` gives the code a top-to-bottom run of the notebook executes, as Python:
  IPython's own transformer (``IPython.core.inputtransformer2.TransformerManager``) turns
  ``cuda.grid?``, ``x = !nvidia-smi -L`` and ``t = %timeit -o f()`` into the calls IPython
  makes, so the rest of such a cell is kept. A cell under a cell magic that does not run its
  body as Python (``%%script``, ``%%bash``, ``%%writefile``, ``%%html``, ...) is left out,
  as its code never defines anything; nor does ``%%timeit``'s, which IPython runs inside a
  function of its own (a ``def`` there is local to it); ``%%time``, ``%%capture`` and
  ``%%prun`` run the body in the notebook's namespace, so the body is kept.
* ``find_notebooks`` picks the notebook for each exercise in a submission folder.
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path

#: Cell magics whose body runs as Python in the notebook's own namespace (not ``%%timeit``:
#: IPython compiles its body into a function, so what it binds is gone after the cell).
PYTHON_CELL_MAGICS = frozenset(("time", "capture", "prun"))


class NotebookError(ValueError):
    """A notebook that cannot be read; the message names the file and why."""


def nbformat_module():
    """``nbformat``, imported without jsonschema's IRI format checker.

    jsonschema 4.25 and later compile the rfc3987-syntax package's grammars (with lark) when
    its format module is first imported, if that package is installed (JupyterLab's
    jupyter-events installs it): about two seconds of CPU in every process that reads a
    notebook, for a format that no notebook schema uses. The package is hidden only while
    nbformat imports jsonschema; importing it later works as always. No library option turns
    that import off, hence this.
    """
    if "nbformat" in sys.modules:
        return sys.modules["nbformat"]
    hide = "jsonschema" not in sys.modules and "rfc3987_syntax" not in sys.modules
    if hide:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # import fails
    try:
        import nbformat
    finally:
        if hide and sys.modules.get("rfc3987_syntax", False) is None:
            del sys.modules["rfc3987_syntax"]
    return nbformat


def read_notebook(path):
    """Read a notebook as nbformat v4 (without schema validation, which is slow).

    Raises:
        NotebookError: The file is empty, not UTF-8, not JSON, not a notebook, or unreadable.
    """
    nbformat = nbformat_module()
    from nbformat import reader

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise NotebookError(f"{path.name}: cannot be read ({e.strerror or e})") from None
    if not data.strip():
        raise NotebookError(f"{path.name}: not a valid notebook (the file is empty)")
    try:  # a byte-order mark (Windows editors write one) says UTF-8, and nothing else
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise NotebookError(f"{path.name}: not a valid notebook (not UTF-8 text: {e})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise NotebookError(
            f"{path.name}: not a valid notebook (JSON error at line {e.lineno}, "
            f"column {e.colno}: {e.msg}; {_json_hint(text)})"
        ) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("cells", []), list):
        raise NotebookError(
            f"{path.name}: not a valid notebook (expected a JSON object with a list of "
            f"cells, got {type(raw).__name__})"
        )
    try:
        nb = reader.reads(text)
        nb = nbformat.convert(nb, 4)
        cells = list(nb.cells)
        for cell in cells:
            _ = cell.cell_type, cell.get("source", "")
    except Exception as e:  # nbformat raises many kinds for a malformed notebook
        raise NotebookError(
            f"{path.name}: not a valid notebook ({type(e).__name__}: {e})"
        ) from None
    return nb


def _json_hint(text: str) -> str:
    """What a notebook file that is no JSON most likely is."""
    body = text.strip()
    if not body.startswith("{"):
        return "a notebook is JSON that starts with '{': was another file saved as .ipynb?"
    if not body.endswith("}"):
        return "the file does not end with '}': was it cut short?"
    return "was the file edited by hand?"


@lru_cache(maxsize=1)
def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager()


def cell_code(source: str) -> str | None:
    """The Python a code cell runs (IPython syntax converted), or None when it runs none.

    Args:
        source: The cell's source as the notebook stores it.

    Returns:
        Python source, or None for a cell under a cell magic that does not run Python.
    """
    lines = source.splitlines()
    first = next((k for k, ln in enumerate(lines) if ln.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(maxsplit=1)
        if not magic or magic[0] not in PYTHON_CELL_MAGICS:
            return None
        source = "\n".join(lines[first + 1 :])
    if _plain_python(source):  # what IPython's transform returns, without its tokenizer
        return source if source.endswith("\n") else source + "\n"
    try:
        return _transformer().transform_cell(source)
    except Exception:  # IPython could not transform it: IPython would not run it either
        return source


# What IPython's clean-up may still change in a cell that parses as Python: a blank first
# line or spaces on a blank line (dropped), a line that may be a prompt ("In [1]: x = 1" is
# an annotated assignment in Python; IPython strips the prompt).
_IPYTHON_CLEANS = re.compile(
    r"\A[ \t\f]*(\n|\Z)|^[ \t\f]+$|^\s*(In \[|\.\.\.|>>>|\[nav\]|\[ins\])", re.MULTILINE
)


def _plain_python(source: str) -> bool:
    """True when IPython's transform would return ``source`` as it is (with a final newline).

    IPython's syntax (magics, ``!`` commands, ``?`` help, an indented first line) is a
    syntax error in Python, so a cell that parses as Python has none of it; what IPython's
    clean-up still changes in valid Python (``_IPYTHON_CLEANS``) is left to IPython.
    IPython's transform tokenizes every cell in Python (about a quarter of a second per
    student in a class), where compiling it is one C call.
    """
    if _IPYTHON_CLEANS.search(source):
        return False
    try:  # to bytecode, in C: no Python ast objects, so no need of pdc.pyast's lock
        compile(source, "<cell>", "exec", dont_inherit=True)
    except Exception:  # noqa: BLE001 - SyntaxError; ValueError (a NUL byte); RecursionError
        return False
    return True


def notebook_cells(path) -> list[str]:
    """The code cells of a notebook as the Python a top-to-bottom run executes, in order.

    Raises:
        NotebookError: The notebook cannot be read (see :func:`read_notebook`).
    """
    nb = read_notebook(path)
    cells = []
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        code = cell_code(cell.get("source", "") or "")
        if code is not None:
            cells.append(code)
    return cells


def _visible(path: Path, root: Path) -> bool:
    rel = path.relative_to(root).parts
    return not any(p.startswith(".") or p == "__pycache__" for p in rel[:-1])


def _exercise_of(path: Path, keys) -> str | None:
    """The exercise a notebook answers: its name first, then its metadata."""
    stem = path.name
    key = next((k for k in keys if stem.startswith(k)), None)
    if key is not None:
        return key
    try:
        meta = read_notebook(path).metadata.get("pdc", {}).get("exercise")
    except NotebookError:
        return None
    return meta if meta in keys else None


def find_notebooks(path: Path, keys, warnings: list | None = None) -> dict:
    """Exercise key -> notebook path, for a notebook or a folder (searched with sub-folders).

    ``<key>.ipynb`` (at any depth; the shallowest first) is the notebook for ``key`` whatever
    any other notebook's metadata says. Without one, a notebook whose name starts with the key
    (``NN_name (1).ipynb`` for ``NN_name``) and then one whose metadata names the exercise is taken.
    Hidden folders and ``.ipynb_checkpoints`` are skipped. Every other candidate is named in
    ``warnings``.

    Args:
        path: A notebook, or a submission folder.
        keys: The exercise keys.
        warnings: A list that receives one line per exercise with several candidates.

    Returns:
        Exercise key -> the notebook to grade for it.
    """
    path = Path(path)
    if path.is_file():
        paths = [path]
    else:
        paths = sorted(
            (p for p in path.rglob("*.ipynb") if p.is_file() and _visible(p, path)),
            key=lambda p: (len(p.relative_to(path).parts), str(p)),
        )
    candidates: dict[str, list[Path]] = {}
    for p in paths:
        key = _exercise_of(p, keys)
        if key is not None:
            candidates.setdefault(key, []).append(p)
    found = {}
    for key, ps in candidates.items():
        exact = [p for p in ps if p.name == f"{key}.ipynb"]
        named = [p for p in ps if p.name.startswith(key)]
        chosen = (exact or named or ps)[0]
        found[key] = chosen
        root = path if path.is_dir() else path.parent
        others = [str(p.relative_to(root)) for p in ps if p != chosen]
        if others and warnings is not None:
            how = "the exact name" if exact else "a guess: rename the one to grade"
            warnings.append(
                f"{key}: graded {chosen.relative_to(root)} ({how}); ignored {', '.join(others)}"
            )
    return found
