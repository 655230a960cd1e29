"""The live service, in parts ordered ``net`` ← ``api`` ← ``ops`` ← ``demo`` (each imports
only itself, the parts before it and the layers below; tests/layout/test_layers.py):

- ``api/``: one embedding service over HTTP: ``app`` (FastAPI), ``service``
  (``EmbeddingService``: model + ``MicroBatcher`` + metrics + live config), ``encoders``,
  ``embed_core`` (the one embed path), ``tei_api``, ``openai_api``, ``stats``;
- ``ops/``: running services: ``serve`` (``labsupport serve``), ``launcher``
  (``start_service``, ``start_load``), ``steady`` (a load until stopped, pausable),
  ``procs`` (every child process), ``replicas`` +
  ``router`` + ``upstream`` (N replicas behind a router), ``loadgen`` (``labsupport load``),
  ``exporter`` (``labsupport export``);
- ``demo/``: the classroom's notebook 07: ``dashboard`` (+ ``dashboard_widgets``,
  ``dashboard_view``, ``debounce``), ``measure`` (clean measurements), ``replica_lesson``, ``rag`` and
  ``rag_docs``;
- ``net``: loopback-only URLs and sockets, the ``/config`` client.
"""
