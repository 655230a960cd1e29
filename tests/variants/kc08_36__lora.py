# A wrong answer to kc08_36 (not a parameter-efficient method: every weight): the graded check must reject it.
kc08_36 = 'LoRA fine-tuning'
