"""Memory, process and CPU limits for one submission, from Linux control groups when the
grader may create them (root, cgroup v1 ``memory``/``pids``/``cpu`` or v2 with those
controllers delegated); ``None`` otherwise, and the sandbox falls back to rlimits alone.

A cgroup limits the whole sandbox (every process, tmpfs pages included), where an rlimit
limits one process. The CPU controller, where there is one, makes each box one group to the
scheduler: boxes that all want CPU get equal shares, however many threads a flood starts in
one of them, and a box never takes more than its quota (``cpus`` cores) even from idle cores,
so another job's notebook always has the rest. After the run ``Group.events()`` says whether
a memory or process limit was hit (a box held to its CPU quota is only slower).
"""
from __future__ import annotations

import contextlib
import os
import secrets
import time
from pathlib import Path


def _mounts() -> dict[str, tuple[Path, str]]:
    """controller ('memory', 'pids', 'cpu', or '' for v2) -> (mount point, mount root)."""
    out: dict[str, tuple[Path, str]] = {}
    with contextlib.suppress(OSError), open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if rfields[0] == "cgroup2":
                out.setdefault("", (Path(fields[4]), fields[3]))
            elif rfields[0] == "cgroup":
                for opt in rfields[2].split(","):
                    if opt in ("memory", "pids", "cpu"):
                        out[opt] = (Path(fields[4]), fields[3])
    return out


def _own_paths() -> dict[str, str]:
    """controller ('' for v2) -> this process's cgroup path."""
    out = {}
    with contextlib.suppress(OSError), open("/proc/self/cgroup") as f:
        for line in f:
            _, ctrls, path = line.rstrip("\n").split(":", 2)
            for c in (ctrls.split(",") if ctrls else [""]):
                out[c] = path
    return out


def _here(ctrl: str) -> Path | None:
    mounts, own = _mounts(), _own_paths()
    if ctrl not in mounts or ctrl not in own:
        return None
    point, root = mounts[ctrl]
    rel = os.path.relpath(own[ctrl], root) if own[ctrl].startswith(root) else own[ctrl]
    path = (point / rel.lstrip("/")).resolve() if rel != "." else point
    return path if path.is_dir() else None


class Group:
    """The cgroup(s) of one sandbox: created with limits, joined by the sandbox's
    supervisor (``dirs``), read and removed by the grader."""

    def __init__(self, dirs: dict[str, Path]):
        self.dirs = dirs  # 'memory', 'pids', 'cpu' (v1) or 'v2' -> folder

    @property
    def procs_files(self) -> list[str]:
        return sorted({str(d) for d in self.dirs.values()})

    def _read(self, kind: str, name: str) -> str:
        try:
            return (self.dirs[kind] / name).read_text()
        except (KeyError, OSError):
            return ""

    def events(self) -> list[str]:
        """Which limits were hit: 'memory', 'processes'."""
        hits = []
        for kind, files in (("memory", ("memory.oom_control", "memory.events")),
                            ("v2", ("memory.events",))):
            for name in files:
                if any(ln.split()[:1] == ["oom_kill"] and int(ln.split()[1]) > 0
                       for ln in self._read(kind, name).splitlines()):
                    hits.append("memory")
        for kind in ("pids", "v2"):
            if any(ln.split()[:1] == ["max"] and int(ln.split()[1]) > 0
                   for ln in self._read(kind, "pids.events").splitlines()):
                hits.append("processes")
        return sorted(set(hits))

    def remove(self, wait_s: float = 3.0) -> None:
        """Remove the folders once their processes are gone (the grader killed them)."""
        deadline = time.monotonic() + wait_s
        for d in set(self.dirs.values()):
            while d.exists():
                try:
                    d.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.05)


CPU_PERIOD_US = 100_000  # the scheduler's quota period (the kernel's default)


def create(memory_bytes: int, processes: int, cpus: float | None = None) -> Group | None:
    """A fresh cgroup with these limits (``cpus``: cores, where the CPU controller is there),
    or ``None`` when none can be made here."""
    if os.geteuid() != 0:
        return None
    name = f"labsupport-{secrets.token_hex(6)}"
    dirs: dict[str, Path] = {}
    writes = []
    v1 = {c: _here(c) for c in ("memory", "pids", "cpu")}
    quota = max(1000, int(cpus * CPU_PERIOD_US)) if cpus else -1
    if v1["memory"] is not None:
        dirs["memory"] = v1["memory"] / name
        writes.append((dirs["memory"] / "memory.limit_in_bytes", memory_bytes))
        writes.append((dirs["memory"] / "memory.memsw.limit_in_bytes", memory_bytes))
    if v1["pids"] is not None:
        dirs["pids"] = v1["pids"] / name
        writes.append((dirs["pids"] / "pids.max", processes))
    if not dirs and (base := _here("")) is not None:
        ctrl = set((base / "cgroup.subtree_control").read_text().split()) \
            if (base / "cgroup.subtree_control").exists() else set()
        if {"memory", "pids"} <= ctrl:
            dirs["v2"] = base / name
            writes += [(dirs["v2"] / "memory.max", memory_bytes),
                       (dirs["v2"] / "memory.swap.max", 0), (dirs["v2"] / "pids.max", processes)]
    if not dirs:
        return None
    group = Group(dirs)
    try:
        for d in set(dirs.values()):
            d.mkdir()
        for path, value in writes:  # memsw (swap accounting) and swap.max may be missing
            if path.exists():
                path.write_text(str(value))
    except OSError:
        group.remove(wait_s=0)
        return None
    if v1["cpu"] is not None:  # v1's CPU group beside them, where one can be made (else none)
        _cpu_v1(group, v1["cpu"] / name, quota)
    elif "v2" in dirs and (dirs["v2"] / "cpu.max").exists():  # the cpu controller delegated
        with contextlib.suppress(OSError):
            (dirs["v2"] / "cpu.max").write_text(f"{quota if quota > 0 else 'max'} {CPU_PERIOD_US}")
    return group


def _cpu_v1(group: Group, folder: Path, quota: int) -> None:
    """Add a cgroup v1 CPU group (period, quota) to ``group``; left out if it cannot be made."""
    try:
        folder.mkdir()
        group.dirs["cpu"] = folder
        (folder / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
        (folder / "cpu.cfs_quota_us").write_text(str(quota))
    except OSError:
        group.dirs.pop("cpu", None)
        with contextlib.suppress(OSError):
            folder.rmdir()
