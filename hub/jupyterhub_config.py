"""JupyterHub for the lab on one machine: real Unix users, the nbgrader exchange, 127.0.0.1.

Started by ``make hub`` (as root, after ``hub/course.py setup``). Every setting comes from
``LABHUB_*`` environment variables so the walk-through test can run its own hub:

- ``LABHUB_ROOT``: folder with the hub's state (database, cookie secret) and the exchange;
- ``LABHUB_PORT``: the public port on 127.0.0.1 (the proxy); hub and proxy API take the next two;
- ``LABHUB_USERS``: ``trainer,student1,…`` (the first is the trainer and hub admin);
- ``LABHUB_PASSWORD``: the one password the DummyAuthenticator accepts;
- ``LABHUB_ADMIN_TOKEN``: optional; registers a service ``labhub-admin`` holding that token
  (the test drives users' servers through the hub's REST API with it).

Why DummyAuthenticator + LocalProcessSpawner: PAM needs real passwords and a PAM stack,
which a container rarely has; the DummyAuthenticator accepts one shared password, but only
for the listed users, on loopback. The LocalProcessSpawner still starts each user's server
as that Unix user (setuid), so the exchange's file permissions are the real ones. For a
class on the network use The Littlest JupyterHub and a real authenticator (docs/hub.md).
"""
import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent  # the hub venv: jupyterhub, jupyterhub-singleuser, nbgrader
ROOT = Path(os.environ.get("LABHUB_ROOT", "/srv/labhub"))
PORT = int(os.environ.get("LABHUB_PORT", "8010"))
USERS = [u for u in os.environ.get("LABHUB_USERS", "trainer,student1,student2,student3").split(",") if u]
STATE = ROOT / "state"
STATE.mkdir(parents=True, exist_ok=True, mode=0o700)

c.JupyterHub.bind_url = f"http://127.0.0.1:{PORT}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{PORT + 1}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{PORT + 2}"
c.ConfigurableHTTPProxy.command = [os.environ.get(
    "LABHUB_CHP", str(REPO / ".hub-node" / "node_modules" / ".bin" / "configurable-http-proxy"))]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "cookie_secret")
c.JupyterHub.pid_file = str(STATE / "hub.pid")
c.JupyterHub.cleanup_servers = True  # stopping the hub stops every user's server

c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = os.environ.get("LABHUB_PASSWORD", "change-me")
c.Authenticator.allowed_users = set(USERS)
c.Authenticator.admin_users = set(USERS[:1])

c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [str(VENV_BIN / "jupyterhub-singleuser")]
c.Spawner.notebook_dir = "~"
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 120  # two cores: a cold JupyterLab server takes 5–20 s
c.Spawner.http_timeout = 120
c.Spawner.environment = {
    # nbgrader shells out to alembic, kernels run the venv's python: its bin comes first
    "PATH": f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin",
    "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}

token = os.environ.get("LABHUB_ADMIN_TOKEN")
if token:
    c.JupyterHub.services = [{"name": "labhub-admin", "api_token": token}]
    c.JupyterHub.load_roles = [{
        "name": "labhub-admin",
        "scopes": ["admin:users", "admin:servers", "access:servers", "list:users"],
        "services": ["labhub-admin"],
    }]
