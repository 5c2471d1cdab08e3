"""The README's settings table, generated from the settings model: `python -m core.settings_table`.

tests/unit/test_settings.py fails when the README's copy differs from what this prints.
"""

from __future__ import annotations

import argparse
import types
import typing
from typing import Any, Literal

from core.settings import ENV_PREFIX, GROUPS


def _default_text(value: Any) -> str:
    if value is None:
        return 'unset'
    if isinstance(value, bool):
        return f'`{str(value).lower()}`'
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f'`{value}`'


def _choices(annotation: Any) -> tuple[Any, ...]:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    return typing.get_args(annotation) if typing.get_origin(annotation) is Literal else ()


def markdown_table() -> str:
    """The settings as Markdown: one table per group, every variable with its default."""
    parts = []
    for group, model in GROUPS.items():
        lines = [f'**{group}**: {model.__doc__}', '', '| variable | default | what it does |']
        lines.append('| --- | --- | --- |')
        for name, info in model.model_fields.items():
            text = info.description or ''
            choices = _choices(info.annotation)
            if choices and not all(f'`{c}`' in text for c in choices):
                text += ' (' + ', '.join(f'`{c}`' for c in choices) + ')'
            default = _default_text(info.get_default(call_default_factory=True))
            text = text.replace('|', '\\|')
            lines.append(f'| `{ENV_PREFIX}{name.upper()}` | {default} | {text} |')
        parts.append('\n'.join(lines))
    return '\n\n'.join(parts) + '\n'


def main(argv: list[str] | None = None) -> int:
    """Print the settings table the README holds."""
    parser = argparse.ArgumentParser(prog='python -m core.settings_table', description=main.__doc__)
    parser.parse_args(argv)
    print(markdown_table(), end='')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
