"""The gRPC transport: the servicer (metadata to a call context), the per-method wrapper, the container's health
probe."""
