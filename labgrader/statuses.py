"""What the sandbox saw, as statuses a trainer reads: from a cell's error (a timeout, a
limit) or from the box (killed, a limit hit), given to the items they cost.
"""
from __future__ import annotations

import json

EVENTS = "labsupport_events"  # resources key: [(cell index or None, what the sandbox saw)]


def _nbg(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def message_size(msg: dict) -> int:
    """Bytes one kernel message adds to the notebook (what the output limit counts)."""
    content = msg.get("content", {})
    if msg.get("msg_type") == "stream":
        return len(content.get("text", ""))
    return len(json.dumps(content, default=str)) + sum(len(b) for b in msg.get("buffers") or [])


# What a cell's error says about a limit: (ename or text in evalue, status)
LIMIT_ERRORS = (("MemoryError", "memory limit (MemoryError)"),
                ("No space left on device", "disk limit (no space left)"),
                ("File too large", "file size limit"),
                ("Resource temporarily unavailable", "process limit (fork failed)"),
                ("DeadKernelError", "the kernel died"))


def cell_events(nb, timeout: float | None) -> list[tuple[int, str]]:
    """(cell index, status) for each cell whose error shows a limit or a timeout."""
    out = []
    for i, cell in enumerate(nb.cells):
        for o in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if o.get("output_type") != "error":
                continue
            if o.get("ename") == "CellTimeoutError":
                out.append((i, f"cell {i + 1} timed out after {timeout:g} s (interrupted)"))
            for key, status in LIMIT_ERRORS:
                if key == o.get("ename") or key in str(o.get("evalue", "")):
                    out.append((i, f"cell {i + 1}: {status}"))
    return out


def event_reviews(nb, events: list) -> dict[str, str]:
    """test grade_id -> the sandbox's statuses for that item. A status of a cell goes to the
    item the cell belongs to; one of the notebook (or of another cell) to every item that
    scored nothing, or to the first item when none did."""
    tests = [c for c in nb.cells if c.cell_type == "code" and _nbg(c).get("grade")
             and not _nbg(c).get("solution")]
    if not tests or not events:
        return {}
    ids = {_nbg(t)["grade_id"] for t in tests}
    zero = [_nbg(t)["grade_id"] for t in tests if any(o.output_type == "error" for o in t.outputs)]
    out: dict[str, list[str]] = {}
    for index, text in events:
        gid = _nbg(nb.cells[index]).get("grade_id") if index is not None else None
        gid = gid if gid in ids else f"{gid}_test" if f"{gid}_test" in ids else None
        for g in [gid] if gid else (zero or [_nbg(tests[0])["grade_id"]]):
            if text not in out.setdefault(g, []):
                out[g].append(text)
    return {g: "sandbox: " + "; ".join(texts) for g, texts in out.items()}
