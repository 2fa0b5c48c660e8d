"""The small copy/construct surface the immutable core records share (no pydantic at start-up)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Self


class ImmutableRecord:
    """Mixin for frozen dataclasses: pydantic-style ``model_copy`` / ``model_construct`` /
    ``model_dump``, so callers read the same as for the pydantic models elsewhere in the core."""

    __slots__ = ()

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        """A copy with the fields in ``update`` replaced (unknown names raise TypeError)."""
        return dataclasses.replace(self, **update) if update else self  # type: ignore[type-var]

    @classmethod
    def model_construct(cls, **fields: Any) -> Self:
        """The record from ``fields`` (the same as calling the class)."""
        return cls(**fields)

    def model_dump(self) -> dict[str, Any]:
        """The fields as a dict (shallow: values are not converted)."""
        return {f.name: getattr(self, f.name)
                for f in dataclasses.fields(self)}  # type: ignore[arg-type]
