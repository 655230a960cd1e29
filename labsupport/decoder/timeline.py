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
    _paint(ax, grid, first, (0.55, 0.55, 0.55))
    ax.set_xlabel("step (iteration)")
    ax.set_ylabel("place in batch")
    ax.set_title(title or f"{res.config.mode}: slots over iterations")
    ax.legend(handles=[Patch(color=(0.55, 0.55, 0.55), label="finished, still holding place"),
                       Patch(facecolor="white", edgecolor="k", label="empty")],
              loc="upper right", fontsize=7, framealpha=0.9)
    return ax


def plot_timelines(results: dict, axes=None, first: int = 0):
    """One panel per run (``{title: EngineResult}``), each drawn in full and all on the same
    x range, the length of the *longest* run: a shorter run ends in white space, and a
    longer one is never cut (``sharex`` would let one panel set the range for all)."""
    import matplotlib.pyplot as plt
    if axes is None:
        _, axes = plt.subplots(len(results), 1, figsize=(10, 2.5 * len(results)))
    axes = list(np.atleast_1d(axes))
    longest = max(len(res.steps) for res in results.values())
    for ax, (title, res) in zip(axes, results.items()):
        plot_timeline(res, ax=ax, max_steps=None, title=title, first=first)
        ax.set_xlim(first - 0.5, longest - 0.5)
    return axes


def block_grid(res) -> np.ndarray:
    """``[num_blocks, steps]``: the id of the sequence holding each KV block after each step,
    −1 free, −2 held by more than one sequence (a shared prefix). Needs
    ``Engine(..., record_blocks=True)``."""
    grid = np.full((res.num_blocks, len(res.steps)), -1)
    for j, st in enumerate(res.steps):
        if st.blocks is None:
            raise ValueError("no block tables recorded: run the Engine with record_blocks=True")
        for sid, table in st.blocks:
            for b in table:
                grid[b, j] = sid if grid[b, j] == -1 else -2
    return grid


def plot_blocks(res, ax=None, title: str | None = None):
    """Which sequence holds which KV block, step by step: a colour per sequence, black =
    shared by several (a cached prefix), white = free; a red triangle above a step marks a
    preemption (the victim's colour vanishes there)."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    grid = block_grid(res)
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3))
    _paint(ax, grid, 0, (0.0, 0.0, 0.0))
    hit = [j for j, st in enumerate(res.steps) if st.preempted]
    top = grid.shape[0] - 0.5
    if hit:
        ax.plot(hit, [top] * len(hit), "v", color="red", ms=6, clip_on=False)
    cmap = plt.get_cmap("tab20")
    handles = [Patch(facecolor=cmap(0), label="held by one sequence (a colour each)"),
               Patch(facecolor="black", label="shared by several (cached prefix)"),
               Patch(facecolor="white", edgecolor="k", label="free"),
               Line2D([], [], marker="v", color="red", ls="", label=f"preemption ({len(hit)})")]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7,
              framealpha=0.9)
    ax.set(xlabel="step", ylabel="KV block", title=title or "block table over steps")
    return ax


def _paint(ax, grid: np.ndarray, first: int, special) -> None:
    """Draw a (rows × steps) grid of sequence ids: one colour per id, white where empty
    (-1), ``special`` where -2 (padding for slots, cached-but-free for blocks)."""
    import matplotlib.pyplot as plt
    cmap = plt.get_cmap("tab20")
    rgb = np.ones(grid.shape + (3,))
    used = grid >= 0
    rgb[used] = np.array(cmap((grid[used] * 7) % 20))[:, :3]
    rgb[grid == -2] = special
    ax.imshow(rgb, aspect="auto", interpolation="nearest", origin="lower",
              extent=(first - 0.5, first + grid.shape[1] - 0.5, -0.5, grid.shape[0] - 0.5))
