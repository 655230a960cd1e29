"""Read the service's ``/metrics`` with prometheus_client's own parser (the lab's one
reader of that text, ``serving.stats.parse_prometheus``)."""
from labsupport.serving.stats import parse_prometheus  # noqa: F401
