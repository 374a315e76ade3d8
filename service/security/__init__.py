"""Secrets and who may do what: keys (generate, load, rotate), certificate signing, deal tickets, tokens and ids, TLS,
development certificates, rate limits."""
