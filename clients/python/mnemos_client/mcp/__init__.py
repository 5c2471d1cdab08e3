"""The MCP server: Mnemos as MCP tools, over stdio or streamable HTTP, a client of a running
service through `Mnemos` (`pip install 'mnemos-client[mcp]'`).

    python -m mnemos_client.mcp --url http://127.0.0.1:8765 --user alice   # stdio
    mnemos mcp --url http://127.0.0.1:8765 --http 8766                    # with the server

`tools.py` holds the tools, `server.py` the MCP server and its two transports, `http_auth.py`
the Host, Origin and bearer-token checks in front of the HTTP one, `command.py` the options.
Importing `mnemos_client` loads none of it.
"""
