"""The grading sandbox, without nbgrader: a box runs a command isolated, limited and watched.

Namespaces mode (needs root; skipped without it): the course, the repo's private folders
and the grader's processes are invisible, the package is read-only, the uid is not the
grader's, only loopback exists, memory and processes are capped for the whole box, and
everything the command started dies with it. Plain mode: the watchdog kills a stopped or
late command, what it left running is killed, and the seal sees a changed package.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from labgrader import seal
from labgrader.box import Limits
from labgrader.sandbox import SYSTEM, Sandbox, hidden_paths, namespaces_available

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
UID_BASE = Sandbox().uid_base + 90  # within this test worker's uids, apart from its graders'
needs_ns = pytest.mark.skipif(not namespaces_available()[0],
                              reason=f"namespaces mode: {namespaces_available()[1]}")


def _box(mode, tmp_path, **limits):
    course = tmp_path / "course"
    (course / "autograde").mkdir(parents=True, exist_ok=True)
    (course / "autograde" / "gradebook.db").write_text("grades")
    return Sandbox(mode=mode, uid_base=UID_BASE, **limits).open(course)


def _py(box, code, stdin="", timeout=60, env=None):
    return box.run([PY, "-c", code], stdin, timeout, env=env)


PROBE = """
import json, os, socket, sys
out = {"uid": os.getuid(), "cwd": os.getcwd(), "home": os.environ["HOME"],
       "secret": os.environ.get("GRADER_SECRET"), "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}
def tries(path, mode="r"):
    try:
        open(path, mode).close()
        return "ok"
    except OSError as e:
        return type(e).__name__
out["gradebook"] = tries(sys.argv[1] if len(sys.argv) > 1 else %(db)r)
out["solutions"] = os.path.exists(%(solutions)r)
out["package_write"] = tries(%(package)r + "/planted.py", "w")
out["scratch_write"] = tries(os.path.join(os.getcwd(), "x"), "w")
out["stdin"] = sys.stdin.read()
s = socket.socket(); s.bind(("127.0.0.1", 0)); out["loopback"] = True
out["interfaces"] = sorted(n for _, n in socket.if_nameindex())
import labsupport; out["package"] = labsupport.__file__
print(json.dumps(out))
"""


@needs_ns
def test_namespaces_box_hides_the_course_and_the_grader(tmp_path):
    box = _box("namespaces", tmp_path)
    code = PROBE % {"db": str(tmp_path / "course" / "autograde" / "gradebook.db"),
                    "solutions": str(ROOT / "solutions"), "package": str(ROOT / "labsupport")}
    os.environ["GRADER_SECRET"] = "s3cret"
    try:
        rc, out, err = _py(box, code, stdin="hello")
    finally:
        del os.environ["GRADER_SECRET"]
        box.close()
    assert rc == 0, err
    got = json.loads(out)
    assert got["uid"] not in (0, os.getuid()) and got["cwd"] == got["home"] == box.scratch
    assert got["secret"] is None  # the grader's environment is not passed on
    assert got["gradebook"] == "FileNotFoundError" and not got["solutions"]
    assert got["package_write"] in ("OSError", "PermissionError")  # read-only mount
    assert got["scratch_write"] == "ok" and got["stdin"] == "hello"
    assert got["pids"] == [1]  # its own PID namespace: the grader is not there
    assert got["loopback"] and got["interfaces"] == ["lo"]
    assert got["package"].startswith(str(Path(__import__("labsupport").__file__).parent))


KEYS = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, KEYCTL, KEYCTL_SEARCH, USER = 248, 250, 10, -4
if sys.argv[1] == "leave":
    key = libc.syscall(ADD_KEY, b"user", b"lab-note", b"answers of the last box", 23, USER)
    print(key if key > 0 else f"error {ctypes.get_errno()}")
else:
    print(libc.syscall(KEYCTL, KEYCTL_SEARCH, USER, b"user", b"lab-note", 0))
"""


@needs_ns
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the probe's system call numbers")
def test_a_key_left_in_the_uids_keyring_is_gone_in_the_next_box(tmp_path):
    """The kernel's keyrings outlive a uid's processes (redteam9): one box of a slot leaves a
    key in the uid's user keyring; the next box of that slot finds none (``jail.fresh_keyrings``)."""
    found = []
    for step in ("leave", "find"):
        box = _box("namespaces", tmp_path)
        try:
            rc, out, err = box.run([PY, "-c", KEYS, step], "", 60)
        finally:
            box.close()
        assert rc == 0, err
        found.append(int(out.split()[-1]) if out.split()[-1].lstrip("-").isdigit() else out)
    assert isinstance(found[0], int) and found[0] > 0, found  # the key was made
    assert found[1] == -1, found  # not there any more


def test_box_covers_every_top_folder_but_the_system_ones(tmp_path):
    """A copy of the key outside the course (another clone of the lab, another course under
    /work or /data) is out of reach: the box shows only the system folders of ``/`` and what
    grading needs, bound back."""
    hidden = set(hidden_paths(tmp_path / "course", []))
    tops = {str(p) for p in Path("/").iterdir() if p.is_dir() and not p.is_symlink()}
    assert tops - SYSTEM <= hidden, sorted(tops - SYSTEM - hidden)
    assert not hidden & SYSTEM


@needs_ns
def test_namespaces_box_kills_everything_it_started(tmp_path):
    box = _box("namespaces", tmp_path)
    code = ("import subprocess\n"
            "for _ in range(5):\n"
            "    subprocess.Popen(['sleep', '600'], start_new_session=True)\n"
            "print('left them')\n")
    rc, out, _ = _py(box, code)
    box.close()
    assert rc == 0 and "left them" in out
    assert not _sleepers(), "a process the box started outlived it"


def _sleepers() -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        try:
            if p.name.isdigit() and (p / "cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", b"600"]:
                out.append(int(p.name))
        except OSError:
            pass
    return out


@needs_ns
def test_namespaces_box_caps_memory_and_processes(tmp_path):
    box = _box("namespaces", tmp_path, memory_mib=256, processes=64)
    if box.group is None:
        box.close()
        pytest.skip("no cgroup can be made here: rlimits only")
    rc_mem, _, _ = _py(box, "x = b'x' * (600 << 20)\nprint('allocated')")
    rc_fork, out, _ = _py(box, "import os, time\nn = 0\ntry:\n    for _ in range(400):\n"
                              "        if os.fork() == 0:\n            time.sleep(20); os._exit(0)\n"
                              "        n += 1\nexcept OSError as e:\n    print('fork failed after', n, type(e).__name__)")
    events = box.close()
    assert rc_mem != 0
    assert rc_fork == 0 and "fork failed after" in out, out
    assert any(e.startswith("memory limit (256 MiB)") for e in events), events
    assert any(e.startswith("process limit (64)") for e in events), events


CPU_HOG = """
import os, resource, time
end = time.monotonic() + 1.5
pids = []
for _ in range(3):  # three busy processes for 1.5 s of wall time
    pid = os.fork()
    if pid == 0:
        while time.monotonic() < end:
            pass
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.waitpid(pid, 0)
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(use.ru_utime + use.ru_stime)
"""


@needs_ns
def test_namespaces_box_holds_a_cpu_flood_to_its_quota(tmp_path):
    """A box of ``cpus=0.5`` whose command keeps three processes busy for 1.5 s gets at
    most half a core of it (unbounded: up to every core of the machine)."""
    box = _box("namespaces", tmp_path, cpus=0.5)
    cpu = (box.group.dirs.get("cpu") or box.group.dirs.get("v2")) if box.group else None
    if cpu is None or not any((cpu / f).exists() for f in ("cpu.cfs_quota_us", "cpu.max")):
        box.close()
        pytest.skip("no CPU controller here")
    quota = (cpu / "cpu.cfs_quota_us").read_text().split() if (cpu / "cpu.cfs_quota_us").exists() \
        else (cpu / "cpu.max").read_text().split()[:1]
    rc, out, err = _py(box, CPU_HOG)
    box.close()
    assert quota == ["50000"]  # half of the 100 ms period
    assert rc == 0, err[-1000:]
    assert float(out.split()[-1]) <= 1.5 * 0.5 + 0.3, out  # 0.75 s, and a period's slack


def test_limits_name_the_cpu_setting():
    with pytest.raises(ValueError, match="Sandbox.cpus must be > 0"):
        Sandbox(cpus=0).limits()


@pytest.mark.parametrize("mode", ["plain", pytest.param("namespaces", marks=needs_ns)])
def test_watchdog_ends_a_late_or_stopped_command(mode, tmp_path):
    box = _box(mode, tmp_path)
    t0 = time.monotonic()
    rc, _, _ = box.run([PY, "-c", "import time; time.sleep(600)"], "", 1.5, what="the probe")
    assert rc != 0 and time.monotonic() - t0 < 30
    assert box.events == ["the probe timed out after 1.5 s: killed"]
    box.close()
    # a stopped command (stopped from outside: inside the namespaces, PID 1 ignores SIGSTOP)
    box = _box(mode, tmp_path)
    proc = subprocess.Popen(box.command([PY, "-c", "import time; time.sleep(600)"]),
                            start_new_session=True)
    box.watch(proc, what="the notebook")
    deadline = time.monotonic() + 20
    while not (kids := _children(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(kids[0], signal.SIGSTOP)
    assert proc.wait(30) != 0
    assert box.close() == ["stopped (SIGSTOP) in the notebook: killed"]


def _children(pid):
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def test_plain_box_kills_what_it_left_and_limits_files(tmp_path):
    box = _box("plain", tmp_path, file_mib=8)
    rc, out, _ = _py(box, "import subprocess, os\n"
                          "subprocess.Popen(['sleep', '600'], start_new_session=True)\n"
                          "try:\n    open('big', 'wb').write(b'x' * (20 << 20))\n"
                          "except OSError as e:\n    print(e.strerror)")
    assert rc == 0 and "File too large" in out, out
    box.close()
    assert not _sleepers()


def test_output_limit_kills_the_box(tmp_path):
    box = _box("plain", tmp_path, output_mib=1)
    proc = subprocess.Popen(box.command([PY, "-c", "import time; time.sleep(600)"]),
                            start_new_session=True)
    box.watch(proc)
    assert box.count_output(600 << 10) and not box.count_output(600 << 10)
    assert proc.wait(30) != 0
    assert box.close() == ["output limit (1 MiB of outputs): killed"]


def test_limits_name_the_bad_setting():
    with pytest.raises(ValueError, match=r"Sandbox.memory_mib must be > 0 \(got 0\)"):
        Limits(memory_mib=0)
    with pytest.raises(Exception, match="mode"):
        Sandbox(mode="chroot")


def test_seal_sees_a_changed_or_planted_file(tmp_path):
    pkg = tmp_path / "labsupport"
    shutil.copytree(ROOT / "labsupport", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    sealed = seal.Seal(tmp_path, package=pkg)
    assert sealed.changes() == []
    sealed.check("nobody")  # unchanged: no error
    (pkg / "exercises" / "guard.py").write_text("# always pass\n")
    (pkg / "planted.py").write_text("print('hi')\n")
    assert sealed.changes() == sorted([str(pkg / "exercises" / "guard.py"), str(pkg / "planted.py")])
    with pytest.raises(seal.SealBroken, match="grading stopped: 2 file"):
        sealed.check("mallory/01")
