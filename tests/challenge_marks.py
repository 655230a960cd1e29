"""The challenge verdict's marks against its printed numbers (notebook 09's tests)."""
from labsupport.exercises import ex09


def assert_marks_agree(goodput, base, beaten, message):
    """The baselines the verdict marks beaten agree with its printed numbers, up to their
    rounding (2 decimals): marked ones are not clearly ahead, unmarked ones not clearly
    behind."""
    slack = 0.005 * (1 + ex09.MARGIN)
    for n, g in base.items():
        if n in beaten:
            assert goodput > ex09.MARGIN * g - slack, (n, message)
        else:
            assert goodput <= ex09.MARGIN * g + slack, (n, message)
