"""Parsing diffs and applying them to text, without the ``patch`` program.

The public names and the data shapes follow whatthepatch (MIT), which the reference
vendors; this is our own implementation of the parts the resolver needs: unified diffs
(plain, git and svn headers), context diffs and normal diffs.
"""

from openhands.resolver.patching.apply import apply_diff
from openhands.resolver.patching.patch import parse_patch

__all__ = ["apply_diff", "parse_patch"]
