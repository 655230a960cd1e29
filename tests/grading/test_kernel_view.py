"""A grading kernel's package view (issue 30, item 4): in the box where a submission's
notebook runs, the lab's own implementations of every exercise are stubs (``view.for_kernel``,
bound at the genuine package folder by ``mounts.build_mounts``), so no kernel can compute the
lab's answers, for itself or for any judge (a notebook-05 kernel held ex06's: redteam11)."""
import json
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from labgrader import view
from labsupport.exercises.registry import EXERCISES
from labgrader.sandbox import Sandbox, namespaces_available

UID_BASE = Sandbox().uid_base + 91  # apart from test_sandbox's and the graders' uids
needs_ns = pytest.mark.skipif(not namespaces_available()[0],
                              reason=f"namespaces mode: {namespaces_available()[1]}")
REF = "labsupport.decoder.rules.kv_admission"  # ex06_2's reference
STUB = f"unavailable({REF!r})"


def test_the_kernels_view_stubs_every_exercises_references_once_per_process():
    folder = view.for_kernel()
    assert folder.name == "labsupport"
    assert view.for_kernel() == folder  # built once, shared by every kernel
    assert STUB in (folder / "decoder" / "rules.py").read_text()
    assert set(view.KERNEL) == set(EXERCISES)
    for f in view.stubs(view.KERNEL):  # every stubbed module differs from the genuine one
        assert (folder / f.relative_to(view.ROOT)).read_text() != f.read_text(), f
    for ex in ("ex05_4", "ex06_2", "ex02_1"):  # any notebook's: one view for all kernels
        assert set(view.stubs(ex)) <= set(view.stubs(view.KERNEL))


@needs_ns
def test_the_kernels_box_shows_the_view_at_the_genuine_package_read_only(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    folder = view.for_kernel()
    box = Sandbox(mode="namespaces", uid_base=UID_BASE).open(course, views={str(view.ROOT): str(folder)})
    probe = f"""
import json, labsupport, os
from labsupport.decoder import rules
out = {{"file": rules.__file__, "text": open(rules.__file__).read()}}
try:
    rules.kv_admission(10, 5, 3, 8, 16)
    out["call"] = "ran"
except Exception as e:
    out["call"] = type(e).__name__
try:
    open(os.path.join(os.path.dirname(labsupport.__file__), "planted.py"), "w")
    out["write"] = "ok"
except OSError as e:
    out["write"] = type(e).__name__
print(json.dumps(out))
"""
    try:
        rc, out, err = box.run([sys.executable, "-c", probe], "", 120)
    finally:
        box.close()
    assert rc == 0, err[-2000:]
    got = json.loads(out.strip().splitlines()[-1])
    assert got["file"] == str(view.ROOT / "decoder" / "rules.py")  # the genuine path ...
    assert STUB in got["text"]  # ... shows the stub: the lab's implementation is not there
    assert got["call"] == "NotAvailable"
    assert got["write"] in ("OSError", "PermissionError")


@needs_ns
@pytest.mark.slow
def test_a_grading_kernel_finds_only_stubs_of_its_notebooks_exercises(tmp_path):
    """The instructors' notebooks 04 and 06, autograded, with a line added to ex06_2's answer
    cell that prints the reference's source: the kernel printed the stub, the judge still
    gave every other item its points, and no cell the kernel ran but a test cell shows an
    error (the lab's own cells that need a stubbed reference are demos, left out)."""
    from labgrader import ROOT, Course, course_config
    from nbgrader.api import Gradebook
    srcs = [next(ROOT.glob(f"solutions/{n}_*/*.ipynb")) for n in ("04", "06")]
    for src in srcs:
        shutil.copytree(src.parent, tmp_path / "solutions" / src.parent.name)
    course = Course(course_config(tmp_path))
    assert course.release()
    for src in srcs:
        nb = nbformat.read(src, 4)
        answer = next((c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex06_2"), None)
        if answer is not None:
            answer.source += ("\nimport inspect as _inspect, importlib as _importlib\n"
                              "print('SOURCE:', _inspect.getsource(_importlib.import_module("
                              f"{REF.rsplit('.', 1)[0]!r}).{REF.rsplit('.', 1)[1]}))\n")
        dest = course._dir("submitted") / "s1" / src.parent.name
        dest.mkdir(parents=True)
        nbformat.write(nb, dest / src.name)
    assert course.autograde()
    for src in srcs:
        out = nbformat.read(course._dir("autograded") / "s1" / src.parent.name / src.name, 4)
        errors = [(i, o["ename"], o["evalue"][:200]) for i, c in enumerate(out.cells) if c.cell_type == "code"
                  and not str(c.metadata.get("nbgrader", {}).get("grade_id", "")).endswith("_test")
                  for o in c.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, (src.name, errors)
        cell = next((c for c in out.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex06_2"), None)
        if cell is not None:
            text = "".join(o.get("text", "") for o in cell.outputs)
            assert "SOURCE:" in text and STUB in text, text[-1500:]
        with Gradebook(course.coursedir.db_url) as gb:
            tests = {g.name: (g.auto_score, g.max_score) for n in gb.find_submission(
                src.parent.name, "s1").notebooks for g in n.grades if g.name.endswith("_test")}
        others = {k: v for k, v in tests.items() if k != "ex06_2_test"}  # (that one reached for
        assert others and all(score == top for score, top in others.values()), tests  # the lab's code)
