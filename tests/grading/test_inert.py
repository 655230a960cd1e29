"""Autograded notebooks are inert in a browser: what the formgrader and the feedback render
from a student's outputs and cells runs no script (``grading/inert.py``), rendered with
nbconvert's own HTML exporter; the lab's own cells and the plain forms are kept."""
from html.parser import HTMLParser

import nbformat
from nbconvert import HTMLExporter
from traitlets.config import Config

from labgrader.inert import InertOutputs

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="


def _course(tmp_path, lab_markdown: str) -> Config:
    cfg = Config()
    cfg.CourseDirectory.root = str(tmp_path)
    release = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(lab_markdown)])
    (tmp_path / "release" / "a").mkdir(parents=True)
    nbformat.write(release, tmp_path / "release" / "a" / "nb.ipynb")
    cfg.CourseDirectory.release_directory = "release"
    return cfg


def _hostile_notebook(lab_markdown: str):
    out = nbformat.v4.new_output
    code = nbformat.v4.new_code_cell("x", outputs=[
        out("display_data", data={"text/html": "<img src=x onerror=\"fetch('/api/a')\">",
                                  "text/plain": "<IPython.core.display.HTML object>"}),
        out("display_data", data={"application/javascript": "fetch('/api/b')"}),
        out("display_data", data={"image/svg+xml": "<svg><script>fetch('/api/c')</script></svg>"}),
        out("display_data", data={"text/html": "<script>fetch('/api/d')</script><b>kept</b>"}),
        out("display_data", data={"image/png": PNG, "text/plain": "<Figure>"}),
    ])
    return nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(lab_markdown), code,
        nbformat.v4.new_markdown_cell("my answer <script>fetch('/api/e')</script> "
                                      "[click](javascript:fetch('/api/f'))"),
        nbformat.v4.new_raw_cell("<script>fetch('/api/g')</script>", metadata={"format": "text/html"}),
    ])


class _Active(HTMLParser):
    """What a browser would run in a page: script bodies, on* handlers, script URLs."""

    def __init__(self):
        super().__init__()
        self.found, self._in_script = [], False

    def handle_starttag(self, tag, attrs):
        self._in_script = tag == "script"
        for name, value in attrs:
            url = (value or "").lower().strip()
            if (name.startswith("on") or url.startswith(("javascript:", "vbscript:"))
                    or (url.startswith("data:") and (name == "href" or tag in ("iframe", "object", "embed")))):
                self.found.append(f"{tag} {name}={value}")  # an <img> of data: runs nothing

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script and "/api/" in data:
            self.found.append(f"script {data[:80]}")


def test_nothing_a_student_wrote_runs_in_the_browser(tmp_path):
    lab = "Read <b>this</b> first."
    cfg = _course(tmp_path, lab)
    nb, _ = InertOutputs(config=cfg).preprocess(
        _hostile_notebook(lab), {"nbgrader": {"assignment": "a", "notebook": "nb"}})
    html, _ = HTMLExporter(template_name="classic").from_notebook_node(nb)
    active = _Active()
    active.feed(html)
    assert active.found == []
    raw = _Active()  # the same check finds the attacks in the notebook as submitted
    raw.feed(HTMLExporter(template_name="classic").from_notebook_node(_hostile_notebook(lab))[0])
    assert len(raw.found) >= 4, raw.found
    assert nb.cells[0].source == lab  # the lab's own markdown is left alone
    outs = nb.cells[1].outputs
    assert outs[0].data == {"text/plain": "<IPython.core.display.HTML object>"}
    assert outs[1].data == {} and "<b>kept</b>" in outs[3].data["text/html"]
    assert outs[4].data["image/png"] == PNG
