"""A class of hostile submissions graded by the real pipeline (nbgrader, ``--jobs 2``), with
an honest and a blank control per notebook: every attack in ``tests/grading/hostile/`` (see
its README) earns no more than an honest wrong answer, or is flagged for review with its
reason in the gradebook (and, where the export has a review column, in the export).
Notebooks: those the attacks target (the knowledge check and three code notebooks)."""
import csv
import os
import html
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

import hostile_cases
from labsupport.exercises.guard import GRADER_SEED_ENV
from labgrader import Course, course_config, parallel, review

ROOT = Path(__file__).resolve().parents[2]
ONLY = "LAB_HOSTILE_ONLY"  # comma-separated folders or names: grade only those cases (a busy
#                            machine's run in pieces); unset: every case
# a hang guard, not a limit: the class takes ~4 min on a quiet 2-core machine, more on a busy one
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def _nbg(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    cases = hostile_cases.cases()
    if os.environ.get(ONLY):
        parts = set(os.environ[ONLY].split(","))
        cases = [c for c in cases if c.name in parts or c.folder in parts]
    wanted = {c.notebook_prefix for c in cases}
    root = tmp_path_factory.mktemp("hostile")
    sources = {}
    for src in sorted(ROOT.glob("solutions/*/*.ipynb")):
        if src.stem[:2] in wanted:
            shutil.copytree(src.parent, root / "solutions" / src.parent.name)
            sources[src.stem[:2]] = (src.parent.name, src.stem)
    # 20 s stops the kernel's endless loops; the judge keeps the default (a busy machine's
    # encoder and scheduler items took over 20 s there, and the preflight stops on that)
    course = Course(course_config(root, **{"Execute.timeout": 20, "TrustedChecks.timeout": 60}))
    assert course.release()

    def read(folder, prefix):
        a, nb = sources[prefix]
        return nbformat.read(root / folder / a / f"{nb}.ipynb", 4)

    def submit(student, prefix, nb):
        a, name = sources[prefix]
        out = course._dir("submitted") / student / a / f"{name}.ipynb"
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out)

    solved = {}  # prefix -> answer id -> the instructors' answer
    for prefix in sources:
        release = read("notebooks", prefix)
        solved[prefix] = {_nbg(c)["grade_id"]: c.source for c in read("solutions", prefix).cells
                          if _nbg(c).get("solution") and c.cell_type == "code"}
        honest = hostile_cases.submission(release, hostile_cases.Case("", "", "", None, ()),
                                          solved[prefix])
        submit(f"honest{prefix}", prefix, honest)
        submit(f"blank{prefix}", prefix, release)
    for c in cases:
        release = read("notebooks", c.notebook_prefix)
        others = {}
        if c.others == "honest":  # a control beside the attack: the instructors' answers
            others = solved[c.notebook_prefix]
        elif c.target.startswith("kc"):  # well-formed but wrong everywhere else
            others = {_nbg(x)["grade_id"]: f'{_nbg(x)["grade_id"]} = "z"' for x in release.cells
                      if _nbg(x).get("solution") and x.cell_type == "code"}
        submit(c.name, c.notebook_prefix, hostile_cases.submission(release, c, others))
    assert parallel.autograde(course, jobs=2, progress=False), "a hostile submission stopped grading"
    rows = {}
    with Gradebook(course.coursedir.db_url) as gb:
        for a, nb in sources.values():
            for sub in gb.assignment_submissions(a):
                n = gb.find_submission_notebook(nb, a, sub.student.id)
                rows[sub.student.id] = (
                    n.flagged, {g.name: (g.score, g.max_score, g.needs_manual_grade) for g in n.grades},
                    {c.name: c.auto_comment or "" for c in n.comments})
    export = list(csv.DictReader(course.export(root / "grades.csv").open()))
    seed = os.environ[GRADER_SEED_ENV]  # this run's (parallel.autograde drew it)
    leaked = sorted(str(p.relative_to(root)) for p in course._dir("autograded").rglob("*.ipynb")
                    if seed in p.read_text())
    heard = {p.relative_to(course._dir("autograded")).parts[0] for p in
             course._dir("autograded").rglob("*.ipynb") if LEAK_MARK in p.read_text()}
    print("kernels that heard the judge's calls (the trainer's autograded copy):", sorted(heard))
    for student, a in course.submissions("autograded"):  # the leaks' pages, and the heard ones'
        if student in heard or student in LEAKS:
            assert course._run(f"feedback {a} {student}", course.api.generate_feedback, a, student)
    told = {p.relative_to(course._dir("feedback")).parts[0] for p in
            course._dir("feedback").rglob("*.html")
            if LEAK_MARK in p.read_text() or LEAK_MARK in _prompt_text(p.read_text())
            or LEAK_MARK in _digit_text(p.read_text())
            or _class_leak(p.read_text(), seed, p.relative_to(course._dir("feedback")).parts[0])}
    return {c.name: c for c in cases}, rows, export, sources, leaked, told


def _class_leak(page: str, seed: str, student: str) -> bool:
    """redteam15 ``class_budget``, ``qualname_budget``: the name of the class of the exception
    their first hidden ex03_3 call raised, picked by that case (``ALPHABET[budget % n]``),
    printed by the hidden verdict; the case's budget drawn again here from the run's seed, as
    the judge drew it."""
    path = hostile_cases.REDTEAM15 / f"{student}.py"
    if student not in ("class_budget", "qualname_budget") or not path.exists():
        return False
    from labsupport.exercises import ex03, guard
    budgets = []

    def record(lengths, max_tokens):
        budgets.append(max_tokens)
        raise RuntimeError("recorded")
    with guard.grading(keys={"ex03_3": guard.hidden_key(seed, "ex03_3")}):
        try:
            ex03.check_ex03_3(record, hidden=True)
        except BaseException:  # noqa: BLE001 - the first hidden call is all it needs
            pass
    ns: dict = {}
    exec(hostile_cases.case(path).source, ns)  # its ALPHABET
    names = [x.__name__ if isinstance(x, type) else x.rpartition(".")[2] for x in ns["ALPHABET"]]
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    return bool(budgets) and f"{names[budgets[0] % len(names)]}: ex03_3: " in text


def _prompt_text(html: str) -> str:
    """redteam13 ``count_leak``: the text a kernel wrote as its cells' execution counts (the
    page's ``In [N]:`` prompts, 7 bytes a prompt)."""
    counts = [int(n) for n in re.findall(r"In(?:&nbsp;|\s)\[(\d+)\]", html)]
    return b"".join(n.to_bytes(7, "big").lstrip(b"\0") for n in counts
                    if 1 << 24 <= n < 1 << 56).decode("utf-8", "replace")


def _digit_text(html: str) -> str:
    """redteam14 ``int_md1``: text a verdict quotes as long decimal ints (a returned int, or the
    keys of a returned dict on the path ``plain`` names: ``describe`` prints an int whole)."""
    return b"".join(int(n).to_bytes(40, "big").lstrip(b"\0") for n in re.findall(r"\d{20,80}", html)
                    ).decode("utf-8", "replace")


COPY = ("similar to the instructors' solution", "similar to the lab's", "holds ")
SHARE_NUMBERS = re.compile(r"(PartialScore: )?ex\d+_\d+: \d+/\d+ points\..*?(?=; similar to|; holds |$)")
# a partial verdict's numbers, kept as the answer's comment (the challenge): not a review note


def test_controls_score_as_before(graded):
    """The honest control submits the instructors' solution: a copy (``similarity``) of it,
    and for some items of the lab's reference, so it may be flagged for that alone."""
    _, rows, _, sources, _, _ = graded
    for prefix in sources:
        flagged, grades, comments = rows[f"honest{prefix}"]
        why = {k: v for k, v in ((k, SHARE_NUMBERS.sub("", v or "").strip("; "))
                                 for k, v in comments.items()) if v and v != review.NO_RESPONSE}
        assert all(part.startswith(COPY) for v in why.values() for part in v.split("; ")), \
            (prefix, why)
        assert flagged == bool(why), (prefix, flagged, why)
        auto = {g: v for g, v in grades.items() if g.endswith("_test")}
        assert all(score == top for score, top, _ in auto.values()), (prefix, auto)
        flagged, grades, _ = rows[f"blank{prefix}"]
        assert not flagged and all(score == 0 for score, _, _ in grades.values()), (prefix, grades)


HOLES: dict[str, str] = {}  # open holes (hostile/*/README.md): each earns points unflagged, a strict xfail
PARAPHRASE = {"pool_inline"}  # redteam12: the instructors' BlockPool rewritten by hand (attributes
#  renamed, helpers written out, a comprehension a while loop, a branch an early return, idioms
#  re-spelled). No review of the code tells it from an honest design: it is farther from the
#  solution, in syntax and in token order, than pools written apart from it (the lab's own
#  RefCountedPool; test_similarity.test_a_hand_paraphrase_is_as_far_from_the_solution_as_an_honest_design).
#  Graded as the answer it reads as: full points; docs/trainers.md says what a trainer can do
HONEST = {"honest_grow", "selftest_cell",
          "honest_pool13", "honest_batcher13", "honest_eager13"}  # redteam13: honest classes
#                          redteam8: an honest answer the review once accused (Dice 0.80 with the
#                          lab's reference, both under MIN_WEIGHT now): full points, no flag;
#                          redteam10: an honest answer cell ending in its own self-test (it ran
#                          the check in the judge's child, where the check's reference is a
#                          stub: "reference"; a check does nothing there now, guard.checks_off);
COPIES = {"cell_copy", "cell_split", "cell_deep", "class_wrap", "bool_const", "timeit_classmate",
          "core_copier", "core_friend", "one_token", "zero_minus", "decorator_copy",
          "assert_copy", "prefix_swap", "mask_temps", "kv_commute", "admit_reorder", "roof_core",
          "kv_helper", "speed_inline", "mate_step",
          "pm_oracle", "pool_dict",
          "pool_dict_call", "batcher_dict_call", "pool_dict_len", "pool_down",
          "pool_slots", "pool_by_id", "pool_holder_getter", "pool_attrgetter",  # redteam16
          "pool_renamed", "batcher_keys_spaced",
          "pool_named_slots", "pool_itemgetter", "pool_getattr_default",  # redteam17
          "pool_holder_positional", "batcher_fstring_keys"}  # redteam5/6/7/8/12/13-16: the lab's code, renamed, cut in two, padded inside,
#  wrapped in a class, with a constant's type or a token changed, rewritten as a lambda, with
#  copier edits (operands commuted, comparisons turned, updates split, a helper pulled out or
#  written out, a value named), or a
#  classmate's (run from a string, or its core alone: both sides named), in the answer cell
#  itself, or (pm_oracle) in a plain cell the student added, which its kernel runs for the
#  judge: copying is a review flag with the score kept (the trainer decides), not a 0
RACY: set[str] = set()  # holes that win a race (with the judge's first request, or with a
#                         classmate's kernel on the other slot): not strict


COINCIDE = {"honest_md1", "honest_prefix",  # redteam12: honest answers that are the instructors'
            #   solution up to names and order (prefix_hits is redteam8's prefix_swap, a copy,
            #   token for token but two: no review of the code can tell them apart)
            "pm_counts"}  # redteam13: an honest kv_admission whose page-cache channel is
#   redteam12 pm_oracle's code (its leak: LEAKS); with both in the class the pair is flagged.
#   Full points, and a note that says how alike, if any, with the score kept for the trainer


# every case of tests/grading/hostile, graded through the real pipeline
@pytest.mark.parametrize("name", [
    pytest.param(c.name, marks=pytest.mark.xfail(strict=c.name not in RACY, reason=HOLES[c.name]))
    if c.name in HOLES else c.name for c in hostile_cases.cases()])
def test_attack_earns_nothing_or_is_flagged(graded, name):
    cases, rows, export, sources, _, _ = graded
    if name not in cases:
        pytest.skip(f"not graded in this run ({ONLY})")
    c = cases[name]
    flagged, grades, comments = rows[name]
    attacked = f"{c.target}_test"
    tests = {g: v for g, v in grades.items() if g.endswith("_test")}
    if name in HONEST:
        assert not flagged and tests[attacked][0] == tests[attacked][1], (name, tests, comments)
        return
    if name in PARAPHRASE:
        assert tests[attacked][0] == tests[attacked][1], (name, tests, comments)
        return
    if name in COINCIDE:
        why = comments.get(c.target, "")
        assert tests[attacked][0] == tests[attacked][1], (name, tests, comments)
        assert not flagged or (any(w in why for w in ("similar to ", "holds ", "either may be "
                                                        "the copy")) and "reuse" not in why), \
            (name, why)
        return
    if name in COPIES:  # a copy in the answer cell: a review flag, its checks' score kept
        why = comments.get(c.target, "")
        assert flagged and any(w in why for w in ("similar to ", "holds ", "copy check",
                                                  "either may be the copy")), \
            (name, comments)
        assert tests[attacked][2], f"{name}: the attacked item needs a manual grade"
        return
    assert tests[attacked][0] == 0, f"{name} scored {tests[attacked][0]} on {attacked}"
    if c.others == "honest":  # the honest answers beside the attack keep their points
        assert flagged, f"{name}: not flagged"
        assert all(score == top for g, (score, top, _) in tests.items() if g != attacked), (name, tests)
    else:
        assert sum(score for score, _, _ in tests.values()) == 0, (name, tests)
    if not flagged:
        return
    assert tests[attacked][2], f"{name}: the attacked item needs a manual grade"
    assert comments.get(c.target), f"{name}: the reason is in the answer cell's comment"
    review = [k for k in (export[0] if export else {}) if "review" in k.lower() or "flag" in k.lower()]
    if review:  # the export names the flagged item too
        row = next(r for r in export if r["student_id"] == name
                   and r["assignment"] == sources[c.notebook_prefix][0])  # a row per assignment
        assert any(row[k] for k in review), (name, row)


EXPECT_UNFLAGGED = {"loop", "plain_int", "plain_batcher", "nan_fit", "frame_bomb",  # they earn nothing
                    "verdict_md1", "verdict_challenge", "count_leak",  # redteam13: wrong answers (their leak:
                    "int_md1", "budget_str", "limit_md1",  # redteam14: wrong answers (their leak: LEAKS)
                    "class_budget", "qualname_budget",  # redteam15: wrong answers (their leak: LEAKS)
                    #  test_no_judged_call_reaches_the_feedback)
                    # hostile/judge: wrong answers behind forged kernel outputs, scored by the judge
                    "hook_pre_run", "hook_number", "thread_result", "display_1e9", "display_hook",
                    "custom_exc_result", "meta_eq", "hidden_exc", "seed_print",
                    "home_poison",  # hostile/redteam3: each box has its own home and /tmp
                    "cwd_shadow",  # redteam3: the judge runs with -P (its cwd not on sys.path);
                    #                the child that waits to be reaped only times out
                    # hostile/views: no check, expected value or key is in the student process
                    "frame_globals", "frame_locals", "frame_traceback", "frame_generator",
                    "proc_judge", "genuine_pyc",  # views: no compiled reference in sight
                    "parent_mem",  # redteam4: the student process's memory is not writable
                    "view_block",  # redteam4: each item's view is a fresh folder, never one found
                    "view_poison",  # redteam4: the same; what a child wrote is never read
                    "partial_forge",  # redteam4: a share comes only from the judge's own check
                    "template_mem",  # redteam5: earns nothing itself (a keyed item); the next
                    #                  item is untouched (test_audit)
                    "sibling_view", "neighbour_rule",  # redteam5: one view on disk at a time:
                    #                                   no neighbour's genuine code to read
                    "child_disk", "child_fds", "child_threads", "deep_return",  # redteam7: wrong
                    #  answers beside load on the student child (disk, descriptors, threads) or a
                    #  value too deep to record: they earn nothing, the checks see only wrong values
                    "child_output",  # redteam7: a flood from the answer's function, a wrong answer:
                    #  earns nothing (the judge's child writes nowhere); the kernel's test cell,
                    #  whose check flooded the box's output limit, stops at its first reference now
                    #  (the kernel's package view, view.for_kernel)
                    "frame_classmates",  # redteam7: a wrong fragment that earns nothing (what it does
                    #                      to the classmates it frames is in its README)
                    "relay_a_helper",  # redteam9: no answer; its kernel answers relay_b_asker's judge
                    "flock_oracle", "ofd_oracle", "relay_b_asker",  # redteam9: the child's locks are
                    #  refused (EPERM: syscalls.NO_FILE_SIGNALS), so no answer comes: 0
                    "nproc_probe",  # redteam9: earns nothing; the judge's uid is not the kernel's
                    "review_slow",  # redteam8: a wrong answer that costs the class review minutes
                    #                 (a denial of service: no time limit there, README); earns nothing
                    "judge_leftovers", "memo_snoop",  # redteam10: wrong answers that look for what
                    #  an earlier judge left and for the run's case memo: nothing found, nothing earned
                    "pcr_a_helper", "pcr_b_asker",  # redteam11: a notebook-05 kernel meant to answer
                    #  a notebook-06 judge over the page cache: no kernel holds any exercise's
                    #  reference (view.KERNEL) and the child cannot drop or probe a cached page
                    #  (syscalls.NO_PAGE_CACHE): no answer comes, nothing earned, nothing heard
                    "pc_leak",  # redteam11: an honest kv_admission that also sends each call to its
                    #  kernel: the page-cache calls fail in the child (EPERM) and so does the answer
                    "swamp_kernel", "swamp_child", "a_swamp_both",  # redteam11: wrong answers beside a CPU flood (what
                    #  the flood does to the classmate on the other slot: the controls)
                    "result_number"}  # kernel: well-formed outputs, nothing tells them from the
#                                       kernel's own (flagged today only as its cell fails alone)
UNREADABLE = {"garbage_frames", "malformed_content", "error_reply", "forged_reply",
              "reply_no_idle", "invalid_display"}  # redteam10: an output the format forbids
# hostile/kernel: messages the grader cannot read or that the protocol never sends twice


def test_which_attacks_are_flagged(graded):
    cases, rows, _, _, _, _ = graded
    unflagged = {name for name in cases if not rows[name][0]} - set(HOLES) - HONEST - COINCIDE \
        - PARAPHRASE  # HOLES: xfail above
    print("scored 0 without a flag:", sorted(unflagged))
    assert unflagged <= EXPECT_UNFLAGGED, sorted(unflagged - EXPECT_UNFLAGGED)
    for name in {"meta_dropped", "meta_duplicate"} & set(cases):
        reason = rows[name][2].get(cases[name].target, "")
        assert "missing" in reason or "appears" in reason, (name, reason)
    for name in UNREADABLE & set(cases):  # the kernel stopped, the reason where a trainer reads
        reason = " ".join(rows[name][2].values())
        assert "the kernel's messages could not be read in cell" in reason, (name, reason)
    if "ref_runtime" in cases:
        assert "lab's own implementation" in " ".join(rows["ref_runtime"][2].values())


def test_no_autograded_notebook_holds_the_seed(graded):
    """``judge/seed_print`` printed what it found in its environment: never the run's seed."""
    assert graded[4] == []


LEAK_MARK = "[rt9-leak] ("  # redteam9: what a leak case's kernel prints before each hidden case it heard of
LEAKS = ("flock_oracle", "ofd_oracle", "pc_leak", "pcr_a_helper", "pm_oracle",
         "verdict_md1", "verdict_challenge", "count_leak", "pm_counts",
         "int_md1", "budget_str", "limit_md1", "class_budget", "qualname_budget")  # redteam9: kernels that print the hidden
#   cases the judge's child sends them (over file locks, refused since); redteam11: over the page cache


@pytest.mark.parametrize("name", LEAKS)
def test_no_judged_call_reaches_the_feedback(graded, name):
    """The judge's child gets the hidden inputs; the grading kernel runs beside it, and a kernel
    may hear them (redteam12's ``pm_oracle`` does, over the page cache: the trainer's autograded
    copy shows them). The student's feedback shows none of the kernel's outputs or execution
    counts, only the lab's verdicts (``feedback_view.VerdictsOnly``), and a verdict on hidden
    cases is in the lab's words alone (``trusted._hidden_verdict``: redteam13's ``verdict_md1``,
    ``verdict_challenge``, redteam14's ``int_md1``, ``budget_str``; a frame the child forges,
    ``limit_md1``), so no hidden case reaches it (issue 30, 6)."""
    cases, _, _, _, _, heard = graded
    if name not in cases:
        pytest.skip(f"not graded in this run ({ONLY})")
    assert name not in heard, f"{name}: the feedback shows arguments of the judge's calls"
