"""`python -m mnemos_client.mcp`: the MCP server without the Mnemos server installed."""

from mnemos_client.mcp.command import main

raise SystemExit(main())
