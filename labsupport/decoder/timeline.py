"""Slots over iterations: who sat in which place of the batch at every step."""
from __future__ import annotations

import numpy as np


def slot_grid(res, first: int = 0, last: int | None = None) -> np.ndarray:
    """``[max_seqs, steps first..last-1]``: sequence id working there, −2 finished but holding
    the place, −1 empty."""
    steps = res.steps[first:last]
    grid = np.full((res.config.max_seqs, len(steps)), -1)
    for j, st in enumerate(steps):
        for slot, sid, fed in st.rows:
            grid[slot, j] = sid if fed > 0 else -2
    return grid


def plot_timeline(res, ax=None, max_steps: int | None = 300, title: str | None = None,
                  first: int = 0):
    """Each row a place in the batch, each column a step (``first`` .. ``first+max_steps``);
    a colour per sequence, grey = finished but still holding its place (request-level),
    white = empty."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    last = None if max_steps is None else first + max_steps
    grid = slot_grid(res, first, last)
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 2.6))
    cmap = plt.get_cmap("tab20")
    rgb = np.ones(grid.shape + (3,))
    work = grid >= 0
    rgb[work] = np.array(cmap((grid[work] * 7) % 20))[:, :3]
    rgb[grid == -2] = (0.55, 0.55, 0.55)
    ax.imshow(rgb, aspect="auto", interpolation="nearest", origin="lower",
              extent=(first - 0.5, first + grid.shape[1] - 0.5, -0.5, grid.shape[0] - 0.5))
    ax.set_xlabel("step (iteration)")
    ax.set_ylabel("place in batch")
    ax.set_title(title or f"{res.config.mode}: slots over iterations")
    ax.legend(handles=[Patch(color=(0.55, 0.55, 0.55), label="finished, still holding place"),
                       Patch(facecolor="white", edgecolor="k", label="empty")],
              loc="upper right", fontsize=7, framealpha=0.9)
    return ax
