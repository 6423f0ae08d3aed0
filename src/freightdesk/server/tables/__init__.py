"""Every table of the local service; importing this package registers them all on Base.

Each area keeps its tables in a module of its own here; they are found automatically.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
