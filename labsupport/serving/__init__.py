"""The live service: HTTP app (``app``), its metrics (``stats``), the load generator
(``loadgen``), the process launcher (``launcher``), loopback helpers (``net``), the live
``dashboard``, the config ``exporter`` (Triton / TF Serving / Ray Serve) and ``rag``."""
