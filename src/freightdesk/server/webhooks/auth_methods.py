"""The authentication methods of a push configuration: their rules, and their secrets.

A method is stored as `{"type": ..., "parameters": {...}}` with the wire names of its type's
parameters (models.webhooks.*Parameters), defaults filled in, and secrets in clear (the
service must present them to the receiver). Answers show secrets as the mask; a PUT that sends
the mask back keeps the stored secret of the same credential.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from freightdesk.models.webhooks import (
    IDENTITY_PARAMETERS,
    MASK,
    PARAMETERS_BY_TYPE,
    SECRET_PARAMETERS,
    AuthenticationMethod,
    AuthenticationType,
)

Problems = list[tuple[str, str]]
StoredMethod = dict[str, Any]

# Types that put a credential in the Authorization header; a request can carry only one.
_AUTHORIZATION_TYPES = frozenset(
    {AuthenticationType.BASIC, AuthenticationType.OAUTH2, AuthenticationType.AD_OAUTH2_CERT}
)


@dataclass(frozen=True)
class MethodInput:
    """One method as the caller sent it, with the path its errors are reported at."""

    type: AuthenticationType
    parameters: dict[str, str]
    # Where messages about the whole method and about its parameters point.
    path: str
    parameters_path: str


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def masked(methods: list[StoredMethod]) -> list[AuthenticationMethod]:
    return [
        AuthenticationMethod(
            type=AuthenticationType(method["type"]),
            parameters={
                name: MASK if name in SECRET_PARAMETERS else value
                for name, value in method["parameters"].items()
            },
        )
        for method in methods
    ]


def _given(method: MethodInput, name: str) -> Any:
    """A parameter as sent, or its default when the caller left it out."""
    if name in method.parameters:
        return method.parameters[name]
    for field_name, field in PARAMETERS_BY_TYPE[method.type].model_fields.items():
        if (field.alias or field_name) == name:
            return field.get_default(call_default_factory=True)
    return None


def _stored_match(
    index: int, method: MethodInput, stored: list[StoredMethod]
) -> StoredMethod | None:
    """The stored method a masked secret of `method` refers to.

    The same credential (same type and identifying parameters such as the header name or the
    client id) wins, preferring the same position; else the method at the same position if
    it has the same type (for example a renamed API key header).
    """
    identity = IDENTITY_PARAMETERS[method.type]
    same = [
        position
        for position, candidate in enumerate(stored)
        if candidate["type"] == method.type
        and all(candidate["parameters"].get(k) == _given(method, k) for k in identity)
    ]
    if same:
        return stored[index if index in same else same[0]]
    if index < len(stored) and stored[index]["type"] == method.type:
        return stored[index]
    return None


def prepare(
    methods: list[MethodInput], stored: list[StoredMethod], *, url_scheme: str
) -> tuple[list[StoredMethod], Problems]:
    """Validate the caller's methods, put back masked secrets, and return what to store."""
    problems: Problems = []
    accepted: list[tuple[MethodInput, StoredMethod]] = []
    for index, method in enumerate(methods):
        parameters = dict(method.parameters)
        source = _stored_match(index, method, stored) if stored else None
        for name in SECRET_PARAMETERS & parameters.keys():
            if parameters[name] != MASK:
                continue
            kept = source["parameters"].get(name) if source else None
            if kept is None:
                problems.append(
                    (
                        f"{method.parameters_path}.{name}",
                        "is the mask of a secret this configuration does not have; "
                        "send the secret itself",
                    )
                )
            else:
                parameters[name] = kept
        model = PARAMETERS_BY_TYPE[method.type]
        try:
            checked = model.model_validate(parameters)
        except ValidationError as exc:
            for error in exc.errors():
                message = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
                if error.get("type") == "extra_forbidden":
                    allowed = ", ".join(f.alias or name for name, f in model.model_fields.items())
                    message = f"is not a parameter of {method.type.value} (use {allowed})"
                problems.append((f"{method.parameters_path}{_loc(error['loc'])}", message))
            continue
        wire = checked.wire()
        problems.extend(_check_certificates(method, wire))
        accepted.append((method, {"type": method.type.value, "parameters": wire}))
    problems.extend(_check_combination(methods, accepted, url_scheme))
    return [stored_method for _, stored_method in accepted], problems


def _check_certificates(method: MethodInput, parameters: dict[str, str]) -> Problems:
    if method.type not in (AuthenticationType.MTLS, AuthenticationType.AD_OAUTH2_CERT):
        return []
    # Imported here: the service's start imports this module (the routes), and only these
    # methods carry certificates.
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    base = method.parameters_path
    problems: Problems = []
    certificate = None
    try:
        certificate = x509.load_pem_x509_certificate(parameters["certificatePem"].encode())
    except ValueError:
        problems.append((f"{base}.certificatePem", "is not a PEM certificate"))
    try:
        key = serialization.load_pem_private_key(parameters["privateKeyPem"].encode(), None)
    except (ValueError, TypeError):
        problems.append((f"{base}.privateKeyPem", "is not an unencrypted PEM private key"))
        return problems
    if certificate is not None:
        public = serialization.PublicFormat.SubjectPublicKeyInfo
        encoding = serialization.Encoding.DER
        if key.public_key().public_bytes(encoding, public) != certificate.public_key().public_bytes(
            encoding, public
        ):
            problems.append((f"{base}.privateKeyPem", "does not belong to certificatePem"))
    authority = parameters.get("caCertificatePem")
    if authority is not None:
        try:
            x509.load_pem_x509_certificates(authority.encode())
        except ValueError:
            problems.append((f"{base}.caCertificatePem", "is not a PEM certificate"))
    return problems


def _check_combination(
    methods: list[MethodInput], accepted: list[tuple[MethodInput, StoredMethod]], url_scheme: str
) -> Problems:
    problems: Problems = []
    authorization = [m for m in methods if m.type in _AUTHORIZATION_TYPES]
    if len(authorization) > 1:
        problems.append(
            (
                authorization[1].path,
                "only one of BASIC, OAUTH2 and AD_OAUTH2_CERT can be used: each sets the "
                "Authorization header",
            )
        )
    mtls = [m for m in methods if m.type is AuthenticationType.MTLS]
    if len(mtls) > 1:
        problems.append((mtls[1].path, "only one client certificate can be presented"))
    if mtls and url_scheme != "https":
        problems.append(("url", "must be https:// to present a client certificate (MTLS)"))
    headers: dict[str, str] = {}
    for method, stored in accepted:
        if method.type is not AuthenticationType.API_KEY:
            continue
        name = stored["parameters"]["headerName"].lower()
        if name == "authorization" and authorization:
            problems.append(
                (f"{method.parameters_path}.headerName", f"conflicts with {authorization[0].path}")
            )
        if name in headers:
            problems.append(
                (f"{method.parameters_path}.headerName", f"is also used by {headers[name]}")
            )
        headers.setdefault(name, method.path)
    return problems


def headers_set_by(methods: list[StoredMethod]) -> dict[str, str]:
    """Lower-case header names the methods set, each with a description for messages."""
    names: dict[str, str] = {}
    for index, method in enumerate(methods):
        kind = AuthenticationType(method["type"])
        if kind is AuthenticationType.API_KEY:
            names[method["parameters"]["headerName"].lower()] = f"authenticationMethods[{index}]"
        elif kind in _AUTHORIZATION_TYPES:
            names["authorization"] = f"authenticationMethods[{index}]"
    return names
