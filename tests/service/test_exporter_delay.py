"""Exporting a work-conserving (or bucketed) service must not turn it into a window that
makes a lone request wait: the exported delay is 0, with a comment saying why."""
import pytest

from labsupport.serving import exporter


@pytest.mark.parametrize("policy", ["work_conserving", "bucketed"])
def test_work_conserving_exports_no_wait(policy):
    k = exporter.Knobs(max_batch=16, max_delay_ms=20.0, policy=policy)
    out = exporter.export(k)
    assert "max_queue_delay_microseconds: 0  #" in out["triton"]
    assert "batch_timeout_micros { value: 0 }  #" in out["tf_serving"]
    assert "batch_wait_timeout_s=0)" in out["ray_serve"]
    assert "never makes a lone request wait" in out["triton"]


def test_window_exports_its_delay():
    out = exporter.export(exporter.Knobs(max_batch=16, max_delay_ms=20.0, policy="window"))
    assert "max_queue_delay_microseconds: 20000\n" in out["triton"]
    assert "batch_wait_timeout_s=0.02)" in out["ray_serve"]


def test_bad_policy_names_the_parameter():
    with pytest.raises(ValueError, match="policy must be one of"):
        exporter.Knobs(policy="fastest")


def test_cli_takes_the_policy(capsys):
    assert exporter.main(["--policy", "work_conserving", "--max-delay-ms", "5",
                          "--system", "triton"]) == 0
    assert "max_queue_delay_microseconds: 0" in capsys.readouterr().out
