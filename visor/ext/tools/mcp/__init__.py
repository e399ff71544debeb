"""Agents driving a device through visor: the tool session and its MCP server."""
