"""micrograd's own test/test_engine.py (karpathy/micrograd), run with `import tapegrad as torch`.

The PyTorch half of each test is kept as micrograd writes it; the micrograd `Value` half is replaced
by the numbers it produces (micrograd's engine run on the same program: y = -20, dy/dx = 46;
g = 24.704081632653061, dg/da = 138.83381924198252, dg/db = 645.5772594752186), asserted with
micrograd's own comparisons and tolerance. The Value half uses in-place updates (`c += c + 1`,
`d += 3 * d + ...`); written with tapegrad tensors exactly so, it must give the same numbers.
"""

from __future__ import annotations

import pytest

import tapegrad as torch

# What micrograd's Value engine computes for the two programs (the reference side of each test).
SANITY_Y, SANITY_DX = -20.0, 46.0
MORE_G, MORE_DA, MORE_DB = 24.70408163265306, 138.83381924198252, 645.5772594752186


def test_sanity_check():
    ymg_data, xmg_grad = SANITY_Y, SANITY_DX

    x = torch.Tensor([-4.0]).double()
    x.requires_grad = True
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    xpt, ypt = x, y

    # forward pass went well
    assert ymg_data == ypt.data.item()
    # backward pass went well
    assert xmg_grad == xpt.grad.item()


def test_more_ops():
    gmg_data, amg_grad, bmg_grad = MORE_G, MORE_DA, MORE_DB

    a = torch.Tensor([-4.0]).double()
    b = torch.Tensor([2.0]).double()
    a.requires_grad = True
    b.requires_grad = True
    c = a + b
    d = a * b + b**3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g = g + 10.0 / f
    g.backward()
    apt, bpt, gpt = a, b, g

    tol = 1e-6
    # forward pass went well
    assert abs(gmg_data - gpt.data.item()) < tol
    # backward pass went well
    assert abs(amg_grad - apt.grad.item()) < tol
    assert abs(bmg_grad - bpt.grad.item()) < tol


def test_more_ops_written_in_place_as_the_value_half():
    """micrograd's Value program, line for line, on tensors: the in-place updates must neither
    raise a false in-place error nor change the numbers."""
    a = torch.tensor(-4.0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    g.backward()
    assert g.item() == pytest.approx(MORE_G, abs=1e-12)
    assert a.grad.item() == pytest.approx(MORE_DA, abs=1e-10)
    assert b.grad.item() == pytest.approx(MORE_DB, abs=1e-10)


def test_closed_forms_behind_the_reference_numbers():
    """micrograd's numbers by hand, so the reference does not rest on micrograd alone."""
    a, b = -4.0, 2.0
    c = 2 * (a + b) + 1  # c += c + 1
    c = 2 * c + 1 - a  # c += 1 + c + (-a): c = 3a + 4b + 3
    d = 3 * (a * b + b**3) + max(b + a, 0.0)  # d += d * 2 + (b + a).relu()
    d = 4 * d + max(b - a, 0.0)  # d += 3 * d + (b - a).relu()
    e = c - d
    assert e**2 / 2 + 10 / e**2 == pytest.approx(MORE_G, rel=1e-14)
    dg_de = e - 20 / e**3
    dd_da = 12 * b - 1  # (b + a).relu() is flat here (b + a < 0); (b - a).relu() is not
    dd_db = 12 * (a + 3 * b**2) + 1
    assert dg_de * (3 - dd_da) == pytest.approx(MORE_DA, rel=1e-12)
    assert dg_de * (4 - dd_db) == pytest.approx(MORE_DB, rel=1e-12)
    # test_sanity_check: z = 3x + 2 = -10 (relu(z) is flat), q = z x = 40, h = z^2 = 100
    x = -4.0
    z = 3 * x + 2
    q = z * x
    assert z * z + q + q * x == SANITY_Y
    dq_dx = 3 * x + z
    assert 2 * z * 3 + dq_dx + (dq_dx * x + q) == SANITY_DX
