"""Notebook 07's classroom demo: the live ``dashboard``, the replicas lesson
(``replica_lesson``) and the RAG pipeline (``rag``, ``rag_docs``)."""
