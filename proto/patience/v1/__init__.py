"""``patience.v1``: generated from patience.proto by proto/generate.py; do not edit the *_pb2 files."""
