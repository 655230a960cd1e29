"""The probe alone, in a real judge box (namespaces, uid 68590+, the child's filter): the answer
cell (probe_cell.py) maps test_typing.py (a 16-page mapping, then seven 2-page ones), touches
their first page and returns /proc/self/smaps' Rss of each: 8 kB = the second page is cached
(fault-around maps only cached pages), 4 kB = it is not. /proc/self/pagemap is refused (the
child is not dumpable); smaps is not. As root, from the repository root:

    .venv/bin/python tests/grading/hostile/redteam12/repro/probe_in_box.py
"""
import sys, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
import adapters
from labgrader import trusted, cellcode
from labgrader.sandbox import Sandbox
src = open(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).with_name("probe_cell.py"))).read()
ex = "ex06_2"
name = adapters.target_name(ex)
test = f"check_{ex}({name})\ncheck_{ex}({name}, hidden=True)\n"
item = trusted.Item(f"{ex}_test", cellcode.python_source(src), test)
tmp = Path(tempfile.mkdtemp())
box = Sandbox(mode="namespaces", uid_base=68590).open(Path(__file__).resolve().parents[5], judge=True)
try:
    out = trusted.run_items([item], timeout_s=60, run=box.run)
finally:
    print("events", box.close())
print(out)
