"""What operators see: structured logs, Prometheus metrics, and the per-call wrapper both transports share (request
id, access line, metrics, errors to statuses)."""
