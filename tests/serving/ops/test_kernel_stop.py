"""Notebook 07's promise: the service, the load and the dashboard started from a kernel
stop when that kernel shuts down — nothing keeps running or holds the port."""
import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from svc_helpers import gone, refused

START = """
import time
from labsupport.serving.ops.launcher import start_service
from labsupport.serving.ops.steady import SteadyLoad
from labsupport.serving.demo.dashboard import Dashboard
svc = start_service("fake")
load = SteadyLoad(svc.url, rate=40)  # the demo load: until stopped
dash = Dashboard(svc.url, interval_s=0.5, load=load)
box = dash.widget()
while load.pid is None:
    time.sleep(0.05)
print(svc.proc.pid, load.pid, svc.url, dash.running)
"""


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_everything_stops_with_the_kernel(tmp_path):
    nb = new_notebook(cells=[new_code_cell(START)])
    client = NotebookClient(nb, timeout=60, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    with client.setup_kernel():
        client.execute_cell(nb.cells[0], 0)
        svc_pid, load_pid, url, polling = nb.cells[0].outputs[-1]["text"].split()
        assert polling == "True" and not refused(url)
    # leaving setup_kernel shuts the kernel down (a normal exit: atexit + finalizers)
    assert gone(int(svc_pid), 15), "the service outlived its kernel"
    assert gone(int(load_pid), 15), "the load generator outlived its kernel"
    assert refused(url)
