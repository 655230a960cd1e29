# end the answer cell early: a forged execute_reply "ok" for it on the kernel's own shell socket, and no idle, while the cell goes on for 10 s
from ipykernel.kernelapp import IPKernelApp
import time

_k = IPKernelApp.instance().kernel
_stream = (_k.shell_channel_thread.manager.get_subshell_to_shell_channel_socket(None)
           if _k._supports_kernel_subshells else _k.shell_stream)
_k.session.send(_stream, "execute_reply", {"status": "ok", "execution_count": 1,
                                           "user_expressions": {}, "payload": []},
                _k.get_parent("shell"), ident=_k._parent_ident["shell"])
time.sleep(10)
kc08_01 = "z"
