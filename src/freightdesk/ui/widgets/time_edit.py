"""How a date and time editor reads: the computer's local time with its zone named
(`2026-03-04 14:05 CST`, Qt's `t` follows daylight saving with the date shown), so a typed
time is never a guess (the one clock's rule for forms, docs/developing.md "Times")."""

from __future__ import annotations

ZONED_FORMAT = "yyyy-MM-dd HH:mm t"
