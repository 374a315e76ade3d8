"""Every file a document or a comment names exists: the README and docs/ (their links and the repository paths
they quote), and the docs/*.md that code, the proto and the web client cite. A renamed or deleted file fails
here instead of leaving a reader at a dead end."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = ("service", "engine", "proto", "clients", "tests", "deploy", "docs", "bench", "tools", ".ci")
#: A path into the repository as docs quote it: one of the top folders, then path characters, ending in a file
#: name with an extension or a slash (a folder).
_TOPS = "|".join(re.escape(t) for t in TOP)
PATH = re.compile(rf"(?<![\w./-])((?:{_TOPS})/[\w./-]*[\w/])")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
DOC_CITED = re.compile(r"(?<![\w/])(docs/[\w./-]+\.(?:md|json|png))")
#: A top-level document named bare (README.md, CHANGELOG.md): it must be one of the repository's.
TOP_DOC = re.compile(r"(?<![\w/.-])([A-Z][A-Z0-9_-]*\.md)\b")


def documents() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]


def sources() -> list[Path]:
    out: list[Path] = []
    for top, pattern in (("service", "*.py"), ("engine", "*.py"), ("proto", "*.py"), ("proto", "*.proto"),
                         ("clients", "*.py"), ("clients/web", "*.js"), ("clients/web", "*.html"),
                         ("bench", "*.py"), ("tools", "*.py"), ("deploy", "*.sh"), ("tests", "*.py")):  # fmt: skip
        out += [p for p in (ROOT / top).rglob(pattern) if "node_modules" not in p.parts and "_pb2" not in p.name]
    return out


def exists(base: Path, name: str) -> bool:
    name = name.rstrip(".,;:")
    if any(c in name for c in "*{}<>$"):  # a pattern or a placeholder, not a file
        return True
    if (base / name).exists() or (ROOT / name).exists():
        return True
    # A module as code names it (``service/http_routes.Router``, ``proto/patience/v1/patience_pb2``).
    module = name.split(".")[0] if "." in name.rpartition("/")[2] else name
    return any((ROOT / (module + ext)).exists() for ext in (".py", ".proto", ".js"))


def missing_in(path: Path, *, docs: bool) -> list[str]:
    text = path.read_text(encoding="utf-8")
    out = []
    if docs:
        for target in LINK.findall(text):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not exists(path.parent, target):
                out.append(f"{path.relative_to(ROOT)}: link {target}")
        for quoted in PATH.findall(text):
            if not exists(path.parent, quoted):
                out.append(f"{path.relative_to(ROOT)}: {quoted}")
    else:
        for cited in DOC_CITED.findall(text) + TOP_DOC.findall(text):
            if not exists(ROOT, cited):
                out.append(f"{path.relative_to(ROOT)}: {cited}")
    return out


def test_every_file_the_docs_name_exists() -> None:
    # The CHANGELOG tells history: files it names may have been renamed since; its links must hold.
    missing = [m for p in documents() if p.name != "CHANGELOG.md" for m in missing_in(p, docs=True)]
    assert missing == [], "\n".join(missing)


def test_every_doc_the_code_cites_exists() -> None:
    missing = [m for p in sources() for m in missing_in(p, docs=False)]
    assert missing == [], "\n".join(missing)


def test_every_rpc_is_in_the_readme_and_api_tables() -> None:
    """The README's table of calls and docs/api.md's each list every RPC of the service, with its REST route:
    a new call that nobody documented fails here."""
    from google.api import annotations_pb2
    from patience.v1 import patience_pb2

    readme = (ROOT / "README.md").read_text()
    api = (ROOT / "docs" / "api.md").read_text()
    for method in patience_pb2.DESCRIPTOR.services_by_name["PatienceService"].methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        verb = rule.WhichOneof("pattern")
        assert verb is not None
        row = re.compile(rf"^\| `{method.name}` \|[^\n]*`{verb.upper()} ", re.M)
        assert row.search(readme), f"README.md's table of calls lacks {method.name} ({verb.upper()})"
        assert row.search(api), f"docs/api.md's table of calls lacks {method.name} ({verb.upper()})"
