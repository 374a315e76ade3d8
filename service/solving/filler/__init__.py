"""The filler: a worker process that keeps every winnable pool (service.solving.winnable) at its target.

``python -m service.solving.filler`` (console script ``patience-filler``) runs one; production runs them as their own
Deployment, and ``python -m service`` starts one beside itself unless ``--winnable-filler off``
(``service.solving.filler.embedded``). Each is CPU-bound (the solver) and shares nothing but Redis with the others, so
several fill the same pools side by side: a pool a little over its target costs a few hundred bytes.

- ``work``: the loop (pick the emptiest pool, draw a seed, prove it, push it);
- ``metrics``: its Prometheus metrics;
- ``embedded``: the service's child process;
- ``__main__``: the entry point.
"""
