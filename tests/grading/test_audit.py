"""The grading audit and the trusted pass, without nbgrader: fast.

The audit flags every hostile submission in ``tests/grading/hostile/`` (but those that
earn nothing anyway: a loop, results that are not plain values, and the reference reached
where only the runtime tripwire sees it) and no honest answer: not the solutions, not the
other correct answers, not the known buggy ones (but one that calls the lab's reference).
The trusted pass accepts the solutions, rejects buggy answers, and cannot be fooled by an
answer cell that rebinds or patches the checks, returns objects that compare equal to
anything, or runs the lab's own implementation.
"""
import pytest

import adapters
import hostile_cases
from labgrader import audit, cellcode, trusted

HOSTILE = hostile_cases.HOSTILE
# earn nothing without a flag: a loop (the timeout), not plain values (the checks reject
# them), the reference behind a policy (the trusted pass's tripwire catches it at run time)
NOT_FLAGGED = {"loop", "plain_int", "plain_batcher", "ref_runtime", "frame_bomb", "nan_fit",
               # attacks on who decides the score (hostile/judge): the judge stops them
               "custom_exc_result", "display_1e9", "hidden_exc", "hook_number", "hook_pre_run",
               "meta_eq", "seed_print", "thread_result",
               # hostile/redteam3: written to pass the audit (operator.attrgetter on the lab's
               # package, a string that names nothing); the run-time defences are what is tested
               "tracer_hash", "gc_window", "cwd_shadow", "kc_bag", "context_setattr",
               "home_poison",
               # hostile/views: the student process's own descriptors and /proc, nothing of the lab
               "proc_judge", "socket_redirect",
               # hostile/redteam4: written to pass the audit (attrgetter, strings backwards)
               "view_poison", "partial_forge", "huge_int", "exc_spoof", "parent_mem",
               "view_block",
               # hostile/redteam5: written to pass the audit (attrgetter, strings backwards)
               "untraced_copy", "watch_deaf", "watch_blind", "thread_untraced", "renamed_copy",
               "hash_const", "sibling_view", "neighbour_rule", "template_mem", "driver_window",
               "method_code", "padded_copy", "padded_rule",
               "long_copy", "cookie_copy", "cell_copy",
               # hostile/redteam6: written to pass the audit (attrgetter, strings backwards)
               "hz_copy", "split_copy", "deep_copy", "cell_deep", "cell_split", "busy_method",
               "late_code",
               # hostile/redteam7: plain code (a copy with a token changed, timeit, doctest,
               # load on memory, disk, descriptors, threads, output): nothing the audit knows
               "one_token", "zero_minus", "timeit_classmate", "doctest_classmate", "class_wrap",
               "bool_const", "child_mem", "child_disk", "child_fds", "child_threads",
               "child_output", "deep_return", "timeit_reference", "frame_classmates",
               "decorator_copy", "assert_copy", "core_copier", "core_friend",
               # hostile/redteam8: plain code (copies with copier edits, an honest answer)
               "mask_temps", "kv_commute", "kv_helper", "admit_reorder", "prefix_swap",
               "roof_core", "mate_step", "honest_grow", "review_slow", "speed_inline",
               "timeit_padded",
               # hostile/redteam9: plain code (os, fcntl, struct, threading, timeit): file locks
               # and the uid's thread count as channels between the judge's child and a kernel
               "flock_oracle", "ofd_oracle", "relay_a_helper", "relay_b_asker", "nproc_probe",
               # hostile/kernel: the kernel reached through ipykernel's own singleton; what
               # the grading kernel's client reads is what is tested (kernel_messages.MessageCheck)
               "garbage_frames", "malformed_content", "error_reply", "forged_reply", "reply_no_idle",
               "result_number", "flood",
               # hostile/redteam10: plain code (os, socket, operator.attrgetter on the lab's
               # package): the warm judge's leftovers, the case memo poisoned and looked for, an
               # output the notebook format forbids
               "judge_leftovers", "memo_poison", "memo_snoop", "invalid_display",
               "selftest_cell",  # redteam10: an honest answer and its self-test
               # hostile/redteam11: plain code (os, threading, time, operator.attrgetter): the
               # page cache as a channel between the judge's child and a kernel, CPU floods
               "pc_leak", "pcr_a_helper", "pcr_b_asker", "swamp_kernel", "swamp_child", "a_swamp_both",
               # hostile/redteam12: plain code (os, mmap, threading, time): which pages are
               # cached, read from /proc/self/smaps, the lab's formula in a cell of its own
               "pm_oracle",
               "pool_inline", "honest_md1", "honest_prefix",  # redteam12: a copy, honest answers
               # hostile/redteam13: plain code: a returned string the check quotes in its verdict
               "verdict_md1", "verdict_challenge",
               "count_leak", "pm_counts",  # redteam13: the shell reached as exit._ip (not get_ipython)
               "pool_dict", "honest_pool13", "honest_batcher13", "honest_eager13",  # redteam13: a copy, honest answers
               # hostile/redteam14: plain code: a returned int (or a dict keyed by ints) the check quotes
               "int_md1", "budget_str",
               "limit_md1", "error_frame",  # redteam14, judge: os.write of a frame on its own sockets
               "pool_dict_call", "batcher_dict_call",  # redteam14: copies with their state in a dict
               "class_budget", "qualname_budget", "pool_dict_len",  # redteam15: plain code: an exception class (or its
               #  __module__/__qualname__) picked by a hidden case
               # hostile/redteam16: plain code: the instructors' class, its state spelled another way
               "pool_slots", "pool_by_id", "pool_holder_getter", "pool_attrgetter", "pool_renamed",
               "batcher_keys_spaced",
               # hostile/redteam17: plain code: the instructors' class, its state spelled another way
               "pool_named_slots", "pool_itemgetter", "pool_getattr_default", "pool_holder_positional",
               "batcher_fstring_keys"}
# the red-team cells reach the lab through pydoc.locate with split names: the audit flags
# pydoc (an import mechanism, like importlib); test_trusted_pass_is_not_fooled runs them
# through the trusted pass regardless, so the run-time defences are tested on their own
FLAGGED_VARIANTS = {("ex02_8", "index")}  # a buggy answer that calls the lab's find_knee


def _test_source(ex_id: str) -> str:
    """What nbgrader restores into the test cell: the visible and the hidden call."""
    name = adapters.target_name(ex_id)
    return f"check_{ex_id}({name})\ncheck_{ex_id}({name}, hidden=True)\n"


@pytest.mark.parametrize("case", hostile_cases.cases(), ids=lambda c: c.name)
def test_hostile_cells_are_flagged(case):
    reasons = audit.audit(case.source, [case.target])
    assert bool(reasons) == (case.name not in NOT_FLAGGED), reasons


def test_honest_answers_are_not_flagged():
    flagged = {}
    for ex in adapters.exercise_ids():
        for source in ["solution", *adapters.variants(ex), *adapters.variants(ex, passing=True)]:
            c = adapters.cell(ex, source)
            if c.cell_type == "code" and audit.audit(c.source, [ex]):
                flagged[ex, source] = audit.audit(c.source, [ex])
    assert set(flagged) == FLAGGED_VARIANTS, flagged


@pytest.mark.parametrize("src, ex, why", [
    ("check_kc08_01(kc08_01)", None, None),                               # a self-test
    ("from labsupport.exercises.kc08 import check_kc08_01", None, None),   # its import
    ("sum = 0\nfor x in [1, 2]:\n    sum += x", None, None),              # a habit, not a trick
    ("%time x = sum([1, 2])", None, None),                                 # timing is fine
    ("from labsupport.exercises.ex04 import p99_bucketed", "ex04_3", None),  # a given helper
    ("from labsupport import percentiles, simulate", "ex02_7", None),     # tools, not answers
    ("from labsupport.decoder import metrics", "ex06_3", None),
    ("from labsupport.exercises.kc08 import check_kc08_02 as check_kc08_01", None, "imports"),
    ("def check_ex02_1(*a):\n    pass", None, "rebinds the check name"),
    ("AssertionError = Exception", None, "rebinds the builtin"),
    ("import numpy as np\nnp.percentile = lambda *a, **k: 0", None, "patches the imported module"),
    ("import numpy as np\nm = np\nm.allclose = print", None, "patches the imported module"),
    ("import importlib\nimportlib.reload(np)", None, "importlib"),
    ("!rm -rf ~", None, "refused"),
    ("x = !ls", None, "refused"),
    ("%%bash\nls", None, "refused"),
    ("%time import os; os._exit(0)", None, "uses ._exit"),               # behind %time: seen
    ("def f():\n    %time del __builtins__", None, "__builtins__"),
    ("from labsupport.exercises.ex02_knee import reference_sweep", "ex02_7", "ex02_7"),
    ("from labsupport.exercises.ex02_knee import reference_sweep", "ex02_8", "the grader"),
    ("from labsupport.exercises.ex04 import _pool_ref as mean_pool", "ex04_1", "ex04_1"),
    ("from labsupport.exercises import fallback", "ex03_1", "ex03_1"),
    ("from labsupport.batching import lesson", "ex02_2", None),            # given to students
    ("import labsupport\nB = labsupport.MicroBatcher", "ex02_3", "ex02_3"),
    ("from labsupport.serving.api import service\nclass B(service.MicroBatcher): pass", "ex02_1",
     "subclasses"),
    ("from labsupport.costs import ServiceModel\nf = ServiceModel.fit", "ex04_2", "ex04_2"),
    ("from labsupport.costs import ServiceModel\nf = ServiceModel(1.0, 2.0)", "ex04_2", None),
    ("from labsupport.decoder.kvmath import kv_bytes_per_token", "ex05_4", "ex05_4"),
    ("import labsupport.decoder.rules as r\ng = r.grow_or_preempt", "ex06_4", "ex06_4"),
    ("import labsupport\nf = getattr(labsupport, name)", "ex03_2", "computed name"),
    ("m = 'labsupport.batching.shapes'", "ex03_2", "ex03_2"),
    ("open('../keys/kc08.json')", None, "grader-only"),
    ("def broken(:", None, None),                                         # cannot run
])
def test_audit_rules(src, ex, why):
    reasons = audit.audit(src, [ex] if ex else [])
    if why is None:
        assert reasons == []
    else:
        assert any(why in r for r in reasons), reasons


def _kc_ids() -> list[str]:
    return [i for i in adapters.exercise_ids() if i.startswith("kc")
            and adapters.cell(i).cell_type == "code"]


@pytest.mark.slow
def test_trusted_pass_grades_like_the_checks():
    """Every exercise's solution passes the trusted pass alone, unflagged (the judge's replay
    and the tripwire's code shapes must not catch an honest answer: a generator expression
    a reference also has, say); a known buggy answer of a few fails there."""
    code = [i for i in adapters.exercise_ids() if not i.startswith("kc")
            and adapters.cell(i).cell_type == "code"]  # hand-graded discussions have no check
    kc = _kc_ids()[:3]
    assert kc and len(code) >= 30, "sanity: solutions/ has knowledge-check and code items"
    items = [trusted.Item(f"{i}_test", cellcode.python_source(adapters.cell(i).source),
                          _test_source(i)) for i in kc + code]
    results = trusted.run_items(items, timeout_s=60)
    from labsupport.exercises import partial
    wrong = {k: v for k, v in results.items()  # the challenge's check: all its points, as a share
             if v[0] != "pass" and partial.share(v[1]) != 1.0}
    assert not wrong and len(results) == len(items), wrong
    buggy = [trusted.Item(f"{i}_test", adapters.cell(i, adapters.variants(i)[0]).source,
                          _test_source(i)) for i in ("ex02_1", "ex03_3", "ex06_1", "ex06_5")]
    results = trusted.run_items(buggy, timeout_s=60)
    assert all(v[0] == "fail" for v in results.values()), results


def test_magics_become_plain_python():
    for cell in ("%time x = 1\n%matplotlib inline", "%%timeit -n1 -r1\ny = 2"):
        tree, refused = cellcode.to_python(cell)
        assert tree is not None and not refused, refused
    assert cellcode.python_source("%time x = 1\ny = x") == "x = 1\ny = x"
    tree, refused = cellcode.to_python("x = !ls\n%run other.py")
    assert len(refused) == 2


@pytest.mark.slow
@pytest.mark.parametrize("name, want", [
    ("rebind", "tampered"), ("internals", "tampered"), ("modules_swap", "tampered"),
    ("obfuscated", "tampered"), ("assertion_swap", "tampered"), ("exit", "fail"),
    ("loop", "fail"), ("plain_int", "fail"), ("plain_batcher", "fail"),
    ("plain_str_patch", "fail"), ("ref_runtime", "reference"), ("ref_wrapper", "reference"),
    ("ref_import", "reference"), ("redteam/seed_pin", "fail"),
    ("redteam/patch_restore", "tampered"), ("redteam/thread_ref", "reference"),
    ("redteam/thread_prestart", "reference"), ("redteam/precompute", "reference"),
    ("redteam/pipe_forge", "tampered"), ("redteam/source_copy", "reference"),
    ("redteam/source_shift", "reference"), ("redteam/trace_off", "tampered"),
    ("redteam/rawthread_ref", "reference"), ("redteam/rawthread_prefix", "reference"),
    ("redteam/driver_swap", "reference"),
    # the forger's own run of the check does nothing in the child (guard.checks_off): the
    # record it forges is empty, and the process ends before the judge's calls: 0
    ("redteam/record_forge", "fail"), ("redteam/record_forge_quiet", "fail"),
    ("redteam/frame_bomb", "tampered"),
    ("redteam/nan_fit", "fail"), ("judge/numpy_item", "fail"),
    ("judge/numpy_forged_name", "fail"), ("judge/meta_eq", "fail"), ("judge/hidden_exc", "fail"),
    ("judge/seed_print", "fail"), ("judge/seed_print_guard", "fail"),
    ("redteam3/context_setattr", "tampered"), ("redteam3/tracer_hash", "tampered"),
    ("redteam3/gc_window", "reference"),  # cwd_shadow, home_poison write files: box only
    ("views/frame_globals", "fail"), ("views/frame_locals", "fail"),
    ("views/frame_traceback", "fail"), ("views/frame_generator", "reference"),
    ("views/genuine_source", "reference"), ("views/genuine_pyc", "fail"),
    ("views/forge_frames", "tampered"), ("views/proc_judge", "fail"),
    ("views/socket_redirect", "tampered"), ("redteam4/huge_int", "tampered"),
    ("redteam4/exc_spoof", "tampered"), ("redteam4/parent_mem", "fail"),
    # hostile/redteam5 (holes when found): each copy of a reference, compiled at run time, is
    # seen by the code watch before it runs (codewatch)
    *[(f"redteam5/{n}", "reference") for n in (
        "untraced_copy", "watch_deaf", "watch_blind", "thread_untraced", "renamed_copy",
        "hash_const", "method_code", "driver_window")],
    # hostile/redteam5, against the code watch (holes when found): a padded copy still holds
    # the reference (similarity.contained); a copy the judge cannot read (past its limit, in
    # another encoding it still reads) marks the item
    *[(f"redteam5/{n}", "reference") for n in ("padded_copy", "padded_rule", "cookie_copy")],
    ("redteam5/long_copy", "tampered"),
    # the neighbour views exist only when the notebook's earlier items were graded first
    # (test_neighbour_views_hold_the_genuine_code); alone, these find none and fail
    ("redteam5/sibling_view", "fail"), ("redteam5/neighbour_rule", "fail"),
    # hostile/redteam6, against the code watch and the copy check (holes when found): a str
    # read both ways (UTF-8 and its coding line); the item's compiled code scored together; a
    # constant under 800 minus signs is its value (spelling._Constants folds without
    # recursion), so deep_copy is the copy it hides; busy_before a reference of ex01_1; no code object
    # is ever built in the child (the judge's requests hold none)
    ("redteam6/hz_copy", "reference"), ("redteam6/split_copy", "reference"),
    ("redteam6/deep_copy", "reference"), ("redteam6/busy_method", "reference"),
    ("redteam6/late_code", "tampered")])
def test_trusted_pass_is_not_fooled(name, want):
    case = hostile_cases.case(HOSTILE / f"{name}.py")
    test = f"check_{case.target}({adapters.target_name(case.target)})" \
        if case.target.startswith("kc") else _test_source(case.target)
    got = trusted.run_items([trusted.Item(f"{case.target}_test", cellcode.python_source(case.source),
                                          test)], timeout_s=5)
    status, message, _ = got[f"{case.target}_test"]
    assert status in (want, "fail", "tampered") if want != "reference" else status == want, \
        (status, message)
    assert status != "pass", (status, message)


def _notebook_items(case, others: str | None = None) -> list:
    """Every answer item of ``case``'s notebook: ``case`` in its target, the release's stubs
    (or ``others``, with ``ID`` for the item's id) in the rest, in the notebook's order."""
    from pathlib import Path

    import nbformat
    root = Path(__file__).resolve().parents[2]
    nb = nbformat.read(next(root.glob(f"notebooks/{case.target[2:4]}_*/*.ipynb")), 4)
    items = []
    for c in nb.cells:
        aid = c.metadata.get("nbgrader", {}).get("grade_id", "")
        if c.cell_type != "code" or not c.metadata.get("nbgrader", {}).get("solution"):
            continue
        src = case.source if aid == case.target else (c.source if others is None
                                                      else others.replace("ID", aid))
        items.append(trusted.Item(f"{aid}_test", cellcode.python_source(src), _test_source(aid)))
    return items


def test_views_are_not_written_by_a_child():
    """``redteam4/view_poison`` (ex03_1) writes, in the student process's cwd (the judge's
    folder of views), the views of ex03_2..4 with a ``guard`` that answers with the lab's
    own code: their release stubs must still not pass."""
    case = hostile_cases.case(HOSTILE / "redteam4" / "view_poison.py")
    got = trusted.run_items(_notebook_items(case), timeout_s=60)
    assert all(got[t][0] != "pass" for t in ("ex03_2_test", "ex03_3_test")), got


PLANT = """import os
import labsupport
try:
    with open(os.path.join(labsupport.__path__[0], "planted.py"), "w") as f:
        f.write("ANSWER = 'b'\\n")
    kc08_01 = "planted"
except OSError as err:
    kc08_01 = f"not planted: {err}"
"""


def test_a_view_a_child_wrote_in_is_not_used_again():
    """Items with the same stubs (the knowledge check's: none) share one package view and one
    template that imported the lab from it; a child that writes in its view (a module for a
    later item to import its answer from) makes the judge build a fresh one."""
    items = [trusted.Item("kc08_01_test", PLANT, "check_kc08_01(kc08_01)", target="kc08_01"),
             trusted.Item("kc08_03_test", "from labsupport.planted import ANSWER as kc08_03",
                          "check_kc08_03(kc08_03)", target="kc08_03"),
             trusted.Item("kc08_02_test", "kc08_02 = False", "check_kc08_02(kc08_02)",
                          target="kc08_02")]
    got = trusted.run_items(items, timeout_s=60)
    status, _, planted = got["kc08_01_test"]  # it wrote there, or the view was read-only
    assert status == "pass" and (planted == "planted" or "Read-only" in planted), got
    assert got["kc08_03_test"][0] == "fail", got  # its import found no planted module
    assert got["kc08_02_test"] == ("pass", "", False), got  # the fresh view grades as before


def test_a_views_snapshot_sees_every_write(tmp_path):
    from labgrader import view
    folder = view.build("kc08_01", tmp_path)
    taken = view.snapshot(folder)
    assert view.unchanged(folder, taken)
    guard = folder / "labsupport" / "exercises" / "guard.py"
    for change in (lambda: guard.write_text(guard.read_text()),  # same bytes, written again
                   lambda: (folder / "labsupport" / "new.py").write_text(""),
                   lambda: guard.chmod(0o600),
                   lambda: (guard.rename(guard.with_suffix(".bak")),
                            guard.with_suffix(".bak").rename(guard))):
        change()
        assert not view.unchanged(folder, taken)
        taken = view.snapshot(folder)


def _tree(folder):
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
            for p in sorted(folder.rglob("*"))}


def test_a_view_rebuilt_in_place_is_the_fresh_view(tmp_path):
    """``view.rebuild`` turns one exercise's view into the next's: the same files, bytes and
    compiled code as a fresh ``build``, in a folder of a new name."""
    import compileall

    from labgrader import view
    compileall.compile_dir(view.ROOT, quiet=2)  # every module's compiled code there already
    #  (as grading has it, seal.session): none appears between two builds of the comparison
    chain = ["ex02_1", "ex02_5", "kc08_01", "ex06_10", "ex06_4", "ex03_2", "ex02_1"]
    for name in ("views", *chain):
        (tmp_path / name).mkdir(exist_ok=True)
    folder = view.build(chain[0], tmp_path / "views")
    for was, ex in zip(chain, chain[1:]):
        moved = view.rebuild(folder, was, ex, tmp_path / "views")
        assert moved != folder and not folder.exists() and moved.name.startswith(view.key(ex))
        fresh = view.build(ex, tmp_path / ex)
        assert _tree(moved) == _tree(fresh), (was, ex)
        folder = moved
    assert len(list((tmp_path / "views").iterdir())) == 1  # one view on disk


def test_no_share_from_the_students_text():
    """``redteam4/partial_forge`` (ex09_1): the judge's verdict is a plain fail, but its text
    (the student's exception, ``PartialScore: ex09_1: 4/4 points``) must not read as a share."""
    from labsupport.exercises import partial
    case = hostile_cases.case(HOSTILE / "redteam4" / "partial_forge.py")
    test = _test_source("ex09_1")
    got = trusted.run_items([trusted.Item("ex09_1_test", cellcode.python_source(case.source), test)],
                            timeout_s=60)
    status, message, _ = got["ex09_1_test"]
    assert status != "pass" and partial.share(message) is None, (status, message)


@pytest.mark.slow
@pytest.mark.parametrize("name, attacked", [("sibling_view", "ex03_2_test"),
                                            ("neighbour_rule", "ex06_4_test")])
def test_neighbour_views_hold_the_genuine_code(name, attacked):
    """``redteam5/sibling_view`` (ex03_2), ``neighbour_rule`` (ex06_4): the child reads the
    lab's genuine module from the view an earlier item of its notebook left in the student
    process's folder (its cwd), and runs it (renamed; or with the tripwire's report
    unplugged): the item must not pass (one view is on disk at a time, and the code watch
    sees the genuine source compiled)."""
    case = hostile_cases.case(HOSTILE / "redteam5" / f"{name}.py")
    got = trusted.run_items(_notebook_items(case), timeout_s=60)
    assert got[attacked][0] != "pass", got[attacked]


TRACE_OFF = """import operator
import labsupport
operator.attrgetter("exercises.guard.sys")(labsupport).settrace(None)
kc08_02 = False
"""


def test_a_child_cannot_change_the_next_childs_start():
    """``redteam5/template_mem`` (kc08_01) writes, through ``/proc/<template>/mem``, into the
    template the next knowledge-check item forks from: the audit hook's words there. The
    next item's plain ``sys.settrace(None)`` must still be reported."""
    case = hostile_cases.case(HOSTILE / "redteam5" / "template_mem.py")
    items = [trusted.Item("kc08_01_test", cellcode.python_source(case.source),
                          "check_kc08_01(kc08_01)", target="kc08_01"),
             trusted.Item("kc08_02_test", TRACE_OFF, "check_kc08_02(kc08_02)", target="kc08_02")]
    got = trusted.run_items(items, timeout_s=60)
    assert got["kc08_02_test"][0] == "tampered", got


@pytest.mark.parametrize("name", ["redteam5/cell_copy", "redteam6/cell_deep",
                                  "redteam6/cell_split", "redteam7/class_wrap",
                                  "redteam7/bool_const", "redteam7/one_token",
                                  "redteam7/zero_minus", "redteam7/decorator_copy",
                                  "redteam7/assert_copy",
                                  *(f"redteam8/{n}" for n in ("mask_temps", "kv_commute", "kv_helper",
                                                              "admit_reorder", "roof_core",
                                                              "speed_inline"))])
def test_a_copy_in_the_answer_cell_goes_to_review(name):
    """A copy of the lab's code in the answer cell, which the code watch skips and the
    tripwire's digest misses once renamed, so only the similarity review can see it:
    ``redteam5/cell_copy`` (locals renamed, its ``if`` turned round, beside a helper of the
    cell's own), ``redteam6/cell_deep`` (one line of huge syntactic weight inside it: Dice
    0.0), ``redteam6/cell_split`` (cut in two: each piece under the Dice; the cell holds all
    of ``bucket_of``), ``redteam7/one_token`` and ``zero_minus`` (one token changed or two
    added: every subtree above them changes, the token stream hardly), ``decorator_copy``
    and ``assert_copy`` (``kv_admission`` as one lambda, hidden in a decorator or an assert:
    the canonical form makes it a function again)."""
    from labgrader import similarity
    case = hostile_cases.case(HOSTILE / f"{name}.py")
    refs = {case.target: {f"the lab's {r}": src
                          for r, src in similarity.reference_sources(case.target).items()}}
    why = similarity.copy_reviews({case.target: cellcode.python_source(case.source)}, refs, {}, {})
    assert case.target in why, why


def test_a_classmates_copy_names_both_sides_and_code_run_from_a_string_is_compared():
    """``redteam7/core_copier`` copied ``core_friend``'s working core and left the rest out:
    each is named in the other's review (either may be the copy; a one-way "holds" accused
    only the friend). ``redteam7/timeit_classmate`` runs the solution from a string: the
    sources its code compiled while graded (``run_items(compiled=…)``) are compared too."""
    from labgrader import similarity
    src = {n: cellcode.python_source(hostile_cases.case(HOSTILE / "redteam7" / f"{n}.py").source)
           for n in ("core_copier", "core_friend")}
    for me, other in (("core_copier", "core_friend"), ("core_friend", "core_copier")):
        why = similarity.copy_reviews({"ex06_1": src[me]}, {}, {other: {"ex06_1": src[other]}}, {})
        assert f"student {other}'s answer" in why.get("ex06_1", ""), (me, why)
    case = hostile_cases.case(HOSTILE / "redteam7" / "timeit_classmate.py")
    item = trusted.Item("ex06_1_test", cellcode.python_source(case.source), _test_source("ex06_1"))
    compiled: dict = {}
    assert trusted.run_items([item], timeout_s=60, compiled=compiled)["ex06_1_test"][0] == "pass"
    solution = "\n".join(line for line in adapters.cell("ex06_1").source.splitlines()
                         if "### " not in line)
    refs = {"ex06_1": {"the instructors' solution": solution}}
    assert similarity.copy_reviews({"ex06_1": item.answer}, refs, {}, {}) == {}  # a string
    why = similarity.copy_reviews({"ex06_1": item.answer}, refs, {}, {}, None,
                                  {"ex06_1": compiled["ex06_1_test"]})
    assert "the instructors' solution" in why.get("ex06_1", ""), why


def test_more_compiled_code_than_the_review_compares_is_tampering():
    """``redteam8/timeit_padded`` compiled 264,000 characters of filler before a classmate's
    answer, past what the judge keeps for the review: the item ends as tampering."""
    check = trusted.CopyCheck("ex06_1")
    chunk = "".join(f"x{k} = {k}\n" for k in range(2000)).encode()  # ~20,000 characters
    with pytest.raises(trusted.Stop) as stop:
        for _ in range(trusted.CopyCheck.KEPT // len(chunk) + 2):
            check(chunk)
    assert stop.value.args[0] == "tampered" and "more than" in stop.value.args[1]
