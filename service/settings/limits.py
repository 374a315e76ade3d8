"""The settings that bound what one client may cost: message and game sizes, the rate limits of each costly RPC,
streams, guests and boards, and the front end's key that names end users (docs/configuration.md, "Limits").

One module per part of docs/configuration.md; ``service.settings.config`` puts the parts together.
"""

from __future__ import annotations

from service.settings import config_values as values
from service.settings.config_values import Spec

SPECS: tuple[Spec, ...] = (
    Spec(
        "max_message_bytes",
        "--max-message-bytes",
        "largest request accepted (bigger ones get RESOURCE_EXHAUSTED); also the largest response",
        values.positive(int),
        "BYTES",
    ),
    Spec(
        "max_moves",
        "--max-moves",
        "most moves a game holds (beyond: GAME_TOO_LONG; a longer SubmitSolution: TOO_MANY_MOVES)",
        values.positive(int),
        "N",
    ),
    Spec(
        "prepare_validity",
        "--prepare-validity",
        "seconds a PrepareGame server seed waits for its NewGame before it is dropped unused",
        values.positive(int),
        "SECONDS",
    ),
    Spec(
        "rate_limits",
        "--rate-limits",
        "count NewGame, PrepareGame, SubmitSolution, VerifyCertificate, Hint and WatchGame per client address in "
        "Redis and refuse the calls beyond the limits (RESOURCE_EXHAUSTED, RATE_LIMITED; HTTP 429 with "
        "Retry-After), and each address's share of every winnable pool (--limit-winnable)",
        values.boolean,
        "BOOL",
    ),
    Spec("limit_new_game", "--limit-new-game", "NewGame calls per client address", values.rate_limits, "LIMITS"),
    Spec(
        "limit_prepare_game",
        "--limit-prepare-game",
        "PrepareGame calls per client address",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "limit_submit_solution",
        "--limit-submit-solution",
        "SubmitSolution calls per client address",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "limit_verify_certificate",
        "--limit-verify-certificate",
        "VerifyCertificate calls per client address",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "limit_create_guest",
        "--limit-create-guest",
        "CreateGuest calls (new guest identities) per client address",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "guest_lifetime_days",
        "--guest-lifetime-days",
        "days a guest identity stays valid (docs/players.md); retired guest keys are kept this long",
        values.positive(int),
        "DAYS",
    ),
    Spec(
        "board_retention_days",
        "--board-retention-days",
        "days a leaderboard is kept (a daily board after its day, a public board after its latest entry), and a "
        "daily deal's seed with it (docs/competition.md)",
        values.positive(int),
        "DAYS",
    ),
    Spec(
        "limit_hint",
        "--limit-hint",
        "Hint calls per client address (each costs up to --hint-cpu-seconds of CPU)",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "limit_winnable",
        "--limit-winnable",
        "proven deals one client address may take from each winnable pool (NewGame with winnable); beyond: "
        "RESOURCE_EXHAUSTED, WINNABLE_SHARE_USED",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "limit_watch",
        "--limit-watch",
        "WatchGame streams one client address may open (each reconnection counts)",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "watch_streams",
        "--watch-streams",
        "WatchGame streams open at once per process, gRPC and REST together; more are refused (RESOURCE_EXHAUSTED, "
        "WATCH_STREAMS_FULL). Keep it below --grpc-max-calls and --http-max-connections: the other calls need room",
        values.positive(int),
        "N",
    ),
    Spec(
        "watch_per_client",
        "--watch-per-client",
        "WatchGame streams one client address may hold open at once per process; more are refused "
        "(RESOURCE_EXHAUSTED, WATCH_STREAMS_PER_CLIENT)",
        values.positive(int),
        "N",
    ),
    Spec(
        "watch_max_seconds",
        "--watch-max-seconds",
        "seconds a WatchGame stream stays open; then it ends and the client reconnects with the last version it saw",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "front_end_key",
        "--front-end-key",
        "a key that lets a trusted front end name its end user's address in x-client-address (sent with "
        "x-front-end-key); unset: that header is refused",
        str,
        "KEY",
    ),
    Spec("max_client_seed_bytes", "--max-client-seed-bytes", "longest client seed", values.positive(int), "BYTES"),
)
