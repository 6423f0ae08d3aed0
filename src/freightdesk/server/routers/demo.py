"""How far the demo's preparation has got (extension), so that an app can say so.

`serve --demo` answers while the demo is being written (`server/demo/progress.py`); a client
that shows the shipment list reads this to tell its user that more is coming. No credentials:
like /health it says nothing about any tenant's data, and an app may ask before it has a token.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter

from freightdesk.models.base import WireModel
from freightdesk.server.context import ContextDep
from freightdesk.server.demo.progress import demo_status
from freightdesk.server.openapi import ERRORS, EXTENSION

router = APIRouter(tags=["Service"])

PATH = "/services/demo/v1/status"


class DemoStatusBody(WireModel):
    """`none`: this service prepares no demo; `preparing`: shipments are still being written
    (`shipmentsTotal` is 0 until they are counted, within a second or two of the start);
    `ready`: all of it is there."""

    state: Literal["none", "preparing", "ready"]
    shipments_ready: int
    shipments_total: int


@router.get(
    PATH,
    responses=ERRORS,
    response_model=DemoStatusBody,
    openapi_extra=EXTENSION,
    summary="Progress of the demo data's preparation",
)
def get_demo_status(context: ContextDep) -> DemoStatusBody:
    return DemoStatusBody.model_validate(demo_status(context).wire())
