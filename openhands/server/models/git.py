"""REST models of the git-provider routes (server-api §6.6).

They are the integrations' models (``openhands.integrations.service_types``), which the
provider services return and the routes answer with unchanged; the names here are the
ones the server used before it moved onto those services.
"""

from __future__ import annotations

from openhands.integrations.service_types import (
    Branch,
    MicroagentContentResponse,
    MicroagentResponse,
    OwnerType,
    PaginatedBranchesResponse,
    Repository,
    SuggestedTask,
    TaskType,
    User,
)

GitUser = User
PaginatedBranches = PaginatedBranchesResponse
SuggestedTaskOut = SuggestedTask
RepoMicroagent = MicroagentResponse
RepoMicroagentContent = MicroagentContentResponse

__all__ = [
    "Branch",
    "GitUser",
    "OwnerType",
    "PaginatedBranches",
    "RepoMicroagent",
    "RepoMicroagentContent",
    "Repository",
    "SuggestedTaskOut",
    "TaskType",
]
