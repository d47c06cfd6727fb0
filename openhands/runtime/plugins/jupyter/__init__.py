"""The ``jupyter`` plugin (runtime.md §6). Import ``plugin`` explicitly: it needs jupyter_client.

- kernel.py: IPythonKernel — start ipykernel as the sandbox user, run cells, interrupt
- plugin.py: JupyterPlugin — cwd sync with bash, extras lines, observations
"""
