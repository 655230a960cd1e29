"""Clean shutdown: in-flight requests finish, and the service (and a background load) stop
when their owner stops — normally (atexit / finalizer) or killed outright."""
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from labsupport.costs import ServiceModel
from labsupport.serving.ops.launcher import start_service
from svc_helpers import gone, refused

pytestmark = pytest.mark.timeout(90)


def test_stop_drains_in_flight_requests():
    svc = start_service("fake", max_batch=3, fake=ServiceModel(1000.0, 0.0))
    with ThreadPoolExecutor(6) as pool:
        futs = [pool.submit(httpx.post, svc.url + "/embed", json={"input": f"t {i}"},
                            timeout=20) for i in range(6)]
        deadline = time.monotonic() + 10
        while True:  # all six accepted, some still waiting for their batch
            busy, done = svc.get("/healthz")["in_flight"], svc.stats()["totals"]["ok"]
            if busy > 0 and busy + done == 6:
                break
            assert time.monotonic() < deadline, "requests never reached the service"
            time.sleep(0.01)
        svc.stop()
        codes = [f.result().status_code for f in futs]
    assert codes == [200] * 6  # accepted before the stop → answered, none lost
    assert not svc.running and refused(svc.url)


CHILD = textwrap.dedent("""
    import sys, time
    from labsupport.serving.ops.launcher import start_service
    from labsupport.serving.ops.launcher import start_load
    svc = start_service("fake")
    load = start_load(svc.url, rate=50, n=10000, duration_s=60)
    print(svc.proc.pid, load.proc.pid, svc.url, flush=True)
    if sys.argv[1] == "hang":
        time.sleep(600)
""")


@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_background_service_and_load_stop_with_their_owner(tmp_path, how):
    """A notebook kernel that exits normally (atexit) or is killed (SIGKILL: no atexit;
    the children notice their parent is gone) leaves no service or load behind."""
    script = tmp_path / "owner.py"
    script.write_text(CHILD)
    owner = subprocess.Popen([sys.executable, str(script), "hang" if how == "sigkill" else "x"],
                             stdout=subprocess.PIPE, text=True)
    svc_pid, load_pid, url = owner.stdout.readline().split()
    if how == "sigkill":
        time.sleep(0.5)
        owner.send_signal(signal.SIGKILL)
    owner.wait(30)
    assert gone(int(svc_pid), 10) and gone(int(load_pid), 10)
    assert refused(url)
