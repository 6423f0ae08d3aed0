"""The base of every wire model: camelCase on the wire, snake_case in Python."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import types
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    AnyUrl,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    FutureDate,
    FutureDatetime,
    NaiveDatetime,
    PastDate,
    PastDatetime,
    StringConstraints,
    ValidationInfo,
    field_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.functional_validators import BeforeValidator, PlainValidator, WrapValidator
from pydantic_core import PydanticCustomError


def _closed(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """The OpenAPI document says a shape has no other fields: a request body refuses unknown
    ones (StrictWireModel, in the models it holds too) and no answer carries any."""
    if model.model_config.get("extra") != "allow" and schema.get("type") == "object":
        schema.setdefault("additionalProperties", False)


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
        json_schema_extra=_closed,
    )

    def wire(self, *, exclude_unset: bool = False, exclude_none: bool = True) -> dict[str, Any]:
        """The JSON-ready dict of this model with the interface's field names."""
        return self.model_dump(
            mode="json", by_alias=True, exclude_unset=exclude_unset, exclude_none=exclude_none
        )


class StrictWireModel(WireModel):
    """A request body whose unknown fields are a client mistake worth reporting.

    Its values must also have the JSON type the field declares (in it and in the lenient
    models it holds): `false` or `"5"` for an integer, `1` for a boolean, `0` for a date-time
    are refused rather than coerced as pydantic's lax mode would. Values that are already
    Python objects (a model built in code) are left to pydantic.
    """

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _json_types(cls, value: Any, info: ValidationInfo) -> Any:
        if info.field_name is None:
            return value
        check = (_CHECKS.get(cls) or _checks(cls)).get(info.field_name)
        if check is not None and type(value) not in check.taken:
            problem = _type_problem(check, value, ())
            if problem is not None:
                path, message = problem
                # A field validator's error is located at its field; where inside the value
                # (a lenient model it holds) goes in the context: see error_location.
                raise PydanticCustomError("json_type", message, {"within": list(path)})
        return value


Path = tuple[str | int, ...]


def error_location(error: Mapping[str, Any]) -> tuple[str | int, ...]:
    """Where a pydantic error (an item of ValidationError.errors()) points: its `loc`, and for
    a JSON type refused inside a field's value (StrictWireModel), the path within it too, so
    that `coordinates.latitude` is named rather than `coordinates`."""
    loc = tuple(error.get("loc", ()))
    within = (error.get("ctx") or {}).get("within") if error.get("type") == "json_type" else None
    return (*loc, *within) if isinstance(within, list) else loc


def json_type_problem(model: type[BaseModel], data: Any) -> tuple[Path, str] | None:
    """The first value of a JSON body (parsed) whose JSON type is not what `model` declares
    for it, as (path, message); what StrictWireModel refuses, for a lenient model used as a
    request body."""
    return _model_problem(model, data, ()) if isinstance(data, dict) else None


_JSON_NAMES = {
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "array": "an array",
    "object": "an object",
    "null": "null",
}
# A JSON number is also taken where an integer is declared (5.0).
_ALSO = {"number": {"integer"}}
_STRING_TYPES = (
    str,
    dt.datetime,
    dt.date,
    dt.time,
    uuid.UUID,
    AnyUrl,
    AwareDatetime,
    NaiveDatetime,
    PastDatetime,
    FutureDatetime,
    PastDate,
    FutureDate,
)


# The JSON type of each Python type json.loads makes (exactly those types: a subclass is an
# object of ours, not parsed JSON).
_JSON_KINDS: dict[type, str] = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def _json_kind(value: Any) -> str | None:
    """The JSON type of a value as json.loads makes it; None for other Python objects."""
    return _JSON_KINDS.get(type(value))


def _has_own_validator(metadata: Sequence[Any]) -> bool:
    """Whether a field converts its input itself (then its JSON type is its own business)."""
    return any(isinstance(m, BeforeValidator | PlainValidator | WrapValidator) for m in metadata)


def _kinds(annotation: Any) -> frozenset[str] | None:
    """The JSON types a field of this annotation takes; None when not known (no check)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *metadata = get_args(annotation)
        return None if _has_own_validator(metadata) else _kinds(inner)
    if origin is Union or origin is types.UnionType:
        found: set[str] = set()
        for option in get_args(annotation):
            kinds = _kinds(option)
            if kinds is None:
                return None
            found |= kinds
        return frozenset(found)
    if origin is Literal:
        return _value_kinds(get_args(annotation))
    if origin in (list, tuple, set, frozenset, Sequence):
        return frozenset({"array"})
    if origin in (dict, Mapping):
        return frozenset({"object"})
    if origin is not None or not isinstance(annotation, type):
        return None
    if annotation is type(None):
        return frozenset({"null"})
    if issubclass(annotation, enum.Enum):
        return _value_kinds(list(annotation))
    if issubclass(annotation, bool):
        return frozenset({"boolean"})
    if issubclass(annotation, int):
        return frozenset({"integer"})
    if issubclass(annotation, float):
        return frozenset({"number", "integer"})
    if issubclass(annotation, decimal.Decimal):
        return frozenset({"number", "integer", "string"})
    if issubclass(annotation, _STRING_TYPES):
        return frozenset({"string"})
    if issubclass(annotation, BaseModel):
        return frozenset({"object"})
    return None


def _value_kinds(values: Sequence[Any]) -> frozenset[str] | None:
    """The JSON types of a Literal's or an Enum's values; None when one is not plain JSON."""
    kinds = [_json_kind(v.value if isinstance(v, enum.Enum) else v) for v in values]
    known = frozenset(k for k in kinds if k is not None)
    return known if len(known) == len(set(kinds)) else None


@dataclass(frozen=True)
class _Check:
    """What a field's annotation asks of a JSON value: its JSON types (None: not checked) and
    the lenient models it holds (looked into)."""

    key: str  # the field's name on the wire
    kinds: frozenset[str] | None
    lenient: tuple[type[WireModel], ...]
    # The types json.loads makes that the field takes as they are, with nothing inside to
    # look into: most values of a valid body, answered by one set lookup (issue 18).
    taken: frozenset[type]


def _check(key: str, annotation: Any) -> _Check:
    kinds = _kinds(annotation)
    lenient = _lenient_models(annotation)
    taken = frozenset(
        python
        for python, kind in _JSON_KINDS.items()
        if _kind_problem(kinds, kind) is None and not (lenient and python in (dict, list))
    )
    return _Check(key, kinds, lenient, taken)


# Worked out once per model: working out the annotations again for every value was 90% of
# validating a push body (150 of 170 us), and bodies are validated on every request (issue 18).
_CHECKS: dict[type[BaseModel], dict[str, _Check]] = {}


def _checks(model: type[BaseModel]) -> dict[str, _Check]:
    """The check of each field of `model` whose JSON type is checked (those without a
    converter of their own), by field name."""
    checks = _CHECKS.get(model)
    if checks is None:
        checks = _CHECKS[model] = {
            name: _check(field.alias or name, field.annotation)
            for name, field in model.model_fields.items()
            if not _has_own_validator(field.metadata)
        }
    return checks


def _type_problem(check: _Check, value: Any, path: Path) -> tuple[Path, str] | None:
    """What is wrong with the JSON type of `value` for the field `check` is of, if anything,
    and where; looks into the lenient models (and lists of them) that it holds."""
    message = _kind_problem(check.kinds, _json_kind(value))
    if message is not None:
        return path, message
    for model in check.lenient:
        items: list[tuple[Path, Any]] = [(path, value)]
        if isinstance(value, list):
            items = [((*path, index), item) for index, item in enumerate(value)]
        for item_path, item in items:
            if isinstance(item, dict):
                problem = _model_problem(model, item, item_path)
                if problem is not None:
                    return problem
    return None


def _kind_problem(kinds: frozenset[str] | None, kind: str | None) -> str | None:
    """What is wrong with a value of JSON type `kind` for a field of these JSON types."""
    if kinds and kind is not None and kind not in kinds and not kinds & _ALSO.get(kind, set()):
        named = kinds - {"null"} - ({"integer"} if "number" in kinds else set())
        expected = " or ".join(_JSON_NAMES[k] for k in sorted(named) or ["null"])
        # "not text" rather than "not a string": read by dispatchers in forms as well.
        given = "text" if kind == "string" else _JSON_NAMES[kind]
        return f"must be {expected}, not {given}"
    return None


def _model_problem(
    model: type[BaseModel], data: dict[str, Any], path: Path
) -> tuple[Path, str] | None:
    for name, check in _checks(model).items():
        key = check.key
        if key not in data:
            key = name  # populate_by_name
        if key in data:
            problem = _type_problem(check, data[key], (*path, key))
            if problem is not None:
                return problem
    return None


def _lenient_models(annotation: Any) -> tuple[type[WireModel], ...]:
    """The lenient wire models an annotation holds directly or as list items."""
    if isinstance(annotation, type):
        if issubclass(annotation, WireModel) and not issubclass(annotation, StrictWireModel):
            return (annotation,)
        return ()
    return tuple(model for arg in get_args(annotation) for model in _lenient_models(arg))


def _iana_zone(name: str) -> str:
    try:
        ZoneInfo(name)
    # OSError: a folder of the tz database, such as "America" (was a 500).
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"{name!r} is not an IANA time zone such as America/Chicago") from None
    return name


# The name of a time zone in the tz database, e.g. America/Chicago. Spaces round it are
# dropped (a pasted name); the longest IANA name is 32 characters, so 64 bounds the lookup.
IanaZone = Annotated[
    str,
    StringConstraints(strip_whitespace=True, max_length=64),
    AfterValidator(_iana_zone),
    Field(description="An IANA time zone, e.g. America/Chicago"),
]
