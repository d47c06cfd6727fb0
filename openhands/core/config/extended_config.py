"""Free-form settings for extensions (`[extended]`): any keys, read by whoever needs them."""

from __future__ import annotations

from typing import Any

from pydantic import Field, RootModel


class ExtendedConfig(RootModel[dict[str, Any]]):
    """A plain dict (``.root``) whose keys are also reachable as attributes and with ``[]``."""

    root: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExtendedConfig:
        return cls(dict(data))

    def __str__(self) -> str:
        fields = ", ".join(f"{key}={value!r}" for key, value in self.root.items())
        return f"{type(self).__name__}({fields})"

    __repr__ = __str__

    def __getitem__(self, key: str) -> Any:
        return self.root[key]

    def __getattr__(self, key: str) -> Any:
        # Only called when normal lookup fails. Read `root` from __dict__: during copy or
        # unpickling it may not be set yet, and `self.root` would recurse into here.
        root = self.__dict__.get("root")
        if isinstance(root, dict) and key in root:
            return root[key]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{key}'")

    def __contains__(self, key: object) -> bool:
        return key in self.root

    def get(self, key: str, default: Any = None) -> Any:
        return self.root.get(key, default)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.root)
