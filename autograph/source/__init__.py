"""Source handling for the converter: parsing live functions, templates, names, origins, loading."""

__all__: list[str] = []
