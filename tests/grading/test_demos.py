"""Autograde leaves out only the code cells no graded cell depends on (``grading.demos``)."""
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from labgrader.demos import demo_cells, effects, names


def _nb(*cells):
    """Cells as (source, role): role None (the lab's), "answer" or "test"."""
    out = []
    for k, (src, role) in enumerate(cells):
        c = new_code_cell(src)
        if role:
            c.metadata["nbgrader"] = {"grade_id": f"c{k}", "solution": role == "answer",
                                      "grade": role == "test", "points": 1 if role == "test" else 0}
        out.append(c)
    return new_notebook(cells=out)


def test_a_measurement_nothing_graded_reads_is_left_out():
    nb = _nb(("import numpy as np\nimport time", None),
             ("t0 = time.perf_counter()\nlat = np.sort(np.random.rand(10**6))", None),  # 1: demo
             ("def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n"
              "    return total / len(xs)", "answer"),
             ("assert mean([1, 2]) == 1.5", "test"))
    assert demo_cells(nb) == {0, 1}  # the imports too: only the demo used them


def test_a_cell_binding_what_an_answer_reads_runs():
    nb = _nb(("SCALE = 3", None),                          # read by the answer's function
             ("def f(x):\n    return SCALE * x", "answer"),
             ("assert f(1) == 3", "test"))
    assert demo_cells(nb) == set()


def test_a_cell_that_may_change_a_needed_value_runs():
    nb = _nb(("import random\nrng = random.Random(0)", None),
             ("rng.random()  # advances the generator the test uses", None),
             ("x = 1", "answer"),
             ("assert rng.random() < 1 and x == 1", "test"))
    assert demo_cells(nb) == set()


def test_only_module_level_names_count():
    # the answer's local ``tr`` and comprehension's ``k`` are not the demo's ``tr`` / ``k``
    nb = _nb(("tr = [k * 2 for k in range(10**5)]", None),
             ("def g(n):\n    tr = n + 1\n    return [k for k in range(tr)]", "answer"),
             ("assert g(1) == [0, 1]", "test"))
    assert demo_cells(nb) == {0}


def test_unreadable_cells_always_run():
    nb = _nb(("from os.path import *", None), ("global q\nq = 1", None),
             ("this is not python(", None), ("%matplotlib inline", None),
             ("y = 2", "answer"), ("assert y == 2", "test"))
    nb.cells.insert(1, new_markdown_cell("text"))
    assert demo_cells(nb) == set()
    assert names("from os.path import *") is None


def test_names_sees_free_variables_of_functions():
    bound, read, imported = names("import numpy as np\ndef h(a, b=LIMIT):\n    return np.clip(a, 0, TOP)")
    assert {"np", "h"} <= bound and imported == {"np"}
    assert {"LIMIT", "TOP"} <= read and "a" not in read and "clip" not in read
    assert "np" not in read  # the cell imported it first
    assert "np" in names("def h(a):\n    return np.clip(a, 0, 1)")[1]


def test_the_solutions_keep_their_graded_inputs():
    """In every solution notebook, the skipped cells bind nothing an answer or test reads."""
    from pathlib import Path
    for path in sorted(Path(__file__).resolve().parents[2].glob("solutions/*/*.ipynb")):
        nb = nbformat.read(path, 4)
        skip = demo_cells(nb)
        graded_reads = set()
        for c in nb.cells:
            meta = c.metadata.get("nbgrader", {})
            if c.cell_type == "code" and (meta.get("grade") or meta.get("solution")):
                graded_reads |= (names(c.source) or (set(), set(), set()))[1]
        for i in skip:
            assert not nb.cells[i].metadata.get("nbgrader", {}).get("grade"), (path.name, i)
            assert not (names(nb.cells[i].source)[0] & graded_reads), (path.name, i + 1)


def test_a_cell_that_changes_module_state_runs():
    """Seeding a global generator, editing sys.path or a module's attribute: a later test may
    see it, so the cell runs; the same calls on the cell's own objects do not count."""
    for src in ("np.random.seed(0)", "torch.manual_seed(1)", "sys.path.append('x')",
                "os.environ['A'] = '1'", "np.x = 1", "seed(3)", "for s in (1, 2):\n    torch.manual_seed(s)"):
        nb = _nb(("import numpy as np\nimport torch\nimport sys, os\nfrom random import seed", None),
                 (src, None), ("y = np.random.rand()", "answer"), ("assert y < 1", "test"))
        assert demo_cells(nb) == set(), src
    nb = _nb(("import numpy as np", None), ("xs = []\nxs.append(np.pi)\nd = {}\nd['k'] = 1", None),
             ("y = 1", "answer"), ("assert y == 1", "test"))
    assert demo_cells(nb) == {0, 1}
    assert effects("def f():\n    np.random.seed(0)") == set()


def test_a_name_the_cell_binds_before_it_reads_it_needs_no_earlier_cell():
    """``import math`` at the top of an answer: the demo that imported math before need not
    run; ``total += 1`` reads ``total``, so the cell that bound it must."""
    nb = _nb(("import math\nslow = sum(range(10**6))", None),
             ("import math\ndef f(x):\n    return math.ceil(x)", "answer"),
             ("assert f(0.5) == 1", "test"))
    assert demo_cells(nb) == {0}
    nb = _nb(("total = 1", None), ("total += 1", "answer"), ("assert total == 2", "test"))
    assert demo_cells(nb) == set()
    nb = _nb(("import math", None), ("def f():\n    return math.pi\nimport math", "answer"),
             ("assert f() > 3", "test"))
    assert demo_cells(nb) == set()  # read before the cell's own import: the earlier one counts
    assert "math" in names("if x:\n    import math\nmath.pi")[1]  # bound only maybe
