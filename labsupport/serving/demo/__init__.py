"""Notebook 07's classroom demo: the live ``dashboard`` (its widgets bound to it in
``dashboard_widgets``, its figure, readout and layout in ``dashboard_view``, slider bursts
folded by ``debounce``), clean measurements of the live
service (``measure``), the replicas lesson (``replica_lesson``) and the RAG pipeline
(``rag``, ``rag_docs``)."""
