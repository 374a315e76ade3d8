"""A bare grpc.aio echo server: the ceiling any handler on this stack can reach (bench/service_bench.py).

Every call on ``/bench.Echo/Call``, and on ``/patience.v1.PatienceService/ApplyMove`` (so that a client calls it
through the generated stub, as it calls the service), gets the same bytes, a real ApplyMove response read from a
file, so it measures gRPC, asyncio and the client and nothing else. Run as its own process:
``python bench/grpc_echo.py PORT REPLY_FILE [PROCESSES]``, or from a benchmark with :func:`start_echo`.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ECHO_METHOD = "/bench.Echo/Call"


def start_echo(port: int, reply_file: Path, processes: int = 1) -> subprocess.Popen[bytes]:
    """The echo server in a process of its own (``processes`` > 1: that many, sharing the port)."""
    return subprocess.Popen([sys.executable, __file__, str(port), str(reply_file), str(processes)], cwd=ROOT)


def echo_main(port: int, reply_file: str, processes: int = 1) -> None:
    """The echo server: every call on ``/bench.Echo/Call`` gets the same bytes (a real ApplyMove response).
    With ``processes`` > 1 it forks (before grpc is imported) into that many servers sharing the port through
    SO_REUSEPORT, as ``python -m service --workers N`` does; they are this process's children, so its CPU
    figure counts them, and they go when it is terminated."""
    parent, children = os.getpid(), []
    for _ in range(processes - 1):
        pid = os.fork()
        if pid == 0:  # a child: serves, and goes when its parent does (below)
            children = []
            break
        children.append(pid)
    if children:

        def end(signum: int, frame: object) -> None:
            for pid in children:
                os.kill(pid, signal.SIGTERM)
            os._exit(0)

        signal.signal(signal.SIGTERM, end)
    import grpc

    blob = Path(reply_file).read_bytes()

    async def call(request: bytes, context: object) -> bytes:
        return blob

    async def run() -> None:
        server = grpc.aio.server()
        echo = grpc.unary_unary_rpc_method_handler(call)
        handlers = (
            grpc.method_handlers_generic_handler("bench.Echo", {"Call": echo}),
            grpc.method_handlers_generic_handler("patience.v1.PatienceService", {"ApplyMove": echo}),
        )
        server.add_generic_rpc_handlers(handlers)
        server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        while os.getpid() == parent or os.getppid() == parent:
            await asyncio.sleep(1)
        await server.stop(None)  # a child whose parent went without terminating it

    asyncio.run(run())


if __name__ == "__main__":
    echo_main(int(sys.argv[1]), sys.argv[2], *map(int, sys.argv[3:4]))
