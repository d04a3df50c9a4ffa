"""tapegrad keeps glibc's freed memory for the next step (tapegrad/_malloc.py): a loop that frees
and re-allocates activations of a few MB must not page-fault them in again each time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tapegrad import _malloc

ROOT = Path(__file__).resolve().parents[1]
STEPS = """
import resource, numpy as np
import tapegrad
def step():
    arrays = [np.ones(700_000, np.float32) for _ in range(6)]  # 2.8 MB each, as activations
    del arrays
for _ in range(3):
    step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    step()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 10)
"""
GLIBC = sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION") is not None


def _faults_per_step(**env: str) -> float:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MALLOC_", "TAPEGRAD_", "GLIBC_TUNABLES"))
    }
    clean["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-c", STEPS], env={**clean, **env}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return float(out.stdout)


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt: Linux with glibc only")
def test_freed_activations_are_reused_without_page_faults():
    assert _faults_per_step() < 50  # (glibc's defaults: about 4,000, the 17 MB faulted back in)


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt: Linux with glibc only")
def test_the_setting_is_left_alone_when_asked_or_when_malloc_is_tuned(monkeypatch):
    for name in list(os.environ):  # (start from an untuned environment)
        if name.startswith(("MALLOC_", "TAPEGRAD_", "GLIBC_TUNABLES")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("TAPEGRAD_MALLOC", "system")
    assert _malloc.keep_freed_memory() is False
    monkeypatch.delenv("TAPEGRAD_MALLOC")
    monkeypatch.setenv("MALLOC_ARENA_MAX", "2")
    assert _malloc.keep_freed_memory() is False
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1000000")
    assert _malloc.keep_freed_memory() is False
    monkeypatch.delenv("GLIBC_TUNABLES")
    assert _malloc.keep_freed_memory() is True
