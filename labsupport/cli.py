"""``labsupport`` command line: each subcommand lives in its own module (imported lazily)."""
from __future__ import annotations

import sys
from importlib import import_module

COMMANDS = {
    "doctor": ("labsupport.doctor", "check the lab's environment (versions, device, data)"),
    "bench": (None, "benchmarks that print JSON: batcher | adaptive | padding | decode | service | overload | peers | gpu | notebooks"),
    "serve": ("labsupport.serving.ops.serve", "run the embedding service on 127.0.0.1 (--replicas N)"),
    "load": ("labsupport.serving.ops.loadgen", "open-loop load generator against a loopback URL"),
    "export": ("labsupport.serving.ops.exporter", "export knobs as Triton / TF Serving / Ray Serve config"),
    "demo-check": ("labsupport.demo_check", "trainers, before class: warm the model, measure capacity, run bench peers, print what notebook 07 will show"),
}
BENCHES = {
    "batcher": "labsupport.benches.batcher",
    "adaptive": "labsupport.benches.adaptive",
    "padding": "labsupport.benches.padding",
    "decode": "labsupport.benches.decode",
    "service": "labsupport.benches.service",
    "overload": "labsupport.benches.overload",
    "peers": "labsupport.benches.peers",
    "gpu": "labsupport.benches.gpu",
    "notebooks": "labsupport.benches.notebooks",
}


def _usage() -> str:
    lines = ["usage: labsupport COMMAND [options]", "", "commands:"]
    lines += [f"  {name:<11} {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd == "bench":
        if not rest or rest[0] not in BENCHES:
            print(f"usage: labsupport bench {{{'|'.join(BENCHES)}}} [options]", file=sys.stderr)
            return 2
        return int(import_module(BENCHES[rest[0]]).main(rest[1:]) or 0)
    if cmd not in COMMANDS:
        print(f"unknown command {cmd!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    return int(import_module(COMMANDS[cmd][0]).main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
