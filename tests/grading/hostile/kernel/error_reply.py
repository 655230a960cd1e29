# a forged execute_reply for the current cell that says "error" but carries neither the error's name nor its traceback, then a forged idle: the client reads a reply it cannot use
from ipykernel.kernelapp import IPKernelApp

_k = IPKernelApp.instance().kernel
_parent, _ident = _k.get_parent("shell"), _k._parent_ident["shell"]
_stream = (_k.shell_channel_thread.manager.get_subshell_to_shell_channel_socket(None)
           if _k._supports_kernel_subshells else _k.shell_stream)
_k.session.send(_stream, "execute_reply", {"status": "error"}, _parent, ident=_ident)
_k.session.send(_k.iopub_socket, "status", {"execution_state": "idle"}, parent=_parent)
kc08_01 = "z"
