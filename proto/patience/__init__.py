"""Generated gRPC/protobuf code for the patience API (``patience.v1``); see proto/generate.py."""
