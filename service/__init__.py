"""The patience service: stateless gRPC (and REST) layers over the engine, games kept in Redis.

Modules: ``games`` (the use cases), ``servicer`` (gRPC transport), ``errors``
(domain errors -> statuses), ``config`` (flags and PATIENCE_* variables),
``server`` (create_server/serve), ``store`` (Redis), ``certificates``,
``tickets``, ``keys``. Importing the package imports none of them, so
``python -m service --workers N`` can fork before gRPC is loaded.
"""
