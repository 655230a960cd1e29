# A wrong answer to kc08_34 (80 GB taken as 80e9 bytes, not 80 GiB): the graded check must reject it.
kc08_34 = 52
