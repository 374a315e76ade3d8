"""What a certificate says: :class:`CertificateContents`, its canonical signed bytes (``payload``), the rules every
field follows (``check``, shared with the reader), and key ids.

The format's contents, apart from reading certificates (``patience.certificate_reading``) and verifying them
(``patience.certificates``, the format's front door, which re-exports these names), because a signer needs only
this: ``service.security.signing`` builds contents and signs their payload.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from engine.deal import ALGORITHM
from patience.boards import DAILY, PUBLIC, well_formed

#: The payload's ``type``, and the deal algorithm a certificate names (``deal``).
CERTIFICATE_TYPE = "patience-certificate/v1"
DEAL_ALGORITHM = ALGORITHM
MAX_INT = (1 << 53) - 1  # integers a JavaScript verifier reads exactly
#: SHA-256 as the payload writes it (``seed``, ``commitment``, ``final_state_hash``).
HASH = re.compile(r"[0-9a-f]{64}")
#: An option value's one spelling (``engine.game.format_option``): no "True", "yes", "1" for true, " 3" or "03".
OPTION_VALUE = re.compile(r"true|false|0|[1-9][0-9]*")
#: How a win was played: the optional ``played`` field (absent from certificates signed before it existed).
PLAYED = frozenset({"", "moves", "submitted"})
#: How the deal was chosen: the ``dealt`` field (with ``deal_number``; both absent from older certificates).
DEALT = frozenset({"random", "ticket", "winnable", "replay", "public", "daily"})
#: The largest public deal number (engine.deal.MAX_DEAL_NUMBER).
MAX_DEAL_NUMBER = (1 << 32) - 1
#: A player's pseudonymous id (docs/players.md) and the longest display name, in characters.
_PLAYER_ID = re.compile(r"p_[a-z2-7]{26}")
MAX_PLAYER_NAME = 32


def canonical_json(value: object) -> bytes:
    """The one byte form of a JSON value: sorted keys, no whitespace, UTF-8 (what gets signed)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of an Ed25519 public key (what the key id hashes, and GetSigningKeys publishes)."""
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def key_id_of(key: Ed25519PublicKey | Ed25519PrivateKey | bytes) -> str:
    """First 16 hex digits of SHA-256 of the raw public key."""
    if isinstance(key, Ed25519PrivateKey):
        key = key.public_key()
    raw = key if isinstance(key, bytes) else raw_public_key(key)
    return hashlib.sha256(raw).hexdigest()[:16]


@dataclass(frozen=True)
class CertificateContents:
    """What a certificate says: a game of ``variant`` dealt from ``seed`` and won with ``moves``."""

    game_id: str
    variant: str
    options: Mapping[str, str]  # every option of the variant, values in text form ("true", "3")
    seed: bytes  # 32 bytes
    commitment: bytes  # SHA-256(seed), published when the game was dealt
    moves: tuple[str, ...]  # the explicit text form, first to last
    move_count: int
    undo_count: int
    started_at: int  # Unix milliseconds
    finished_at: int
    ticket_id: str = ""  # the deal ticket's id, "" if none
    final_state_hash: str = ""  # engine.encoding.state_hash of the final position
    deal_algorithm: str = DEAL_ALGORITHM
    played: str = ""  # "moves" (move by move) or "submitted" (a whole solution); "" before the field existed
    dealt: str = ""  # how the deal was chosen (DEALT); "" before the field existed
    deal_number: int = 0  # the public deal's number, 0 unless dealt is "public"
    key_id: str = ""  # the key the payload names, when read from a certificate (signing takes the signer's)
    hints: int | None = None  # hints given during the game (Hint); None in certificates signed before the field
    player_id: str = ""  # the signed-in player who won ("" = anonymous: no ``player`` in the payload)
    player_name: str = ""  # their display name when it was signed
    board: str = ""  # the leaderboard the win counts for ("" = none: no ``board`` in the payload)

    def payload(self, key_id: str) -> bytes:
        """The canonical signed bytes (``played``, ``dealt``, ``hints``, ``player`` and ``board`` only when known, so
        that a certificate signed before the fields existed, or of an anonymous game, signs to the same bytes
        again)."""
        fields: dict[str, object] = {"played": self.played} if self.played else {}
        if self.dealt:
            fields.update(dealt=self.dealt, deal_number=self.deal_number)
        if self.hints is not None:
            fields["hints"] = self.hints
        if self.player_id:
            fields["player"] = {"display_name": self.player_name, "id": self.player_id}
        if self.board:
            fields["board"] = self.board
        return canonical_json(
            {
                **fields,
                "type": CERTIFICATE_TYPE,
                "key_id": key_id,
                "game_id": self.game_id,
                "variant": self.variant,
                "options": {str(k): str(v) for k, v in self.options.items()},
                "deal": self.deal_algorithm,
                "seed": self.seed.hex(),
                "commitment": self.commitment.hex(),
                "moves": list(self.moves),
                "move_count": self.move_count,
                "undo_count": self.undo_count,
                "started_at": self.started_at,
                "finished_at": self.finished_at,
                "ticket_id": self.ticket_id,
                "final_state_hash": self.final_state_hash,
                "result": "won",
            }
        )

    def check(self) -> None:
        """ValueError unless the contents can be certified (a signer's sanity check)."""
        if len(self.seed) != 32 or len(self.commitment) != 32:
            raise ValueError("seed and commitment are 32 bytes")
        if hashlib.sha256(self.seed).digest() != self.commitment:
            raise ValueError("the commitment is not SHA-256 of the seed")
        if self.move_count != len(self.moves):
            raise ValueError("move_count is not the number of moves")
        for name in ("move_count", "undo_count", "started_at", "finished_at"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT:
                raise ValueError(f"{name} is a whole number from 0 to 2**53-1")
        if any(not isinstance(m, str) or not m for m in self.moves):
            raise ValueError("moves are non-empty texts")
        if not HASH.fullmatch(self.final_state_hash):
            raise ValueError("final_state_hash is 64 lowercase hex digits")
        if not all(isinstance(v, str) and OPTION_VALUE.fullmatch(v) for v in self.options.values()):
            raise ValueError("option values are in their text form: true, false or a decimal integer")
        if self.played not in PLAYED:
            raise ValueError(f"played is one of {sorted(PLAYED)}")
        problem = dealt_problem(self.dealt, self.deal_number) if self.dealt or self.deal_number else None
        if problem is not None:
            raise ValueError(problem)
        if self.hints is not None and (isinstance(self.hints, bool) or not 0 <= self.hints <= MAX_INT):
            raise ValueError("hints is a whole number from 0 to 2**53-1")
        named = self.player_id or self.player_name
        player = {"display_name": self.player_name, "id": self.player_id} if named else None
        problem = player_problem(player) if player is not None else None
        if problem is None and self.board:
            problem = board_problem(self.board, self)
        if problem is not None:
            raise ValueError(problem)


def player_problem(player: object) -> str | None:
    """What is wrong with a ``player`` member, or None: exactly ``display_name`` (1 to 32 characters) and ``id``."""
    if not isinstance(player, dict) or set(player) != {"display_name", "id"}:
        return "player is an object with exactly display_name and id"
    pid, name = player["id"], player["display_name"]
    if not isinstance(pid, str) or not _PLAYER_ID.fullmatch(pid):
        return 'player.id is "p_" and 26 base32 characters'
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_PLAYER_NAME:
        return f"player.display_name is text of 1 to {MAX_PLAYER_NAME} characters"
    return None


def board_problem(board: object, contents: CertificateContents) -> str | None:
    """What is wrong with a ``board`` member, or None: a board name (patience.boards' grammar) that names this
    certificate's deal -- its variant, how it was dealt (a daily deal, or public deal N), every option it lists with
    the value the certificate's options give -- and only beside a ``player`` (only signed-in players' wins rank)."""
    if not isinstance(board, str) or not well_formed(board):
        return "board is a board name (daily-VARIANT-YYYY-MM-DD or public-VARIANT-N, options after ':')"
    if not contents.player_id:
        return "board comes with player: only a signed-in player's win ranks"
    kind, rest = board.split("-", 1)
    head, *options = rest.split(":")
    if not head.startswith(contents.variant + "-") or any(
        contents.options.get(k) != v for k, v in (o.split("=", 1) for o in options)
    ):
        return "board names another variant or other options than the certificate's"
    tail = head[len(contents.variant) + 1 :]
    if kind == PUBLIC and (contents.dealt != PUBLIC or tail != str(contents.deal_number)):
        return "a public board's certificate is dealt public with the board's deal number"
    if kind == DAILY and (contents.dealt != DAILY or "-" not in tail):
        return "a daily board's certificate is dealt daily"
    return None


def dealt_problem(dealt: object, deal_number: object) -> str | None:
    """What is wrong with a ``dealt``/``deal_number`` pair, or None: ``dealt`` is one of DEALT, and
    ``deal_number`` is 1 to 2**32-1 for a public deal and 0 for any other."""
    if not isinstance(dealt, str) or dealt not in DEALT:
        return f"dealt is one of {', '.join(sorted(DEALT))}"
    if isinstance(deal_number, bool) or not isinstance(deal_number, int):
        return "deal_number is an integer"
    if dealt == "public" and not 1 <= deal_number <= MAX_DEAL_NUMBER:
        return "a public deal's deal_number is 1 to 2**32-1"
    if dealt != "public" and deal_number != 0:
        return "deal_number is 0 unless dealt is public"
    return None
