"""Copying as a review flag: how much of an answer cell is, up to renaming and reordering,
the lab's own code or another student's answer.

Each piece of code is reduced to a *multiset of normalised subtrees* of its syntax tree, read
from its one canonical form (``labgrader.canonical.normalised``: names as ``_``, checks,
imports, docstrings and prints dropped, a copier's edits undone), where a compound statement
is hashed without its body, whose statements count on their own — so renaming locals,
dropping checks or reordering statements changes nothing. Each subtree of at least
``MIN_NODES`` nodes weighs its size. What the release gives everyone (the answer cell's stub)
is taken out of both sides. Two pieces score the Dice coefficient of their weighted
multisets, 2·|A∩B| / (|A|+|B|), 0 to 1, and an answer is also scored by the share of the other
piece it holds, |A∩B| / |B| (``contained``: padding, a line of huge syntactic weight or a copy
cut in two lower the Dice, not this); MOSS compares fingerprints of token k-grams and reports
both files' shares the same way; subtrees make order not matter.

Beside the subtrees, which one changed token (``// 2`` as ``>> 1``) costs the digest of every
subtree above it, the normalised code is also compared as a *token stream* (``in_order``:
difflib's ratio of the two streams, 0 to 1, as MOSS and JPlag compare token sequences): an
answer unit whose tokens are a piece's tokens in the same order but for a few edits scores
≥ ``ORDER`` and is flagged on that alone, or ≥ ``ORDER_WITH`` when its subtrees also score ≥
``SHAPE_WITH``.

An answer is compared with the lab's references of its exercise (``labgrader.references``:
each function, class or module, by its source) and the instructors' solution cell, and with
the same cell of every other submission of the class; a score ≥ ``THRESHOLD`` on an answer
of at least ``MIN_WEIGHT`` is flagged for review (the score stays what the checks gave).
"""
from __future__ import annotations

import ast
import contextlib
import functools
import difflib
import hashlib
import io
import json
import os
import time
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .canonical import STATEMENT_LISTS, normalised

THRESHOLD = 0.8     # Dice score from which an answer goes to review
MIN_NODES = 4       # smaller subtrees (a name, a constant) say nothing
MIN_WEIGHT = 60     # smaller answers and pieces (summed subtree sizes) are never compared: an honest
#                     answer to a smaller exercise is its reference (redteam8 honest_grow, 47)
PAIR_WEIGHT = 80    # two classmates' answers are scored by containment from this weight each
ORDER = 0.9         # token streams this alike: a copy with a few tokens edited (honest: <= 0.80)
ORDER_WITH, SHAPE_WITH = 0.8, 0.7  # both this alike: a copy rewritten in part (honest: 0.80, 0.37)
MAX_TOKENS = 2500   # a unit longer is not compared as a token stream (the lab's longest: 1754)
MAX_UNITS = 40      # definitions of one answer compared on their own, the outermost first
REVIEW_S = 60.0     # seconds the copy check spends on one notebook at most (then: look yourself)
MAX_SOURCE = 100_000  # characters of one answer that are parsed at most

def _shape(node: ast.AST, memo: dict) -> tuple[str, int]:
    """(a digest of ``node`` without its statement bodies, its number of nodes); ``memo``
    (id of a node -> its shape) makes a tree's shapes one walk, not one per node."""
    got = memo.get(id(node))
    if got is not None:
        return got
    fields, size = [], 1
    for name, value in ast.iter_fields(node):
        if (name in STATEMENT_LISTS and isinstance(value, list)) or \
                name in ("ctx", "type_comment", "kind"):
            continue  # a body's statements count on their own (an IfExp's body does not)
        items = value if isinstance(value, list) else [value]
        parts = []
        for item in items:
            if isinstance(item, ast.AST):
                digest, n = _shape(item, memo)
                parts.append(digest)
                size += n
            else:
                parts.append(repr(item))
        fields.append(f"{name}=[{','.join(parts)}]")
    text = f"{type(node).__name__}({';'.join(fields)})"
    memo[id(node)] = got = hashlib.blake2b(text.encode(), digest_size=8).hexdigest(), size
    return got


def read(source: str) -> Counter | None:
    """The weighted multiset of ``source``'s normalised subtrees (digest -> summed size), or
    None when it cannot be read whole: longer than ``MAX_SOURCE``, not Python, or nested too
    deep to walk (a copy cannot hide behind a line the check gives up on)."""
    if len(source) > MAX_SOURCE:
        return None
    try:
        nodes = list(ast.walk(normalised(source)))
        out: Counter = Counter()
        memo: dict = {}
        for node in nodes:
            if not isinstance(node, (ast.Module, ast.expr_context)):
                digest, size = _shape(node, memo)
                if size >= MIN_NODES:
                    out[digest] += size
    except Exception:  # noqa: BLE001 - not Python, too deep (RecursionError), or anything the
        return None    # normaliser cannot take: unreadable, never a stopped review (redteam18)
    return out


def fingerprint(source: str) -> Counter:
    """``read`` of ``source``'s first ``MAX_SOURCE`` characters (empty when unreadable)."""
    return read(source[:MAX_SOURCE]) or Counter()


def weight(fp: Counter) -> int:
    return sum(fp.values())


def score(a: Counter, b: Counter) -> float:
    """Dice coefficient of two weighted multisets, 0 (nothing shared) to 1 (the same)."""
    total = weight(a) + weight(b)
    return 2 * weight(a & b) / total if total else 0.0


DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LAYOUT = {tokenize.INDENT: "{", tokenize.DEDENT: "}"}
_UNSEEN = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER}


def _defs_sorted(tree: ast.Module) -> ast.Module:
    """The functions and classes of each module and class body after its other statements,
    in the order of their code: the order of definitions is no part of a token stream."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef)):
            defs = [s for s in node.body if isinstance(s, DEFS)]
            node.body = [s for s in node.body if not isinstance(s, DEFS)] + \
                sorted(defs, key=ast.unparse)
    return tree


def tokens(source: str) -> tuple[str, ...]:
    """``source``'s code in the form ``read`` compares (canonical, names as ``_``, constants
    as their type, definitions sorted), printed back and split into tokens, blocks as ``{``
    ``}``; empty when it cannot be read or has more than ``MAX_TOKENS``."""
    if len(source) > MAX_SOURCE:
        return ()
    try:
        text = ast.unparse(_defs_sorted(normalised(source)))
        out = tuple(_LAYOUT.get(t.type, t.string) for t in
                    tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in _UNSEEN)
    except Exception:  # noqa: BLE001 - as in ``read``: unreadable, never a stopped review
        return ()
    return out if len(out) <= MAX_TOKENS else ()


def in_order(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    """How alike two token streams are in order: difflib's ratio, 2·matched / (|a|+|b|), 0
    to 1 (1: the same tokens in the same order); 0 where their lengths or their tokens as
    multisets alone keep it under ``ORDER_WITH``."""
    if not a or not b or 2 * min(len(a), len(b)) < ORDER_WITH * (len(a) + len(b)):
        return 0.0
    if a == b:
        return 1.0
    m = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return m.ratio() if m.quick_ratio() >= ORDER_WITH else 0.0


@dataclass(frozen=True)
class Match:
    score: float
    what: str  # what it matched: a reference's dotted path, the solution, a student
    how: str = "similar"  # "similar": Dice; "holds": the share of ``what`` the answer holds;
    #                       "held": the share of the answer that ``what`` holds (a classmate);
    #                       "order": the token streams' ``in_order``


def definitions(source: str) -> list[str]:
    """``source`` and the source of each function and class defined in it, at any depth, the
    outermost first, ``MAX_UNITS`` and twice the source's length at most (a copy beside code
    of the student's own is still a copy; one past that is still held by the whole answer)."""
    try:
        tree = ast.parse(source[:MAX_SOURCE])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [source]
    lines = source[:MAX_SOURCE].splitlines(keepends=True)
    out, left = [source], 2 * len(source)  # nested definitions: each holds the next ones
    for node in (n for n in ast.walk(tree) if isinstance(n, DEFS)):
        unit = _segment(lines, node)
        left -= len(unit)
        if left < 0 or len(out) > MAX_UNITS:
            break
        out.append(unit)
    return out


def known(source: str, shelf: Path | None = None) -> tuple[Counter, tuple[str, ...]]:
    """``(fingerprint(source), tokens(source))``, read once per process, and once per
    grading run where ``shelf`` (a folder only the grader writes: ``CACHE``) keeps what
    other jobs read: a classmate's answer is compared in every other submission's job.
    Never change them."""
    if shelf is None:
        return _known(source)
    digest = hashlib.blake2b(source.encode(errors="surrogatepass"), digest_size=16)
    fp, toks = _shelved(Path(shelf) / f"{digest.hexdigest()}.json", lambda: _known(source))
    return Counter(fp), tuple(toks)


def _shelved(path: Path, make):
    """``make()``, kept as JSON at ``path`` (in the grader's ``CACHE`` folder) by the first
    job of a grading run that needs it and read back by the others."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        got = make()
        part = path.with_name(f".{path.name}.{os.getpid()}")
        with contextlib.suppress(OSError, ValueError):
            part.write_text(json.dumps(got))
            os.replace(part, path)
        return got


@functools.lru_cache(maxsize=4096)
def _known(source: str) -> tuple[Counter, tuple[str, ...]]:
    """A fingerprint and a token stream read once per process (references, the release,
    classmates)."""
    return fingerprint(source), tokens(source)


class OutOfTime(Exception):
    """The copy check's time for one notebook (``REVIEW_S``) is spent."""


def best_match(answer: str, others: dict[str, str], given: str = "",
               shelf: Path | None = None, pairs: frozenset = frozenset(),
               compiled: list[str] = (), deadline: float | None = None) -> Match | None:
    """The piece of ``others`` (label -> source) ``answer`` is most like, once what the
    release ``given`` everyone is taken out: by Dice, the answer as a whole or one of its
    definitions against each piece; and by how much of each piece (of at least
    ``MIN_WEIGHT``) the whole answer holds, so that code added around a copy, inside it or
    between its parts (a copy cut in two) does not hide it. For the pieces labelled in
    ``pairs`` (classmates' answers: either of two may be the copy) also by how much of the
    answer the piece holds, each side at least ``PAIR_WEIGHT``: the one who copied a core
    and left the rest out is named as well as the one copied. None when nothing is big
    enough to judge. ``compiled``: sources the answer's code compiled while graded (strings
    it ran with ``exec``, ``timeit``…): each is a unit too, and part of the whole answer.
    Each unit's token stream is also compared with the token stream of each piece that its
    syntax does not flag already (``in_order``): "order" where it reaches ``ORDER``, or
    ``ORDER_WITH`` beside a subtree score of ``SHAPE_WITH``. ``OutOfTime`` past
    ``deadline`` (``time.monotonic``)."""
    def in_time() -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise OutOfTime
    stub = known(given)[0]
    theirs = {}
    for label, source in others.items():
        in_time()
        theirs[label] = known(source, shelf)
    defs = definitions(answer)
    units = defs + list(compiled)
    pieces = []
    for unit in units:
        in_time()
        pieces.append(fingerprint(unit) - stub)
    whole = sum(pieces[len(defs):], pieces[0])  # the cell and what it compiled
    judged = [k for k, mine in enumerate(pieces) if weight(mine) >= MIN_WEIGHT]
    streams: dict[int, tuple] = {}  # unit -> its tokens, read when first needed
    found = []
    for label, (fp, stream) in theirs.items():
        in_time()
        fp = fp - stub
        floor = PAIR_WEIGHT if label in pairs else MIN_WEIGHT
        mine = [Match(round(score(m, fp), 2), label) for m in [whole, *pieces[1:]]
                if weight(m) >= MIN_WEIGHT]
        if weight(fp) >= floor and (label not in pairs or weight(whole) >= floor):
            mine.append(Match(round(weight(whole & fp) / weight(fp), 2), label, "holds"))
        if label in pairs and min(weight(whole), weight(fp)) >= floor:
            mine.append(Match(round(weight(whole & fp) / weight(whole), 2), label, "held"))
        shape = max((m.score for m in mine), default=0.0)
        order = 0.0
        if shape < THRESHOLD and weight(fp) >= floor:  # not flagged by its syntax already
            for k in judged:
                if k not in streams:
                    in_time()
                    streams[k] = tokens(units[k])
            for k in judged:
                in_time()
                order = max(order, in_order(streams[k], stream))
        if order >= ORDER or (order >= ORDER_WITH and shape >= SHAPE_WITH):
            mine.append(Match(round(order, 2), label, "order"))
        found += mine
    return max(found, key=lambda m: (m.score, m.how == "similar"), default=None)


def contained(mine: Counter, reference: str) -> float:
    """The share of ``reference``'s normalised syntax that the fingerprint ``mine`` holds, 0
    to 1 (code added around a copy, or inside it, does not lower it); 0 for a reference too
    small to judge."""
    ref = known(reference)[0]
    if weight(ref) < MIN_WEIGHT:
        return 0.0
    return weight(mine & ref) / weight(ref)


def copied(mine: Counter, references: dict[str, str]) -> Match | None:
    """The reference (label -> source) that ``mine`` — the fingerprint of code a student's
    process compiled while graded (``codewatch``), or of all it compiled — holds a copy of:
    ≥ ``THRESHOLD`` of the reference's normalised syntax (``contained``: padding does not
    hide a copy); None when none is held."""
    found = [Match(round(contained(mine, ref), 2), label) for label, ref in references.items()]
    best = max(found, key=lambda m: m.score, default=None)
    return best if best is not None and best.score >= THRESHOLD else None


# ---- what an answer is compared with ------------------------------------------------------

def _segment(lines: list[str], node: ast.AST) -> str:
    """``node``'s source: its whole lines, dedented (``ast.get_source_segment`` splits the
    file again at every call)."""
    import textwrap
    return textwrap.dedent("".join(lines[node.lineno - 1:node.end_lineno]))


def _units(path: Path, names: list[str]) -> dict[str, str]:
    """Sources in ``path``: the definition named by ``names`` (a function, a class, a
    method), or each top-level definition when ``names`` is empty."""
    try:
        text = path.read_text()
        tree = ast.parse(text)
    except (OSError, SyntaxError):
        return {}
    lines = text.splitlines(keepends=True)
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    if not names:
        return {n.name: _segment(lines, n) for n in tree.body if isinstance(n, defs)}
    scope = tree.body
    node = None
    for name in names:
        node = next((n for n in scope if isinstance(n, defs) and n.name == name), None)
        if node is None:
            return {}
        scope = node.body
    return {".".join(names): _segment(lines, node)}


@functools.lru_cache(maxsize=None)
def reference_sources(exercise: str) -> dict[str, str]:
    """The lab's references of ``exercise`` by their source: dotted path -> code (read once
    per process: the package is sealed while grading; callers never change the dict)."""
    from labsupport.exercises.registry import EXERCISES
    from . import references
    root = references.ROOT.parent
    out: dict[str, str] = {}
    entry = EXERCISES.get(exercise)
    for ref in entry.references if entry else ():
        module = references._module_of(ref)
        rel = Path(*module.split("."))
        path = root / rel.with_suffix(".py")
        if not path.exists():
            path = root / rel / "__init__.py"
        names = ref[len(module) + 1:].split(".") if ref != module else []
        for name, source in _units(path, names).items():
            out[f"{module}.{name}"] = source
    return out


def copy_reviews(answers: dict[str, str], references: dict[str, dict[str, str]],
                 classmates: dict[str, dict[str, str]], given: dict[str, str],
                 shelf: Path | None = None,
                 compiled: dict[str, list[str]] | None = None,
                 budget_s: float = REVIEW_S) -> dict[str, str]:
    """exercise id -> why a trainer should look, for each answer (id -> source) that scores
    ≥ ``THRESHOLD`` against its ``references`` (id -> label -> source: the lab's code, the
    solution) or a classmate's answer (student -> id -> source); ``given`` is the release's
    cell of each id. What is not compared within ``budget_s`` seconds is flagged as such (an
    answer built to make the comparison slow costs its own notebook that much at most)."""
    out = {}
    deadline = time.monotonic() + budget_s
    for ex, source in answers.items():
        mates = {f"student {who}'s answer": cells[ex] for who, cells in classmates.items()
                 if ex in cells}
        try:
            if time.monotonic() > deadline:
                raise OutOfTime
            if read(source) is None:
                out[ex] = "too long or too deeply nested for the copy check to read"
                continue
            match = best_match(source, {**references.get(ex, {}), **mates}, given.get(ex, ""),
                               shelf, frozenset(mates), (compiled or {}).get(ex, []), deadline)
        except OutOfTime:
            out[ex] = (f"the copy check ran out of time ({budget_s:g} s for the notebook) before "
                       "it compared this answer with everything: look at it yourself")
            continue
        if match is not None and match.score >= THRESHOLD:
            how = match.how if match.how == "similar" or match.what not in mates else \
                f"{match.how} pair"
            out[ex] = REASONS[how].format(score=match.score, what=match.what)
    return out


def _plain_reviews(plain: dict[str, str], references: dict[str, dict[str, str]],
                   shelf: Path | None, deadline: float) -> dict[str, str]:
    """exercise id -> why, for the plain cells (label -> source) that hold a copy of one of
    the exercise's references (a reference of several exercises: each of them); out of
    time: every exercise, to look at."""
    pieces: dict[str, str] = {}
    owners: dict[str, list[str]] = {}
    for ex, refs in references.items():
        for label, source in refs.items():
            pieces.setdefault(label, source)
            owners.setdefault(label, []).append(ex)
    out: dict[str, str] = {}
    for where, source in plain.items():
        try:
            if time.monotonic() > deadline:
                raise OutOfTime
            match = best_match(source, pieces, "", shelf, frozenset(), [], deadline) \
                if read(source) is not None else None
        except OutOfTime:
            return {ex: "the copy check ran out of time on the code cells the student added: "
                    "look at them yourself" for ex in references}
        if match is not None and match.score >= THRESHOLD:
            for ex in owners[match.what]:
                out.setdefault(ex, f"{where}: " + REASONS[match.how].format(
                    score=match.score, what=match.what))
    return out


SAME = "the same code up to names, order and checks"
IN_ORDER = "the same tokens in the same order but for a few, up to names"
REASONS = {  # Match.how (" pair": against a classmate) -> the review's words
    "similar": "similar to {what} (score {score:.2f}: " + SAME + ")",
    "holds": "holds {score:.0%} of {what} (" + SAME + ", with code of its own around or inside it)",
    "holds pair": "{score:.0%} of {what} is in it (" + SAME + ": either may be the copy)",
    "held pair": "{score:.0%} of it is in {what} (" + SAME + ": either may be the copy)",
    "order": "similar to {what} (score {score:.2f}: " + IN_ORDER + ")",
    "order pair": "similar to {what} (score {score:.2f}: " + IN_ORDER + ": either may be the copy)"}


# ---- in the autograde pipeline ------------------------------------------------------------

SOLUTION_MARKS = ("### BEGIN SOLUTION", "### END SOLUTION")
MAX_NOTEBOOK = 100 << 20  # bytes of a notebook the copy check reads at most (a bigger one is
#                          flagged in its own job: it cannot hide from the class by size)


def _code_cells(path: Path, ids, shelf: Path | None = None) -> dict[str, str] | None:
    """grade_id -> the cell's Python, for the ids that appear exactly once in the notebook at
    ``path`` (read as plain JSON: a submission is data here, never run); None when it cannot
    be read (over ``MAX_NOTEBOOK``, not a notebook, nested too deep: whatever it holds, a
    classmate's file never stops another student's grading). With ``shelf`` (``CACHE``),
    read once per grading run: every job of the class reads every classmate."""
    try:
        if path.stat().st_size > MAX_NOTEBOOK:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if shelf is None:
        return _cells_of(data, ids)
    digest = hashlib.blake2b(data, digest_size=16)
    digest.update("\0".join(sorted(map(str, ids))).encode(errors="surrogatepass"))
    return _shelved(Path(shelf) / f"cells-{digest.hexdigest()}.json", lambda: _cells_of(data, ids))


def _source(cell: dict) -> str:
    """A notebook cell's source (read as plain JSON: a string or a list of lines)."""
    src = cell.get("source", "")
    return "".join(map(str, src)) if isinstance(src, list) else str(src)


def _cells_of(data: bytes, ids) -> dict[str, str] | None:
    """``_code_cells`` of a notebook's bytes."""
    from .cellcode import python_source
    try:
        cells = json.loads(data).get("cells", [])
        found: dict[str, list[str]] = {}
        for c in cells if isinstance(cells, list) else []:
            meta = c.get("metadata") if isinstance(c, dict) else None
            meta = meta.get("nbgrader") if isinstance(meta, dict) else None
            gid = meta.get("grade_id") if isinstance(meta, dict) else None
            if isinstance(gid, str) and gid in ids and c.get("cell_type") == "code":
                src = "\n".join(l for l in _source(c).splitlines() if l.strip() not in SOLUTION_MARKS)
                found.setdefault(gid, []).append(python_source(src))
    except Exception:  # noqa: BLE001 - OSError, RecursionError, MemoryError…: see above
        return None
    return {g: s[0] for g, s in found.items() if len(s) == 1}


CLASS = "Classmates.folder"  # config: the class's submitted/ when grading runs elsewhere
CACHE = "Classmates.cache"  # config: a folder of the grader's where jobs share fingerprints


def _release_code(path: Path) -> set[str]:
    """The code cells of the release's notebook at ``path``, as Python (empty if unreadable)."""
    from .cellcode import python_source
    try:
        cells = json.loads(path.read_bytes()).get("cells", [])
        return {python_source(_source(c)) for c in cells if c.get("cell_type") == "code"}
    except Exception:  # noqa: BLE001 - no release to subtract: every plain cell is compared
        return set()


def class_reviews(config, info: dict, answers: dict[str, str],
                  compiled: dict[str, list[str]] | None = None,
                  plain: dict[str, str] | None = None) -> dict[str, str]:
    """test id -> why a trainer should look, for the answers (answer id -> Python) of one
    submission (``info``: nbgrader's student, assignment, notebook): against the lab's
    references and the instructors' solution (``source_directory``), and the same cells of
    every other submission (``<submitted>/<student>/<assignment>/``: the course's, or the
    folder ``CLASS`` names, as ``parallel`` does for its private courses); the release's
    cells are what everyone was given. ``plain`` (label -> Python): the submission's other
    code cells; those the release does not hold as they are are compared with every
    exercise's references and this notebook's solutions (``_plain_reviews``): a copy there is
    code a kernel could run for a judge, and flags the exercise it copies (another
    notebook's: every item here)."""
    from nbgrader.coursedir import CourseDirectory
    cd = CourseDirectory(config=config)
    student, assignment = info.get("student", ""), info.get("assignment", "")
    name = f"{info.get('notebook', '')}.ipynb"
    ids = set(answers)
    folder = lambda where, who=".": Path(cd.format_path(where, who, assignment)) / name  # noqa: E731
    section, key = CLASS.split(".")
    shelf = config.get(section, {}).get(CACHE.split(".")[1]) or None
    shelf = Path(shelf) if shelf else None
    given = _code_cells(folder(cd.release_directory), ids, shelf) or {}
    solution = _code_cells(folder(cd.source_directory), ids, shelf) or {}
    refs = {ex: {**{f"the lab's {r}": s for r, s in reference_sources(ex).items()},
                 **({"the instructors' solution": solution[ex]} if ex in solution else {})}
            for ex in ids}
    base = Path(config.get(section, {}).get(key) or Path(cd.root) / cd.submitted_directory)
    found = {who: _code_cells(base / who / assignment / name, ids, shelf)
             for who in sorted(p.name for p in base.iterdir() if p.is_dir())} \
        if base.is_dir() else {}
    # unreadable: no classmate to the others, and flagged in its own job
    classmates = {who: cells or {} for who, cells in found.items() if who != student}
    if found.get(student, {}) is None and (base / student / assignment / name).exists():
        return {f"{ex}_test": "the notebook cannot be compared with the class (over "
                f"{MAX_NOTEBOOK >> 20} MB, or not a notebook the copy check can read): look "
                "at it yourself" for ex in ids}
    released = _release_code(folder(cd.release_directory))
    mine = {label: source for label, source in (plain or {}).items() if source not in released}
    start = time.monotonic()  # one budget (REVIEW_S) for the answers and the plain cells
    why = copy_reviews(answers, refs, classmates, given, shelf, compiled)
    if mine:  # against every exercise's references: a kernel may run code for another notebook
        every = {ex: {f"the lab's {r}": s for r, s in reference_sources(ex).items()}
                 for ex in _exercises()}
        for ex, reason in _plain_reviews(mine, {**every, **refs}, shelf,
                                         start + REVIEW_S).items():
            for target in ([ex] if ex in ids else sorted(ids)):
                why[target] = f"{why[target]}; {reason}" if target in why else reason
    return {f"{ex}_test": reason for ex, reason in why.items()}


def _exercises() -> list[str]:
    from labsupport.exercises.registry import EXERCISES
    return [ex for ex, e in EXERCISES.items() if e.references or e.fallback]
