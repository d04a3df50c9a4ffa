"""Shared setup of the property suite: floating-point errors are failures, not warnings.

Every property program stays in safe domains by construction, so a NumPy overflow, division by zero
or invalid operation raised inside tapegrad (forward or backward) is a bug to report, never noise.
Underflow is allowed (exp(-1e4) == 0 is the right answer).
"""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _floating_point_errors_raise():
    with np.errstate(divide="raise", over="raise", invalid="raise", under="ignore"):
        yield
