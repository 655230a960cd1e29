"""One notebook's sandbox (``Box``): the commands it starts, the watchdog over them, and
its end. Made by ``sandbox.Sandbox.open`` with the settings and the paths; every command
goes through ``jail.py``.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from . import cgroups

JAIL = Path(__file__).with_name("jail.py")
INSIDE_SCRATCH = "/tmp/grading"  # the scratch folder (HOME, cwd) as boxed code sees it
MARKER = "LAB_SANDBOX_BOX"  # environment variable naming the box a process belongs to
ENV_KEEP = ["PATH", "PYTHONPATH", "LANG", "LANGUAGE", "TZ", "TERM", "MPLBACKEND",
            "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TOKENIZERS_PARALLELISM",
            "HF_HUB_OFFLINE", "HF_HUB_DISABLE_PROGRESS_BARS", "TRANSFORMERS_OFFLINE",
            "LAB_AUTOGRADE", "LAB_DEVICE", "LAB_TRACE", "LAB_SHARED_DATA",
            "LC_"]  # a trailing _ keeps the prefix; never the grader's tokens, key (LAB_KEYS_DIR) or seed


def _stat(pid: int) -> list[str]:
    """Fields of /proc/<pid>/stat after the command name: [state, ppid, …]."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()
    except OSError:
        return []


def _ident(pid: int) -> tuple[int, str]:
    """(pid, start time): names one process even after its pid is reused."""
    fields = _stat(pid)
    return pid, fields[19] if len(fields) > 19 else ""


def _children(pid: int) -> list[int]:
    out = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(p) for p in f.read().split()]
    return out


def _kill(ident: tuple[int, str]) -> None:
    """SIGKILL the process ``ident`` names, if it is still that process."""
    if ident[1] and _ident(ident[0]) == ident:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(ident[0], signal.SIGKILL)


@dataclass(frozen=True)
class Limits:
    """What one notebook may use (per box; rlimits per process where no cgroup exists)."""
    memory_mib: int = 4096      # the heaviest notebook (06: torch and a small decoder) stays under 2 GiB
    processes: int = 512        # processes and threads; torch starts a thread per core
    file_mib: int = 256         # the largest file a notebook may write
    scratch_mib: int = 512      # the writable /tmp (tmpfs: RAM) in namespaces mode
    cpu_s: int = 1800           # per process; the wall-clock limit stops a notebook first
    notebook_s: float = 900.0   # one notebook, all cells; Execute.timeout (60 s) stops a loop first
    output_mib: int = 32        # what the grader keeps from one notebook's outputs
    cpus: float = float(max(1, (os.cpu_count() or 2) - 1))  # cores one box may use (a cgroup's
    #   quota): a notebook's CPU flood always leaves a core to the other jobs' boxes

    def __post_init__(self):
        for name, value in asdict(self).items():
            if not value > 0:
                raise ValueError(f"Sandbox.{name} must be > 0 (got {value!r})")


class Box:
    """One notebook's sandbox: every command started through it is isolated, watched and,
    at ``close()``, killed with everything it started."""

    STOPPED_GRACE_S = 1.0  # a process seen stopped this long is killed

    def __init__(self, limits: Limits, mode: str, uid: int, hide: list[str] | None = None,
                 readable: list[str] | None = None, warm: str | None = None,
                 views: dict[str, str] | None = None):
        """``hide``/``readable``: what boxed code may not see / may read (namespaces mode;
        ``sandbox.hidden_paths`` and ``readable_paths``); ``uid``: the grading user;
        ``warm``: the socket of the job slot's warm template (``warm``), if any; ``views``:
        folder inside -> host folder shown there instead (namespaces mode: a grading
        kernel's package view, ``labgrader.view``)."""
        self.limits, self.mode, self.warm = limits, mode, warm
        self._argv: dict[str, list[str]] = {}  # spec file -> the command it starts
        self.ns = mode == "namespaces"
        self.dir = Path(tempfile.mkdtemp(prefix="labsupport-box-"))  # the grader's only
        if self.ns:
            self.uid = self.gid = uid
            self.scratch = INSIDE_SCRATCH
            self.group = cgroups.create(limits.memory_mib << 20, limits.processes, limits.cpus)
            self.hide, self.readable = hide or [], readable or []
            self.views = dict(views or {})
        else:
            self.uid, self.gid, self.group = os.getuid(), os.getgid(), None
            self.scratch = str(self.dir / "scratch")
            os.mkdir(self.scratch, 0o700)
        self.marker = f"{MARKER}={self.dir.name}"  # in the environment of all it starts
        self.events: list[str] = []
        self.output_bytes = 0
        self._watched: list[tuple[subprocess.Popen, float | None, str, float]] = []
        self._commands: set[tuple[int, str]] = set()  # the jails' children, seen alive
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._specs = 0
        self._thread: threading.Thread | None = None

    # -- starting commands ------------------------------------------------------------
    def command(self, argv: list[str], files: dict[str, str] | None = None,
                env: dict[str, str] | None = None) -> list[str]:
        """The argv that starts ``argv`` in this box (``files``: path inside -> host file)."""
        lim = self.limits
        mem = lim.memory_mib << 20
        rl = {"NPROC": lim.processes + 64 if self.group else lim.processes,  # the cgroup first
              "FSIZE": lim.file_mib << 20, "CPU": lim.cpu_s, "CORE": 0, "NOFILE": 4096,
              "AS": mem * 4 if self.group else mem}
        if not self.ns:  # the trainer's own uid: other processes of theirs count too
            rl["NPROC"] = None
        home = self.scratch
        spec = {"mode": "ns" if self.ns else "plain", "argv": argv, "cwd": home,
                "env_keep": ENV_KEEP, "rlimits": rl,
                "env_set": {"HOME": home, "TMPDIR": "/tmp" if self.ns else home,
                            "MPLCONFIGDIR": f"{home}/.matplotlib", "XDG_CACHE_HOME": f"{home}/.cache",
                            "IPYTHONDIR": f"{home}/.ipython", "JUPYTER_RUNTIME_DIR": f"{home}/.jupyter",
                            "PYTHONDONTWRITEBYTECODE": "1", MARKER: self.dir.name, **(env or {})},
                "cgroups": self.group.procs_files if self.group else []}
        files = {**_font_cache(f"{home}/.matplotlib"), **(files or {})}
        if self.ns:
            spec.update(uid=self.uid, gid=self.gid, hide=self.hide, readable=self.readable,
                        views=self.views, scratch=home, files=files,
                        writable={"/tmp": lim.scratch_mib << 20, "/dev/shm": 64 << 20})
        else:
            for inside, host in files.items():
                Path(inside).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(host, inside)
        self._specs += 1
        path = self.dir / f"spec{self._specs}.json"
        path.write_text(json.dumps(spec))
        self._argv[str(path)] = argv
        return [sys.executable, "-I", "-S", str(JAIL), str(path)]

    def launch(self, cmd: list[str], **streams):
        """Start ``cmd`` (made by ``command``) in its own session: a fork of the warm template
        when the box has one and the command is what it runs (``warm.module_of``: the
        kernel, or the judge; a stream not a pipe is /dev/null), else a new process.
        ``streams``: ``stdin``/``stdout``/``stderr``/``env`` as for ``Popen``."""
        from . import warm
        from .jail import kept
        if self.warm and warm.module_of(self._argv.get(cmd[-1], [])):
            env = kept(streams.pop("env", None) or os.environ, ENV_KEEP)  # what the jail keeps
            return warm.WarmProcess(self.warm, cmd[-1], env, **streams)
        return subprocess.Popen(cmd, start_new_session=True, cwd=self.dir, **streams)

    def outside(self, inside: str, proc: subprocess.Popen) -> str:
        """Where the grader finds a path of the box (through the box's mount namespace)."""
        return f"/proc/{proc.pid}/root{inside}" if self.ns else inside

    def watch(self, proc, timeout_s: float | None = None,
              what: str = "the notebook") -> None:
        """Kill ``proc`` (a jail started in its own session) and its box when it stops or
        runs past ``timeout_s``; every box also ends at the notebook's limit."""
        with self._lock:
            self._watched.append((proc, timeout_s, what, time.monotonic()))
            self._commands.update(_ident(p) for p in _children(proc.pid))
        if self._thread is None:
            self._born = time.monotonic()
            self._thread = threading.Thread(target=self._watchdog, daemon=True,
                                            name="labsupport-box-watchdog")
            self._thread.start()

    def run(self, argv: list[str], stdin: str, timeout_s: float,
            env: dict[str, str] | None = None, what: str = "the run",
            max_bytes: int = 8 << 20) -> tuple[int, str, str]:
        """Run ``argv`` in the box to the end: (exit code, stdout, stderr), each stream cut
        at ``max_bytes``; a run killed for time or a stop has its reason in ``events``."""
        proc = self.launch(self.command(argv, env=env), stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.watch(proc, timeout_s, what)
        got: dict[str, str] = {}

        def drain(name: str, stream) -> None:
            buf = bytearray()
            for chunk in iter(lambda: stream.read(1 << 16), b""):
                buf += chunk[:max(0, max_bytes - len(buf))]
            got[name] = buf.decode(errors="replace")
        readers = [threading.Thread(target=drain, args=(n, s), daemon=True)
                   for n, s in (("out", proc.stdout), ("err", proc.stderr))]
        for t in readers:
            t.start()
        with contextlib.suppress(BrokenPipeError, OSError):
            proc.stdin.write(stdin.encode())
            proc.stdin.close()
        proc.wait()
        for t in readers:
            t.join(5)
        self._reap(proc)
        return proc.returncode, got.get("out", ""), got.get("err", "")

    # -- the watchdog and the end -----------------------------------------------------
    def note(self, event: str) -> None:
        with self._lock:
            if event not in self.events:
                self.events.append(event)

    def count_output(self, nbytes: int) -> bool:
        """Add one output's size; False (and the box killed) past the output limit."""
        self.output_bytes += nbytes
        if self.output_bytes > self.limits.output_mib << 20:
            self.kill(f"output limit ({self.limits.output_mib} MiB of outputs): killed")
            return False
        return True

    def kill(self, why: str | None = None) -> None:
        """Kill every command of the box and everything they started."""
        if why:
            self.note(why)
        with self._lock:
            procs = [w[0] for w in self._watched]
        for proc in procs:
            if proc.poll() is None:  # not reaped: its pid and process group are still its own
                self._commands.update(_ident(p) for p in _children(proc.pid))
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.kill()
        for ident in list(self._commands):  # a command that left the jail's process group
            _kill(ident)

    def _reap(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._watched = [w for w in self._watched if w[0] is not proc]

    def _watchdog(self) -> None:
        stopped_since: dict[int, float] = {}
        while not self._closed.wait(0.2):
            now = time.monotonic()
            with self._lock:
                watched = [w for w in self._watched if w[0].poll() is None]
            if watched and now - self._born > self.limits.notebook_s:
                self.kill(f"timed out after {self.limits.notebook_s:g} s (the whole notebook): killed")
                continue
            for proc, timeout_s, what, started in watched:
                if timeout_s is not None and now - started > timeout_s:
                    self.kill(f"{what} timed out after {timeout_s:g} s: killed")
                kids = _children(proc.pid)
                with self._lock:
                    self._commands.update(_ident(p) for p in kids)
                for pid in [proc.pid, *kids]:
                    if (_stat(pid) or [""])[0] in ("T", "t"):
                        if now - stopped_since.setdefault(pid, now) > self.STOPPED_GRACE_S:
                            self.kill(f"stopped (SIGSTOP) in {what}: killed")
                    else:
                        stopped_since.pop(pid, None)

    def close(self) -> list[str]:
        """Kill what is left, read the limits hit, remove the box; returns ``events``."""
        self.kill()
        self._closed.set()
        for proc, *_ in list(self._watched):
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5)
        if not self.ns:  # what escaped the jail's subreaper (it was killed) and kept the marker
            for ident in _marked(self.marker):
                _kill(ident)
        if self.group is not None:
            hits = self.group.events()
            if "memory" in hits:
                self.note(f"memory limit ({self.limits.memory_mib} MiB): a process was killed")
            if "processes" in hits:
                self.note(f"process limit ({self.limits.processes}): a fork failed")
            self.group.remove()
        shutil.rmtree(self.dir, ignore_errors=True)
        return list(self.events)


def _font_cache(inside_dir: str) -> dict[str, str]:
    """Matplotlib's font list from the grader's cache, so each box skips rebuilding it (~0.5 s)."""
    base = os.environ.get("MPLCONFIGDIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "matplotlib")
    found = sorted(Path(base).glob("fontlist-v*.json")) if os.path.isdir(base) else []
    return {f"{inside_dir}/{p.name}": str(p) for p in found[-1:]}


def _marked(marker: str) -> list[tuple[int, str]]:
    """Processes of this user whose environment holds ``marker`` (plain mode's leftovers)."""
    found, me = [], os.getpid()
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == me:
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{p}/environ", "rb") as f:
                if marker.encode() in f.read().split(b"\0"):
                    found.append(_ident(int(p)))
    return found
