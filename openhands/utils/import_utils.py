"""Loading classes named by dotted paths (the extension points of config and server)."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")


def import_from(qual_name: str) -> Any:
    """``import_from('pkg.mod.Name')`` imports ``pkg.mod`` and returns its ``Name``."""
    module_name, _, attribute = qual_name.rpartition(".")
    if not module_name:
        raise ValueError(f"Not a dotted path to a module attribute: {qual_name!r}")
    module = importlib.import_module(module_name)
    return getattr(module, attribute)


@cache
def get_impl(cls: type[T], impl_name: str | None) -> type[T]:
    """The class ``impl_name`` names, which must be ``cls`` or a subclass of it (asserted);
    ``cls`` itself when no name is given. Results are cached per (cls, name)."""
    if impl_name is None:
        return cls
    impl_class = import_from(impl_name)
    assert cls == impl_class or issubclass(impl_class, cls), (
        f"{impl_name} is not {cls.__name__} or a subclass of it"
    )
    return impl_class  # type: ignore[no-any-return]
