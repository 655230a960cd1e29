"""The RAG demo's knowledge base: the passages, the questions asked of them, and the system
prompt every generator prompt starts with (the shared prefix that prefix caching reuses)."""
from __future__ import annotations

DOCS = [  # (title, text): a small knowledge base about serving, written for this lab
    ("dynamic batching", "Dynamic batching collects requests that arrive within a short "
     "window and runs them through the model together as one fixed batch."),
    ("continuous batching", "Continuous batching schedules a language model one decode step "
     "at a time, so finished sequences leave and waiting ones join between steps."),
    ("max batch", "The max batch knob caps how many requests share one forward pass; larger "
     "batches raise throughput until the hardware is saturated."),
    ("max delay", "The max delay knob bounds how long the oldest request may wait for company "
     "before its batch is sent, trading latency for larger batches."),
    ("padding", "Texts of different lengths are padded to the longest one in the batch, and "
     "the padding tokens cost compute without producing anything useful."),
    ("bucketing", "Bucketing groups texts of similar length so that each batch pads to a "
     "nearby edge, which wins back most of the compute lost to padding."),
    ("kv cache", "A decoder keeps the keys and values of earlier tokens in a cache, so each "
     "new token only needs one step of attention over what is stored."),
    ("paged attention", "Paged attention stores the cache in fixed-size blocks allocated on "
     "demand, so memory is not reserved for tokens that are never generated."),
    ("triton", "Triton Inference Server configures dynamic batching with max_batch_size and "
     "max_queue_delay_microseconds in the model configuration file."),
    ("tf serving", "TensorFlow Serving reads max_batch_size and batch_timeout_micros from a "
     "batching parameters file and rejects work when too many batches are queued."),
    ("ray serve", "Ray Serve batches calls to a deployment method decorated with serve.batch, "
     "using max_batch_size and batch_wait_timeout_s."),
    ("latency slo", "A latency objective such as p99 under 100 milliseconds limits how long a "
     "batcher may wait; bursty traffic makes the tail the hard part."),
    ("overload", "When offered load exceeds capacity a bounded queue should reject new work "
     "quickly instead of letting every request wait longer and longer."),
    ("rag", "Retrieval augmented generation embeds the question, looks up related passages "
     "and gives them to a language model that writes the answer."),
    ("bi-encoder", "A bi-encoder turns each text into one vector independently, which makes "
     "it a one-shot model that suits request-level micro-batching."),
    ("time to first token", "Time to first token measures how long a user waits before the "
     "answer starts streaming, including any time spent queued."),
]

# Every prompt starts with this template (like a production RAG system prompt), so every
# question shares its full KV blocks: with prefix caching they are computed once. It is
# 100 MiniLM tokens, six full 16-token blocks (96 tokens) shared by every prompt.
SYSTEM_PROMPT = (
    "You are the teaching assistant of a course on serving machine learning models. Answer "
    "the question using only the passages below. If the passages do not contain the answer, "
    "say that you do not know instead of guessing. Keep the answer short and concrete, name "
    "the knob or the system the passages mention, and do not repeat the question. Write for "
    "a student who has just met these terms, prefer numbers with their units to adjectives, "
    "and when two passages disagree, say so and give both. Passages:")


QUESTIONS = [
    "What does the max delay knob control?", "Why does padding waste compute?",
    "How does continuous batching treat finished sequences?",
    "Which batcher suits a bi-encoder?", "How does Triton configure dynamic batching?",
    "What should happen when a server is overloaded?", "What does the KV cache store?",
    "What is time to first token?", "How does bucketing reduce padding?",
    "What does Ray Serve's batch decorator take?", "Why is the p99 latency hard under bursts?",
    "What is retrieval augmented generation?",
]
