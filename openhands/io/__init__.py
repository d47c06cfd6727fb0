"""Terminal input and JSON helpers shared by the entry points.

- ``io``: read the task or a reply from the user (``read_input``, ``read_task``,
  ``read_task_from_file``).
- ``json``: ``dumps`` that understands events, metrics, pydantic models and datetimes;
  ``loads`` that falls back to repairing the first JSON object found in model output.
- ``repair``: the lenient parser behind that fallback.
"""

from openhands.io.io import read_input, read_task, read_task_from_file
from openhands.io.json import dumps, loads

__all__ = [
    "dumps",
    "loads",
    "read_input",
    "read_task",
    "read_task_from_file",
]
