"""Shared kernel: settings, errors, scopes, clock, auth; imports nothing else of ours."""
