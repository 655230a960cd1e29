"""Red team 10 (``hostile/redteam10/README.md``): a judge forked from its job slot's warm
template (``labgrader.warm``, kind "judge") against a cold one, seen from the judge's child
where the student's code runs: the same isolation, nothing one judge's child leaves reaches
the next judge of the template, and neither the run's case memo (``casememo``, handed to
the judge on its stdin) nor the template's socket is in its reach.

Real template process, real sandbox (namespaces), real trusted pass; each probe is an
answer whose first call raises what it saw (a visible case's error is the verdict's text).
"""
import json
import pickle

import pytest

from labgrader import cellcode, trusted
from labgrader.sandbox import Sandbox, namespaces_available
from .test_warm import judges  # noqa: F401 - the judges' template, one per module

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not namespaces_available()[0], reason=namespaces_available()[1] or "no namespaces")]

SENTINEL = "rt10-sentinel-case"  # a memo entry's content: must never be where the child looks

STATUS = r'''
import json, os, resource
def fields(path):
    try:
        with open(path) as f:
            return {k: v.split()[0] for k, v in (l.split(":", 1) for l in f) if k in
                    ("Uid", "NoNewPrivs", "Seccomp", "CapEff")}
    except OSError as err:
        return type(err).__name__
out = {"self": fields("/proc/self/status"), "judge": fields("/proc/1/status"),
       "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0], "fsize": resource.getrlimit(resource.RLIMIT_FSIZE)[0],
       "env": sorted(k for k in os.environ if not k.startswith("LC_"))}
import hashlib  # the verdict's text is short: all of it as a digest, the rest by name
out = {"digest": hashlib.sha256(json.dumps(out, sort_keys=True).encode()).hexdigest()[:16],
       "seccomp": out["self"]["Seccomp"], "nnp": out["self"]["NoNewPrivs"],
       "judge_caps": out["judge"]["CapEff"], "secret_env": [k for k in out["env"] if "SEED" in k or "KEYS" in k]}
'''
LEAVE = r'''
import json, os
places = ("/tmp", "/dev/shm", os.path.expanduser("~"), os.getcwd())
out = {"before": sorted(n for p in places for n in os.listdir(p) if n.startswith("rt10-"))}
for p in places:
    with open(os.path.join(p, "rt10-left"), "w") as f:
        f.write("left")
'''
REACH = r'''
import json, operator, os, socket
import labsupport
from labsupport.exercises.ex06 import check_ex06_6
def tried(path):
    try:
        with open(path, "rb") as f:
            return f.read(64).decode(errors="replace")
    except OSError as err:
        return type(err).__name__
with open("/proc/1/cmdline", "rb") as f:
    socks = [a.decode() for a in f.read().split(bytes(1)) if a.endswith(b".sock")]
found = []
for s in socks:
    c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        c.connect(s)
        found.append("connected")
    except OSError as err:
        found.append(type(err).__name__)
hits = []
for top in ("/tmp", "/dev/shm", os.path.expanduser("~")):
    for folder, _, files in os.walk(top):
        for name in files:
            try:
                with open(os.path.join(folder, name), "rb") as f:
                    if b"SENTINEL" in f.read():
                        hits.append(name)
            except OSError:
                pass
out = {"given": len(operator.attrgetter("exercises.casememo")(labsupport)._GIVEN),
       "stdin": tried("/proc/1/fd/0"), "mem": tried("/proc/1/mem"), "template": found,
       "hits": hits}
'''.replace("SENTINEL", SENTINEL)


def _item(probe: str):
    body = probe + "raise RuntimeError('RT10' + json.dumps(out, separators=(',', ':')))\n"
    src = "def pad_batch(*a, **k):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    return trusted.Item("ex03_2_test", cellcode.python_source(src), "check_ex03_2(pad_batch)\n")


def _probe(sandbox: Sandbox, tmp_path, probe: str, memo: dict | None = None) -> dict:
    """What ``probe`` saw in the child of a fresh judge box (its JSON ``out``)."""
    box = sandbox.open(tmp_path, judge=True)
    try:
        item = _item(probe)
        status, message, _ = trusted.run_items([item], 60, run=box.run, memo=memo)[item.grade_id]
    finally:
        box.close()
    assert status == "fail" and "RT10" in message, (status, message)
    return json.loads(message.split("RT10", 1)[1].split(" (on the hidden")[0])


def test_a_warm_judges_child_is_boxed_as_a_cold_ones(judges, tmp_path):
    warm_saw = _probe(Sandbox(warm_judge=judges.socket), tmp_path, STATUS)
    cold_saw = _probe(Sandbox(), tmp_path, STATUS)
    assert warm_saw == cold_saw, (warm_saw, cold_saw)
    assert warm_saw["seccomp"] == "2" and warm_saw["nnp"] == "1"
    assert warm_saw["judge_caps"] == "0000000000000000"  # the judge: no capability left
    assert warm_saw["secret_env"] == []


def test_nothing_one_warm_judge_leaves_reaches_the_next(judges, tmp_path):
    sandbox = Sandbox(warm_judge=judges.socket)
    first = _probe(sandbox, tmp_path, LEAVE)
    second = _probe(sandbox, tmp_path, LEAVE)
    assert first["before"] == [] and second["before"] == [], (first, second)


def test_neither_the_memo_nor_the_template_is_in_the_childs_reach(judges, tmp_path):
    memo = {"ex06_6/sweeps/visible": pickle.dumps([SENTINEL] * 64)}  # handed to the judge
    saw = _probe(Sandbox(warm_judge=judges.socket), tmp_path, REACH, memo=dict(memo))
    assert saw["given"] == 0 and saw["hits"] == [], saw  # the child's casememo is empty
    assert saw["stdin"] == "PermissionError" and saw["mem"] == "PermissionError", saw
    assert saw["template"] == ["FileNotFoundError"], saw  # the host's /tmp is not the box's


def test_a_dead_judges_template_stops_grading(tmp_path):
    """A cold judge that cannot start raises ``GradingEnvironmentError`` (no grade written,
    issue 30); a warm one whose template died must do the same, not fail the items."""
    import os
    import signal
    from labgrader import warm
    gone = warm.Template(threads=1, kind="judge")
    gone.wait_ready()
    os.killpg(gone.proc.pid, signal.SIGKILL)
    gone.proc.wait()
    box = Sandbox(warm_judge=gone.socket).open(tmp_path, judge=True)
    try:
        with pytest.raises(trusted.GradingEnvironmentError):
            trusted.run_items([_item("out = {}\n")], 60, run=box.run)
    finally:
        box.close()
        gone.close()


@pytest.mark.slow
def test_an_answer_cells_own_self_test_costs_nothing_in_the_judges_child():
    """redteam10's ``selftest_cell``: an honest answer cell that ends with its own
    ``check_ex06_6(...)`` passes (in the child a check does nothing, ``guard.checks_off``: its
    reference is a stub there); the same cell calling the lab's rule itself is still caught."""
    import hostile_cases
    case = hostile_cases.case(hostile_cases.HOSTILE / "redteam10" / "selftest_cell.py")
    test = "check_ex06_6(pick_max_seqs)\ncheck_ex06_6(pick_max_seqs, hidden=True)\n"
    honest = trusted.Item("ex06_6_test", cellcode.python_source(case.source), test)
    copied = trusted.Item("ex06_6_test", cellcode.python_source(
        "from labsupport.exercises import slo_pick\npick_max_seqs = slo_pick.pick\n"
        "check_ex06_6(pick_max_seqs)\n"), test)
    assert trusted.run_items([honest], timeout_s=60)["ex06_6_test"][0] == "pass"
    assert trusted.run_items([copied], timeout_s=60)["ex06_6_test"][0] == "reference"
