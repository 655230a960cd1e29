# honest: padding_share with an explicit loop over the batches
# target: ex03_4
def padding_share(lengths, batches):
    """Padding tokens / computed tokens over all batches (0 = no waste)."""
    computed = 0
    useful = 0
    for batch in batches:
        sizes = [lengths[i] for i in batch]
        computed += len(sizes) * max(sizes)
        useful += sum(sizes)
    return (computed - useful) / computed
