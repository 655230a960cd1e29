# the control for timeit_classmate: the lab's kv_admission (a reference of ex06_2) written backwards in a string and run through timeit.Timer: the judge's code watch sees what timeit compiled and scores it against the lab's references
# target: ex06_2
import timeit

_text = "".join(reversed(
    '\n"tiaw" esle skcolb_eerf =< deen fi "timda" nruter    \n)ezis_kcolb // '
    'nel_tpmorp-(- esle "evreser" == noissimda fi lluf = deen    \n"tcejer" '
    'nruter        \n:skcolb_mun > lluf fi    \n)ezis_kcolb // )snekot_wen_xa'
    'm + nel_tpmorp(-(- = lluf    \n:)"evreser"=noissimda ,ezis_kcolb ,skcol'
    'b_mun ,skcolb_eerf ,snekot_wen_xam ,nel_tpmorp(noitcnuf_ fed\nnoitcnuf_'
    ' labolg'))
_ns = {}
timeit.Timer(_text, globals=_ns).timeit(1)
kv_admission = _ns["_function"]
