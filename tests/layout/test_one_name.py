"""One name, one meaning (issue 9, item 6): the names that meant two things are defined once;
the second meaning has its own name, and the old spelling stays as an alias of it."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "labsupport"
ONCE = ("utilisation", "timed", "load_model", "summarize", "simulate", "Sequence")


def _defined(name: str) -> list[str]:
    return [str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
            for node in ast.parse(p.read_text()).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.name == name]


@pytest.mark.parametrize("name", ONCE)
def test_each_name_is_defined_once(name):
    assert len(_defined(name)) <= 1, f"{name} is defined in {_defined(name)}: rename one"


def test_old_spellings_are_aliases_of_the_new_names():
    from labsupport import device, queueing
    from labsupport.decoder import DecodeSequence, Sequence, metrics, runner, stepsim
    from labsupport.sim import scenarios
    pairs = [(Sequence, DecodeSequence), (metrics.summarize, metrics.summarize_decode),
             (stepsim.simulate, stepsim.simulate_steps), (runner.load_model, runner.load_decoder),
             (queueing.utilisation, queueing.offered_load), (device.timed, device.sync_timer),
             (scenarios.timed, scenarios.virtual_model)]
    for old, new in pairs:
        assert old is new, f"{old} should be an alias of {new}"
    import labsupport
    assert labsupport.summarize is not metrics.summarize_decode
    assert labsupport.simulate is not stepsim.simulate_steps
