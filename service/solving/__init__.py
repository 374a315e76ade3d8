"""The solver's side of the service: the hint pool and its fair queue, what its processes run, the winnable pools and
their filler."""
