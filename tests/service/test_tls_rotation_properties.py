"""Whatever order a rotation writes, deletes or rewrites the files in, the server's TLS material stays a matching
pair, and it is the pair on disk whenever the files on disk match (hypothesis drives the sequences).

``service.security.tls.CertificateFiles`` is checked directly here (every handshake asks it,
tests/service/test_tls.py checks the handshakes themselves). Files are replaced by rename, as the docs ask rotations
to do.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from tls_support import Authority, Pair, replace_file

from service.security.tls import CertificateFiles

CA = Authority("rotation CA")
PAIRS: list[Pair] = [CA.server_pair() for _ in range(3)]

#: (what, which pair): write its certificate, its key, both (key first), or delete the certificate or key file.
STEP = st.tuples(st.sampled_from(("cert", "key", "both", "delete-cert", "delete-key")), st.integers(0, 2))


def pair_on_disk(cert: Path, key: Path) -> int | None:
    """The index of the pair the files make now, or None (missing or mismatched)."""
    if not (cert.exists() and key.exists()):
        return None
    found = [i for i, p in enumerate(PAIRS) if p.cert == cert.read_bytes() and p.key == key.read_bytes()]
    return found[0] if found else None


@settings(max_examples=60)
@given(st.lists(STEP, min_size=1, max_size=12))
def test_the_material_is_always_a_matching_pair_and_follows_a_good_pair_on_disk(steps: list[tuple[str, int]]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        cert, key = Path(directory) / "tls.crt", Path(directory) / "tls.key"
        replace_file(key, PAIRS[0].key)
        replace_file(cert, PAIRS[0].cert)
        files = CertificateFiles(cert, key)
        for what, index in steps:
            pair = PAIRS[index]
            if what in ("key", "both"):
                replace_file(key, pair.key)
            if what in ("cert", "both"):
                replace_file(cert, pair.cert)
            if what == "delete-cert":
                cert.unlink(missing_ok=True)
            if what == "delete-key":
                key.unlink(missing_ok=True)
            material = files.current()
            served = [
                i for i, p in enumerate(PAIRS) if (p.cert, p.key) == (material.certificate_chain, material.private_key)
            ]
            assert served, "the material is always one whole pair, never a certificate with another's key"
            on_disk = pair_on_disk(cert, key)
            if on_disk is not None:
                assert served[0] == on_disk
