"""The REST/JSON transport: the Starlette app, its routes and transcoding from the proto's annotations, OpenAPI, the
JSON mapping both ways, and the connection guard around uvicorn."""
