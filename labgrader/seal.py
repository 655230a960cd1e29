"""The package seal: what grading trusts, fingerprinted before any student code runs and
checked after every submission; grading stops when it changed.

Sealed: the lab package's and the grader's files (SHA-256 of each), the course's config, source and
release notebooks, and the venv's ``site-packages`` entries with its start-up hooks
(``*.pth``, ``sitecustomize``), where a submission running with the trainer's rights (the
sandbox's plain mode) could plant code that the grader would run next.
"""
from __future__ import annotations

import hashlib
import os
import site
import sys
from pathlib import Path


class SealBroken(RuntimeError):
    """Files the grader trusts changed while a submission was graded."""


def _files(folder: Path, suffixes: tuple[str, ...] | None = None) -> list[Path]:
    out = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out += [Path(root) / n for n in names if suffixes is None or n.endswith(suffixes)]
    return sorted(out)


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


def _site_entries() -> dict[str, str]:
    out = {}
    for sp in {*site.getsitepackages(), site.getusersitepackages()}:
        folder = Path(sp)
        if not folder.is_dir():
            continue
        for p in sorted(folder.iterdir()):
            hook = p.suffix == ".pth" or p.stem in ("sitecustomize", "usercustomize")
            out[str(p)] = _digest(p) if hook and p.is_file() else "entry"
    return out


def package_dir() -> Path:
    import labsupport
    return Path(labsupport.__file__).resolve().parent


def measure(course_root: Path | str, package: Path | None = None) -> dict[str, str]:
    """path -> fingerprint of everything sealed (``package``: the lab package's folder)."""
    from labsupport.paths import REPO
    root = Path(course_root)
    config = REPO / "autograde" / "nbgrader_config.py"  # the course config (course.CONFIG_FILE)
    state = {str(p): _digest(p) for p in _files(package or package_dir())}
    state.update({str(p): _digest(p) for p in _files(Path(__file__).resolve().parent, (".py",))})
    state[str(config)] = _digest(config)
    for p in (root / "nbgrader_config.py",):
        if p.is_file():
            state[str(p)] = _digest(p)
    for folder in ("solutions", "notebooks"):
        if (root / folder).is_dir():
            state.update({str(p): _digest(p) for p in _files(root / folder, (".ipynb",))})
    state.update(_site_entries())
    state["sys.executable"] = sys.executable
    return state


class Seal:
    """The seal of one grading session."""

    def __init__(self, course_root: Path | str, package: Path | None = None):
        self.root, self.package = Path(course_root), package
        self.state = measure(self.root, package)

    def changes(self) -> list[str]:
        """Paths that changed, appeared or vanished since the seal was made."""
        now = measure(self.root, self.package)
        return sorted(k for k in set(now) | set(self.state) if now.get(k) != self.state.get(k))

    def check(self, after: str) -> None:
        """Raise ``SealBroken`` (naming the files) when anything changed."""
        changed = self.changes()
        if changed:
            raise SealBroken(f"grading stopped: {len(changed)} file(s) the grader trusts changed "
                             f"while {after} was graded: {', '.join(changed[:5])}")


_SESSIONS: dict[str, Seal] = {}


def session(course_root: Path | str, compiled: bool = False) -> Seal:
    """This process's seal of ``course_root``, made at the first call (grading drivers call
    it before any submission; the pipeline, before its first kernel starts). The package is
    byte-compiled first — boxed kernels read it read-only and could not cache it themselves —
    unless ``compiled`` (a ``parallel`` job: its parent compiled it, 0.3 s a job)."""
    key = str(Path(course_root).resolve())
    if key not in _SESSIONS:
        if not compiled:
            import compileall
            compileall.compile_dir(package_dir(), quiet=2)  # a read-only install: no harm
        _SESSIONS[key] = Seal(key)
    return _SESSIONS[key]
