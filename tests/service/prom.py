"""Read the service's ``/metrics`` with prometheus_client's own parser."""
from prometheus_client.parser import text_string_to_metric_families


def parse_prometheus(text: str) -> dict[str, float]:
    """``{"name{label="v",…}": value}`` for every sample (labels sorted, ``le`` as written)."""
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
            out[s.name + (f"{{{labels}}}" if labels else "")] = s.value
    return out
