"""Notebook-side helpers: matplotlib ``plots`` and the ``explorer`` widget."""
