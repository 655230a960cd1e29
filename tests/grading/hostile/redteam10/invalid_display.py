# a wrong schedule_step whose answer cell, in the kernel, displays an output the notebook format does not allow (text/plain as a number): with nbconvert's schema check moved to after the last step, does the notebook slip through to the gradebook, fail the whole job, or stop only that kernel?
# target: ex06_1
# others: honest
try:
    display({"text/plain": 5, "application/x-rt10": [1, 2]}, raw=True)
except NameError:  # the judge's child has no display: nothing to forge there
    pass


def schedule_step(running, waiting, max_seqs, decode):
    """Admits nobody, decodes nobody: wrong."""
    return []
