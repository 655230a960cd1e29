"""Warm starts (``labgrader.warm``): kernels forked from one job slot's template are as
isolated as cold ones, and nothing one submission leaves reaches the next; judges forked
from the slot's other template grade as cold ones do.

Real template process, real sandbox (namespaces), real ipykernel driven by nbclient.
"""
import json
import sys

import nbformat
import pytest
from nbclient import NotebookClient

import adapters
import hostile_cases

from labgrader import warm
from labgrader.box import Limits
from labgrader.kernel import BoxedKernelManager
from labgrader.sandbox import Sandbox, namespaces_available

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not namespaces_available()[0], reason=namespaces_available()[1] or "no namespaces")]

PROBE = """
import json, os, resource, sys, threading
import labsupport, numpy
print(json.dumps({
    "module_attr": hasattr(labsupport, "LEFT_BY_ANN") or hasattr(numpy, "LEFT_BY_ANN"),
    "home_file": os.path.exists(os.path.expanduser("~/ann.txt")),
    "cwd_file": os.path.exists("ann_cwd.txt"),
    "tmp_file": os.path.exists("/tmp/ann_tmp.txt"),
    "thread": any(t.name == "ann-left-this" for t in threading.enumerate()),
    "env": os.environ.get("ANN_WAS_HERE"),
    "preloaded": "torch" in sys.modules,
    "uid": os.getuid(), "pid": os.getpid(),
    "fsize": resource.getrlimit(resource.RLIMIT_FSIZE)[0],
    "autograde": os.environ.get("LAB_AUTOGRADE"),
    "no_debugger": "debugpy" in sys.modules and sys.modules["debugpy"] is None,
    "xmode": get_ipython().InteractiveTB.mode,
}))
"""
PRELOADED = "import sys; print('torch' in sys.modules)"
LEAVE = """
import os, threading, time
import labsupport, numpy
labsupport.LEFT_BY_ANN = numpy.LEFT_BY_ANN = 1
os.environ["ANN_WAS_HERE"] = "1"
for path in ("~/ann.txt", "ann_cwd.txt", "/tmp/ann_tmp.txt"):
    with open(os.path.expanduser(path), "w") as f:
        f.write("ann")
threading.Thread(target=time.sleep, args=(600,), name="ann-left-this", daemon=True).start()
"""


def _run(template, sources: list[str], tmp_path, slot=0) -> list[dict]:
    """Run ``sources`` as one notebook in a fresh warm-started box; each probe's JSON."""
    sandbox = Sandbox(warm=template.socket, slot=slot)
    box = sandbox.open(tmp_path)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    km = BoxedKernelManager(box=box)
    try:
        NotebookClient(nb, km=km, timeout=60, kernel_name="python3").execute(
            env={"LAB_AUTOGRADE": "1", "PATH": "/usr/bin:/bin"})
    finally:
        box.close()
    return [json.loads(o["text"]) for c in nb.cells for o in c.outputs
            if o.get("name") == "stdout" and o["text"].startswith("{")]


@pytest.fixture(scope="module")
def template():
    t = warm.Template(threads=1)
    try:
        t.wait_ready()
        yield t
    finally:
        t.close()


def test_one_submissions_state_never_reaches_the_next(template, tmp_path):
    (ann,) = _run(template, [LEAVE, PROBE], tmp_path)
    # the probe sees what ann left in her own kernel (so it would see a leak) ...
    assert ann["module_attr"] and ann["home_file"] and ann["cwd_file"] and ann["tmp_file"]
    assert ann["thread"] and ann["env"] == "1"
    (bob,) = _run(template, [PROBE], tmp_path)
    # ... and none of it in the next kernel forked from the same template
    assert not any(bob[k] for k in ("module_attr", "home_file", "cwd_file", "tmp_file", "thread"))
    assert bob["env"] is None
    for got in (ann, bob):
        assert got["preloaded"]  # a fork of the template: torch came imported
        assert got["uid"] == Sandbox().uid_base and got["pid"] == 1  # grading uid, own PID ns
        assert got["fsize"] == Limits.file_mib << 20 and got["autograde"] == "1"
        assert got["no_debugger"] and got["xmode"] == "Plain"  # no debugpy, plain tracebacks


def test_each_job_slot_keeps_its_own_uid(template, tmp_path):
    (got,) = _run(template, [PROBE], tmp_path, slot=1)
    assert got["uid"] == Sandbox().uid_base + 1 and got["preloaded"]


def test_only_the_kernel_starts_warm_from_the_kernels_template(template, tmp_path):
    box = Sandbox(warm=template.socket).open(tmp_path)
    try:  # any other command: a new Python
        for argv in ([sys.executable, "-c", PRELOADED], [sys.executable, "-P", "-m", "timeit",
                                                          "-n", "1", "-s", PRELOADED, "pass"]):
            rc, out, _ = box.run(argv, "", 60)
            assert rc == 0 and out.startswith("False"), out
    finally:
        box.close()
    kernel = [sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"]
    judge = [sys.executable, "-P", "-m", "labgrader.trusted"]
    assert warm.module_of(kernel, "kernel") and not warm.module_of(judge, "kernel")
    assert warm.module_of(judge, "judge") and not warm.module_of(kernel, "judge")
    with pytest.raises(ValueError, match="kind must be one of"):
        warm.Template(kind="notebook")


@pytest.fixture(scope="module")
def judges():
    t = warm.Template(threads=1, kind="judge")
    try:
        t.wait_ready()
        yield t
    finally:
        t.close()


def _item(target: str, source: str):
    from labgrader import cellcode, trusted
    return trusted.Item(f"{target}_test", cellcode.python_source(source),
                        f"check_{target}({adapters.target_name(target)})\n"
                        f"check_{target}({adapters.target_name(target)}, hidden=True)\n")


def test_a_warm_judge_grades_as_a_cold_one(judges, tmp_path):
    """The trusted pass forked from the judges' template, in its own box under the judge
    uid: the honest answer passes, a fork is stopped by the system, a wrong answer fails;
    the run's memo goes in and what it built comes back; a kernel never starts there."""
    from labgrader import trusted
    case = hostile_cases.case(hostile_cases.HOSTILE / "proc_fork_devnull.py")
    items = [_item("ex06_6", adapters.cell("ex06_6").source), _item(case.target, case.source),
             _item("ex03_2", "def pad_batch(*a, **k):\n    return None\n")]
    sandbox = Sandbox(warm_judge=judges.socket)
    got, memo = [], {}
    for item in items:  # one box per notebook, as the pipeline does
        box = sandbox.open(tmp_path, judge=True)
        try:
            got.append(trusted.run_items([item], timeout_s=30, run=box.run,
                                         memo=memo)[item.grade_id][0])
        finally:
            box.close()
    assert got == ["pass", "tampered", "fail"], got
    assert any(k.startswith("ex06_6/") for k in memo), sorted(memo)  # built, handed back
    box = sandbox.open(tmp_path, judge=True)
    try:  # the judges' template runs the judge and nothing else
        rc, _, err = box.run([sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"], "", 30)
        assert rc != 0 and "labgrader.trusted" in err, err
    finally:
        box.close()



def test_the_grading_kernel_client_is_the_boxed_one():
    """The kernel manager hands out ``BoxedKernelClient`` (bounded ZMQ buffers, a quicker
    start): AsyncKernelManager's own factory default would ignore ``client_class``."""
    import zmq
    from labgrader.kernel import MAX_MESSAGE, QUEUE, BoxedKernelClient
    kc = BoxedKernelManager().client()
    assert type(kc) is BoxedKernelClient
    assert kc.context.getsockopt(zmq.MAXMSGSIZE) == MAX_MESSAGE
    assert kc.context.getsockopt(zmq.RCVHWM) == QUEUE


def test_a_warm_command_may_be_polled_from_several_threads(judges, tmp_path):
    """The box's watchdog and the kernel's manager both poll a warm command: whichever reads
    its exit status first, the others get the same code, never an error on the closed line."""
    import subprocess
    import threading
    box = Sandbox(warm_judge=judges.socket).open(tmp_path, judge=True)
    try:
        proc = box.launch(box.command([sys.executable, "-P", "-m", "labgrader.trusted"]),
                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
        got, errors = [], []

        def poll_until_done():
            try:
                while proc.poll() is None:
                    pass
                got.append(proc.wait(5))
            except Exception as exc:  # noqa: BLE001 - the test reports it
                errors.append(exc)
        threads = [threading.Thread(target=poll_until_done) for _ in range(8)]
        for t in threads:
            t.start()
        proc.stdin.close()  # the judge reads an empty job and ends
        for t in threads:
            t.join(30)
        assert not errors and len(got) == 8 and len(set(got)) == 1, (errors, got)
    finally:
        box.close()
