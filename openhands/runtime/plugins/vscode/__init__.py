"""The ``vscode`` plugin (runtime.md §9), served by code-server from the npm registry.

- plugin.py: VSCodePlugin — start code-server as the sandbox user on ``$VSCODE_PORT``,
  password = a per-sandbox token, no telemetry, no extension gallery
"""
