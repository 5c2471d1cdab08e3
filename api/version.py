"""The installed package's version, for /readyz, the OpenAPI document, the CLI and MCP."""

from __future__ import annotations

from importlib import metadata


def version() -> str:
    """The installed package's version (`0+unknown` when run from an uninstalled tree)."""
    try:
        return metadata.version('mnemos')
    except metadata.PackageNotFoundError:
        return '0+unknown'
