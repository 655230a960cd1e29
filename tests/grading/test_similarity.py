"""Copying as a review flag (``grading/similarity.py``): a renamed, check-dropped, reordered
copy of the lab's code or of a classmate's answer is found, with the score and what it
matched; honest different solutions (``tests/variants/passing``) are not."""
import ast
import builtins
import itertools
import json
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import adapters  # noqa: E402

from labsupport.exercises.registry import EXERCISES  # noqa: E402
from labgrader import canonical, course_config, similarity, spelling  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MARKS = ("### BEGIN SOLUTION", "### END SOLUTION")
BUILTINS = set(dir(builtins))


def _solution(ex: str) -> str:
    return "\n".join(l for l in adapters.cell(ex).source.splitlines() if l.strip() not in MARKS)


class _Disguise(ast.NodeTransformer):
    """What a student hiding a copy does: every local (and function) renamed, docstrings and checks dropped,
    methods and independent first statements reordered."""

    def __init__(self):
        self.names = {}
        self.methods = set()  # called by attribute: their names stay
        self.fresh = (f"my_{w}{k}" for k in itertools.count() for w in ("thing", "val"))

    def visit_Name(self, node):
        if node.id != "self" and node.id not in BUILTINS:
            node.id = self.names.setdefault(node.id, next(self.fresh))
        return node

    def visit_arg(self, node):
        if node.arg != "self":
            node.arg = self.names.setdefault(node.arg, next(self.fresh))
        node.annotation = None
        return node

    def _body(self, node):
        if isinstance(node, ast.FunctionDef) and id(node) not in self.methods:
            node.name = self.names.setdefault(node.name, next(self.fresh))  # its calls as well
        if isinstance(node, ast.ClassDef):
            self.methods |= {id(s) for s in node.body}
        self.generic_visit(node)
        body = [s for s in node.body if not isinstance(s, (ast.Assert, ast.Raise))
                and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
                and not (isinstance(s, ast.If) and all(isinstance(b, ast.Raise) for b in s.body))]
        if isinstance(node, ast.ClassDef):
            body = body[::-1]  # methods in another order
        elif len(body) > 2 and all(isinstance(s, ast.Assign) for s in body[:2]) and \
                not {n.id for n in ast.walk(body[1]) if isinstance(n, ast.Name)} & \
                {n.id for t in body[0].targets for n in ast.walk(t) if isinstance(n, ast.Name)}:
            body[0], body[1] = body[1], body[0]
        node.body = body or [ast.Pass()]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _body


def disguise(source: str) -> str:
    return ast.unparse(_Disguise().visit(ast.parse(source)))


def _reference_units():
    out = []
    for ex in sorted(ex for ex, entry in EXERCISES.items() if entry.references):
        for label, source in similarity.reference_sources(ex).items():
            if similarity.weight(similarity.fingerprint(source)) >= 2 * similarity.MIN_WEIGHT:
                out.append((ex, label, source))
    return out


def test_a_disguised_copy_of_ex02_1s_solution_is_found():
    solution = _solution("ex02_1")
    copy = disguise(solution)
    assert copy != solution and "my_thing" in copy
    given = adapters.cell("ex02_1", "release").source
    match = similarity.best_match(copy, {"the instructors' solution": solution}, given)
    assert match.score >= similarity.THRESHOLD, match


@pytest.mark.parametrize("ex, label, source", _reference_units(), ids=lambda v: str(v)[:40])
def test_a_disguised_copy_of_a_reference_is_flagged(ex, label, source):
    copy = disguise(source)
    assert copy.strip() != source.strip()
    got = similarity.copy_reviews({ex: copy}, {ex: similarity.reference_sources(ex)}, {}, {})
    assert ex in got and label in got[ex] and "score" in got[ex], got


def test_a_copy_with_one_part_rewritten_is_still_flagged():
    """A copy of ``packed_mask`` with a loop turned into a comprehension."""
    source = similarity.reference_sources("ex06_9")["labsupport.decoder.ragged.packed_mask"]
    copy = disguise(source) + "\n\ndef extra_helper(xs):\n    return [x * 2 for x in xs]\n"
    got = similarity.copy_reviews({"ex06_9": copy},
                                  {"ex06_9": similarity.reference_sources("ex06_9")}, {}, {})
    assert "ex06_9" in got, got


def test_honest_different_solutions_are_not_flagged():
    passing = [(ex, v) for ex in adapters.exercise_ids() if ex.startswith("ex")
               for v in adapters.variants(ex, passing=True)]
    assert len(passing) >= 10
    scores = {}
    for ex, v in passing:
        refs = {**similarity.reference_sources(ex), "solution": _solution(ex)}
        classmates = {other: {ex: adapters.cell(ex, other).source}
                      for other in adapters.variants(ex, passing=True) if other != v}
        given = adapters.cell(ex, "release").source
        got = similarity.copy_reviews({ex: adapters.cell(ex, v).source}, {ex: refs},
                                      classmates, {ex: given})
        assert not got, (ex, v, got)
        m = similarity.best_match(adapters.cell(ex, v).source, refs, given)
        scores[(ex, v)] = m.score if m else None
    print("highest honest score:", max(s for s in scores.values() if s is not None))


def test_renaming_reordering_and_dropping_checks_change_nothing():
    a = "def f(xs, n):\n    '''Doc.'''\n    assert n > 0\n    total = sum(xs)\n    k = len(xs)\n" \
        "    if not xs:\n        raise ValueError('empty')\n    return total / k * n\n"
    b = "def g(values, m):\n    # a comment\n    count = len(values)\n    s = sum(values)\n" \
        "    return s / count * m\n"
    assert similarity.score(similarity.fingerprint(a), similarity.fingerprint(b)) == 1.0
    c = "def g(values, m):\n    return max(values) - min(values) + m\n"
    assert similarity.score(similarity.fingerprint(a), similarity.fingerprint(c)) < 0.5


def test_an_attribute_spelled_another_way_is_the_attribute():
    """A dict an object keeps as a namespace (redteam13 ``pool_dict``: ``self.s['refs']``),
    one object down (``self.t.s['refs']``), an object kept only to hold attributes
    (``self.h.refs``, ``_S[id(self)].refs``, ``self.st().refs``, ``self.h = self``,
    ``State(self)``), a list of slots (``self.s[1]``, ``self.s[B]``, ``itemgetter(1)(self.s)``),
    a key that is not a name (``'free '``) or is built of constants (``f'free'``, ``'re' +
    'fs'``), ``__dict__``, ``vars``, ``getattr`` (with a default too), ``setattr``,
    ``__getattribute__`` and ``attrgetter`` with a constant name are the attribute; a dict read with a key computed at run time is a dict, an object
    the code was given or calls a method of is an object."""
    a = ("class Pool:\n    def __init__(self, n):\n        self.free = list(range(n))\n"
         "        self.refs = {}\n    def take(self):\n        b = self.free.pop()\n"
         "        self.refs[b] = 1\n        return b\n")
    spaced = a.replace("        self.free = list", "        self.s = {}\n        self.free = list") \
        .replace("self.free", "self.s['free']").replace("self.refs", "self.s['refs']")
    other = a.replace("self.free = list(range(n))", "setattr(self, 'free', list(range(n)))") \
        .replace("self.free.pop()", "getattr(self, 'free').pop()") \
        .replace("self.refs[b]", "vars(self)['refs'][b]").replace("self.refs =", "self.__dict__['refs'] =")
    whole = spaced.replace("        b = self.s['free'].pop()", "        assert len(self.s)\n"
                           "        b = self.s['free'].pop()")  # read whole once (redteam15)
    named = "K_FREE = 'free'\n" + spaced.replace("self.s['free']", "self.s[K_FREE]")
    down = spaced.replace("self.s", "self.t.s").replace(  # one object down (redteam15's probe)
        "        self.t.s = {}", "        self.t = SimpleNamespace()\n        self.t.s = {}")
    held = a.replace("self.", "self.h.").replace(  # an object that only holds attributes
        "        self.h.refs = {}\n", "").replace(
        "        self.h.free = list", "        self.h = State(refs={})\n        self.h.free = list")
    slots = a.replace("        self.free = list", "        self.s = [None] * 2\n        self.free = list") \
        .replace("self.free", "self.s[0]").replace("self.refs", "self.s[1]")  # redteam16
    spelled = spaced.replace("'free'", "'free '")  # a key that is not a name (redteam16)
    got = a.replace("self.free.pop()", "attrgetter('free')(self).pop()")  # redteam16
    by_id = a.replace("self.", "_S[id(self)].").replace(  # a holder found by an expression
        "    def __init__(self, n):\n", "    def __init__(self, n):\n        _S[id(self)] = St()\n")
    getter = held.replace("self.h.", "self.st().") + "    def st(self):\n        return self.h\n"
    alias = held.replace("self.h = State(refs={})", "self.h = self\n        self.h.refs = {}")
    folded = "A, B = range(2)\n" + slots.replace("self.s[0]", "self.s[A]") \
        .replace("self.s[1]", "self.s[B]")  # named slots (redteam17), a key built of constants
    keyed_f = spaced.replace("self.s['free']", "self.s[f'free']").replace("self.s['refs']", "self.s[K]")
    keyed_f = "K = 're' + 'fs'\n" + keyed_f
    reflect = a.replace("self.free.pop()", "getattr(self, 'free', None).pop()") \
        .replace("self.refs[b] = 1", "vars(self).get('refs')[b] = 1")  # redteam17
    dunder = a.replace("self.free.pop()", "self.__getattribute__('free').pop()") \
        .replace("self.refs[b] = 1", "operator.setitem(object.__getattribute__(self, 'refs'), b, 1)")
    got_item = slots.replace("self.s[0].pop()", "itemgetter(0)(self.s).pop()")  # redteam17
    positional = held.replace("State(refs={})", "State(self)\n        self.h.refs = {}")  # redteam17
    numbered = a.replace("self.free", "self._0").replace("self.refs", "self._1")  # slots by number
    fa = similarity.fingerprint(a)
    assert similarity.score(similarity.fingerprint(numbered), similarity.fingerprint(folded)) == 1.0
    assert similarity.score(similarity.fingerprint(numbered), similarity.fingerprint(got_item)) == 1.0
    for b in (spaced, other, whole, named, down, held, spelled, got, by_id, alias, keyed_f,
              reflect, dunder, positional):
        assert similarity.score(fa, similarity.fingerprint(b)) == 1.0, b
    assert similarity.score(similarity.fingerprint(numbered), similarity.fingerprint(slots)) == 1.0
    assert similarity.score(fa, similarity.fingerprint(getter)) >= similarity.THRESHOLD, getter
    queue = ("class Q:\n    def __init__(self):\n        self.w = deque()\n    def head(self):\n"
             "        return self.w[0]\n    def pair(self):\n        self.w.append(1)\n"
             "        return self.w[0], self.w[1]\n")  # a deque read by index is a deque
    assert "self.w[0]" in ast.unparse(spelling.spelled_one_way(ast.parse(queue)))
    keyed = spaced.replace("self.s['free'].pop()", "self.s[self.which].pop()")
    given = held.replace("self.h = State(refs={})", "self.h = state")  # an object it was given
    called = held.replace("b = self.h.free.pop()", "b = self.h.take()")  # an object it calls
    for b in (keyed, given, called):
        assert similarity.score(fa, similarity.fingerprint(b)) < 1.0, b


@pytest.mark.parametrize("bad", ["def (:", "x = (" * 200 + ")" * 200, "\x00", "1" * 5000])
def test_bad_sources_are_harmless(bad):
    fp = similarity.fingerprint(bad)
    assert similarity.best_match(bad, {"ref": "def f(x):\n    return x\n"}) is None or fp


def test_in_a_class_a_copy_of_a_classmate_and_of_a_reference_go_to_review(tmp_path):
    """``class_reviews`` on a course on disk: alice copies the lab's ``kv_admission``
    (disguised), bob copies alice (renamed again), carol wrote her own (a passing variant)."""
    src = next((ROOT / "solutions").glob("06_*/*.ipynb"))
    a, name = src.parent.name, src.stem
    for folder in ("solutions", "notebooks"):
        shutil.copytree(ROOT / folder / a, tmp_path / folder / a)
    cfg = course_config(tmp_path)
    release = nbformat.read(tmp_path / "notebooks" / a / f"{name}.ipynb", 4)
    ref = similarity.reference_sources("ex06_2")["labsupport.decoder.rules.kv_admission"]
    alice = disguise(ref)
    answers = {"alice": alice, "bob": disguise(alice),
               "carol": adapters.cell("ex06_2", "passing/ceil").source}
    for student, source in answers.items():
        nb = nbformat.from_dict(json.loads(json.dumps(release)))
        for c in nb.cells:
            if c.metadata.get("nbgrader", {}).get("grade_id") == "ex06_2":
                c.source = source
        out = tmp_path / "autograde" / "submitted" / student / a / f"{name}.ipynb"
        out.parent.mkdir(parents=True)
        nbformat.write(nb, out)
    got = {s: similarity.class_reviews(cfg, {"student": s, "assignment": a, "notebook": name},
                                       {"ex06_2": src}) for s, src in answers.items()}
    assert set(got["alice"]) == {"ex06_2_test"}
    assert "labsupport.decoder.rules.kv_admission" in got["alice"]["ex06_2_test"]
    assert "score 1.00" in got["alice"]["ex06_2_test"]
    assert set(got["bob"]) == {"ex06_2_test"}  # a copy of a copy: of the lab's, or alice's
    assert got["carol"] == {}


def test_the_class_can_be_named_apart_from_the_course(tmp_path):
    """``parallel`` grades each submission in a private course holding only it: the class's
    submissions are then read from the folder ``CLASS`` names."""
    src = next((ROOT / "solutions").glob("06_*/*.ipynb"))
    a, name = src.parent.name, src.stem
    private, real = tmp_path / "private", tmp_path / "real"
    for folder in ("solutions", "notebooks"):
        shutil.copytree(ROOT / folder / a, private / folder / a)
    release = nbformat.read(private / "notebooks" / a / f"{name}.ipynb", 4)
    ref = similarity.reference_sources("ex06_4")["labsupport.decoder.rules.grow_or_preempt"]
    theirs = disguise(ref).replace("return False", "return len(running) < 0")  # dave's own
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    for c in nb.cells:
        if c.metadata.get("nbgrader", {}).get("grade_id") == "ex06_4":
            c.source = theirs
    (real / "dave" / a).mkdir(parents=True)
    nbformat.write(nb, real / "dave" / a / f"{name}.ipynb")
    info = {"student": "erin", "assignment": a, "notebook": name}
    mine = disguise(theirs)
    alone = similarity.class_reviews(course_config(private), info, {"ex06_4": mine})
    cfg = course_config(private, **{similarity.CLASS: str(real)})
    together = similarity.class_reviews(cfg, info, {"ex06_4": mine})
    assert "student dave's answer" in together["ex06_4_test"], together
    assert "student dave" not in alone.get("ex06_4_test", "")


def test_a_classmate_the_check_cannot_read_never_stops_the_others(tmp_path):
    """``redteam7``'s class-wide failures: a notebook nested 100,000 deep, a cell whose
    metadata is a list, a grade id that is a list, an answer of 400 minus signs. Each is no
    classmate to the others (their review runs); a notebook it cannot read is flagged in its
    own review."""
    src = next((ROOT / "solutions").glob("06_*/*.ipynb"))
    a, name = src.parent.name, src.stem
    for folder in ("solutions", "notebooks"):
        shutil.copytree(ROOT / folder / a, tmp_path / folder / a)
    cfg = course_config(tmp_path)
    release = json.loads((tmp_path / "notebooks" / a / f"{name}.ipynb").read_text())
    ref = similarity.reference_sources("ex06_2")["labsupport.decoder.rules.kv_admission"]

    def submit(student, change):
        nb = json.loads(json.dumps(release))
        change(nb)
        out = tmp_path / "autograde" / "submitted" / student / a / f"{name}.ipynb"
        out.parent.mkdir(parents=True)
        out.write_text(json.dumps(nb) if isinstance(nb, dict) else nb)

    def answer(source):
        def change(nb):
            for c in nb["cells"]:
                if c["metadata"].get("nbgrader", {}).get("grade_id") == "ex06_2":
                    c["source"] = source
        return change
    submit("copier", answer(disguise(ref)))
    submit("minus", answer("kv_admission = " + "-" * 400 + "1"))
    submit("meta", lambda nb: nb["cells"][0].update(metadata=[1]))
    submit("gid", lambda nb: nb["cells"][0].update(metadata={"nbgrader": {"grade_id": [1]}}))
    deep = tmp_path / "autograde" / "submitted" / "deep" / a / f"{name}.ipynb"
    deep.parent.mkdir(parents=True)
    deep.write_text(json.dumps(release)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    info = lambda s: {"student": s, "assignment": a, "notebook": name}  # noqa: E731
    got = similarity.class_reviews(cfg, info("copier"), {"ex06_2": disguise(ref)})
    assert "kv_admission" in got["ex06_2_test"], got  # the others did not stop it
    assert "cannot be compared" in similarity.class_reviews(cfg, info("deep"),
                                                            {"ex06_2": "x = 1"})["ex06_2_test"]
    assert similarity.class_reviews(cfg, info("minus"), {"ex06_2": "kv_admission = 1"}) == {}


class _OneToken(ast.NodeTransformer):
    """What a student hiding a copy from a syntax-tree fingerprint does: one operator of the
    code changed for another that computes the same here (``a + b`` as ``a - -b``)."""

    done = False

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not self.done and isinstance(node.op, ast.Add):
            self.done = True
            return ast.BinOp(node.left, ast.Sub(), ast.UnaryOp(ast.USub(), node.right))
        return node


def _one_token(source: str) -> str | None:
    edit = _OneToken()
    out = ast.unparse(edit.visit(ast.parse(disguise(source))))
    return out if edit.done else None


@pytest.mark.parametrize("ex, label, source", [u for u in _reference_units() if _one_token(u[2])],
                         ids=lambda v: str(v)[:40])
def test_a_copy_with_one_token_changed_is_flagged(ex, label, source):
    """Every ``+`` above a changed token gets another subtree digest (``redteam7/one_token``
    took ``bucket_of`` to 0.76): the token stream still has the reference's tokens in order."""
    copy = _one_token(source)
    got = similarity.copy_reviews({ex: copy}, {ex: similarity.reference_sources(ex)}, {}, {})
    assert ex in got and label in got[ex], got


def test_the_canonical_form_makes_a_rewrite_as_one_expression_the_code_it_rewrites():
    """A lambda is a function, a walrus an assignment, ``return a if c else b`` an ``if``."""
    plain = ("def pick(xs, cap):\n    n = len(xs) * 2 + cap\n    if n > cap:\n        return 'big'\n"
             "    return 'small' if n % 3 == 1 else 'odd'\n")
    one = ("pick = lambda xs, cap: 'big' if (n := len(xs) * 2 + cap) > cap else "
           "('small' if n % 3 == 1 else 'odd')\n")
    hidden = f"assert ({one.strip().replace(' = ', ' := ', 1)})\n"
    fp = similarity.fingerprint
    assert similarity.score(fp(plain), fp(one)) == 1.0
    assert similarity.score(fp(plain), fp(hidden)) == 1.0
    assert similarity.in_order(similarity.tokens(plain), similarity.tokens(one)) > 0.9
    other = "def pick(xs, cap):\n    return sorted(xs)[:cap] or [cap]\n"
    assert similarity.in_order(similarity.tokens(plain), similarity.tokens(other)) < 0.5


def test_the_token_stream_is_bounded():
    """A huge answer is not compared as a token stream (difflib is quadratic at worst)."""
    big = "def f(x):\n" + "    x = x + 1\n" * (similarity.MAX_TOKENS // 4)
    assert similarity.tokens(big) == ()
    assert similarity.tokens("def f(:\n") == ()
    assert similarity.in_order(("a",) * 10, ("a",) * 30) == 0.0  # lengths alone: under


def test_a_review_past_its_time_flags_what_it_did_not_compare():
    """``redteam8/review_slow`` made one notebook's review take minutes: the review has a
    budget per notebook, and what it did not reach is flagged for the trainer to read."""
    ref = similarity.reference_sources("ex06_2")["labsupport.decoder.rules.kv_admission"]
    got = similarity.copy_reviews({"ex06_2": disguise(ref), "ex06_1": "x = 1"},
                                  {"ex06_2": {"ref": ref}}, {}, {}, budget_s=0.0)
    assert set(got) == {"ex06_2", "ex06_1"} and all("ran out of time" in v for v in got.values())
    assert "ex06_2" in similarity.copy_reviews({"ex06_2": disguise(ref)}, {"ex06_2": {"ref": ref}}, {}, {})


def test_nested_definitions_are_compared_within_twice_the_answer():
    """Each definition is a unit of its own, but nested ones hold each other: the units an
    answer is cut into add up to at most three times its length (the whole, then twice)."""
    source = "def f0(a):\n"
    for k in range(1, 41):
        source += "    " * k + f"def f{k}(a):\n"
    source += "    " * 41 + "return " + " + ".join(["a"] * 300) + "\n"
    units = similarity.definitions(source)
    assert len(units) <= similarity.MAX_UNITS + 1
    assert sum(map(len, units)) <= 3 * len(source)
    assert similarity.fingerprint(source)  # read whole: one walk of its shapes


def test_what_a_grading_run_shelves_reads_back_the_same(tmp_path):
    """The jobs of one run share fingerprints and classmates' cells through a folder
    (``CACHE``): read back, they are what the check made in the first place."""
    ref = similarity.reference_sources("ex06_2")["labsupport.decoder.rules.kv_admission"]
    made = similarity.known(ref, tmp_path)
    assert similarity.known(ref, tmp_path) == made == similarity.known(ref)
    src = next((ROOT / "solutions").glob("06_*/*.ipynb"))
    cells = similarity._code_cells(src, {"ex06_2", "ex06_4"}, tmp_path)
    assert similarity._code_cells(src, {"ex06_2", "ex06_4"}, tmp_path) == cells
    assert cells == similarity._code_cells(src, {"ex06_2", "ex06_4"}) and set(cells) == {"ex06_2", "ex06_4"}
    assert len(list(tmp_path.glob("*.json"))) == 2


# ---- redteam8: copier edits undone by the canonical form ------------------------------------

def _same(a: str, b: str) -> bool:
    """Whether two sources are one normalised code: every subtree and every token alike."""
    fp = similarity.fingerprint
    return similarity.score(fp(a), fp(b)) == 1.0 and \
        similarity.in_order(similarity.tokens(a), similarity.tokens(b)) == 1.0


def test_commuted_operands_and_turned_comparisons_change_nothing():
    """``a > b`` is ``b < a``; ``and`` operands, ``==`` sides and ``min`` arguments in one
    order (by kind); a constant factor last (``2.0 * p`` as ``p * 2.0``)."""
    a = ("def f(p, n, lo, hi):\n    if n > lo and hi >= n and p.ok:\n"
         "        return 2.0 * min(p.size, n) + p.base\n    return p.base == 0\n")
    b = ("def g(q, m, a, b):\n    if q.ok and a < m and m <= b:\n"
         "        return min(m, q.size) * 2.0 + q.base\n    return 0 == q.base\n")
    assert _same(a, b)
    other = ("def g(q, m, a, b):\n    if m <= a or b < m:\n        return None\n"
             "    return sorted(q.items)[m:b]\n")
    assert similarity.score(similarity.fingerprint(a), similarity.fingerprint(other)) < 0.3


def test_updates_split_and_arguments_by_keyword_change_nothing():
    """``i, j = i + 1, j + x + 1`` is ``i += 1`` then ``j += x + 1``; ``dtype=float`` is
    ``float`` by position; a swap stays one statement."""
    a = ("def f(xs):\n    i = j = 0\n    out = np.zeros(len(xs), dtype=float)\n    for x in xs:\n"
         "        out[i] = x\n        i, j = i + 1, j + x + 1\n    return out, i, j\n")
    b = ("def f(xs):\n    i = j = 0\n    out = np.zeros(len(xs), float)\n    for x in xs:\n"
         "        out[i] = x\n        i += 1\n        j += x + 1\n    return out, i, j\n")
    assert _same(a, b)
    swap = "def f(a, b):\n    a, b = b, a\n    return a\n"
    assert not _same(swap, "def f(a, b):\n    a = b\n    b = a\n    return a\n")


def test_a_helper_pulled_out_or_written_out_is_one_form():
    """A helper of the answer that computes from its arguments alone is written out where it
    is called (redteam8 ``kv_helper``, ``speed_inline``); a closure stays, and so does a
    helper chain's growth (at most as many nodes as the answer has are added)."""
    inline = ("def need(p, n, bs, free):\n    full = -(-(p + n) // bs)\n    if full > free:\n"
              "        return 'wait'\n    return -(-p // bs)\n")
    pulled = ("def _ceil(a, b):\n    return -(-a // b)\n\n\ndef need(p, n, bs, free):\n"
              "    full = _ceil(p + n, bs)\n    if full > free:\n        return 'wait'\n"
              "    return _ceil(p, bs)\n")
    assert _same(pulled, inline)
    closure = ("def need(p, n, bs, free):\n    def blocks(t):\n        return -(-t // bs)\n"
               "    full = blocks(p + n)\n    if full > free:\n        return 'wait'\n"
               "    return blocks(p)\n")
    assert not _same(closure, inline)
    nested = ("def ratio(fast, slow):\n    def parts(r):\n        t = sum(len(s.out) for s in r.seqs)\n"
              "        b = sum(st.ms for st in r.steps)\n        return t / b, b / len(r.steps)\n"
              "    (x, y), (u, v) = parts(fast), parts(slow)\n    return {'a': x / u, 'b': y / v}\n")
    written = ("def ratio(fast, slow):\n    ft = sum(len(s.out) for s in fast.seqs)\n"
               "    fb = sum(st.ms for st in fast.steps)\n    sl = sum(len(s.out) for s in slow.seqs)\n"
               "    sb = sum(st.ms for st in slow.steps)\n"
               "    return {'a': ft / fb / (sl / sb), 'b': fb / len(fast.steps) / (sb / len(slow.steps))}\n")
    assert _same(nested, written)
    chain = "def h0(x):\n    return x + 1\n" + "".join(
        f"def h{k}(x):\n    return h{k - 1}(x) * h{k - 1}(x + 1)\n" for k in range(1, 60))
    size = sum(1 for _ in ast.walk(ast.parse(chain)))
    assert sum(1 for _ in ast.walk(canonical.normalised(chain))) <= 3 * size


def test_a_value_named_on_its_way_is_written_out_but_a_formula_in_steps_stays():
    """``seq = waiting.popleft()`` read by the next statement alone is that statement's
    (redteam8 ``mate_step``); a name read by another named step of a formula stays (the
    honest ex05_6 answer names four steps where the solution names one)."""
    named = ("def step(run, wait, cap, dec):\n    while wait and len(run) < cap:\n"
             "        seq = wait.popleft()\n        run.append(seq)\n    dec(run)\n"
             "    return [s for s in run if s.done]\n")
    plain = ("def step(run, wait, cap, dec):\n    while wait and len(run) < cap:\n"
             "        run.append(wait.popleft())\n    dec(run)\n    return [s for s in run if s.done]\n")
    assert _same(named, plain)
    steps = ("def f(p, d, bw, fl):\n    w = p * d / bw\n    c = 2 * p / fl\n    g = c - w\n"
             "    if g <= 0:\n        return None\n    return max(1, g)\n")
    assert not _same(steps, "def f(p, d, bw, fl):\n    g = 2 * p / fl - p * d / bw\n"
                            "    if g <= 0:\n        return None\n    return max(1, g)\n")


def test_argument_checks_a_function_starts_with_are_dropped():
    """Calls of the module's functions on the parameters, first in a function, are checks
    (redteam8 ``roof_core`` left out the lab's ``check_float``/``check_int``); a call of a
    parameter (a callback) or a method is code."""
    checked = ("def cross(p, d, bw, fl):\n    for name, v in (('p', p), ('bw', bw)):\n"
               "        check_float(name, v, 0.0)\n    check_int('d', d, 1)\n"
               "    per = 2.0 * p / fl\n    if per <= 0:\n        return None\n"
               "    return max(1, math.ceil(p * d / bw / per))\n")
    bare = ("def cross(p, d, bw, fl):\n    per = p * 2.0 / fl\n    if per <= 0:\n        return None\n"
            "    return max(1, math.ceil(p * d / bw / per))\n")
    assert _same(checked, bare)
    assert not _same("def f(run, dec):\n    dec(run)\n    run.sort()\n    return run\n",
                     "def f(run, dec):\n    return run\n")


REDTEAM8 = ROOT / "tests" / "grading" / "hostile" / "redteam8"


@pytest.mark.parametrize("name", ["mask_temps", "kv_commute", "admit_reorder", "roof_core",
                                  "kv_helper", "speed_inline", "mate_step", "honest_grow"])
def test_redteam8_copier_edits_are_flagged_and_its_honest_answer_is_not(name):
    """Each copy against the lab's references, the solution and the solution as a classmate
    (the honest control): flagged; ``honest_grow`` (an honest answer): not."""
    import hostile_cases
    from labgrader import cellcode
    case = hostile_cases.case(REDTEAM8 / f"{name}.py")
    refs = {case.target: {**similarity.reference_sources(case.target),
                          "the instructors' solution": _solution(case.target)}}
    mates = {"honest": {case.target: _solution(case.target)}}
    given = {case.target: adapters.cell(case.target, "release").source}
    got = similarity.copy_reviews({case.target: cellcode.python_source(case.source)}, refs,
                                  mates, given)
    assert (case.target in got) == (name != "honest_grow"), got


def test_a_copy_in_a_plain_cell_flags_the_exercise_it_copies():
    """A cell the student added (not an answer) that holds an exercise's reference flags
    that exercise, and every exercise sharing the reference; a plain cell of the student's
    own (a plot) and an empty one flag nothing (redteam12 pm_oracle: a kernel ran the copy for
    the judge beside it)."""
    import time
    refs = {ex: {f"the lab's {r}": s for r, s in similarity.reference_sources(ex).items()}
            for ex in ("ex06_2", "ex03_2", "ex01_1")}
    copy = _Disguise().visit(ast.parse(refs["ex06_2"]["the lab's labsupport.decoder.rules.kv_admission"]))
    cell = "import threading\n" + ast.unparse(copy) + "\n\nserver = threading.Thread(target=print)\n"
    own = "import matplotlib.pyplot as plt\nxs = list(range(10))\nplt.plot(xs, [x * x for x in xs])\n"
    got = similarity._plain_reviews({"code cell 9": cell, "code cell 3": own, "code cell 4": ""},
                                    refs, None, time.monotonic() + 60)
    assert set(got) == {"ex06_2"}, got
    assert got["ex06_2"].startswith("code cell 9: ") and "kv_admission" in got["ex06_2"], got


def test_a_hand_paraphrase_is_as_far_from_the_solution_as_an_honest_design():
    """What the copy review cannot see (docs/trainers.md, "What the copy review does not
    see"): redteam12 ``pool_inline``, the instructors' BlockPool rewritten by hand (attributes
    renamed, helpers written out, loops and branches restructured, idioms re-spelled), is no
    closer to the solution, in syntax or in token order, than pools written apart from it
    are: the lab's own ``RefCountedPool``, redteam13's honest pool, ``scan_tables``. A review
    that flagged it would flag them first; if a change to the review ever separates it,
    this fails and the case moves to ``test_hostile.COPIES``."""
    import inspect

    import hostile_cases
    from labsupport.decoder.blockpool import RefCountedPool
    hostile = ROOT / "tests" / "grading" / "hostile"
    solution = _solution("ex06_8")
    given = adapters.cell("ex06_8", "release").source

    def far(source):
        return (similarity.best_match(source, {"solution": solution}, given).score,
                similarity.in_order(similarity.tokens(source), similarity.tokens(solution)))

    honest = [inspect.getsource(RefCountedPool),
              hostile_cases.case(hostile / "redteam13" / "honest_pool13.py").source,
              (ROOT / "tests" / "variants" / "passing" / "ex06_8__scan_tables.py").read_text()]
    apart = [far(s) for s in honest]
    syntax, order = far(hostile_cases.case(hostile / "redteam12" / "pool_inline.py").source)
    assert syntax <= max(s for s, _ in apart) and order <= max(o for _, o in apart), \
        (syntax, order, apart)
    assert all(s < similarity.THRESHOLD and o < similarity.ORDER for s, o in apart), apart


def test_one_answer_cannot_stop_the_class_review_or_cost_it_the_square(monkeypatch):
    """redteam18: a dead helper whose constant folding raised (``0x<400 f's> * 1.0``:
    OverflowError) stopped every classmate's review; a long chain made the holder search
    compare every prefix with every other (the square of the answer). Now the answer reads,
    a classmate's copy beside it is still found, and the holder search dumps at most
    ``HOLDER_NODES`` nodes an expression; folding a chain of sums looks one level down
    (redteam19: it walked the chain again at every level, the square of it)."""
    solution = _solution("ex02_1")
    given = adapters.cell("ex02_1", "release").source
    refs = {"ex02_1": {"the instructors' solution": solution}}
    overflow = solution + "\n\ndef _never():\n    return 0x" + "f" * 400 + " * 1.0\n"
    assert similarity.fingerprint(overflow)
    beside = similarity.copy_reviews({"ex02_1": solution}, refs, {"mate": {"ex02_1": overflow}},
                                     {"ex02_1": given})
    assert "similar to the instructors' solution" in beside["ex02_1"], beside
    dumped = []
    sig = spelling._sig
    monkeypatch.setattr(spelling, "_sig", lambda node: dumped.append(len(list(ast.walk(node))))
                        or sig(node))
    chain = "class A:\n    def f(self, x):\n        return self.a" + ".b" * 150 + " + x" * 150 + "\n"
    nodes = len(list(ast.walk(ast.parse(chain))))
    similarity.fingerprint(chain)
    assert dumped and sum(dumped) <= spelling.HOLDER_NODES * nodes, (sum(dumped), nodes)
    folds = []  # redteam19: folding a chain that does not fold walked it again at every level
    fold = spelling._folded
    monkeypatch.setattr(spelling, "_folded", lambda node, names: folds.append(1) or fold(node, names))
    sums = "def f(x):\n    return x" + " + 1" * 150 + "\n"
    similarity.fingerprint(sums)
    assert len(folds) <= 2 * len(list(ast.walk(ast.parse(sums)))), len(folds)
