"""Markdown tables for notebook cells: ``display(Markdown(md_table(rows)))``."""
from __future__ import annotations


def md_table(rows, digits: int = 1) -> str:
    """A Markdown table of a list of dicts (or of one dict as name/value rows); numbers
    rounded to ``digits``; None/NaN shown as –."""
    if isinstance(rows, dict):
        rows = [{"": k, "value": v} for k, v in rows.items()]
    cols = list(dict.fromkeys(k for r in rows for k in r))

    def cell(v) -> str:
        if v is None or (isinstance(v, float) and v != v):
            return "–"
        if isinstance(v, float):
            return f"{v:.{digits}f}"
        return str(v).replace("|", "\\|")
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines)
