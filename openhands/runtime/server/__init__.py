"""The action execution server's parts (it runs inside the sandbox; runtime.md §3).

- options.py: command line and environment → ServerOptions
- user_setup.py: sandbox user and working directory (§3.3 step 2)
- executor.py: ActionExecutor — bash, editor, files; one action at a time
- file_transfer.py: upload / download / list_files helpers
- file_viewer.py: the localhost-only side server for PDFs and images (§3.6)
- system_info.py: /server_info resource numbers
- app.py: the FastAPI app (auth, error bodies, routes)
Entry point: ``python -m openhands.runtime.action_execution_server PORT ...``.
"""
