# signed messages of the current cell whose content is malformed: a status without its state, an output of the wrong shape, a content that is not JSON
from ipykernel.kernelapp import IPKernelApp
import time

_k = IPKernelApp.instance().kernel
_parent = _k.get_parent("shell")
_k.session.send(_k.iopub_socket, "stream", {"name": "stdout", "text": 12345}, parent=_parent)
_k.session.send(_k.iopub_socket, "display_data", {"data": 7, "metadata": []}, parent=_parent)
_k.session.send(_k.iopub_socket, "status", {"state": "idle"}, parent=_parent)
_k.session.send(_k.iopub_socket, "execute_result", b"\x80not json at all", parent=_parent)
time.sleep(0.5)
kc08_01 = "z"
