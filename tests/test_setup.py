"""The set-up itself: pins agree, the CLI answers, the doctor is honest."""
import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^\s*-?\s*([A-Za-z0-9_.\-]+)==([^\s#]+)")


def pins(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        m = PIN.match(line)
        if m:
            out[m.group(1).lower()] = m.group(2)
    return out


def test_environment_yml_matches_pip_pins():
    pip = {**pins(ROOT / "requirements.txt"), **pins(ROOT / "requirements-test.txt")}
    conda = pins(ROOT / "environment.yml")
    assert pip and conda == pip, f"environment.yml and requirements*.txt disagree: " \
        f"{set(conda.items()) ^ set(pip.items())}"


def test_installed_versions_are_the_pinned_ones():
    for name, version in pins(ROOT / "requirements.txt").items():
        assert metadata.version(name).split("+")[0] == version, name


def cli(*args):
    return subprocess.run([sys.executable, "-m", "labsupport.cli", *args],
                          capture_output=True, text=True, timeout=120)


def test_doctor_reports_json():
    r = cli("doctor", "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == (1 if rep["problems"] else 0)
    assert rep["versions"]["torch"].startswith("2.13.0") and rep["device"] in ("cpu", "cuda")


def test_cli_rejects_unknown_commands():
    assert cli("frobnicate").returncode == 2
    assert cli("bench", "nothing").returncode == 2
    assert "doctor" in cli("--help").stdout


def test_bench_batcher_quick_prints_json():
    r = cli("bench", "batcher", "--quick")
    out = json.loads(r.stdout)
    assert r.returncode == 0
    sat = out["saturation_fraction"]
    # side by side in one run: the lesson's window loses throughput, work-conserving doesn't
    assert sat["work_conserving"] > sat["window"] > sat["naive"]
    assert out["idle_latency_ms"]["window"] > out["idle_latency_ms"]["work_conserving"] + 10
