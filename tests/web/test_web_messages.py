"""One spelling for every reason code, on every path, and a message for each in the web client.

Walks every reason code the engine and the service define -- the engine's refusals, the service's ErrorInfo
reasons, VerifyCertificate's and the client library's certificate reasons, a deal ticket's ``why`` -- and the
ones the web client's own certificate check gives, and checks that each is UPPER_SNAKE_CASE, that the service
raises no reason it does not list, and that clients/web/messages.js explains each one in English and Russian.
Runs the web client's module under node (no browser needed)."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from patience.certificates import CertificateReason
from patience_client.certificates import CheckReason

from engine.errors import Reason
from service.errors import REASONS, SERVICE_REASONS
from service.security.tickets import TicketReason

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
#: What the web client's certificate check adds to the service's reasons: no WebCrypto, no Ed25519 in this
#: browser, no published keys.
WEB_ONLY = {"NO_WEBCRYPTO", "NO_ED25519", "NO_KEYS"}


def every_code() -> dict[str, set[str]]:
    return {
        "engine": {r.value for r in Reason},
        "service": set(SERVICE_REASONS),
        "certificates": {r.value for r in CertificateReason},
        "client certificates": {r.value for r in CheckReason},
        "tickets": {r.value for r in TicketReason},
        "web certificate check": WEB_ONLY | web_verifier_codes(),
    }


def web_verifier_codes() -> set[str]:
    """The reasons clients/web/certificate.js writes (``reason: 'X'``, and ``return "X"`` in ``checkPayload``)."""
    text = (WEB / "certificate.js").read_text()
    start = text.index("function checkPayload(")
    check = text[start : text.index("\n}\n", start)]
    return set(re.findall(r"reason: '([^']+)'", text)) | (set(re.findall(r'return "([^"]*)";', check)) - {""})


@pytest.mark.parametrize("source", sorted(every_code()))
def test_every_reason_code_is_upper_snake_case(source: str) -> None:
    codes = every_code()[source]
    assert codes, source
    assert all(UPPER_SNAKE.match(code) for code in codes), sorted(c for c in codes if not UPPER_SNAKE.match(c))


def test_an_enum_names_its_codes_as_they_are_spelt() -> None:
    for enum in (Reason, CertificateReason, CheckReason, TicketReason):
        assert all(member.name == member.value for member in enum), enum


def test_the_client_library_and_the_service_refuse_certificates_with_the_same_codes() -> None:
    assert {r.value for r in CheckReason} == {r.value for r in CertificateReason}


def literal_reasons() -> set[str]:
    """Every reason the service's code passes as a literal: ``ServiceError(code, "X", ...)``, ``_invalid("X", ...)``,
    ``_precondition("X", ...)``, ``TranscodeError("X", ...)``, and the values of ``{"field": "X"}`` tables that
    name reasons in service/errors.py."""
    found: set[str] = set()
    for path in (ROOT / "service").rglob("*.py"):
        tree = ast.parse(path.read_text())
        constants = {  # NAME = "VALUE" at module level (service/security/tls.py names its reason so)
            t.id: n.value.value
            for n in tree.body
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        for node in ast.walk(tree):
            is_reason = any(isinstance(t, ast.Name) and t.id == "reason" for t in getattr(node, "targets", ()))
            ternary = isinstance(node, ast.Assign) and isinstance(node.value, ast.IfExp)
            if path.name == "errors.py" and is_reason and ternary:  # reason = "A" if ... else "B"
                assert isinstance(node, ast.Assign) and isinstance(node.value, ast.IfExp)
                found |= {n.value for n in (node.value.body, node.value.orelse) if isinstance(n, ast.Constant)}
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            position = {
                "ServiceError": 1,
                "_invalid": 0,
                "_precondition": 0,
                "TranscodeError": 0,
                "identity_refused": 0,
            }.get(name)
            if position is None or len(node.args) <= position:
                continue
            arg = node.args[position]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
            elif isinstance(arg, ast.Name) and arg.id in constants:
                found.add(constants[arg.id])
            elif isinstance(arg, ast.IfExp):
                found |= {n.value for n in (arg.body, arg.orelse) if isinstance(n, ast.Constant)}
    errors = ast.parse((ROOT / "service" / "errors.py").read_text())
    for node in ast.walk(errors):
        if isinstance(node, ast.Dict) and all(isinstance(v, ast.Constant) for v in node.values):
            values = {v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
            found |= {v for v in values if v.endswith("_WITH_TICKET")}
    return found


def test_the_service_raises_no_reason_it_does_not_list() -> None:
    found = literal_reasons()
    assert len(found) > 40  # the walk sees the constructors
    assert found <= REASONS, sorted(found - REASONS)
    unused = SERVICE_REASONS - found
    assert not unused, f"listed but never raised: {sorted(unused)}"


def test_every_reason_of_the_service_is_in_the_api_docs() -> None:
    docs = (ROOT / "docs" / "api.md").read_text() + (ROOT / "docs" / "rest.md").read_text()
    missing = sorted(code for code in SERVICE_REASONS if f"`{code}`" not in docs)
    assert not missing, missing


def web_messages() -> dict[str, list[str]]:
    """clients/web/messages.js's explanation of every code it knows, in English and in Russian, under node."""
    node = shutil.which("node")
    assert node is not None, "node is not installed (deploy/setup.sh installs it): the web client's tables go unchecked"
    script = """
const store = new Map();
globalThis.localStorage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
globalThis.document = { documentElement: {} };
const m = await import(MODULE);
const i18n = await import(I18N);
const out = {};
for (const code of m.REASON_CODES) {
  i18n.setLang('en');
  const en = m.reasonText(code);
  i18n.setLang('ru');
  out[code] = [en, m.reasonText(code), m.reasonText(code.toLowerCase().replaceAll('_', '-'))];
}
console.log(JSON.stringify(out));
"""
    script = script.replace("MODULE", json.dumps((WEB / "messages.js").as_uri()))
    script = script.replace("I18N", json.dumps((WEB / "i18n.js").as_uri()))
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


def test_the_web_client_explains_every_reason_code_in_both_languages() -> None:
    messages = web_messages()
    every = set().union(*every_code().values())
    missing = sorted(every - set(messages))
    assert not missing, f"clients/web/messages.js explains no {missing}"
    for code, (en, ru, kebab) in messages.items():
        assert UPPER_SNAKE.match(code), code
        assert en and ru and en != ru, code
        assert re.search("[\u0400-\u04ff]", ru), (code, ru)  # Russian is written in Cyrillic
        assert kebab == ru, code  # an older server's kebab spelling reads the same
