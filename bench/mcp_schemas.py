"""Size of the MCP tool schemas an LLM reads: the JSON of `tools/list`, per tool and in total.

    python bench/mcp_schemas.py            # prints the table, writes bench/results/mcp_schemas.json

Sizes are bytes of compact JSON (what an MCP client forwards to the model, before its own
framing): the whole `tools/list` result, and per tool its input and output schemas.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mnemos_client.mcp.tools import TOOLS

OUT = Path(__file__).parent / 'results' / 'mcp_schemas.json'


def measure() -> dict[str, Any]:
    """Bytes of each tool's input and output schema and of the whole `tools/list` result."""
    specs = [t.spec().model_dump(mode='json', by_alias=True, exclude_none=True) for t in TOOLS]
    rows = []
    for spec in specs:
        rows.append(
            {
                'tool': spec['name'],
                'input': len(json.dumps(spec['inputSchema'], separators=(',', ':'))),
                'output': len(json.dumps(spec.get('outputSchema', {}), separators=(',', ':'))),
                'total': len(json.dumps(spec, separators=(',', ':'))),
            }
        )
    listed = len(json.dumps({'tools': specs}, separators=(',', ':')))
    return {'tools': rows, 'count': len(rows), 'tools_list_bytes': listed}


def main() -> None:
    """Print the table and write the JSON."""
    result = measure()
    print(f'{"tool":<24} {"input":>7} {"output":>7} {"total":>7}')
    for row in result['tools']:
        print(f'{row["tool"]:<24} {row["input"]:>7} {row["output"]:>7} {row["total"]:>7}')
    print(f'{result["count"]} tools, tools/list {result["tools_list_bytes"]} bytes')
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1) + '\n', encoding='utf-8')


if __name__ == '__main__':
    main()
