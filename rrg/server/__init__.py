"""rrg as a server for agent hosts (MCP): the tools, and their wiring to the SDK."""
