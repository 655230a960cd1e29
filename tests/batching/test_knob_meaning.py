"""The bucketed policy's ``max_delay_ms`` is an ageing threshold, not a wait: every surface
says so (issue 10, item 7) — BatchConfig, ``labsupport serve``/``export`` help, the explorer."""
import pytest

from labsupport.batching.config import DELAY_HELP, DELAY_MEANING, BatchConfig
from labsupport.batching.registry import POLICIES


def test_every_policy_says_what_max_delay_ms_means():
    assert set(POLICIES) == set(DELAY_MEANING)
    assert DELAY_MEANING["bucketed"].startswith("an ageing threshold, not a wait")
    assert DELAY_MEANING["window"].startswith("a wait")
    assert "ageing threshold, not a wait" in BatchConfig.__doc__


@pytest.mark.parametrize("module", ["labsupport.serving.ops.serve", "labsupport.serving.ops.exporter"])
def test_cli_help_says_ageing_threshold(module):
    from importlib import import_module
    parser = import_module(module)._parser()
    (act,) = [a for a in parser._actions if "--max-delay-ms" in a.option_strings]
    assert act.help == DELAY_HELP and "ageing threshold, not a wait" in act.help


def test_explorer_slider_and_note_name_the_meaning():
    pytest.importorskip("ipywidgets")
    from labsupport.notebook.explorer import BatchingExplorer
    ex = BatchingExplorer(n=200, policy="bucketed")
    assert "ageing threshold" in ex.max_delay_ms.tooltip
    assert "ageing threshold, not a wait" in ex.delay_note.value
    ex.policy.value = "window"
    assert DELAY_MEANING["window"] in ex.delay_note.value
