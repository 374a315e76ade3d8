"""The patience service: stateless gRPC (and REST) layers over the engine, games kept in Redis.

Modules: ``games`` (the use cases, one module per group of RPCs), ``errors`` (every refusal, and its gRPC
status), ``caches`` (what a replica remembers between calls), ``tokens`` (ids, tokens, seeds), ``calls``
(request ids, metrics, access line and errors as statuses, for both transports), ``servicer`` and
``operations`` (gRPC transport), ``http`` with ``http_routes``, ``http_transcode``, ``http_openapi`` (REST
transport and web client), ``store`` (the storage interface and its Redis implementation; ``redispipe``,
its pipelined connection), ``signing`` (certificates, whose format is ``patience.certificates`` in the core),
``tickets``, ``keys``, ``ratelimit``, ``convert`` (engine values as messages), ``config`` (flags and PATIENCE_*
variables), ``logs``, ``metrics``, ``healthcheck``, ``server`` (create_server/serve), ``workers``. Importing the
package imports none of them, so ``python -m service --workers N`` can fork before gRPC is loaded.
"""
