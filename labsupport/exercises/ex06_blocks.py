"""Check for notebook 06's design exercise ex06_8: a paged KV block
pool the student designs — allocate, append, fork (a shared prefix), free — specified by its
behaviour only. Reference: ``decoder.blockpool.RefCountedPool`` (it writes the scripts).

The driver plays a script of operations on the student's pool and records, as plain values,
what each returned, every live sequence's block table and ``num_free()``. The judge keeps
a shadow KV cache: each token written gets a value in the slot the pool gave it (a block
that moves under copy-on-write has its filled rows copied, as a runner would), and after
every operation each live sequence must read its own tokens back. Any pool whose tables
keep every sequence's tokens intact, that takes a block only when one is needed and that
hands back every block nobody holds passes; the message names what broke (an
over-allocation, a double free, a leak, a shared block written in place).
"""
from __future__ import annotations

import numpy as np

from ..decoder.blockpool import RefCountedPool
from .ex06_step import attempt
from .guard import case_rng, driver, exercise_check
from .plain import describe, plain

EX = "ex06_8"


# ---- the scripts: drawn operations, with the reference deciding who is alive -----------

def _script(rng: np.random.Generator, num_blocks: int, bs: int, n_random: int) -> list:
    """Operations on sequences ``"s0"``, ``"s1"``, …: a drawn core that shares a partly
    filled block, writes on both sides of it, frees the parent while a child still holds
    it and then fills the pool; then ``n_random`` drawn operations; then everything is freed
    and one sequence asks for the whole pool."""
    pool, live, ops, ids = RefCountedPool(num_blocks, bs), [], [], iter(range(10 ** 6))

    def do(op):
        kind, sid = op[0], op[1]
        if kind == "allocate" and pool.allocate(sid, op[2]):
            live.append(sid)
        elif kind == "append":
            pool.append(sid)
        elif kind == "fork":
            pool.fork(sid, op[2])
            live.append(op[2])
        elif kind == "free":
            pool.free(sid)
            live.remove(sid)
        ops.append(op)

    a, b, c, d = (f"s{next(ids)}" for _ in range(4))
    do(("allocate", a, int(rng.integers(1, 3)) * bs + int(rng.integers(1, bs)) if bs > 1
        else int(rng.integers(2, 5))))
    do(("fork", a, b))
    do(("append", b))           # b's last block is shared: b must move (copy-on-write)
    do(("append", a))
    do(("fork", a, c))
    do(("free", a))             # c still holds a's blocks
    do(("allocate", d, max(1, pool.num_free()) * bs))   # takes every free block
    do(("append", c))
    for _ in range(n_random):
        r = rng.random()
        if not live or r < 0.25:
            do(("allocate", f"s{next(ids)}", int(rng.integers(1, 3 * bs + 1))))
        elif r < 0.4 and len(live) < 8:
            do(("fork", live[int(rng.integers(len(live)))], f"s{next(ids)}"))
        elif r < 0.8:
            do(("append", live[int(rng.integers(len(live)))]))
        else:
            do(("free", live[int(rng.integers(len(live)))]))
    for sid in list(live):
        do(("free", sid))
    do(("allocate", "whole", num_blocks * bs))
    return ops


def _cases(hidden: bool) -> list[tuple[int, int, list]]:
    rng = case_rng(EX, hidden)
    sizes = [(6, 4), (10, 2)] if not hidden else [
        (int(rng.integers(5, 16)), int(rng.choice([2, 3, 4, 8]))) for _ in range(6)]
    return [(n, bs, _script(rng, n, bs, 40 if hidden else 25)) for n, bs in sizes]


def _call(op) -> str:
    args = ", ".join(repr(x) for x in op[1:])
    return f"{op[0]}({args})"


# ---- the driver: the student's pool, recorded as plain values --------------------------

def _run(ex: str, cls, num_blocks: int, bs: int, ops: list) -> dict:
    """Play ``ops`` on ``cls(num_blocks, bs)``; after each, record what it returned, the
    tables of the sequences alive in the script and ``num_free()``. Stops at a crash."""
    pool = attempt(ex, cls, num_blocks, bs, what=f"on BlockPool({num_blocks}, {bs})")
    live, records = [], []
    for op in ops:
        kind, sid = op[0], op[1]
        try:
            out = attempt(ex, getattr(pool, kind), *op[1:], what=f"on {_call(op)}")
        except AssertionError as err:   # a crash: judged after the operations before it
            records.append({"error": str(err).removeprefix(f"{ex}: ")})
            break
        out = plain(ex, out, f"what {kind} returned")
        if kind == "allocate" and out is True:
            live.append(sid)
        elif kind == "fork":
            live.append(op[2])
        elif kind == "free" and sid in live:
            live.remove(sid)
        tables = {s: plain(ex, attempt(ex, pool.table, s, what=f"on table({s!r})"),
                           f"table({s!r})") for s in live}
        records.append({"out": out, "tables": tables,
                        "free": plain(ex, attempt(ex, pool.num_free, what="on num_free()"),
                                      "num_free()")})
    return {"records": records}


# ---- the judge: reads the record only ---------------------------------------------------

def _judge(ex: str, num_blocks: int, bs: int, ops: list, records: list) -> None:
    tables: dict[str, list[int]] = {}
    lens: dict[str, int] = {}
    vals: dict[str, list[int]] = {}
    cache: dict[int, int] = {}
    fresh = iter(range(1, 10 ** 9))
    done: list[str] = []

    def fail(msg: str):
        trail = "; ".join(done[-4:])
        raise AssertionError(f"{ex}: on BlockPool({num_blocks}, block_size={bs}) "
                             f"(operations before: {trail or 'none'}): {msg}")

    def held(but=None) -> dict[int, str]:
        return {b: s for s, t in tables.items() if s != but for b in t}

    for op, rec in zip(ops, records):
        kind, sid, call = op[0], op[1], _call(op)
        if "error" in rec:
            fail(rec["error"] + " (a refusal returns False or None; it does not raise)")
        out, new, nfree = rec["out"], rec["tables"], rec["free"]
        for s, t in new.items():
            if type(t) is not list or not all(type(b) is int for b in t):
                fail(f"table({s!r}) must be a list of block numbers (ints), got {describe(t)}")
            if any(not 0 <= b < num_blocks for b in t):
                fail(f"{call} left table({s!r}) = {t}, which names a block outside the pool "
                     f"(0..{num_blocks - 1}): the pool ignores its limit (over-allocation)")
        if type(nfree) is not int:
            fail(f"num_free() must return an int, got {describe(nfree)}")
        free_before = num_blocks - len(held())
        if kind == "allocate":
            need = -(-op[2] // bs)
            if type(out) is not bool:
                fail(f"{call} must return True or False, got {describe(out)}")
            if out and need > free_before:
                fail(f"{call} returned True, but {op[2]} tokens need {need} blocks and only "
                     f"{free_before} are held by no sequence: the pool ignores its limit "
                     "(over-allocation). Refuse (return False, change nothing) when they do "
                     "not fit")
            if not out and need <= free_before:
                fail(f"{call} returned False, but it needs {need} blocks and {free_before} "
                     "are held by no sequence" + (": blocks freed earlier never went back to "
                                                  "the pool (a leak)" if nfree < free_before
                                                  else ""))
            if out:
                t = new[sid]
                if len(t) != need or len(set(t)) != need:
                    fail(f"{call} gave table {t}: {op[2]} tokens need {need} distinct blocks")
                taken = {b: s for b, s in held().items() if b in t}
                if taken:
                    b, s = next(iter(taken.items()))
                    fail(f"{call} handed out block {b}, which sequence {s!r} still holds: a "
                         "block went back to the pool while held (a double free, or a "
                         "reference count that reached 0 too early)")
                vals[sid] = [next(fresh) for _ in range(op[2])]
                lens[sid] = op[2]
                for p, v in enumerate(vals[sid]):
                    cache[t[p // bs] * bs + p % bs] = v
                tables[sid] = list(t)
        elif kind == "append":
            old, n = tables[sid], lens[sid]
            row, others = n % bs, held(but=sid)
            needs = row == 0 or old[-1] in others
            if out is None:
                if not needs:
                    fail(f"{call} returned None, but position {n} fits in the last block, "
                         f"{old[-1]}, which no other sequence holds: no new block is needed")
                if free_before > 0:
                    fail(f"{call} returned None with {free_before} blocks held by no sequence"
                         + (": blocks freed earlier never went back to the pool (a leak)"
                            if nfree < free_before else ""))
                if new[sid] != old:
                    fail(f"{call} was refused but changed table({sid!r}) from {old} to "
                         f"{new[sid]}: a refused append changes nothing")
            else:
                if type(out) is not int:
                    fail(f"{call} must return the new token's slot (an int) or None, got "
                         f"{describe(out)}")
                t = new[sid]
                if needs and free_before == 0:
                    fail(f"{call} returned slot {out}, but sequence {sid!r} needed a new block "
                         "and none was free: the pool ignores its limit (over-allocation)")
                if len(t) != n // bs + 1 or t[:-1] != old[:len(t) - 1]:
                    fail(f"{call} changed table({sid!r}) from {old} to {t}: {n + 1} tokens "
                         f"need {n // bs + 1} blocks, and only the last may change")
                moved = row == 0 or t[-1] != old[-1]
                if moved and t[-1] in held():
                    fail(f"{call} gave sequence {sid!r} block {t[-1]}, which sequence "
                         f"{held()[t[-1]]!r} still holds: a block went back to the pool "
                         "while held (a double free, or a reference count that reached 0 "
                         "too early)")
                if not moved and t[-1] in others:
                    fail(f"{call} wrote position {n} into block {t[-1]}, which sequence "
                         f"{others[t[-1]]!r} also holds: a shared block written in place "
                         f"changes the other sequence's K/V. Move {sid!r} onto a block of its "
                         "own first (copy-on-write)")
                if row and t[-1] != old[-1]:          # the runner copies the filled rows
                    for r in range(row):
                        cache[t[-1] * bs + r] = cache.get(old[-1] * bs + r)
                if out != t[n // bs] * bs + row:
                    fail(f"{call} returned slot {out}, but table({sid!r}) = {t} puts "
                         f"position {n} in slot {t[n // bs] * bs + row} (block * block_size "
                         "+ position % block_size)")
                v = next(fresh)
                cache[out] = v
                vals[sid].append(v)
                lens[sid] = n + 1
                tables[sid] = list(t)
        elif kind == "fork":
            child = op[2]
            if new[child] != tables[sid]:
                fail(f"{call} gave {child!r} the table {new[child]}; a fork shares the "
                     f"parent's blocks, {tables[sid]}, and takes none")
            tables[child], lens[child], vals[child] = list(new[child]), lens[sid], list(vals[sid])
        elif kind == "free":
            del tables[sid], lens[sid], vals[sid]
        for s in tables:
            if new.get(s) != tables[s]:
                fail(f"{call} changed table({s!r}) from {tables[s]} to {new.get(s)}: an "
                     "operation on one sequence leaves the others' tables alone")
        expect = num_blocks - len(held())
        if nfree < expect:
            fail(f"num_free() is {nfree} after {call}, but {expect} blocks are held by no "
                 "sequence: blocks nobody holds were not given back (a leak)")
        if nfree > expect:
            fail(f"num_free() is {nfree} after {call}, but only {expect} blocks are held by "
                 "no sequence: a block is counted free while a sequence holds it, or twice "
                 "(a double free, or a reference count that reached 0 too early)")
        for s, t in tables.items():
            for p, v in enumerate(vals[s]):
                slot = t[p // bs] * bs + p % bs
                if cache.get(slot) != v:
                    fail(f"{call} left sequence {s!r} reading wrong K/V at position {p} "
                         f"(block {t[p // bs]}): another sequence's token was written there")
        done.append(call)


@exercise_check("ex06_8")
def check_ex06_8(obj, hidden: bool = False) -> None:
    """``obj(num_blocks, block_size)`` builds a pool with ``allocate(seq, n_tokens) -> bool``,
    ``append(seq) -> slot | None``, ``fork(parent, child)``, ``free(seq)``,
    ``table(seq) -> [block, ...]`` and ``num_free() -> int``."""
    if not isinstance(obj, type):
        raise AssertionError(f"{EX}: pass your class BlockPool itself, got {describe(obj)}")
    for num_blocks, bs, ops in _cases(hidden):
        rec = driver(EX, _run, EX, obj, num_blocks, bs, ops)
        _judge(EX, num_blocks, bs, ops, plain(EX, rec, "the record of your pool")["records"])
