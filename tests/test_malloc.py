"""Importing tapegrad leaves glibc's malloc alone; keeping freed memory for the next step is
opt-in (tg.utils.keep_freed_memory(), or TAPEGRAD_MALLOC=keep), tapegrad/_malloc.py. Each case
runs in a fresh child process, since the setting is process-wide and cannot be undone. Two things
show whether it is in effect: where a 20 MB block comes from (glibc's mallinfo2: mmap by default,
the heap once set), and whether a loop that frees and re-allocates activations of a few MB
page-faults them in again each time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tapegrad as tg
from tapegrad import _malloc

ROOT = Path(__file__).resolve().parents[1]
GLIBC = sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION") is not None
glibc_only = pytest.mark.skipif(not GLIBC, reason="glibc's malloc settings: Linux with glibc only")

CHILD = """
import ctypes, json, resource, sys, warnings
import numpy as np

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import tapegrad as tg
applied = tg.utils.keep_freed_memory() if sys.argv[1] == "call" else None

def step():
    arrays = [np.ones(700_000, np.float32) for _ in range(6)]  # 2.8 MB each, as activations
    del arrays
for _ in range(3):
    step()
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    step()
faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / 10
before = libc.mallinfo2().hblkhd  # (after the loop: a freed mmap'd block moves glibc's threshold)
block = np.ones(5_000_000, np.float32)  # 20 MB: mmap'd by default, from the heap once set
mmapped = libc.mallinfo2().hblkhd - before
print(json.dumps({"applied": applied, "mmapped": mmapped, "faults": faults,
                  "warnings": [str(w.message) for w in caught]}))
"""


def _child(how: str = "import", **env: str) -> dict:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MALLOC_", "TAPEGRAD_", "GLIBC_TUNABLES"))
    }
    clean["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, how], env={**clean, **env}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@glibc_only
def test_importing_tapegrad_leaves_the_allocator_alone():
    seen = _child()
    assert seen["mmapped"] >= 20_000_000  # glibc's default: a block this big is mmap'd
    assert seen["faults"] > 1000  # and freed memory goes back: about 4,000 faults a step
    assert seen["warnings"] == []


@glibc_only
def test_keep_freed_memory_applies_the_setting():
    seen = _child("call")
    assert seen["applied"] is True
    assert seen["mmapped"] == 0  # from the heap
    assert seen["faults"] < 50  # freed activations reused, not faulted in again


@glibc_only
def test_the_environment_variable_applies_it_at_import():
    seen = _child(TAPEGRAD_MALLOC="keep")
    assert seen["mmapped"] == 0 and seen["faults"] < 50 and seen["warnings"] == []


@glibc_only
def test_the_environment_can_forbid_it_and_then_the_call_says_so():
    seen = _child("call", TAPEGRAD_MALLOC="system")
    assert seen["applied"] is False and seen["mmapped"] >= 20_000_000
    seen = _child("call", MALLOC_ARENA_MAX="2")  # the user's own tuning is left as set
    assert seen["applied"] is False and seen["mmapped"] >= 20_000_000


@glibc_only
def test_asking_by_environment_where_it_cannot_apply_warns():
    seen = _child(TAPEGRAD_MALLOC="keep", GLIBC_TUNABLES="glibc.malloc.trim_threshold=1000000")
    assert len(seen["warnings"]) == 1 and "TAPEGRAD_MALLOC=keep does nothing" in seen["warnings"][0]


def test_why_it_does_nothing_is_said_on_request(monkeypatch):
    for name in list(os.environ):  # (start from an untuned environment)
        if name.startswith(("MALLOC_", "TAPEGRAD_", "GLIBC_TUNABLES")):
            monkeypatch.delenv(name)
    monkeypatch.setattr(_malloc, "_applied", False)  # (this process is never changed here)
    monkeypatch.setenv("TAPEGRAD_MALLOC", "system")
    assert tg.utils.keep_freed_memory() is False
    with pytest.raises(RuntimeError, match="TAPEGRAD_MALLOC=system"):
        tg.utils.keep_freed_memory(strict=True)
    monkeypatch.setenv("TAPEGRAD_MALLOC", "")
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.raises(RuntimeError, match="only glibc's malloc.*darwin"):
        tg.utils.keep_freed_memory(strict=True)
    assert tg.utils.keep_freed_memory() is False


def test_it_is_public_and_typed():
    assert "keep_freed_memory" in tg.utils.__all__
    assert tg.utils.keep_freed_memory.__annotations__["return"] in (bool, "bool")
