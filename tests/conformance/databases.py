"""PyTorch's test databases: OpInfo (`op_db`), ModuleInfo (`module_db`), OptimizerInfo (`optim_db`).

They live in `torch.testing._internal`, which imports `expecttest` (PyTorch's own test dependency,
not installed with torch) only to subclass its TestCase; where it is missing, a stand-in with
unittest's TestCase takes its place, since nothing here runs PyTorch's test classes.
"""

from __future__ import annotations

import importlib.util
import sys
import types
import unittest
from functools import cache
from typing import Any


def torch_missing_reason() -> str | None:
    """Why the conformance run cannot happen here (None: it can)."""
    if importlib.util.find_spec("torch") is None:
        return "torch is not installed: the PyTorch conformance run needs it (pip install torch)"
    return None


def _stand_in_for_expecttest() -> None:
    if "expecttest" in sys.modules or importlib.util.find_spec("expecttest") is not None:
        return
    stand_in = types.ModuleType("expecttest")
    stand_in.TestCase = unittest.TestCase  # type: ignore[attr-defined]
    stand_in.ACCEPT = False  # type: ignore[attr-defined]
    sys.modules["expecttest"] = stand_in


@cache
def load() -> tuple[list[Any], list[Any], list[Any]]:
    """(op_db, module_db, optim_db), imported once (about 8 s: PyTorch builds them at import)."""
    _stand_in_for_expecttest()
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.common_modules import module_db
    from torch.testing._internal.common_optimizers import optim_db

    return list(op_db), list(module_db), list(optim_db)
