"""Free-form settings for extensions (`[extended]`): any keys, read by whoever needs them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class ExtendedConfig(BaseModel):
    """Arbitrary keys, reachable as attributes, with `[]` or with `get`."""

    model_config = ConfigDict(extra="allow")

    def __getitem__(self, key: str) -> Any:
        extra = self.__pydantic_extra__ or {}
        if key not in extra:
            raise KeyError(key)
        return extra[key]

    def __contains__(self, key: object) -> bool:
        return key in (self.__pydantic_extra__ or {})

    def get(self, key: str, default: Any = None) -> Any:
        return (self.__pydantic_extra__ or {}).get(key, default)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__pydantic_extra__ or {})
