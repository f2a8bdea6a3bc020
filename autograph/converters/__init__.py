"""The converter's rewrites, one module each; `autograph.pipeline` runs them in order."""

__all__: list[str] = []
