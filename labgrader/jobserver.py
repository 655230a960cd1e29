"""What the job server (``multiprocessing``'s forkserver, ``parallel._context``) does once,
before it forks any grading job: import nbgrader's pipeline (~3 s of CPU a job otherwise:
with a class of 30 × 8 notebooks, minutes on a 2-core machine), read the installed kernel
provisioners (jupyter_client scans every installed package's entry points for them, ~0.14 s
a job), set up the gradebook's object mapping (SQLAlchemy's ``configure_mappers``, ~0.05 s
a job), compile nbformat's notebook schema (each read and write validates: ~65 ms a job) and read the lab's sources for the audit and the copy review (``references``: every
re-export in the package, ~0.5 s a job; ``similarity.reference_sources``), which are sealed
while grading (``seal``). Nothing of a student's is in its memory: it forks jobs, never
runs one."""
import nbgrader.api  # noqa: F401 - the gradebook's tables, mapped below
from jupyter_client.provisioning import KernelProvisionerFactory
from sqlalchemy.orm import configure_mappers

import IPython.core.inputtransformer2  # noqa: F401 - each answer cell's magics (cellcode)
import nbformat.v4
import nbformat.validator
import labgrader.course  # noqa: F401
import labgrader.pipeline  # noqa: F401
import nbclient  # noqa: F401
import nbgrader.apps  # noqa: F401
import nbgrader.converters  # noqa: F401
from labgrader import references, similarity
from labsupport.exercises.registry import EXERCISES

KernelProvisionerFactory.instance()  # each job's kernel manager asks for this one
configure_mappers()  # at a job's first gradebook query otherwise
for _relaxed in (False, True):  # reads and writes; nbconvert's check after the pipeline
    nbformat.validator.get_validator(4, nbformat.v4.nbformat_minor, relax_add_props=_relaxed)
references.aliases()
for _ex in EXERCISES:
    similarity.reference_sources(_ex)
