"""One embedding service over HTTP: ``app.make_app(service.EmbeddingService(...))``."""
