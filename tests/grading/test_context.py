"""What the trusted pass changes in the checks is one object (``guard.CONTEXT``, a frozen
``GradingContext`` swapped whole): the checks read it, ``grading`` restores it, and a
student's change of it — swapped, or a field forced with ``object.__setattr__`` — shows in
the trusted pass's fingerprint."""
import dataclasses

import pytest

from labgrader import fingerprint as fp
from labsupport.exercises import guard

GUARD = "labsupport.exercises.guard"


def test_grading_swaps_the_context_and_restores_it():
    outside = guard.CONTEXT
    with guard.grading(secret="s1") as ctx:
        assert guard.CONTEXT is ctx and ctx.secret == "s1" and ctx.tape is None
        with guard.grading(watch=None, secret="s2"):
            assert guard.CONTEXT.secret == "s2"
        assert guard.CONTEXT is ctx
    assert guard.CONTEXT is outside
    with pytest.raises(dataclasses.FrozenInstanceError):
        guard.CONTEXT.secret = "mine"
    with pytest.raises(TypeError):
        guard.set_grading(seed="not a field")


def test_the_hidden_cases_follow_the_contexts_secret(monkeypatch):
    monkeypatch.delenv(guard.GRADER_SEED_ENV, raising=False)
    with guard.grading(secret="one"):
        a = guard.case_rng("ex03_2", hidden=True).integers(1 << 30, size=4).tolist()
        monkeypatch.setenv(guard.GRADER_SEED_ENV, "a seed a cell chose")  # the context wins
        assert guard.case_rng("ex03_2", hidden=True).integers(1 << 30, size=4).tolist() == a
    with guard.grading(secret="two"):
        assert guard.case_rng("ex03_2", hidden=True).integers(1 << 30, size=4).tolist() != a


@pytest.mark.parametrize("how", ["swapped", "forced"])
def test_a_changed_context_shows_in_the_fingerprint(how):
    with guard.grading(secret="the run's"):
        full = fp.fingerprint()
        if how == "swapped":
            guard.set_grading(secret="mine")
        else:
            object.__setattr__(guard.CONTEXT, "secret", "mine")
        assert f"{GUARD}.CONTEXT" in fp.changed(full, fp.fingerprint())


def test_a_reused_fingerprint_reads_again_what_changed_since(monkeypatch):
    """``fingerprint(reuse=…)`` (an item's "before", from its template's): equal to a full one
    when nothing changed; a module named in ``again``, a module imported since (and each
    package above it) and a module replaced in ``sys.modules`` are read again."""
    import sys
    import types
    base = fp.fingerprint()
    assert fp.fingerprint(reuse=base) == fp.fingerprint()
    with guard.grading(secret="set-up"):  # what a child's set-up changes
        assert f"{GUARD}.CONTEXT" in fp.changed(fp.fingerprint(reuse=base), fp.fingerprint())
        assert fp.fingerprint(reuse=base, again=(GUARD,)) == fp.fingerprint()
    fake = types.ModuleType("labsupport._fp_probe")
    monkeypatch.setitem(sys.modules, "labsupport._fp_probe", fake)
    monkeypatch.setattr(sys.modules["labsupport"], "_fp_probe", fake, raising=False)
    assert fp.fingerprint(reuse=base) == fp.fingerprint()  # new module, its package again
    other = types.ModuleType(GUARD)
    other.__dict__.update(vars(guard))
    monkeypatch.setitem(sys.modules, GUARD, other)
    assert fp.fingerprint(reuse=base) == fp.fingerprint()  # a replaced module: read again


def test_a_fingerprint_runs_no_code_of_the_objects_it_reads(monkeypatch):
    """Kinds by exact type, dicts read with ``dict``'s own methods (redteam9): a student's
    object in a protected module (a ``__class__`` property, a dict whose ``items`` is its
    own, a list that iterates itself) is compared by identity, never asked anything."""
    ran = []

    class Sneaky:
        @property
        def __class__(self):
            ran.append("__class__")
            return dict

    class Keys(dict):
        def items(self):
            ran.append("items")
            return super().items()

    class Rows(list):
        def __iter__(self):
            ran.append("iter")
            return super().__iter__()
    class Name(str):
        def __hash__(self):
            ran.append("hash")
            return str.__hash__(self)

        def __eq__(self, other):
            ran.append("eq")
            return str.__eq__(self, other)
    for name, value in (("_fp_sneaky", Sneaky()), ("_fp_keys", Keys(a=1)), ("_fp_rows", Rows([1]))):
        monkeypatch.setattr(guard, name, value, raising=False)
    base = fp.fingerprint()
    monkeypatch.setattr(guard, "_fp_rows", Rows([2]))
    assert fp.changed(base, fp.fingerprint()) == [f"{GUARD}._fp_rows"] and ran == []
    vars(guard)[Name("_fp_named")] = 1
    try:
        ran.clear()  # (setting it hashed it, in the test)
        after = fp.fingerprint()
        assert f"{GUARD}: an attribute named by an object that is not a plain str" in \
            fp.changed(base, after) and ran == []
    finally:
        del vars(guard)["_fp_named"]
