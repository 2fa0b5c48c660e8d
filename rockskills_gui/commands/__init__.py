"""CLI command families (each exposes ``register(subparsers)``)."""
