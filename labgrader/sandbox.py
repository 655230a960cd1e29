"""Every submission's code runs in a sandbox: student code never runs with the trainer's rights.

``Sandbox`` (nbgrader config, ``c.Sandbox.…``) holds the settings; ``Sandbox.open()``
gives a ``Box``: one notebook's sandbox. Every command started through a box (the
grading kernel, ``labgrader.kernel``; the trusted pass, ``Box.run``) goes through
``jail.py``:

- **namespaces** (as root; the hub, CI, most containers): new PID, mount and network
  namespaces and a grading uid of its own per parallel job (``uid_base + slot``; its
  notebooks' judges, running beside their kernels, ``uid_base + JUDGE_UIDS + slot``: what a
  uid shares, such as its count of processes, is no signal between the two). The
  course, the home folders, ``/tmp`` and every top-level folder but the system ones are
  covered; the
  Python prefixes, the lab package and its data are bound back read-only; the rest of the
  file system is read-only; the only writable place is a size-limited ``/tmp``. A cgroup
  (when one can be made) caps memory and processes of the whole box.
- **plain** (no root: a trainer's laptop): the command runs in its own session, with
  rlimits, in a scratch folder; what it leaves running is killed. It runs as the trainer
  and can read the course: ``WARNING`` says so, and the package's seal is checked around
  every notebook (``labgrader.seal``).

The grader's watchdog (one thread per box) kills a box that passes its wall-clock limit
or whose process stops (SIGSTOP), and every limit hit is written down in ``Box.events``
("timed out after 900 s", "memory limit (4096 MiB)", …), which the pipeline hands to the
gradebook. Only the grader reads results, as messages (the kernel) or JSON (the trusted
pass); it never imports or runs a file the box wrote.
"""
from __future__ import annotations

import os
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from traitlets import Enum, Float, Integer, List, Unicode, default
from traitlets.config import Configurable

from .box import Box, Limits

PRIVATE = ("/home", "/root", "/srv", "/opt", "/mnt", "/media", "/run", "/var/tmp")
SYSTEM = {"/", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/var",
          "/proc", "/sys", "/dev", "/boot", "/nix", "/snap"}
WARNING = ("WARNING: grading without root, so student code runs as you, can read the course "
           "(solutions, gradebook, other submissions) and can reach your processes. Rlimits, a "
           "scratch folder, a kill of everything it leaves and the package seal are on; for full "
           "isolation (own user, namespaces) grade as root, e.g. in a container or on the hub.")


UID_BASE_ENV = "LAB_GRADING_UID_BASE"  # where a second grader on this machine gets its uids
JUDGE_UIDS = 100  # the judges' uids start this far above the kernels' (job slots: fewer)


class Sandbox(Configurable):
    """Settings of the grading sandbox (``c.Sandbox.…`` in the course's nbgrader config)."""

    mode = Enum(["auto", "namespaces", "plain", "off"], "auto",
                help="auto: namespaces as root, else plain (with a warning); off: no sandbox "
                "(student code runs as you; for comparison only)").tag(config=True)
    uid_base = Integer(help="grading uid of job slot 0's kernels (slot k: uid_base + k; its "
                       "judges: uid_base + 100 + k); an unused uid range, so no file is theirs. "
                       "Default: $LAB_GRADING_UID_BASE, else 65100 (two graders on one machine: "
                       "give each its own range)").tag(config=True)
    slot = Integer(0, help="this grader's job slot (set by --jobs)").tag(config=True)
    warm = Unicode("", help="the socket of this job slot's kernels' warm template "
                   "(labgrader.warm; set by --jobs): its kernels start as its forks").tag(config=True)
    warm_judge = Unicode("", help="the socket of this job slot's judges' warm template: its "
                         "trusted passes start as its forks").tag(config=True)
    readable = List(Unicode(), help="more paths the student's code may read").tag(config=True)
    hidden = List(Unicode(), help="more paths the student's code may not see").tag(config=True)
    memory_mib = Integer(Limits.memory_mib).tag(config=True)
    processes = Integer(Limits.processes).tag(config=True)
    file_mib = Integer(Limits.file_mib).tag(config=True)
    scratch_mib = Integer(Limits.scratch_mib).tag(config=True)
    cpu_s = Integer(Limits.cpu_s).tag(config=True)
    notebook_s = Integer(int(Limits.notebook_s)).tag(config=True)
    output_mib = Integer(Limits.output_mib).tag(config=True)
    cpus = Float(Limits.cpus, help="cores one box may use (a cgroup's CPU quota, where the "
                 "grader can make one; default: all but one)").tag(config=True)

    @default("uid_base")
    def _uid_base(self) -> int:
        return int(os.environ.get(UID_BASE_ENV, "65100"))

    def limits(self) -> Limits:
        return Limits(self.memory_mib, self.processes, self.file_mib, self.scratch_mib,
                      self.cpu_s, float(self.notebook_s), self.output_mib, float(self.cpus))

    def resolved_mode(self) -> str:
        """'namespaces', 'plain' or 'off' ('off' off Linux). An explicit 'namespaces' is
        trusted as root (the drivers probe it once with ``namespaces_available``); 'auto'
        probes here."""
        if not sys.platform.startswith("linux"):  # the jail needs /proc, prctl, namespaces
            if self.mode == "namespaces":
                raise RuntimeError(f"Sandbox.mode='namespaces' needs Linux (this is {sys.platform})")
            return "off"
        if self.mode in ("plain", "off"):
            return self.mode
        if self.mode == "namespaces":
            if os.geteuid() != 0:
                raise RuntimeError("Sandbox.mode='namespaces' needs root (the grader is not)")
            return "namespaces"
        return "namespaces" if namespaces_available()[0] else "plain"

    def open(self, course_root: Path | str, judge: bool = False,
             views: dict[str, str] | None = None) -> Box | None:
        """A fresh box for one notebook (``None`` when the sandbox is off); ``judge``: for
        its trusted pass, under the slot's judge uid; ``views``: folder inside -> host
        folder shown there instead (namespaces mode only: the kernel's package view)."""
        mode = self.resolved_mode()
        if mode == "off":
            return None
        root = Path(course_root)
        warm = (self.warm_judge if judge else self.warm) or None
        if mode == "plain":
            return Box(self.limits(), mode, uid=os.getuid(), warm=warm)
        return Box(self.limits(), mode,
                   uid=self.uid_base + self.slot + (JUDGE_UIDS if judge else 0),
                   hide=hidden_paths(root, list(self.hidden)),
                   readable=readable_paths(root, list(self.readable)), warm=warm, views=views)


@lru_cache(maxsize=1)
def namespaces_available() -> tuple[bool, str]:
    """Whether this process can start a box in namespaces mode (root, and the kernel lets it)."""
    if os.geteuid() != 0:
        return False, "the grader is not root"
    tmp = Path(tempfile.gettempdir())
    box = Box(Limits(), "namespaces", uid=65534, hide=hidden_paths(tmp, []),
              readable=readable_paths(tmp, []))
    try:
        rc, _, err = box.run(["/bin/true"], "", 30)
    finally:
        box.close()
    return (rc == 0, "" if rc == 0 else f"namespaces do not work here: {err.strip()[-300:]}")


def _other_top_folders() -> set[str]:
    """Top-level folders of ``/`` that are not system folders (links to one excluded)."""
    out = set()
    for p in Path("/").iterdir():
        try:
            if p.is_dir() and not p.is_symlink() and str(p) not in SYSTEM:
                out.add(str(p))
        except OSError:
            continue
    return out


def _top(path: Path) -> str:
    parts = path.resolve().parts
    return "/" + parts[1] if len(parts) > 1 else "/"


def hidden_paths(course_root: Path, extra: list[str]) -> list[str]:
    """What boxed code may not see: the usual private folders, the course, the repo, the
    top-level folders holding them (unless they are system folders), and every other
    top-level folder that is not a system one: a copy of the key elsewhere on the machine
    (another clone of the lab, another course) stays out of reach."""
    from labsupport.paths import REPO
    out = set(PRIVATE) | {str(p) for p in extra} | _other_top_folders()
    for p in (course_root.resolve(), REPO.resolve(), Path(tempfile.gettempdir()).resolve()):
        out.add(str(p))
        if _top(p) not in SYSTEM:
            out.add(_top(p))
    return sorted(out)


def readable_paths(course_root: Path, extra: list[str]) -> list[str]:
    """What boxed code may read, bound back read-only: the Python prefixes, the packages on
    ``sys.path`` (never the repo, the course, or a folder holding either), the lab package,
    the grader (the trusted pass runs in a box) and the lab's data."""
    import labsupport
    from labsupport.paths import DATA, REPO, SHARED_DATA
    out = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
           str(Path(labsupport.__file__).resolve().parent), str(Path(__file__).resolve().parent),
           str(DATA), str(SHARED_DATA)}
    private = [REPO.resolve(), course_root.resolve()]
    for entry in sys.path:
        p = Path(entry or ".").resolve()
        if p.exists() and not any(p.is_relative_to(q) or q.is_relative_to(p) for q in private):
            out.add(str(p))
    out |= set(extra)
    return sorted(str(Path(p).resolve()) for p in out if Path(p).exists())


