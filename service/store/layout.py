"""A game's keys in Redis and its meta hash: the layout, the short field names, and the conversions between a
``GameRecord`` and the hash (``new_fields`` for a new game, ``record`` for a read, ``changed`` for what a write
returns).

Layout: a game's keys share the hash tag ``{game_id}``, so every script touches
one cluster slot and the same code runs on a single Redis and on Redis Cluster
(the URL scheme ``redis+cluster://`` / ``rediss+cluster://`` picks the cluster
client; nothing else differs)::

    <prefix>:{<id>}     hash    small fields only (each < 64 bytes keeps it a listpack)
    <prefix>:{<id>}:s   string  the engine's encoded state (~150 bytes)
    <prefix>:{<id>}:m   string  the move log, packed (about 2.3 bytes a move: engine.movelog), appended to
    <prefix>:{<id>}:c   list    checkpoints of a game being played: every CHECKPOINT_EVERY moves, the move
                                count, the log's length then and the encoded state ("mc,offset,state")
    <prefix>:{<id>}:h   hash    the hint trail of a game being played (records.HintTrail): v, mc, o, s, l, k, n
    <prefix>:{<id>}:p   string  the keys of the positions met up to the trail's version, 8 bytes each, appended to
    <prefix>:{<id>}:w   channel a sharded pub/sub channel (SPUBLISH, never a key): each write script publishes the
                                game's new version on it for its watchers (service.store.changes)
    <prefix>:win:{<pool>}  list  a winnable pool (service.solving.winnable): entries of a seed and its winning line

The hint trail and path are written by Hint only (with the hint's count, a compare-and-set on the game's
version and the trail's), dropped by UndoMove, SubmitSolution and the end of the game, and expire with the
idle time of the hint that wrote them.

A game dealt as winnable keeps its winning line (packed) in the hash's ``wl`` field: read with the game, shown
only once it is over.

The state and the log sit outside the hash because a hash value over 64 bytes
turns the whole hash into a hashtable, which costs far more memory than a
second key. Times come from the Redis server's clock (``TIME`` inside the
scripts), so every replica of the service agrees on them.

Expiry: every write to an open game sets the TTL of all its keys to
``idle_seconds + retain_seconds``. A game untouched for ``idle_seconds`` is
*expired*: writes are refused (:class:`GameExpired`), and for
``retain_seconds`` more it can still be fetched (so the service can reveal its
seed) before Redis drops it. Closing a game (won, resigned) sets the TTL to
``retain_seconds`` (default: ``idle_seconds``).
"""

from __future__ import annotations

import re

from engine.moves import Move
from service.store.records import GameRecord, NewGameRecord, Played, SignedWin, dealt_of

GAME_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_SMALL_FIELD = 64  # bytes; longer hash values would turn the hash into a hashtable


# Hash fields (short names: they are stored once per game).
_F_TOKEN = "th"
_F_VARIANT = "var"
_F_OPTIONS = "opt"
_F_SEED = "seed"
_F_SERVER_SEED = "ss"
_F_CLIENT_SEED = "cs"
_F_TICKET = "tk"
_F_UNDO_OK = "au"
_F_VERSION = "v"
_F_STATUS = "st"
_F_CREATED = "ca"
_F_UPDATED = "ua"
_F_FINISHED = "fa"
_F_MOVES = "mc"
_F_UNDOS = "uc"
_F_PLAYED = "pl"
_F_DEALT = "dk"  # how the deal was chosen (absent from records written before it existed)
_F_DEAL_NUMBER = "dn"  # a public deal's number (absent unless dealt is "public")
_B_DEALT, _B_DEAL_NUMBER = _F_DEALT.encode(), _F_DEAL_NUMBER.encode()
_F_SOLUTION = "wl"
_F_OWNER, _F_OWNER_NAME, _F_OWNER_KIND = "ow", "on", "ok"  # the signed-in player who dealt it (absent: anonymous)
_B_OWNER, _B_OWNER_NAME, _B_OWNER_KIND = (f.encode() for f in (_F_OWNER, _F_OWNER_NAME, _F_OWNER_KIND))
_F_WATCHABLE = "wa"  # "1" when spectators may watch the game (absent otherwise)
_B_WATCHABLE = _F_WATCHABLE.encode()
_F_BOARD, _F_RANKED = "bd", "rk"  # the deal's leaderboard, and "1" for a player's one ranked game of a daily deal
_B_BOARD, _B_RANKED = _F_BOARD.encode(), _F_RANKED.encode()
_B_SOLUTION = _F_SOLUTION.encode()
_B_PLAYED = _F_PLAYED.encode()
_B_TOKEN, _B_VARIANT, _B_OPTIONS, _B_SEED = (f.encode() for f in (_F_TOKEN, _F_VARIANT, _F_OPTIONS, _F_SEED))
_B_SERVER_SEED, _B_CLIENT_SEED, _B_TICKET, _B_UNDO_OK = (
    f.encode() for f in (_F_SERVER_SEED, _F_CLIENT_SEED, _F_TICKET, _F_UNDO_OK)
)
_B_VERSION, _B_STATUS, _B_CREATED, _B_UPDATED, _B_FINISHED, _B_MOVES, _B_UNDOS = (
    f.encode() for f in (_F_VERSION, _F_STATUS, _F_CREATED, _F_UPDATED, _F_FINISHED, _F_MOVES, _F_UNDOS)
)


def check_game_id(game_id: str) -> bool:
    return isinstance(game_id, str) and GAME_ID_RE.match(game_id) is not None


def small(name: str, value: bytes) -> bytes:
    if len(value) > MAX_SMALL_FIELD:
        raise ValueError(f"{name} is at most {MAX_SMALL_FIELD} bytes, not {len(value)}")
    return value


def win_args(win: SignedWin | None) -> list[bytes | str]:
    """A win signed before its write, as the write script's last arguments (scripts.py, ``finish``)."""
    if win is None:
        return []
    return [win.certificate, str(win.finished_at), str(win.hint_count), win.owner]


def new_fields(game: NewGameRecord) -> list[bytes | str]:
    """The meta hash of a new game, as field/value pairs (CREATE's last arguments); ValueError for a value the hash
    cannot hold small."""
    fields: list[bytes | str] = [
        _F_TOKEN, small("token_hash", game.token_hash),
        _F_VARIANT, small("variant", game.variant.encode()),
        _F_OPTIONS, small("options", game.options.encode()),
        _F_SEED, small("seed", game.seed),
        _F_SERVER_SEED, small("server_seed", game.server_seed),
        _F_CLIENT_SEED, small("client_seed", game.client_seed),
        _F_TICKET, small("ticket_id", game.ticket_id.encode()),
        _F_UNDO_OK, b"1" if game.allow_undo else b"0",
    ]  # fmt: skip
    if game.played:
        fields += [_F_PLAYED, small("played", game.played.encode())]
    fields += [_F_DEALT, small("dealt", dealt_of(game.dealt, game.ticket_id).encode())]
    if game.deal_number:
        if isinstance(game.deal_number, bool) or not 0 < game.deal_number < 1 << 32:
            raise ValueError(f"a deal number is 1 to 2**32-1, not {game.deal_number!r}")
        fields += [_F_DEAL_NUMBER, str(game.deal_number)]
    if game.owner:
        fields += [_F_OWNER, small("owner", game.owner.encode())]
        fields += [_F_OWNER_NAME, small("owner_name", game.owner_name.encode())]
        fields += [_F_OWNER_KIND, small("owner_kind", game.owner_kind.encode())]
    if game.watchable:
        fields += [_F_WATCHABLE, "1"]
    if game.board:
        fields += [_F_BOARD, small("board", game.board.encode())]
    if game.ranked:
        fields += [_F_RANKED, b"1"]
    if game.solution:  # longer than a small field: a winnable game's hash is a hashtable, as a won game's is
        fields += [_F_SOLUTION, game.solution]
    return fields


def changed(previous: GameRecord, fields: list[bytes], now: bytes, state: bytes, idle: tuple[int, int]) -> GameRecord:
    """``previous`` after a write, from the fields the write changes (v, st, ua, fa, mc, uc), the hint count
    (which a Hint may have changed since ``previous`` was read), the owner (which ErasePlayer may have
    removed) and the certificate the write kept: the others are set once, when the game is created."""
    v, st, ua, fa, mc, uc, hc, ow, ct = fields
    p = previous
    owned = bool(ow) and ow.decode() == p.owner
    return GameRecord(
        p.game_id, p.token_hash, p.variant, p.options, p.seed, p.server_seed, p.client_seed, p.ticket_id,
        p.allow_undo, state, int(v), st.decode(), p.created_at, int(ua), int(fa), int(mc), int(uc),
        idle[0] if int(v) > 1 else idle[1], int(now), None, Played.MOVES if st == b"won" else p.played,
        ct or p.certificate, p.dealt, p.deal_number, p.solution, int(hc), p.owner if owned else "",
        p.owner_name if owned else "", p.owner_kind if owned else "", p.watchable, p.board,
        p.ranked,
    )  # fmt: skip


def record(
    game_id: str,
    meta: list[bytes],
    now: bytes | int,
    state: bytes,
    idle: tuple[int, int],
    moves: tuple[Move, ...] | None = None,
) -> GameRecord:
    m = dict(zip(meta[::2], meta[1::2], strict=True))  # names stay bytes (the _B_ constants)
    ticket = m.get(_B_TICKET, b"").decode()
    return GameRecord(
        game_id=game_id,
        token_hash=m[_B_TOKEN],
        variant=m[_B_VARIANT].decode(),
        options=m[_B_OPTIONS].decode(),
        seed=m[_B_SEED],
        server_seed=m.get(_B_SERVER_SEED, b""),
        client_seed=m.get(_B_CLIENT_SEED, b""),
        ticket_id=ticket,
        allow_undo=m.get(_B_UNDO_OK, b"1") == b"1",
        state=state,
        version=int(m[_B_VERSION]),
        status=m[_B_STATUS].decode(),
        created_at=int(m[_B_CREATED]),
        updated_at=int(m[_B_UPDATED]),
        finished_at=int(m[_B_FINISHED]),
        move_count=int(m[_B_MOVES]),
        undo_count=int(m[_B_UNDOS]),
        idle_ms=idle[0] if int(m[_B_VERSION]) > 1 else idle[1],
        now=int(now),
        moves=moves,
        played=m.get(_B_PLAYED, b"").decode(),
        certificate=m.get(b"ct", b""),
        dealt=dealt_of(m.get(_B_DEALT, b"").decode(), ticket),
        deal_number=int(m.get(_B_DEAL_NUMBER, b"0")),
        solution=m.get(_B_SOLUTION, b""),
        hint_count=int(m.get(b"hc", b"0")),
        owner=m.get(_B_OWNER, b"").decode(),
        owner_name=m.get(_B_OWNER_NAME, b"").decode(),
        owner_kind=m.get(_B_OWNER_KIND, b"").decode(),
        watchable=m.get(_B_WATCHABLE) == b"1",
        board=m.get(_B_BOARD, b"").decode(),
        ranked=m.get(_B_RANKED) == b"1",
    )
