"""Suite-wide pytest configuration: the `--slow` option and the hypothesis profiles (and
`--conformance-full`, read by tests/conformance), and the `notebook_kernel` fixture (a Jupyter
kernel running this interpreter) the notebook tests share.

`pytest` (and `make test`) uses the seeded "ci" profile: derandomized, no example database, so every
run explores exactly the same examples. `pytest --slow` loads the "slow" profile: 20x the examples,
random seeds (a failure prints `@reproduce_failure` to replay it). Property tests scale their own
example counts relative to `max_examples` of the loaded profile (see tests/property/).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

_QUIET = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.function_scoped_fixture,
]

settings.register_profile(
    "ci",
    max_examples=100,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=_QUIET,
    print_blob=False,
)
settings.register_profile(
    "slow",
    max_examples=2000,
    derandomize=False,
    database=None,
    deadline=None,
    suppress_health_check=_QUIET,
    print_blob=True,
)


def pytest_addoption(parser):
    parser.addoption(
        "--slow",
        action="store_true",
        default=False,
        help="property tests: hypothesis 'slow' profile (20x examples, random seeds)",
    )
    parser.addoption(
        "--conformance-full",
        action="store_true",
        default=False,
        help="tests/conformance: every PyTorch sample and reference input (slow), not the subset",
    )


def pytest_configure(config):
    settings.load_profile("slow" if config.getoption("--slow") else "ci")


@pytest.fixture(scope="module")
def notebook_kernel(tmp_path_factory):
    """A `python3` kernel that runs this very interpreter, with tapegrad importable from here."""
    for module in ("jupytext", "nbclient", "nbformat", "ipykernel"):
        pytest.importorskip(module, reason="the notebook tests need the `test` extra")
    spec = tmp_path_factory.mktemp("jupyter") / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "Python 3 (tests)", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(spec.parent.parent))  # found before any other `python3`
        path = os.environ.get("PYTHONPATH", "")
        mp.setenv("PYTHONPATH", str(ROOT) + (os.pathsep + path if path else ""))
        mp.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # (a debugger warning on stderr)
        yield "python3"


@pytest.fixture(autouse=True)
def _torch_distributions_validate_args():
    """torch._dynamo, once anything in the process sets it up, turns torch.distributions' argument
    checks off process-wide; the tests that compare errors with torch's need them on (without
    this, which test files share a worker decided whether test_mvn_errors_as_torch passed)."""
    torch = sys.modules.get("torch")
    distributions = getattr(torch, "distributions", None)
    if distributions is not None:
        distributions.Distribution.set_default_validate_args(True)
    yield
