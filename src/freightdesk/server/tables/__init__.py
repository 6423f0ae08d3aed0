"""Every table of the local service; importing this package registers them all on Base."""

from freightdesk.server.tables import account_groups, tenancy

__all__ = ["account_groups", "tenancy"]
