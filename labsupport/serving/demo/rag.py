"""The hybrid stack: a tiny retrieval-augmented generation (RAG) pipeline with both kinds
of batching in one request path.

    question ─► gateway MicroBatcher ─► MiniLM bi-encoder (request-level batches)
             ─► cosine top-k over a small document set
             ─► continuous decoder engine (iteration-level batches) ─► answer tokens

The gateway gathers concurrent questions into one encoder call; the generator admits and
retires sequences every decode step. ``RagPipeline.stats()`` shows both batchers side by
side. Every prompt starts with the same system prompt (``SYSTEM_PROMPT``), so with
``prefix_caching`` (the default) its full KV blocks are computed once and shared.

Two TTFTs, measured on the same answers: *end-to-end* (question arrival → first generated
token: gateway queue + embed + retrieve + generator queue + prefill) and *generator-only*
(prompt submitted to the decoder → first generated token). The generator is an untrained GPT-2 built from a seeded config (no download): it
emits token ids, not prose — what this module demonstrates is how the traffic is batched.
"""
from __future__ import annotations

import asyncio
import queue
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ...metrics import percentiles
from ...batching.config import BatchConfig
from ...projector import drawing
from ...batching.runtime import MicroBatcher
from ...validate import check_float, check_int
from .rag_docs import DOCS, SYSTEM_PROMPT

@dataclass
class Answer:
    question: str
    docs: list[str]             # titles of the retrieved passages
    prompt_tokens: int
    output: list[int]           # generated token ids
    embed_ms: float             # question → embedding (gateway queue + encoder)
    ttft_ms: float              # generator-only TTFT: prompt submitted → first generated token
    generate_ms: float          # prompt submitted → last generated token
    total_ms: float             # question arrival → last generated token
    e2e_ttft_ms: float = float("nan")  # end-to-end TTFT: question arrival → first token


class ContinuousGenerator:
    """The decoder ``Engine`` stepping in its own thread; ``await generate(prompt, n)``
    from any asyncio loop. New prompts join at the next step; finished ones leave."""

    def __init__(self, engine):
        self.engine = engine
        self._inbox: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._first: dict[int, tuple] = {}
        self.rows_per_step: list[int] = []       # sequences fed per step
        self.step_ms: list[float] = []
        self.step_t: list[float] = []            # wall time (monotonic s) of each step
        self.tokens = 0
        self.finished = 0
        self.prompt_tokens = 0                   # prompt tokens submitted
        self.fed_tokens = 0                      # tokens the model computed (all steps)
        self.error: Exception | None = None
        self._thread = threading.Thread(target=self._loop, name="generator", daemon=True)
        self._thread.start()

    async def generate(self, prompt: list[int], max_new_tokens: int,
                       submitted: float | None = None) -> tuple[list[int], float]:
        """Generated ids and the time to first token (ms) for one prompt, from ``submitted``
        (a ``time.perf_counter()`` value; default: now)."""
        if self.error is not None or self._stop.is_set():
            raise RuntimeError(f"generator stopped ({self.error!r}); make a new pipeline")
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        t0 = time.perf_counter() if submitted is None else submitted
        self._inbox.put((list(prompt), int(max_new_tokens), loop, fut, t0))
        return await fut

    def _loop(self) -> None:
        eng, waiting = self.engine, {}
        while not self._stop.is_set():
            try:  # block only when the engine is idle
                items = [self._inbox.get(timeout=0.05 if not eng.has_work() else 0)]
            except queue.Empty:
                items = []
            while True:
                try:
                    items.append(self._inbox.get_nowait())
                except queue.Empty:
                    break
            for prompt, n, loop, fut, t0 in items:
                try:
                    seq = eng.add(prompt, n)
                except ValueError as exc:  # RequestTooLong: fail this request only
                    loop.call_soon_threadsafe(_set, fut, exc, True)
                    continue
                waiting[seq.id] = (loop, fut, t0, None)
                self.prompt_tokens += len(prompt)
            if not eng.has_work():
                continue
            t, before = time.perf_counter(), len(eng.steps)
            try:
                done = eng.step()
            except Exception as exc:  # engine state unknown: fail everyone, never hang
                for loop, fut, *_ in waiting.values():
                    loop.call_soon_threadsafe(_set, fut, exc, True)
                self._stop.set()
                self.error = exc
                break
            if len(eng.steps) == before:  # nothing could run this time
                continue
            self.step_ms.append((time.perf_counter() - t) * 1000.0)
            self.step_t.append(time.monotonic())
            self.rows_per_step.append(sum(1 for r in eng.steps[-1].rows if r[2] > 0))
            self.fed_tokens += eng.steps[-1].tokens
            now = time.perf_counter()
            for sid, (loop, fut, t0, first) in list(waiting.items()):
                if first is None and sid in self._running_with_output():
                    waiting[sid] = (loop, fut, t0, now)
            for seq in done:
                loop, fut, t0, first = waiting.pop(seq.id)
                self.tokens += len(seq.output)
                self.finished += 1
                ttft = ((first or now) - t0) * 1000.0
                loop.call_soon_threadsafe(_set, fut, (list(seq.output), ttft), False)

    def _running_with_output(self) -> set[int]:
        return {s.id for s in self.engine.sched.running if s.output}

    def stats(self) -> dict:
        rows = np.asarray(self.rows_per_step)
        busy_s = sum(self.step_ms) / 1000.0
        # every generated token but each sequence's last is fed back once as a decode token
        decode_fed, kv = self.tokens - self.finished, self.engine.sched.kv
        return {"kind": "continuous (iteration-level)", "steps": int(len(rows)),
                "mean_rows_per_step": float(rows.mean()) if len(rows) else 0.0,
                "max_rows_per_step": int(rows.max()) if len(rows) else 0,
                "max_seqs": self.engine.cfg.max_seqs, "tokens": self.tokens,
                "tokens_per_busy_s": self.tokens / busy_s if busy_s else 0.0,
                "prefix_caching": bool(self.engine.cfg.prefix_caching),
                "prompt_tokens": self.prompt_tokens,
                "prefix_hit_blocks": int(kv.hit_tokens) // kv.block_size,
                "prefix_hit_tokens": int(kv.hit_tokens),   # = prefill tokens saved
                "prefill_tokens_fed": self.fed_tokens - decode_fed,
                "prefill_saved": kv.hit_tokens / self.prompt_tokens if self.prompt_tokens else 0.0}

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)


def _set(fut: asyncio.Future, value, is_exc: bool) -> None:
    if not fut.done():
        fut.set_exception(value) if is_exc else fut.set_result(value)


@dataclass
class RagPipeline:
    """Gateway micro-batcher + encoder + retrieval + continuous generator.

    ``encoder``: anything with ``embed(list[str])`` and ``tokenizer`` (default: MiniLM via
    ``labsupport.encoder.load_encoder``); ``engine``: a ``labsupport.decoder.Engine``
    (default: tiny GPT-2, ``max_seqs`` sequences); ``batch``: the gateway's ``BatchConfig``."""
    encoder: object = None
    engine: object = None
    # gateway: 16 questions per encoder call (a classroom's burst), the lab's default policy
    batch: BatchConfig = field(default_factory=lambda: BatchConfig(max_batch=16))
    max_seqs: int = 8            # generator: sequences decoded together
    top_k: int = 2
    prefix_caching: bool = True  # generator: every prompt shares SYSTEM_PROMPT's KV blocks
    system_prompt: str = SYSTEM_PROMPT
    docs: list = field(default_factory=lambda: list(DOCS))

    def __post_init__(self):
        check_int("top_k", self.top_k, 1, len(self.docs))
        if self.encoder is None:
            from ...encoder.model import load_encoder
            self.encoder = load_encoder()
        if self.engine is None:
            from ...decoder import Engine, ModelRunner, SchedulerConfig
            self.engine = Engine(ModelRunner(), SchedulerConfig(
                max_seqs=self.max_seqs, kv_budget_tokens=max(4096, 512 * self.max_seqs),
                prefix_caching=bool(self.prefix_caching)))
        model = getattr(self.engine.runner, "model", None)
        self.vocab = int(model.config.vocab_size) if model is not None else 1000
        self.prefix = self._ids(self.system_prompt) if self.system_prompt else []
        self.doc_vecs = np.asarray(self.encoder.embed([t for _, t in self.docs]))
        self.gateway: MicroBatcher | None = None
        self.generator = ContinuousGenerator(self.engine)
        self.gateway_batches: list[int] = []
        self.gateway_t: list[float] = []

    def _embed(self, questions: list[str]) -> list:
        self.gateway_batches.append(len(questions))
        self.gateway_t.append(time.monotonic())
        return list(np.asarray(self.encoder.embed(questions)))

    def retrieve(self, vec: np.ndarray) -> list[int]:
        return list(np.argsort(-(self.doc_vecs @ vec))[:self.top_k])

    def prompt_ids(self, question: str, doc_ids: list[int]) -> list[int]:
        """The generator's prompt: the system prompt (tokenized once, the same ids for every
        question), passages, then the question, as encoder token ids folded into the small
        decoder's vocabulary (an untrained model has no tokenizer of its own). At most 256
        tokens: a long body loses its start, never the shared prefix."""
        text = " ".join(self.docs[d][1] for d in doc_ids) + " question: " + question
        return self.prefix + self._ids(text)[-max(256 - len(self.prefix), 1):]

    def _ids(self, text: str) -> list[int]:
        ids = self.encoder.tokenizer(text, add_special_tokens=False)["input_ids"]
        return [i % self.vocab for i in ids]

    async def answer(self, question: str, max_new_tokens: int = 16) -> Answer:
        t0 = time.perf_counter()
        if self.gateway is None:
            self.gateway = MicroBatcher(self._embed, self.batch)
        vec = await self.gateway.submit(question)
        t1 = time.perf_counter()
        doc_ids = self.retrieve(vec)
        prompt = self.prompt_ids(question, doc_ids)
        ts = time.perf_counter()
        out, ttft = await self.generator.generate(prompt, max_new_tokens, submitted=ts)
        t2 = time.perf_counter()
        return Answer(question, [self.docs[d][0] for d in doc_ids], len(prompt), out,
                      (t1 - t0) * 1000, ttft, (t2 - ts) * 1000, (t2 - t0) * 1000,
                      e2e_ttft_ms=(ts - t0) * 1000 + ttft)

    async def run(self, questions: list[str], *, rate_per_s: float = 20.0, seed: int = 0,
                  min_new: int = 4, max_new: int = 32) -> list[Answer]:
        """Ask ``questions`` open loop (Poisson at ``rate_per_s``), each wanting between
        ``min_new`` and ``max_new`` generated tokens (so sequences finish at different steps)."""
        check_float("rate_per_s", rate_per_s, 0.0, lo_open=True)
        check_int("min_new", min_new, 1)
        check_int("max_new", max_new, min_new, 256)
        rng = np.random.default_rng(seed)
        gaps = rng.exponential(1.0 / rate_per_s, len(questions))
        lens = rng.integers(min_new, max_new + 1, len(questions))
        tasks = []
        for q, gap, n in zip(questions, gaps, lens):
            await asyncio.sleep(gap)
            tasks.append(asyncio.ensure_future(self.answer(q, int(n))))
        try:
            return list(await asyncio.gather(*tasks))
        finally:
            if self.gateway is not None:
                await self.gateway.close()
                self.gateway = None

    def stats(self, answers: list[Answer] | None = None) -> dict:
        """Both batchers side by side (plus per-request latencies when ``answers`` given)."""
        g = np.asarray(self.gateway_batches)
        out = {"gateway": {"kind": "micro-batcher (request-level)", "batches": int(len(g)),
                           "mean_batch": float(g.mean()) if len(g) else 0.0,
                           "max_batch_seen": int(g.max()) if len(g) else 0,
                           "max_batch": self.batch.max_batch,
                           "max_delay_ms": self.batch.max_delay_ms},
               "generator": self.generator.stats()}
        if answers:
            out["gateway"].update({f"embed_{k}_ms": v for k, v in percentiles(
                [a.embed_ms for a in answers], (50, 99)).items()})
            out["generator"].update({f"ttft_{k}_ms": v for k, v in percentiles(
                [a.ttft_ms for a in answers], (50, 99)).items()})
            out["ttft"] = {"end_to_end": "question arrival -> first generated token (gateway "
                                         "queue + embed + retrieve + generator queue + prefill)",
                           "generator_only": "prompt submitted to the decoder -> first "
                                             "generated token"}
            for name, vals in (("end_to_end", [a.e2e_ttft_ms for a in answers]),
                               ("generator_only", [a.ttft_ms for a in answers])):
                out["ttft"].update({f"{name}_{k}_ms": v for k, v in percentiles(
                    vals, (50, 99)).items()})
        return out

    @staticmethod
    def ttft_parts(answers: list[Answer]) -> dict:
        """Where the end-to-end first-token wait went, medians over ``answers`` (ms):
        ``embed`` (gateway queue + encoder), ``retrieve`` (lookup and prompt building),
        ``generator`` (the generator-only TTFT: its queue, prefill, first step) and their
        total ``end_to_end``, with each part's ``share`` of it."""
        med = lambda xs: float(np.median(xs))  # noqa: E731
        parts = {"embed": med([a.embed_ms for a in answers]),
                 "retrieve": med([max(0.0, a.e2e_ttft_ms - a.ttft_ms - a.embed_ms)
                                  for a in answers]),
                 "generator": med([a.ttft_ms for a in answers])}
        e2e = med([a.e2e_ttft_ms for a in answers])
        return {**{f"{k}_ms": round(v, 2) for k, v in parts.items()},
                "end_to_end_ms": round(e2e, 2),
                "share": {k: round(v / e2e, 3) if e2e > 0 else 0.0 for k, v in parts.items()}}

    def figure(self):
        """Gateway batch sizes and generator rows per step, side by side (projector sizes,
        no pyplot)."""
        with drawing() as st:
            fig = st.figure(4.6)
            a, b = fig.subplots(1, 2)
            a.bar(range(len(self.gateway_batches)), self.gateway_batches, color="C0")
            a.axhline(self.batch.max_batch, color="grey", ls="--", label="max_batch")
            a.set(title="gateway: questions per encoder call", xlabel="encoder call",
                  ylabel="batch size")
            a.legend(loc="upper right")
            b.plot(self.generator.rows_per_step, color="C1")
            b.axhline(self.engine.cfg.max_seqs, color="grey", ls="--", label="max_seqs")
            b.set(title="decoder: sequences per step", xlabel="decode step", ylabel="sequences")
            b.legend(loc="upper right")
            fig.subplots_adjust(left=0.08, right=0.98, top=0.88, bottom=0.16, wspace=0.28)
            return fig

    def close(self) -> None:
        self.generator.close()
