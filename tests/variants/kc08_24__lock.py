# A wrong answer to kc08_24: the graded check must reject it.
kc08_24 = 'an asyncio Lock'
