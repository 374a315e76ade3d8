"""Real gRPC servers for the service tests: in this process (own event loop thread) or as `python -m service`.

Tests talk to them through ordinary synchronous stubs on a real port, so every
call crosses the network stack, the interceptors and the servicer exactly as a
client's would. No mocks: the store is a real Redis (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import grpc
from grpc_status import rpc_status
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc

from engine.cards import TEXT
from engine.catalogue import get_game
from engine.game import Game
from engine.state import State
from engine.verify import replay
from engine.view import hidden_cards
from service.errors import error_info
from service.settings.config import Settings

ROOT = Path(__file__).resolve().parent.parent
OPERATOR_KEY = "test-operator-key-0123456789"


def settings_for(redis_url: str, **overrides: Any) -> Settings:
    # Rate limits off: a test calls far faster than a person plays (tests/service/test_ratelimit.py turns them on).
    base = Settings(listen="127.0.0.1:0", redis_url=redis_url, operator_key=OPERATOR_KEY, grace=2.0, rate_limits=False)
    return replace(base, **overrides)


class ServerThread:
    """A server from ``service.server.create_server`` running in its own event loop thread."""

    def __init__(self, settings: Settings, **create_kwargs: Any) -> None:
        self.settings = settings
        self.create_kwargs = create_kwargs
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.server: Any = None
        self.port = 0

    def start(self) -> ServerThread:
        from service.server import create_server

        self.thread.start()

        async def boot() -> tuple[Any, int]:
            server, port = await create_server(self.settings, **self.create_kwargs)
            await server.start()
            return server, port

        self.server, self.port = asyncio.run_coroutine_threadsafe(boot(), self.loop).result(30)
        return self

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def call(self, coro: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self, grace: float | None = 0.5) -> None:
        if self.server is not None:
            self.call(self.server.stop(grace))
            self.server = None
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@contextlib.contextmanager
def running(settings: Settings, **create_kwargs: Any) -> Iterator[ServerThread]:
    server = ServerThread(settings, **create_kwargs).start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Client:
    """A synchronous stub with the credentials helpers the tests need."""

    address: str
    channel: grpc.Channel = field(init=False)
    stub: pb_grpc.PatienceServiceStub = field(init=False)

    def __post_init__(self) -> None:
        self.channel = grpc.insecure_channel(self.address)
        self.stub = pb_grpc.PatienceServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stub, name)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def operator(key: str = OPERATOR_KEY) -> tuple[tuple[str, str], ...]:
    return (("x-operator-key", key),)


@dataclass(frozen=True)
class Refusal:
    code: grpc.StatusCode
    reason: str
    domain: str
    metadata: dict[str, str]
    message: str


def refusal(call: Callable[[], Any]) -> Refusal:
    """Run ``call`` and return its error status with the ErrorInfo detail; fail if it succeeds."""
    try:
        call()
    except grpc.RpcError as exc:
        status = rpc_status.from_call(exc)  # type: ignore[arg-type]
        info = error_info(status)
        return Refusal(
            exc.code(),  # type: ignore[attr-defined]
            info.reason if info else "",
            info.domain if info else "",
            dict(info.metadata) if info else {},
            exc.details() or "",  # type: ignore[attr-defined]
        )
    raise AssertionError("the call succeeded but should have been refused")


class FixedSeeds:
    """A seed source for tests: the given seeds in order, then SHA-256 chained ones."""

    def __init__(self, *seeds: bytes) -> None:
        self.seeds = list(seeds)
        self.counter = 0

    def __call__(self) -> bytes:
        if self.seeds:
            return self.seeds.pop(0)
        self.counter += 1
        return hashlib.sha256(b"test-seed-%d" % self.counter).digest()


def solve(game: Game, start: State, budget: float = 20.0) -> list[str]:
    """A depth-first solver over full information (tests only: it sees hidden cards)."""
    from engine.encoding import encode_state

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    seen: set[bytes] = set()
    path: list[str] = []
    deadline = time.monotonic() + budget

    def dfs(state: State) -> bool:
        if game.is_won(state):
            return True
        if time.monotonic() > deadline:
            return False
        key = encode_state(game, state)
        if key in seen:
            return False
        seen.add(key)
        moves = sorted(game.legal_moves(state), key=lambda m: m.target is None or m.target.kind.value != "f")
        for move in moves:
            nxt, explicit = game.play(state, move)
            path.append(explicit.text())
            if dfs(nxt):
                return True
            path.pop()
        return False

    if not dfs(start):
        raise AssertionError(f"no solution found for {game.id} within {budget}s")
    return path


def state_after(variant: str, options: dict[str, str] | None, seed: bytes, moves: list[str]) -> tuple[Game, State]:
    game = get_game(variant, options)
    result = replay(game, game.deal(seed), moves)
    return game, result.state


def view_cards(view: pb.View) -> Counter[str]:
    """Every card text a view shows (hidden placeholders excluded)."""
    out: Counter[str] = Counter()
    for pile in (*view.columns, *view.foundations):
        out.update(pile.cards)
    out.update(c for c in view.cells if c)
    out.update(view.stock)
    out.update(view.waste)
    out.update(c for c in view.captives if c and c != "??")
    out.update(view.fixed)
    return out


def assert_no_secret(
    message: Any, game: Game, state: State, seed: bytes, extra_secrets: tuple[bytes, ...] = ()
) -> None:
    """``message`` shows exactly the visible cards of ``state`` and holds no seed, however encoded."""
    raw = message.SerializeToString()
    for secret in (seed, *extra_secrets):
        if not secret:
            continue
        assert secret not in raw, "a seed is in the serialized response"
        assert secret.hex().encode() not in raw.lower(), "a seed (hex) is in the serialized response"
    views = [v for v in _views(message)]
    hidden = Counter(TEXT[c] for c in hidden_cards(game, state))
    everything = Counter(TEXT[c] for c in state.all_cards())
    for view in views:
        shown = view_cards(view)
        assert shown == everything - hidden, f"the view shows {shown - (everything - hidden)} it should not"
        assert list(view.captives).count("??") == sum(
            1 for i, c in enumerate(state.captives) if c >= 0 and not game.captive_released(state, i)
        )
        if not view.stock_visible:
            assert not view.stock


def _views(message: Any) -> Iterator[pb.View]:
    if isinstance(message, pb.View):
        yield message
        return
    for desc, value in message.ListFields():
        if desc.message_type is None:
            continue
        if desc.is_repeated:
            if desc.message_type.GetOptions().map_entry:
                continue
            for item in value:
                yield from _views(item)
        else:
            yield from _views(value)


@dataclass
class ServiceProcess:
    """``python -m service`` as a child process."""

    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def kill(self) -> None:
        """SIGKILL to the service's whole process group (its workers, filler and local Redis too)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.wait(10)

    def terminate(self, timeout: float = 20) -> int:
        """SIGTERM to the service (it stops its children), its exit status; what is left of its group is killed."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)


def _with_fd_limit(limit: int, args: list[str]) -> list[str]:
    """``args`` run under a descriptor limit (soft and hard) set by a shell that then becomes the command: not a
    ``preexec_fn``, which makes Python fork() where it would vfork(), and gRPC's fork handlers then abort the child
    of a test process whose other threads are in gRPC."""
    return ["/bin/sh", "-c", 'ulimit -n "$0" && exec "$@"', str(limit), *args]


def start_process(
    redis_url: str, tmp: Path, *extra: str, env: dict[str, str] | None = None, fd_limit: int | None = None
) -> ServiceProcess:
    """Start ``python -m service`` on a free port and wait until its health check says SERVING; with ``fd_limit``,
    that many file descriptors at most (soft and hard limit: the service cannot raise it)."""
    import redis_support
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    port = redis_support.free_port()
    log = tmp / f"service-{port}.log"
    environ = {
        **os.environ,
        "PATIENCE_KEYS_DIR": str(tmp / "keys"),  # shared by every process of a test: one set of keys
        "PATIENCE_GENERATE_KEYS": "true",
        "PATIENCE_OPERATOR_KEY": OPERATOR_KEY,
        "PATIENCE_LOG_FORMAT": "text",
        "PATIENCE_RATE_LIMITS": "false",  # a test calls far faster than a person plays
        "PATIENCE_WINNABLE_FILLER": "off",  # the winnable tests start their own with small targets
        **(env or {}),
        "PYTHONUNBUFFERED": "1",
    }
    args = [sys.executable, "-m", "service", "--listen", f"127.0.0.1:{port}", "--redis-url", redis_url, *extra]
    if fd_limit is not None:
        args = _with_fd_limit(fd_limit, args)
    with log.open("wb") as out:
        # A group of its own: ``kill`` stops whatever the service started, whatever happened to the service.
        proc = subprocess.Popen(
            args,
            cwd=ROOT,
            env=environ,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"python -m service exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            try:
                reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return ServiceProcess(proc, port, log)
            except grpc.RpcError:
                pass
        time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"python -m service did not become SERVING:\n{log.read_text()[-3000:]}")
