"""Browsing tracked shipments: the tenant's own plus those shared with it.

Everything a page shows comes from the summary columns of `shipments` (kept current by every
write), so a page is one indexed query plus a count, whatever the size of the histories.

A narrow search costs the database a fraction of a millisecond, so the Python around it is
most of its time: the fixed statements are built once with bound parameters; on SQLite they
run on the driver's cursor (text compiled once per shape) and the page's rows, stored text
and numbers, go straight to the answer's JSON (`search_json`, what the route sends) without
a model validated only to be dumped again.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVarTuple

from pydantic_core import to_json
from sqlalchemy import (
    BigInteger,
    BindParameter,
    ColumnElement,
    Connection,
    Engine,
    Integer,
    Select,
    Text,
    and_,
    bindparam,
    cast,
    column,
    func,
    or_,
    select,
    table,
    tuple_,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session

from freightdesk.models.shipment_search import (
    ShipmentSearchRequest,
    ShipmentSearchResult,
    ShipmentSortField,
    SortDirection,
)
from freightdesk.models.tracking import SharingParty
from freightdesk.server.domain.driver_statements import Statements
from freightdesk.server.domain.identifiers import normalize_value
from freightdesk.server.domain.shipment_summaries import (
    PAGE_JSON_BY_ARRAY,
    PAGE_ROWS,
    PAGE_ROWS_BY_ARRAY,
    SUMMARY_JSON,
    owner_names,
    summary_fields,
)
from freightdesk.server.domain.shipments import share_in_force, visible_clause
from freightdesk.server.tables.tracking import (
    Shipment,
    ShipmentAttributeValue,
    ShipmentIdentifier,
    ShipmentShare,
)

_Ts = TypeVarTuple("_Ts")

_SORT_COLUMNS: dict[ShipmentSortField, Any] = {
    ShipmentSortField.LAST_MODIFIED_DATE_TIME: Shipment.last_modified_at,
    ShipmentSortField.CREATED_DATE_TIME: Shipment.created_at,
    ShipmentSortField.NEXT_ETA: Shipment.next_eta,
    ShipmentSortField.PRIMARY_IDENTIFIER: Shipment.primary_sort,
    # By progress along the lifecycle, not by the names' spelling.
    ShipmentSortField.STATE: Shipment.state_rank,
}


def search_shipments(
    session: Session, tenant_id: int, request: ShipmentSearchRequest, page: int, page_size: int
) -> ShipmentSearchResult:
    """The answer as a model (for callers in Python; the route answers `search_json`)."""
    return _model(_find(session, tenant_id, request, page, page_size, as_json=False))


def search_json(
    session: Session, tenant_id: int, request: ShipmentSearchRequest, page: int, page_size: int
) -> bytes:
    """The answer as the route sends it: `ShipmentSearchResult`'s JSON (by alias, without
    nulls; the same JSON as the model's `model_dump_json`)."""
    found = _find(session, tenant_id, request, page, page_size, as_json=True)
    if not found.as_json:
        return _model(found).model_dump_json(by_alias=True, exclude_none=True).encode()
    # On SQLite each summary comes as its JSON text, written by the database from the stored
    # summary columns and identifiers (written and validated by the service itself): only
    # joined here, instead of validating a model only to dump it again (that round trip was
    # most of a narrow search's time).
    results = []
    for owner, summary in found.rows:
        if owner != tenant_id:
            # Shared by another tenant: `sharedBy`, the model's last field, added last.
            party = found.owners[owner].model_dump(mode="json", by_alias=True, exclude_none=True)
            summary = f'{summary[:-1]},"sharedBy":{to_json(party).decode()}}}'
        results.append(summary)
    paging = {"pageNumber": page, "pageSize": page_size, "total": found.total}
    parts = [f'{{"paginationInfo":{to_json(paging).decode()},"results":[', ",".join(results), "]"]
    if found.not_found_values is not None:
        parts.append(f',"notFoundValues":{to_json(found.not_found_values).decode()}')
    if found.removed_ids is not None:
        removed = [str(removed) for removed in found.removed_ids]
        parts.append(f',"removedIds":{to_json(removed).decode()}')
    if found.change_token is not None:
        parts.append(f',"changeToken":"{found.change_token}"')
    if found.next_page_token is not None:
        parts.append(f',"nextPageToken":"{found.next_page_token}"')
    parts.append("}")
    return "".join(parts).encode()


@dataclass
class _Found:
    """What a search found: its page's rows and what the answer says besides. The rows are
    the owner and the summary's JSON text when `as_json`, else `PAGE_ROWS`' columns (date-times
    and identifiers as stored text when `as_text`)."""

    page: int
    page_size: int
    total: int
    rows: list[Any]
    owners: dict[int, SharingParty]
    as_text: bool
    as_json: bool
    not_found_values: list[str] | None
    removed_ids: list[uuid.UUID] | None
    change_token: str | None = None
    next_page_token: str | None = None


def _find(
    session: Session,
    tenant_id: int,
    request: ShipmentSearchRequest,
    page: int,
    page_size: int,
    *,
    as_json: bool,
) -> _Found:
    """`as_json`: the page's summaries as JSON text where the database can write them."""
    # Plain column statements straight on the connection: the session's ORM execution path
    # (entity loading, result wrapping) costs more than these indexed queries themselves; on
    # SQLite, on the driver's own cursor of the thread's kept connection (see `Statements`):
    # the session then checks out no connection unless a rarer part of the answer needs one.
    bind = session.get_bind()
    run = (
        Statements.kept(bind, session.connection)
        if isinstance(bind, Engine)
        else Statements(session.connection())
    )
    # Read before anything else: every change numbered below the token is committed, so the
    # statements that follow see it (`CHANGE_SEQ_*` in tables/tracking.py).
    token = None if request.changes_since is None else run.scalar(_change_token(run.dialect), {})
    owners_of_shares = run.scalars(_SHARING_OWNERS, {"tenant": tenant_id})
    scope = _Scope(tenant_id, bool(owners_of_shares), owners_of_shares)
    # The request's values go to bound parameters; its shape (which filters, the sort) picks
    # statements built once, so a search builds no SQL expression and no cache key.
    values: dict[str, Any] = {"tenant": tenant_id, "tenants": scope.tenant_ids}
    shape = _shape(request, values)
    candidates = tuple(_candidates(scope.shared, kind) for kind in shape.candidates)
    total: int | None = None
    if not shape.conditions and len(candidates) == 1 and not scope.shared:
        # Only an identifier or attribute filter on own shipments: count in that index alone
        # (its rows exist for live shipments only), without touching shipments; the count
        # also says whether the candidates are few.
        total = run.scalar(_count_candidates(candidates[0]), values)
        narrow = total <= _NARROW
    else:
        narrow = any(run.scalar(_at_most(query), values) <= _NARROW for query in candidates)
    where = (scope.shared, narrow, shape.conditions, shape.candidates)
    if total is None:
        total = run.scalar(_count(*where), values)
    offset = (page - 1) * page_size
    as_json = as_json and run.raw
    rows: list[Any] = []
    next_page_token = None
    if request.page_token is not None:
        rows, next_page_token = _keyset_page(run, where, values, request.page_token, page_size)
        rows = _page_rows(run, rows, as_json=as_json)
    elif offset < total:
        # Few matches of a filter on summary columns (a mode and a state, say): found through
        # the filter's index and sorted, instead of walking the sort order past every
        # shipment that does not match until a page is found.
        filtered = bool(shape.conditions or shape.candidates)
        few = filtered and not narrow and total <= _FEW
        order = (request.sort.field, request.sort.direction, not few)
        values.update(offset=offset, limit=page_size)
        if as_json and offset == 0 and total <= page_size:
            # Every match is on this page: its summaries in one statement, no row read in
            # vain (a narrow identifier prefix, typically).
            rows = run.rows(_summaries(*where, *order), values)
        else:
            rows = _page_rows(run, run.scalars(_keys(*where, *order), values), as_json=as_json)
    owner_at = 1 if as_json else 2
    owners = owner_names(session, {row[owner_at] for row in rows if row[owner_at] != tenant_id})
    if as_json:
        rows = [row[1:] for row in rows]
    not_found = None
    if request.identifier_values is not None:
        not_found = _not_found(session.connection(), scope, request.identifier_values)
    removed = None
    if request.changes_since:
        since = int(request.changes_since)
        removed = _removed_since_change(session.connection(), tenant_id, since)
    elif request.last_modified_after is not None:
        removed = _removed_since(session.connection(), tenant_id, request.last_modified_after)
    change_token = None if token is None else str(token)
    return _Found(
        page,
        page_size,
        total,
        rows,
        owners,
        run.raw,
        as_json,
        not_found,
        removed,
        change_token,
        next_page_token,
    )


def _keyset_page(
    run: Statements,
    where: tuple[bool, bool, tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...]],
    values: dict[str, Any],
    page_token: str,
    page_size: int,
) -> tuple[list[Any], str | None]:
    """The keys of a keyset page (after `page_token`'s shipment in change order) and the next
    page's token, if more follow. The token is the last key's change sequence and primary
    key: a shipment that leaves the matches meanwhile moves no other, one that changes moves
    after the others (read again, as changed, by a later page)."""
    after = page_token != ""
    if after:
        seq, pk = page_token.split(".")
        values.update(after_seq=int(seq), after_pk=int(pk))
    # One more than the page: a next page only when there is one (a sync of exactly a page
    # of changes costs no request that finds none).
    values.update(limit=page_size + 1)
    keys = run.rows(_keyset_keys(*where, after), values)
    page = [key for key, _ in keys[:page_size]]
    if len(keys) <= page_size:
        return page, None
    last, last_seq = keys[page_size - 1]
    return page, f"{last_seq}.{last}"


def _page_rows(run: Statements, keys: list[Any], *, as_json: bool) -> list[Any]:
    """The rows of the page whose keys are `keys`, in their order. Keys first (from the
    indexes alone), then the page's rows: skipped rows of deep pages and ties never load
    their data."""
    if not keys:
        return []
    if run.raw:
        # The keys as one JSON array: one statement text whatever the page's size, so
        # SQLite's statement cache keeps it prepared.
        array = {"keys": to_json(keys).decode()}
        if as_json:
            page_rows = run.rows(PAGE_JSON_BY_ARRAY, array)
        else:
            page_rows = run.rows(PAGE_ROWS_BY_ARRAY, array)
    else:
        page_rows = run.rows(PAGE_ROWS, {"keys": keys})
    loaded = {row[0]: row for row in page_rows}
    return [loaded[key] for key in keys if key in loaded]


def _model(found: _Found) -> ShipmentSearchResult:
    # One validation of the whole answer (pydantic's core walks the dicts in one call), not a
    # model per summary and identifier: the values are our own database's, already typed.
    result = ShipmentSearchResult.model_validate(
        {
            "pagination_info": {
                "page_number": found.page,
                "page_size": found.page_size,
                "total": found.total,
            },
            "results": [summary_fields(row, found.owners, found.as_text) for row in found.rows],
        }
    )
    result.not_found_values = found.not_found_values
    result.removed_ids = found.removed_ids
    result.change_token = found.change_token
    result.next_page_token = found.next_page_token
    return result


class _Scope:
    """The tenants whose shipments the caller can see (itself, and owners of shares)."""

    def __init__(self, tenant_id: int, shared: bool, owners: list[int]) -> None:
        self.tenant_id = tenant_id
        self.shared = shared
        self.tenant_ids = [tenant_id, *owners]

    def visible(self) -> ColumnElement[bool]:
        return visible_clause(self.tenant_id, any_shared=self.shared)


# Built once (its cache key too): the tenants that share shipments with `tenant`.
_SHARING_OWNERS = (
    select(Shipment.tenant_id)
    .join(ShipmentShare, ShipmentShare.shipment_pk == Shipment.pk)
    .where(share_in_force(bindparam("tenant")))
    .distinct()
)

# Up to this many candidates from the identifier or attribute index, a page is built from the
# candidates; beyond, by walking the sort order (a broad prefix such as "020-" matches often).
_NARROW = 5000
# Up to this many matches of the other filters, the page is sorted rather than read in order.
_FEW = 1000


@dataclass(frozen=True)
class _Shape:
    """Which filters a request uses: names of `_CONDITIONS`, and per candidate query (through
    the identifier or attribute index) its kind and the names of its conditions."""

    conditions: tuple[str, ...]
    candidates: tuple[tuple[str, tuple[str, ...]], ...]


def _shape(request: ShipmentSearchRequest, values: dict[str, Any]) -> _Shape:
    """The request's shape; its values are added to `values` under the parameters' names."""
    conditions: list[str] = []
    candidates: list[tuple[str, tuple[str, ...]]] = []

    def use(names: list[str], name: str, value: Any) -> None:
        names.append(name)
        values[name] = value

    if request.text and request.text.strip():
        prefix: list[str] = []
        text = normalize_value(request.text)
        use(prefix, "text_from", text)
        after = _after_prefix(text)
        if after is not None:
            use(prefix, "text_before", after)
        candidates.append(("identifiers", tuple(prefix)))
    if request.identifier_type is not None or request.identifier_value is not None:
        named: list[str] = []
        if request.identifier_type is not None:
            use(named, "identifier_type", request.identifier_type)
        if request.identifier_value is not None:
            use(named, "identifier_value", normalize_value(request.identifier_value))
        candidates.append(("identifiers", tuple(named)))
    if request.identifier_values is not None:
        pasted: list[str] = []
        use(pasted, "identifier_values", _normalized(request.identifier_values))
        candidates.append(("identifiers", tuple(pasted)))
    if request.transportation_modes:
        use(conditions, "modes", [mode.value for mode in request.transportation_modes])
    if request.states:
        use(conditions, "states", [state.value for state in request.states])
    if request.has_open_exceptions is True:
        conditions.append("open_exceptions")
    elif request.has_open_exceptions is False:
        conditions.append("no_open_exceptions")
    if request.attribute_name is not None or request.attribute_value is not None:
        attribute: list[str] = []
        if request.attribute_name is not None:
            use(attribute, "attribute_name", request.attribute_name.strip().casefold())
        if request.attribute_value is not None:
            use(attribute, "attribute_value", request.attribute_value.strip().casefold())
        candidates.append(("attributes", tuple(attribute)))
    for window, start, end in (
        (request.created_date_time, "created_from", "created_before"),
        (request.last_modified_date_time, "modified_from", "modified_before"),
    ):
        if window is not None and window.start_date_time is not None:
            use(conditions, start, window.start_date_time)
        if window is not None and window.end_date_time is not None:
            use(conditions, end, window.end_date_time)
    if request.last_modified_after is not None:
        use(conditions, "modified_after", request.last_modified_after)
    if request.changes_since:
        use(conditions, "changed_from", int(request.changes_since))
    return _Shape(tuple(conditions), tuple(candidates))


# Each filter once, with named bound parameters (values passed at execution).
_CONDITIONS: dict[str, ColumnElement[bool]] = {
    "modes": Shipment.mode.in_(bindparam("modes", expanding=True)),
    "states": Shipment.current_state.in_(bindparam("states", expanding=True)),
    "open_exceptions": Shipment.open_exception_count > 0,
    "no_open_exceptions": Shipment.open_exception_count == 0,
    "created_from": Shipment.created_at >= bindparam("created_from"),
    "created_before": Shipment.created_at < bindparam("created_before"),
    "modified_from": Shipment.last_modified_at >= bindparam("modified_from"),
    "modified_before": Shipment.last_modified_at < bindparam("modified_before"),
    "modified_after": Shipment.last_modified_at > bindparam("modified_after"),
    "changed_from": Shipment.change_seq >= bindparam("changed_from"),
}
_CANDIDATE_CONDITIONS: dict[str, ColumnElement[bool]] = {
    "text_from": ShipmentIdentifier.value_norm >= bindparam("text_from"),
    "text_before": ShipmentIdentifier.value_norm < bindparam("text_before"),
    "identifier_type": ShipmentIdentifier.type == bindparam("identifier_type"),
    "identifier_value": ShipmentIdentifier.value_norm == bindparam("identifier_value"),
    "identifier_values": ShipmentIdentifier.value_norm.in_(
        bindparam("identifier_values", expanding=True)
    ),
    "attribute_name": ShipmentAttributeValue.name == bindparam("attribute_name"),
    "attribute_value": ShipmentAttributeValue.value == bindparam("attribute_value"),
}

# The statements of each shape, built on first use: a few dozen shapes are in use at most.
_cached = lru_cache(maxsize=512)


@_cached
def _candidates(shared: bool, kind: tuple[str, tuple[str, ...]]) -> Select[int]:
    table, names = kind
    column = ShipmentIdentifier if table == "identifiers" else ShipmentAttributeValue
    tenant = (
        column.tenant_id.in_(bindparam("tenants", expanding=True))
        if shared
        else column.tenant_id == bindparam("tenant")
    )
    return select(column.shipment_pk).where(
        tenant, *(_CANDIDATE_CONDITIONS[name] for name in names)
    )


@_cached
def _count_candidates(candidates: Select[int]) -> Select[int]:
    distinct = candidates.distinct().subquery()
    return select(func.count()).select_from(distinct)


@_cached
def _at_most(candidates: Select[int]) -> Select[int]:
    bounded = candidates.limit(_NARROW + 1).subquery()
    return select(func.count()).select_from(bounded)


def _where(
    shared: bool,
    narrow: bool,
    conditions: tuple[str, ...],
    candidates: tuple[tuple[str, tuple[str, ...]], ...],
) -> ColumnElement[bool]:
    """`narrow`: a filter on identifiers or attributes names few shipments, so fetching
    those and sorting them beats walking the tenant's whole sort index (`visible_clause`'s
    `by_index`). Without shares the plain predicate lets the (tenant_id, ...) indexes serve
    both the filter and the sort."""
    tenant: BindParameter[int] = bindparam("tenant", type_=Integer)
    return and_(
        visible_clause(tenant, any_shared=shared, by_index=not narrow),
        *(_CONDITIONS[name] for name in conditions),
        *(Shipment.pk.in_(_candidates(shared, kind)) for kind in candidates),
    )


@_cached
def _count(
    shared: bool,
    narrow: bool,
    conditions: tuple[str, ...],
    candidates: tuple[tuple[str, tuple[str, ...]], ...],
) -> Select[int]:
    where = _where(shared, narrow, conditions, candidates)
    return select(func.count()).select_from(Shipment).where(where)


@_cached
def _keys(
    shared: bool,
    narrow: bool,
    conditions: tuple[str, ...],
    candidates: tuple[tuple[str, tuple[str, ...]], ...],
    field: ShipmentSortField,
    direction: SortDirection,
    by_index: bool,
) -> Select[int]:
    query = select(Shipment.pk).where(_where(shared, narrow, conditions, candidates))
    return _paged(query, field, direction, by_index)


@_cached
def _summaries(
    shared: bool,
    narrow: bool,
    conditions: tuple[str, ...],
    candidates: tuple[tuple[str, tuple[str, ...]], ...],
    field: ShipmentSortField,
    direction: SortDirection,
    by_index: bool,
) -> Select[int, int, str]:
    """`_keys` with each key's owner and summary JSON (`PAGE_JSON_BY_ARRAY`'s columns)."""
    where = _where(shared, narrow, conditions, candidates)
    query = select(Shipment.pk, Shipment.tenant_id, SUMMARY_JSON).where(where)
    return _paged(query, field, direction, by_index)


@_cached
def _keyset_keys(
    shared: bool,
    narrow: bool,
    conditions: tuple[str, ...],
    candidates: tuple[tuple[str, tuple[str, ...]], ...],
    after: bool,
) -> Select[int, int | None]:
    """Keys and change sequences of a keyset page, in change order (the tenant's change
    index, `ix_shipments_tenant_change_pk`, gives it): after the bound key when `after`."""
    query = select(Shipment.pk, Shipment.change_seq).where(
        _where(shared, narrow, conditions, candidates)
    )
    if after:
        seq: BindParameter[int] = bindparam("after_seq", type_=BigInteger)
        pk: BindParameter[int] = bindparam("after_pk", type_=BigInteger)
        # A row-value comparison: both databases take it as one range of the index.
        query = query.where(tuple_(Shipment.change_seq, Shipment.pk) > tuple_(seq, pk))
    return query.order_by(Shipment.change_seq, Shipment.pk).limit(bindparam("limit"))


def _paged(
    query: Select[*_Ts], field: ShipmentSortField, direction: SortDirection, by_index: bool
) -> Select[*_Ts]:
    """`query` in the page's order, its offset and limit bound at execution."""
    return (
        _sorted(query, field, direction, by_index=by_index)
        .offset(bindparam("offset"))
        .limit(bindparam("limit"))
    )


def _after_prefix(prefix: str) -> str | None:
    """The smallest string greater than every string starting with `prefix` (None when there
    is none: the prefix is all U+10FFFF)."""
    stem = prefix.rstrip(chr(sys.maxunicode))
    if not stem:
        return None
    return stem[:-1] + chr(ord(stem[-1]) + 1)


def _normalized(values: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(v for v in (normalize_value(value) for value in values) if v))


# Ties in the default order are broken in the order of its index, so the order stays total and
# SQLite reads a page straight off the index (bulk-created shipments share a timestamp).
_TIES_BY_MODIFIED = (
    Shipment.current_state,
    Shipment.mode,
    Shipment.open_exception_count,
    Shipment.pk,
)


def _sorted(
    query: Select[*_Ts], field: ShipmentSortField, direction: SortDirection, *, by_index: bool
) -> Select[*_Ts]:
    """`by_index=False` sorts by an expression of the sort column (the same values), which
    keeps SQLite from choosing the sort order's index over the filter's."""
    column = _SORT_COLUMNS[field]
    if not by_index:
        column = func.coalesce(column, None)
    ties: tuple[Any, ...] = (
        _TIES_BY_MODIFIED if field is ShipmentSortField.LAST_MODIFIED_DATE_TIME else (Shipment.pk,)
    )
    if direction is SortDirection.ASC:
        ordered, tie = column.asc(), [t.asc() for t in ties]
    else:
        ordered, tie = column.desc(), [t.desc() for t in ties]
    if field in (
        ShipmentSortField.NEXT_ETA,
        ShipmentSortField.PRIMARY_IDENTIFIER,
        ShipmentSortField.STATE,
    ):
        # Shipments without an ETA (or identifier) come last in either direction, on both
        # databases (they disagree on where NULL sorts by default).
        ordered = ordered.nulls_last()
    return query.order_by(ordered, *tie)


def _not_found(connection: Connection, scope: _Scope, values: Sequence[str]) -> list[str]:
    wanted = _normalized(values)
    if not wanted:
        return []
    found = set(
        connection.scalars(
            select(ShipmentIdentifier.value_norm)
            .join(Shipment, Shipment.pk == ShipmentIdentifier.shipment_pk)
            .where(
                ShipmentIdentifier.tenant_id.in_(scope.tenant_ids),
                ShipmentIdentifier.value_norm.in_(wanted),
                scope.visible(),
            )
        )
    )
    # Each missing value once (as first pasted, trimmed), however often or in which case.
    missing: dict[str, str] = {}
    for value in values:
        key = normalize_value(value)
        if key and key not in found:
            missing.setdefault(key, value.strip())
    return list(missing.values())


_COUNTER = table("shipment_change_counter", column("id"), column("value"))
_CHANGE_TOKENS: dict[str, Select[Any]] = {
    "sqlite": select(_COUNTER.c.value + 1).where(_COUNTER.c.id == 1),
    "postgresql": select(
        cast(cast(func.pg_snapshot_xmin(func.pg_current_snapshot()), Text), BigInteger)
    ),
}


def _change_token(dialect: Dialect) -> Select[Any]:
    """The statement that reads the token of a sync answered now: no change numbered at or
    above it was visible before it was read."""
    return _CHANGE_TOKENS[dialect.name]


def _removed_since_change(connection: Connection, tenant_id: int, since: int) -> list[uuid.UUID]:
    """`_removed_since` for a change token: deleting a shipment, and sharing or unsharing it,
    change the shipment's row, so its change sequence says when."""
    own = select(Shipment.id).where(
        Shipment.tenant_id == tenant_id,
        Shipment.deleted_at.is_not(None),
        Shipment.change_seq >= since,
    )
    shared = (
        select(Shipment.id)
        .join(ShipmentShare, ShipmentShare.shipment_pk == Shipment.pk)
        .where(
            ShipmentShare.tenant_id == tenant_id,
            Shipment.change_seq >= since,
            or_(ShipmentShare.revoked_at.is_not(None), Shipment.deleted_at.is_not(None)),
        )
    )
    ids = set(connection.scalars(own)) | set(connection.scalars(shared))
    return sorted(uuid.UUID(i) for i in ids)


def _removed_since(connection: Connection, tenant_id: int, since: datetime) -> list[uuid.UUID]:
    """Shipments the caller could see that were deleted, or stopped being shared with it,
    after `since` (the tombstones of incremental sync)."""
    own = select(Shipment.id).where(Shipment.tenant_id == tenant_id, Shipment.deleted_at > since)
    shared = (
        select(Shipment.id)
        .join(ShipmentShare, ShipmentShare.shipment_pk == Shipment.pk)
        .where(
            ShipmentShare.tenant_id == tenant_id,
            or_(
                ShipmentShare.revoked_at > since,
                and_(ShipmentShare.revoked_at.is_(None), Shipment.deleted_at > since),
            ),
        )
    )
    ids = set(connection.scalars(own)) | set(connection.scalars(shared))
    return sorted(uuid.UUID(i) for i in ids)
