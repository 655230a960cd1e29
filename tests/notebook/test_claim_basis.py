"""Issue 31, item 2: every claim of 00-07 passes the basis of its evidence (checked in
source, fast), and 06's claims simulated on its step fit say "On the reference machine's
costs" exactly when ``checked_step_fit`` fell back (the cells that fit and simulate, run on
given step timings, no real decode run; ``test_solutions`` checks the same on whole slow
runs)."""
import ast
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import nbformat
import pytest

from labsupport.decoder.engine import StepRecord
from labsupport.decoder.stepsim import StepCost
from labsupport.notebook import claims
from labsupport.notebook.claims import HEADS
from test_solutions import EXPECTED, ON_THE_FIT, ON_THE_ROOFLINE, expected_basis

matplotlib.use("Agg")
NB06 = Path(__file__).resolve().parents[2] / "solutions/06_continuous_decoder/06_continuous_decoder.ipynb"
# the cells of 06 that fit the step cost and state conclusions on it, in notebook order
MARKERS = ["from labsupport.notebook.claims import", "checked_step_fit(steps)", "speedup_fn =",
           "step_slo(good_back.steps", "best = lab_pick(rows"]


def _steps(fall_back: bool) -> list[StepRecord]:
    """Decode step timings a known StepCost explains; with ``fall_back`` the bigger steps are
    timed faster (noise the fit's monotonic check rejects)."""
    true = StepCost(fixed_ms=1.0, per_seq_ms=0.2, per_token_ms=0.05, per_kv_ms=0.0)
    clean = [StepRecord(start=0.0, ms=true.cost(s, t), tokens=t, rows=[], waiting=0, seqs=s)
             for s in (1, 2, 4, 8) for t in (s, 4 * s, 16 * s)] * 3
    if not fall_back:
        return clean
    by_size = sorted(clean, key=lambda st: true.cost(st.seqs, st.tokens))
    return [replace(st, ms=m) for st, m in zip(by_size, sorted((st.ms for st in clean),
                                                               reverse=True))]


def _cells() -> list[str]:
    sources = [c.source for c in nbformat.read(NB06, as_version=4).cells if c.cell_type == "code"]
    picked = []
    for marker in MARKERS:
        hits = [s for s in sources if marker in s]
        assert len(hits) == 1, f"06 has {len(hits)} cells with {marker!r}: update MARKERS"
        picked.append("\n".join(line for line in hits[0].splitlines()
                                if not line.startswith("%")))   # no IPython magics
    return picked


@pytest.mark.parametrize("fall_back", [False, True], ids=["fitted", "fell_back"])
def test_step_fit_claims_say_their_basis(fall_back, monkeypatch):
    shown = []
    monkeypatch.setattr(claims, "_show", lambda md, record: shown.append((md, record)))
    monkeypatch.setattr("matplotlib.pyplot.show", lambda *a, **k: None)
    imports, *rest = _cells()
    ns = {}
    exec(imports.split("torch.set_num_threads")[0], ns)   # the imports, not the model's run
    ns["runs"] = {"continuous": SimpleNamespace(steps=_steps(fall_back)),
                  "request": SimpleNamespace(steps=[])}
    for source in rest:
        exec(source, ns)
    assert ("shipped coefficients" in ns["cost_note"]) == fall_back, ns["cost_note"]
    names = {record["name"] for _, record in shown}
    assert names == (ON_THE_FIT | ON_THE_ROOFLINE) & EXPECTED["06_continuous_decoder"]
    for md, record in shown:
        basis = expected_basis(record["name"], fall_back)
        assert record["basis"] == basis, record
        yes, no = HEADS[basis]
        assert md.startswith(f"**{yes if record['holds'] else no}:**"), md
        assert basis == "run" or "this run" not in md.split(":**")[0], md


def _claim_calls(path: Path):
    """(name, basis argument) of every ``claim(...)`` in a notebook's code: the basis as
    ``"run"`` when not passed, its string, or ``("variable", name)``; and the variables the
    notebook binds to ``basis_of(...)``."""
    calls, from_fit = [], set()
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        source = "\n".join(line for line in cell.source.splitlines()
                           if not line.lstrip().startswith(("%", "!")))
        tree = compile(source, path.name, "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and getattr(node.value.func, "id", "") == "basis_of":
                from_fit |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "claim":
                basis = next((k.value for k in node.keywords if k.arg == "basis"), None)
                shown = ("run" if basis is None else basis.value if isinstance(basis, ast.Constant)
                         else ("variable", basis.id))
                calls.append((node.args[0].value, shown))
    return calls, from_fit


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_claim_passes_its_basis(name):
    """00-07 in source: a claim on a fit passes the basis of that fit (``basis_of``), a
    roofline claim passes "roofline", a measured one passes nothing (``"run"``)."""
    calls, from_fit = _claim_calls(NB06.parents[1] / name / f"{name}.ipynb")
    assert {n for n, _ in calls} == EXPECTED[name]
    for claim_name, shown in calls:
        if claim_name in ON_THE_FIT:
            assert shown in {("variable", v) for v in from_fit}, (claim_name, shown)
        else:
            assert shown == expected_basis(claim_name, fell_back=False), (claim_name, shown)
