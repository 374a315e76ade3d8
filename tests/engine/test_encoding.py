"""Binary state encoding: round trip, size, and refusal of malformed bytes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import VARIANT_IDS, get_game
from engine.encoding import EncodingError, decode_state, encode_state, state_hash


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_deal_round_trips_and_is_small(variant: str) -> None:
    game = get_game(variant)
    state = game.deal(bytes(range(32)))
    data = encode_state(game, state)
    assert decode_state(data) == (game, state)
    assert len(data) < 300, f"{variant}: {len(data)} bytes"


def test_options_are_part_of_the_encoding() -> None:
    plain, no_runs = get_game("cats-tail"), get_game("cats-tail", {"sequence_moves": False})
    state = plain.deal(bytes(32))
    assert decode_state(encode_state(no_runs, state))[0] == no_runs
    assert state_hash(plain, state) != state_hash(no_runs, state)


def test_hash_is_stable_hex() -> None:
    game = get_game("cats-tail")
    state = game.deal(bytes(32))
    h = state_hash(game, state)
    assert h == state_hash(game, game.deal(bytes(32)))
    assert len(h) == 64 and int(h, 16) >= 0
    assert h != state_hash(game, game.deal(b"\x01" * 32))


@given(st.binary(max_size=400))
def test_garbage_is_refused_not_crashing(data: bytes) -> None:
    """Any bytes either raise EncodingError or decode to a position that encodes back to exactly those bytes:
    nothing else is accepted, and nothing raises anything else."""
    try:
        game, state = decode_state(data)
    except EncodingError:
        return
    assert encode_state(game, state) == data


@given(
    st.sampled_from(["cats-tail", "captives", "sultan-52", "picture-gallery"]),
    st.binary(min_size=32, max_size=32),
    st.integers(min_value=2, max_value=200),
    st.integers(min_value=0, max_value=255),
)
def test_one_flipped_byte_is_refused_or_decodes_consistently(variant: str, seed: bytes, at: int, value: int) -> None:
    """Bytes close to a real encoding (one byte changed) are the likely corruption: refused, or a position
    that round-trips."""
    game = get_game(variant)
    data = bytearray(encode_state(game, game.deal(seed)))
    data[at % len(data)] = value
    try:
        decoded_game, state = decode_state(bytes(data))
    except EncodingError:
        return
    assert encode_state(decoded_game, state) == bytes(data)


@pytest.mark.parametrize("cut", [1, 3, 10, 50])
def test_truncated_or_padded_bytes_refused(cut: int) -> None:
    game = get_game("captives")
    data = encode_state(game, game.deal(bytes(32)))
    with pytest.raises(EncodingError):
        decode_state(data[:-cut])
    with pytest.raises(EncodingError):
        decode_state(data + b"\x00")


@pytest.mark.parametrize("byte", [52, 104, 200, 254])
def test_a_byte_that_is_not_a_card_is_refused(byte: int) -> None:
    game = get_game("royal-retinue")
    data = bytearray(encode_state(game, game.deal(bytes(32))))
    first_card = 2 + 1 + 1 + 0 + 1 + 1 + 1 + 1  # magic, variant, options (none), redeals, fresh, columns, length
    assert decode_state(bytes(data))[1].columns[0][0] == data[first_card]
    data[first_card] = byte
    with pytest.raises(EncodingError, match="not a card"):
        decode_state(bytes(data))


def test_only_the_canonical_form_decodes() -> None:
    """Equal positions have equal bytes: a non-canonical flag or options text is refused, not read."""
    game = get_game("cats-tail", {"sequence_moves": False})
    data = encode_state(game, game.deal(bytes(32)))
    opts = game.options_text().encode()
    assert data[3] == len(opts) and data[4 : 4 + len(opts)] == opts
    fresh_at = 4 + len(opts) + 1
    assert data[fresh_at] in (0, 1)
    for bad in (2, 53, 255):
        with pytest.raises(EncodingError, match="fresh"):
            decode_state(data[:fresh_at] + bytes([bad]) + data[fresh_at + 1 :])
    default = get_game("cats-tail")
    plain = encode_state(default, default.deal(bytes(32)))
    spelled = b"sequence_moves=true"  # the default, spelled out: the same game, another byte string
    with pytest.raises(EncodingError, match="canonical"):
        decode_state(plain[:3] + bytes([len(spelled)]) + spelled + plain[4:])
