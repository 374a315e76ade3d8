"""REST routes read from the proto's ``google.api.http`` annotations, never listed by hand.

Every RPC of a service descriptor carries an ``HttpRule`` (``google/api/http.proto``) in its method
options; this module turns each rule and its ``additional_bindings`` into an :class:`HttpRoute` with a
compiled path template. The grammar is the one of ``http.proto``::

    Template = "/" Segments [ Verb ] ;
    Segments = Segment { "/" Segment } ;
    Segment  = "*" | "**" | LITERAL | Variable ;
    Variable = "{" FieldPath [ "=" Segments ] "}" ;
    FieldPath = IDENT { "." IDENT } ;
    Verb     = ":" LITERAL ;

so a proto that moves behind Envoy's transcoder keeps the very same URLs. Matching is done on the raw
(still percent-encoded) path, so that ``%2F`` inside a single-segment variable stays part of the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import unquote

from google.api import annotations_pb2, http_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor, ServiceDescriptor

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_FIELD_PATH = re.compile(rf"^{_IDENT}(?:\.{_IDENT})*$")
_LITERAL = re.compile(r"^[A-Za-z0-9._~!$&'()+,;=@-]+$")  # RFC 3986 pchar minus '%', ':' and '*'


class RouteError(ValueError):
    """An ``HttpRule`` this layer cannot serve (a bad template or an unknown field)."""


@dataclass(frozen=True)
class PathVariable:
    """``{field.path=pattern}``; ``multi`` when the pattern may span several segments (``**``); ``text_field``
    when it binds a top-level string field, which takes the decoded text as it is."""

    field_path: tuple[str, ...]
    multi: bool
    text_field: bool = False

    @cached_property
    def name(self) -> str:
        return ".".join(self.field_path)


@dataclass(frozen=True)
class HttpRoute:
    """One HTTP binding of one RPC."""

    method: MethodDescriptor
    http_method: str  # upper case: "GET", "POST" ...
    template: str  # as written in the proto: "/v1/games/{game_id}"
    body: str  # "" (no body), "*" (the whole request) or a top-level field name
    response_body: str  # "" (the whole response) or a top-level field name
    variables: tuple[PathVariable, ...]
    binding_index: int  # 0 for the rule itself, 1.. for its additional_bindings
    regex: re.Pattern[str] = field(repr=False, compare=False)

    @property
    def rpc_name(self) -> str:
        return self.method.name

    @property
    def operation_id(self) -> str:
        """Stable and unique: the RPC's name, with ``_<n>`` for its n-th additional binding."""
        return self.method.name if self.binding_index == 0 else f"{self.method.name}_{self.binding_index}"

    @property
    def openapi_path(self) -> str:
        """The template in OpenAPI form: ``{game_id}`` for every variable, patterns dropped."""
        return _VARIABLE_RE.sub(lambda m: "{" + m.group(1) + "}", self.template)

    def match(self, raw_path: str) -> dict[str, str] | None:
        """The decoded path variables if ``raw_path`` (percent-encoded) matches, else None."""
        m = self.regex.fullmatch(raw_path)
        if m is None:
            return None
        out: dict[str, str] = {}
        for i, var in enumerate(self.variables):
            value = m.group(f"v{i}")
            # http.proto: single-segment variables are fully decoded; multi-segment ones keep %2F.
            out[var.name] = unquote(value) if not var.multi else "/".join(unquote(s) for s in value.split("/"))
        return out

    def bound_fields(self) -> frozenset[str]:
        """Top-level request fields that the path or a named body binds (the rest go to the query or body)."""
        return self._bound

    @cached_property
    def _bound(self) -> frozenset[str]:
        bound = {v.field_path[0] for v in self.variables}
        if self.body not in ("", "*"):
            bound.add(self.body)
        return frozenset(bound)


_VARIABLE_RE = re.compile(r"\{([^}=]+)(?:=[^}]*)?\}")


def _segments_regex(segments: Sequence[str], template: str) -> tuple[str, bool]:
    """Regex for a ``Segments`` production (inside or outside a variable) and whether it spans segments."""
    parts: list[str] = []
    multi = False
    for seg in segments:
        if seg == "*":
            parts.append("[^/]+")
        elif seg == "**":
            parts.append(".+")  # any number (>= 1) of segments
            multi = True
        elif _LITERAL.match(seg):
            parts.append(re.escape(seg))
        else:
            raise RouteError(f"bad segment {seg!r} in {template!r}")
    return "/".join(parts), multi


def compile_template(template: str, request: Descriptor) -> tuple[re.Pattern[str], tuple[PathVariable, ...]]:
    """Compile a path template against the request message it binds into."""
    if not template.startswith("/"):
        raise RouteError(f"a path template starts with '/': {template!r}")
    body, verb = template[1:], ""
    last = body.rsplit("/", 1)[-1]
    if ":" in last and "}" not in last.split(":", 1)[1]:
        body, verb = body[: len(body) - len(last)] + last.split(":", 1)[0], last.split(":", 1)[1]
        if not _LITERAL.match(verb):
            raise RouteError(f"bad verb {verb!r} in {template!r}")
    tokens = _tokenize(body, template)
    regex_parts: list[str] = []
    variables: list[PathVariable] = []
    for tok in tokens:
        if tok.startswith("{"):
            inner = tok[1:-1]
            path, _, pattern = inner.partition("=")
            if not _FIELD_PATH.match(path):
                raise RouteError(f"bad field path {path!r} in {template!r}")
            field_path = tuple(path.split("."))
            bound = _resolve_scalar(request, field_path, template)
            sub, multi = _segments_regex(pattern.split("/") if pattern else ["*"], template)
            regex_parts.append(f"(?P<v{len(variables)}>{sub})")
            text = len(field_path) == 1 and bound.type == FieldDescriptor.TYPE_STRING
            variables.append(PathVariable(field_path, multi, text))
        else:
            sub, _ = _segments_regex([tok], template)
            regex_parts.append(sub)
    names = [v.name for v in variables]
    if len(set(names)) != len(names):
        raise RouteError(f"a field is bound twice in {template!r}")
    regex = "/" + "/".join(regex_parts) + (":" + re.escape(verb) if verb else "")
    return re.compile(regex), tuple(variables)


def _tokenize(body: str, template: str) -> list[str]:
    """Split on '/' outside braces (a variable's pattern may hold slashes)."""
    tokens: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "/" and depth == 0:
            tokens.append(body[start:i])
            start = i + 1
        if depth not in (0, 1):
            raise RouteError(f"unbalanced braces in {template!r}")
    if depth != 0:
        raise RouteError(f"unbalanced braces in {template!r}")
    tokens.append(body[start:])
    if any(t == "" for t in tokens):
        raise RouteError(f"empty segment in {template!r}")
    return tokens


def _resolve_scalar(message: Descriptor, path: Sequence[str], template: str) -> FieldDescriptor:
    """The field a path variable names: every step but the last a singular message, the last a scalar."""
    desc = message
    f: FieldDescriptor | None = None
    for i, name in enumerate(path):
        f = desc.fields_by_name.get(name)
        if f is None:
            raise RouteError(f"{desc.full_name} has no field {name!r} ({template!r})")
        if _is_repeated(f):
            raise RouteError(f"path variable {'.'.join(path)!r} names a repeated field ({template!r})")
        if i < len(path) - 1:
            if f.message_type is None:
                raise RouteError(f"{'.'.join(path[: i + 1])!r} is not a message ({template!r})")
            desc = f.message_type
        elif f.message_type is not None:
            raise RouteError(f"path variable {'.'.join(path)!r} names a message ({template!r})")
    if f is None:  # an empty path
        raise RouteError(f"an empty path variable ({template!r})")
    return f


def _is_repeated(f: FieldDescriptor) -> bool:
    return bool(f.is_repeated)  # protobuf >= 7 (pyproject pins it); `label` is gone there


def _rule_route(method: MethodDescriptor, rule: http_pb2.HttpRule, index: int) -> HttpRoute:
    kind = rule.WhichOneof("pattern")
    if kind is None:
        raise RouteError(f"{method.full_name}: an HttpRule without a pattern")
    if kind == "custom":
        verb, template = rule.custom.kind.upper(), rule.custom.path
    else:
        verb, template = kind.upper(), getattr(rule, kind)
    request = method.input_type
    regex, variables = compile_template(template, request)
    if rule.body not in ("", "*") and rule.body not in request.fields_by_name:
        raise RouteError(f"{method.full_name}: body field {rule.body!r} is not in {request.full_name}")
    if rule.response_body and rule.response_body not in method.output_type.fields_by_name:
        raise RouteError(f"{method.full_name}: response_body {rule.response_body!r} is not a response field")
    if verb == "GET" and rule.body:
        raise RouteError(f"{method.full_name}: a GET binding has no body")
    return HttpRoute(method, verb, template, rule.body, rule.response_body, variables, index, regex)


def routes_for_method(method: MethodDescriptor) -> list[HttpRoute]:
    """The routes of one RPC: its rule and then its additional bindings (none if it is not annotated)."""
    options = method.GetOptions()
    if not options.HasExtension(annotations_pb2.http):
        return []
    rule: http_pb2.HttpRule = options.Extensions[annotations_pb2.http]
    routes = [_rule_route(method, rule, 0)]
    for i, extra in enumerate(rule.additional_bindings, start=1):
        if extra.additional_bindings:
            raise RouteError(f"{method.full_name}: additional_bindings do not nest")
        routes.append(_rule_route(method, extra, i))
    return routes


def routes_for_services(services: Iterable[ServiceDescriptor]) -> list[HttpRoute]:
    """Every route of every annotated RPC, in declaration order; RouteError on a duplicate binding."""
    routes: list[HttpRoute] = []
    seen: dict[tuple[str, str], str] = {}
    for service in services:
        for method in service.methods:
            for route in routes_for_method(method):
                key = (route.http_method, _VARIABLE_RE.sub("{}", route.template))
                if key in seen:
                    raise RouteError(f"{route.operation_id} and {seen[key]} bind {key[0]} {route.template}")
                seen[key] = route.operation_id
                routes.append(route)
    return routes


@dataclass(frozen=True)
class RouteMatch:
    route: HttpRoute
    path_params: dict[str, str]


class Router:
    """First match in declaration order; tells a wrong method (405) from an unknown path (404).

    The matches of the last :attr:`kept` paths are kept: a game's calls repeat its paths (each move of a game is
    ``POST /v1/games/<id>/moves``), and a kept match saves the regular expressions and the decoding. Only paths
    of at most :attr:`kept_path_length` characters are kept (a game id is at most 64), so what is kept stays
    small whatever paths clients send."""

    kept = 4096
    kept_path_length = 256

    def __init__(self, routes: Sequence[HttpRoute]) -> None:
        self.routes = tuple(routes)
        self._by_method: dict[str, tuple[HttpRoute, ...]] = {}
        # Routes with a verb first (``/v1/games/{game_id}:watch`` before ``/v1/games/{game_id}``), as Envoy's
        # transcoder matches them: a single-segment variable would otherwise take ``abc:watch`` as its value.
        for route in sorted(self.routes, key=lambda r: not _has_verb(r.template)):
            self._by_method[route.http_method] = (*self._by_method.get(route.http_method, ()), route)
        self._matches: dict[tuple[str, str], RouteMatch] = {}

    def match(self, http_method: str, raw_path: str) -> RouteMatch | list[str]:
        """The matching route, or the HTTP methods the path allows (empty: no such path). A match's
        ``path_params`` may be shared with other calls of the same path: read them, never change them."""
        found = self._matches.get((http_method, raw_path))
        if found is not None:
            return found
        result = self._match(http_method, raw_path)
        if isinstance(result, RouteMatch) and len(raw_path) <= self.kept_path_length:
            if len(self._matches) >= self.kept:
                self._matches.clear()
            self._matches[(http_method, raw_path)] = result
        return result

    def _match(self, http_method: str, raw_path: str) -> RouteMatch | list[str]:
        method = http_method.upper()
        for route in self._by_method.get(method, ()):  # the routes of other methods matter only for a 405
            params = route.match(raw_path)
            if params is not None:
                return RouteMatch(route, params)
        allowed: list[str] = []
        for route in self.routes:
            if route.http_method not in allowed and route.regex.fullmatch(raw_path):
                allowed.append(route.http_method)
        return allowed


def _has_verb(template: str) -> bool:
    """``/v1/games/{game_id}:watch``: the last segment ends with ``:verb`` outside any variable."""
    return ":" in template.rsplit("/", 1)[-1].rsplit("}", 1)[-1]
