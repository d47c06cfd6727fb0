"""The terminal app: ``openhands`` (``openhands.cli.entry:main``), spec ``cli.md``.

Nothing heavy is imported here: ``openhands --help`` and the first prompt must come up fast.
"""
