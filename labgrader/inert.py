"""Autograded notebooks that a browser cannot run: the last step of the autograde pipeline.

The formgrader shows every autograded notebook in your browser, at your Jupyter server's
address, and feedback pages are made from them. A student's HTML or JavaScript there (an
output, raw HTML in a markdown answer, a raw cell, an SVG) would run with your session:
it could call the server's API as you, and set grades. ``InertOutputs`` keeps each
output's plain text or image and drops its active forms (HTML, SVG, markdown, LaTeX,
JavaScript); an output with no inert form keeps its markup cleaned (bleach, as nbconvert's
``clean_html``), never its JavaScript. Markdown and raw cells the student wrote (not the
release's) are cleaned and lose ``javascript:``-style links; SVG attachments are dropped.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

ACTIVE = ("text/html", "image/svg+xml", "text/markdown", "text/latex")  # may carry script
INERT = ("text/plain", "image/png", "image/jpeg", "image/gif")
SCRIPT_URL = re.compile(r"(?i)\b(javascript|vbscript|data)(\s*):")


def inert_markup(text: str) -> str:
    """Markup a student wrote, cleaned (disallowed tags escaped) and with script URL
    schemes broken (``javascript:`` becomes ``javascript-blocked:``)."""
    from nbconvert.filters import clean_html
    return SCRIPT_URL.sub(r"\1-blocked\2:", clean_html(text))


def _text(value) -> str:
    return value if isinstance(value, str) else "".join(value)


def inert_data(data: dict) -> None:
    """One output's mime bundle, in place."""
    keep_inert = any(k in data for k in INERT)
    for key in list(data):
        if "javascript" in key or (key in ACTIVE and keep_inert):
            del data[key]
        elif key in ACTIVE or key.endswith("+html"):
            data[key] = inert_markup(_text(data[key]))


class InertOutputs(NbGraderPreprocessor):
    """Make the autograded notebook inert in a browser (see the module's docstring)."""

    def _lab_markdown(self, resources) -> set[str]:
        """The release's and the source's own markdown and raw cells: left as they are."""
        from nbgrader.coursedir import CourseDirectory
        info = resources.get("nbgrader", {})
        cd = CourseDirectory(config=self.config)
        name = Path(info.get("assignment", "")) / f"{info.get('notebook', '')}.ipynb"
        found = set()
        for folder in (cd.release_directory, cd.source_directory):
            path = Path(cd.root) / folder / name
            if path.is_file():
                found |= {c.source for c in nbformat.read(path, 4).cells if c.cell_type != "code"}
        return found

    def preprocess(self, nb, resources):
        lab = self._lab_markdown(resources)
        for cell in nb.cells:
            if cell.cell_type != "code":
                if cell.source not in lab:
                    cell.source = inert_markup(cell.source)
                for name, data in list((cell.get("attachments") or {}).items()):
                    if "image/svg+xml" in data:
                        del cell.attachments[name]
                continue
            for out in cell.get("outputs", []):
                if out.get("data"):
                    inert_data(out["data"])
        return nb, resources
