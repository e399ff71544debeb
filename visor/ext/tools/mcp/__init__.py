"""Agents driving a device through visor: the tool session and its MCP server.

- `catalog`: What `visor mcp` says about each tool beyond its input schema: a title, behaviour hints and its
  result's schema
- `device`: Open an agent's session on a device (`visor mcp`): the device opened as for a run, the session on top
- `devices`: The devices an agent can choose from, and the tools about them: `list_devices`, `use_device`,
  `list_apps`
- `host`: What `visor mcp` serves: the agent's tools on the device in use, which the agent chooses (or the command
  line)
- `lines`: What `visor mcp` reads from its client: every line checked by visor's bounded reader before the MCP SDK
  sees it
- `server`: `visor mcp`: the agent's tools served over MCP (stdio), on the official `mcp` SDK (an optional extra)
- `session`: An agent's session with one device: the 16 tools plus observation, with the memory the tools' rules
  need
"""
