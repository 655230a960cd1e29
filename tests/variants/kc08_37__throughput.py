# A wrong answer to kc08_37 (throughput counts requests that broke the SLO): the graded check must reject it.
kc08_37 = 'a'
