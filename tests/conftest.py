"""Shared fixtures: real Redis servers (see tests/redis_support.py).

- ``redis_url`` (session): a single Redis for the whole session.
- ``redis_db`` (function): the same URL, flushed before the test -- use this one in tests.
- ``redis_cluster`` (session): a 3-master Redis Cluster on loopback; its startup node URL
  ``redis+cluster://127.0.0.1:PORT`` (``service.store.open_store`` understands the scheme).
- ``redis_cluster_db`` (function): the cluster URL, every master flushed before the test.

A missing ``redis-server`` fails the test that asks for Redis with a message saying how to install it.

No test leaves a process behind: every process a pytest process starts (and whatever those start) carries
``SUITE_OWNER_PID`` in its environment, and at the end of the session any such process still running fails the
run as an error of the session's last test, is named and is killed (``tests/process_support.py``).

Every test runs with ``XDG_DATA_HOME`` in a temporary directory of its own and no ``PATIENCE_*`` variables
from the caller's shell: a server started with no keys directory must not find (or write) the keys of a service the
developer runs on the same machine under ``~/.local/share/patience``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import process_support
import pytest
import redis_support  # tests/ is on sys.path (pytest's rootdir-relative import of conftest)
from hypothesis import Phase, settings

# Before anything imports gRPC (nothing above does): a test process serves and calls gRPC on threads while it
# also forks children (pexpect's terminals, a Popen with a preexec_fn); gRPC's fork handlers then aborted such a
# child now and then ("epoll_wait error: Bad file descriptor") before it could exec. No child of a test uses gRPC
# before its exec.
os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"

# Set before any test starts a process: they inherit it, and so do their children.
os.environ[process_support.OWNER] = str(os.getpid())

# CI (and the README's test command) load the "ci" profile: no deadline on a shared machine, and no shrinking,
# which once took five minutes on one failing property. A failure prints its reproduction blob; run that test
# again under the "dev" profile (HYPOTHESIS_PROFILE=dev) to shrink it at leisure.
settings.register_profile(
    "ci",
    deadline=None,
    print_blob=True,
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target),
)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session", autouse=True)
def _isolated_data_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
        for name in [n for n in os.environ if n.startswith("PATIENCE_")]:
            mp.delenv(name)
        yield


@pytest.fixture(autouse=True)
def _fresh_data_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """And a data directory of its own for each test: keys one test generates in the default place are not
    there for the next (a server with no keys must find none)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    try:
        with redis_support.redis_server() as url:
            yield url
    except redis_support.RedisStartError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture
def redis_db(redis_url: str) -> str:
    redis_support.flush(redis_url)
    return redis_url


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[str]:
    try:
        cluster = redis_support.start_redis_cluster()
    except redis_support.RedisStartError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield cluster.url
    finally:
        cluster.stop()


@pytest.fixture
def redis_cluster_db(redis_cluster: str) -> str:
    redis_support.flush_cluster(redis_cluster)
    return redis_cluster


@pytest.fixture(scope="session", autouse=True)
def _no_process_left_behind() -> Iterator[None]:
    """Fail the run if a test left a process behind. Set up before any other fixture, so torn down after all of
    them (the session's own Redis servers are stopped by then); a failure here is an error of the session's last
    test, which pytest-xdist reports from every worker too."""
    yield
    left = process_support.leftovers(os.getpid())
    if left:
        lines = "\n".join(f"  {pid}: {command}" for pid, command in left)
        pytest.fail(f"{len(left)} process(es) outlived the tests that started them (now killed):\n{lines}")
