"""Notebook-side helpers: matplotlib ``plots``, the ``explorer`` widget (notebook 02), the
``adaptive_view`` (notebook 04), checked ``claims`` and Markdown ``tables``."""
