"""The knobs of ``labsupport bench peers`` (``PeersConfig``) and the loads they make."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ...batching.config import BatchConfig
from ...costs import ServiceModel
from ...serving.ops.loadgen import schedule
from ...validate import check_float, check_int

PEERS = ("lab_inprocess", "lab_http", "pytriton", "ray_serve")
# Where the bench's knobs differ from BatchConfig's defaults: no request turned away while
# a system is pushed to saturation; an interactive p99 target for the SLO capacity.
BENCH_KNOBS = {"max_queue": 100_000, "slo_p99_ms": 50.0}


@dataclass
class PeersConfig:
    """One bench run's knobs (ms, req/s, s). ``batch``: the lab's knobs, which every system
    runs: ``max_batch`` (Ray's and Triton's ``max_batch_size``), the window each peer gets
    (``serving.ops.exporter.peer_window_us``: the exported delay, 0 where the lab's policy
    does not wait, as ``work_conserving``), ``max_queue`` (high: the bench counts no 429s)
    and ``slo_p99_ms``, the p99 latency the SLO capacity must keep; ``model``: the toy model
    every system runs (ideal 2807/s)."""
    batch: BatchConfig = field(default_factory=lambda: BatchConfig(**BENCH_KNOBS))
    model: ServiceModel = field(default_factory=ServiceModel)
    light_rps: float = 20.0     # light load: ~10 % busy, so each request mostly rides alone
    light_n: int = 100          # 5 s of light load: a stable median
    sat_concurrency: tuple[int, ...] = (32, 64, 128)  # in flight at saturation (1-4 batches): each system's best counts
    sat_seconds: float = 2.0    # of closed-loop load per concurrency and system
    probe_seconds: float = 2.0  # of Poisson load per SLO probe
    probe_steps: int = 6        # bisection steps: the rate to within 1/64 of saturation
    timeout_s: float = 15.0     # per request: a system that stalls is cut off, not waited
    seed: int = 0

    def __post_init__(self):
        check_float("light_rps", self.light_rps, 0.1, 1000.0)
        check_int("light_n", self.light_n, 5, 10_000)
        if not self.sat_concurrency:
            raise ValueError("sat_concurrency must list one or more in-flight counts")
        self.sat_concurrency = tuple(check_int("sat_concurrency", c, 1, 4096)
                                     for c in self.sat_concurrency)
        check_float("sat_seconds", self.sat_seconds, 0.2, 60.0)
        check_float("probe_seconds", self.probe_seconds, 0.2, 60.0)
        check_int("probe_steps", self.probe_steps, 1, 20)
        check_float("timeout_s", self.timeout_s, 1.0, 120.0)

    @property
    def ideal_rps(self) -> float:
        return self.model.capacity(self.batch.max_batch)

    def light(self):
        return schedule("poisson", self.light_rps, self.light_n, seed=self.seed,
                        min_tokens=8, max_tokens=8)

    def saturation(self):
        """Enough requests for ``sat_seconds`` at 1.5× the ideal rate (the time bound ends it)."""
        n = int(1.5 * self.ideal_rps * self.sat_seconds) + max(self.sat_concurrency)
        return schedule("poisson", self.ideal_rps, n, seed=self.seed + 1, min_tokens=8,
                        max_tokens=8)

    def probe(self, rate: float, step: int):
        n = max(20, int(rate * self.probe_seconds))
        return schedule("poisson", rate, n, seed=self.seed + 10 + step, min_tokens=8,
                        max_tokens=8)


def config_json(cfg: PeersConfig) -> dict:
    """The run's knobs as one flat JSON object (the plot and notebook 07 read it)."""
    rest = {k: v for k, v in asdict(cfg).items() if k not in ("batch", "model")}
    return {**cfg.batch.to_dict(), **asdict(cfg.model), **rest,
            "ideal_rps": round(cfg.ideal_rps, 1), "service_1_ms": cfg.model.cost(1)}
