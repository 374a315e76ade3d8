"""Domain errors of the service, every one built in this package, and their one mapping to gRPC statuses.

The use cases (``service.games``) raise :class:`ServiceError` values that know
nothing of any transport, each made by a named constructor of this package
(``game_not_found(game_id)``), so that a reason and its text live in one place:
a status ``Code`` (named as gRPC names them, the REST layer maps them to HTTP),
a stable ``reason`` and string ``metadata`` (``move_index``, ``move_text``,
``current_version`` ...). gRPC clients get a ``google.rpc.Status`` with one
``google.rpc.ErrorInfo`` detail (domain ``patience.v1``) through
``abort_with_status``; read it back with ``grpc_status.rpc_status.from_call``.

Reasons are UPPER_SNAKE_CASE (Google AIP-193), one spelling on every path: for a
refused move the reason is the engine's own code (``DOES_NOT_FIT``, also in
``metadata["rule"]`` and in a verdict's ``error_reason``). :data:`REASONS` lists
every reason the service sends; a ServiceError with any other is a bug.

The package, by concern: ``reasons`` (codes, the registry of reasons, ServiceError), ``requests`` (the request
itself, the REST and HTTP layers), ``callers`` (credentials, identities, addresses, limits), ``games`` (games, the
store, the server, daily deals and boards, watching), ``statuses`` (as gRPC statuses). Every name is importable
from here: ``from service import errors``; ``errors.game_not_found(game_id)``.
"""

from __future__ import annotations

from service.errors.callers import *  # noqa: F403  (the package's one namespace: every refusal)
from service.errors.games import *  # noqa: F403
from service.errors.reasons import *  # noqa: F403
from service.errors.requests import *  # noqa: F403
from service.errors.statuses import *  # noqa: F403
