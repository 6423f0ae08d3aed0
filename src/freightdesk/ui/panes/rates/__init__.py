"""Rate requests: ask carriers for quotes, compare them, book one."""
