"""Shared kernel: settings, errors, scopes, clock and the composition root."""
