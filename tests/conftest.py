"""Suite-wide pytest configuration: the `--slow` option and the hypothesis profiles (and
`--conformance-full`, read by tests/conformance).

`pytest` (and `make test`) uses the seeded "ci" profile: derandomized, no example database, so every
run explores exactly the same examples. `pytest --slow` loads the "slow" profile: 20x the examples,
random seeds (a failure prints `@reproduce_failure` to replay it). Property tests scale their own
example counts relative to `max_examples` of the loaded profile (see tests/property/).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

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
