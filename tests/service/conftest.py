"""A fake-model embedding service on 127.0.0.1 (a real uvicorn process), shared per module."""
import pytest

from labsupport.service import start_service
from svc_helpers import FIXED_MS, MAX_BATCH, MAX_QUEUE, PER_ITEM_MS


@pytest.fixture(scope="module")
def service():
    svc = start_service("fake", max_batch=MAX_BATCH, max_delay_ms=5.0, max_queue=MAX_QUEUE,
                        fake_fixed_ms=FIXED_MS, fake_per_item_ms=PER_ITEM_MS, timeout_s=30)
    yield svc
    svc.stop()
