"""The base of every wire model: camelCase on the wire, snake_case in Python."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """A shape of the interface.

    Unknown fields are ignored rather than refused so that the client keeps working against
    a deployment that adds fields; serialize with :meth:`wire` to get exact wire names.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        serialize_by_alias=True,
        # JSON has no NaN or Infinity; Python's parser accepts them, the interface does not.
        allow_inf_nan=False,
    )

    def wire(self, *, exclude_unset: bool = False, exclude_none: bool = True) -> dict[str, Any]:
        """The JSON-ready dict of this model with the interface's field names."""
        return self.model_dump(
            mode="json", by_alias=True, exclude_unset=exclude_unset, exclude_none=exclude_none
        )


class StrictWireModel(WireModel):
    """A request body whose unknown fields are a client mistake worth reporting."""

    model_config = ConfigDict(extra="forbid")
