"""The Bessel functions J0, J1 (first kind), Y0, Y1 (second kind) and the modified ones of the
second kind K0, K1 (plain and scaled by exp(x)) on NumPy arrays: NumPy has none of them.

Layer L1 by place, L0 by content: numpy and the standard library only (tapegrad/special_bessel.py
makes torch.special's functions of them; no rules: PyTorch has no derivative for them either).

The approximations are the published ones PyTorch evaluates too (Moshier's Cephes tables):

- J and Y for 0 < x <= 5: a rational function of x² (with J's first two zeros factored out so
  the relative error stays small next to them); Y adds (2/π) log(x) J(x) (and -2/(πx) for Y1).
- J and Y for x > 5: the Hankel form sqrt(2/(πx)) (P cos(φ) - (5/x) Q sin(φ)), P and Q rational
  in 25/x², φ = x - π/4 (order 0) or x - 3π/4 (order 1). cos(φ) and sin(φ) are taken from cos(x)
  and sin(x) (cos(x - π/4) = (cos x + sin x)/√2, ...), so x - π/4 is never rounded: at large x
  the phase stays exact (PyTorch's rounded x - π/4 drifts by half an ulp of x).
- K for 0 < x <= 2: a Chebyshev series in x² - 2 plus -log(x/2) I0(x) (K0) or log(x/2) I1(x)
  + series/x (K1); for x > 2: exp(-x)/sqrt(x) times a Chebyshev series in 8/x - 2.

Arithmetic in float64, the result in the input's floating dtype (float64 for integers). The values
at the edges are PyTorch's: J0(0) = 1, Y(0) = -inf, Y(x < 0) = NaN, K(0) = +inf, K(x < 0) = NaN,
and J, Y at +-inf NaN (PyTorch's cos(inf)), K(+inf) = 0.
"""

from __future__ import annotations

import math

import numpy as np

from .bessel_functions import i0, i1
from .gamma_functions import floating

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0"]
__all__ += ["modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
TWO_OVER_PI = 2.0 / math.pi
HANKEL_FROM = 5.0  # J, Y: the rational forms up to here, the Hankel form past it
CHEBYSHEV_SPLIT = 2.0  # K: the series in x² - 2 up to here, the one in 8/x - 2 past it

# J0, x <= 5: (x² - r1²)(x² - r2²) R(x²) / S(x²), r1, r2 J0's first two zeros
J0_ZEROS_SQUARED = (5.78318596294678452118e00, 3.04712623436620863991e01)
J0_R = (-4.79443220978201773821e09, 1.95617491946556577543e12, -2.49248344360967716204e14,
        9.70862251047306323952e15)  # fmt: skip
J0_S = (1.0, 4.99563147152651017219e02, 1.73785401676374683123e05, 4.84409658339962045305e07,
        1.11855537045356834862e10, 2.11277520115489217587e12, 3.10518229857422583814e14,
        3.18121955943204943306e16, 1.71086294081043136091e18)  # fmt: skip
# J1, x <= 5: x (x² - r1²)(x² - r2²) R(x²) / S(x²)
J1_ZEROS_SQUARED = (1.46819706421238932572e01, 4.92184563216946036703e01)
J1_R = (-8.99971225705559398224e08, 4.52228297998194034323e11, -7.27494245221818276015e13,
        3.68295732863852883286e15)  # fmt: skip
J1_S = (1.0, 6.20836478118054335476e02, 2.56987256757748830383e05, 8.35146791431949253037e07,
        2.21511595479792499675e10, 4.74914122079991414898e12, 7.84369607876235854894e14,
        8.95222336184627338078e16, 5.32278620332680085395e18)  # fmt: skip
# Y0, x <= 5: R(x²) / S(x²) + (2/π) log(x) J0(x)
Y0_R = (1.55924367855235737965e04, -1.46639295903971606143e07, 5.43526477051876500413e09,
        -9.82136065717911466409e11, 8.75906394395366999549e13, -3.46628303384729719441e15,
        4.42733268572569800351e16, -1.84950800436986690637e16)  # fmt: skip
Y0_S = (1.0, 1.04128353664259848412e03, 6.26107330137134956842e05, 2.68919633393814121987e08,
        8.64002487103935000337e10, 2.02979612750105546709e13, 3.17157752842975028269e15,
        2.50596256172653059228e17)  # fmt: skip
# Y1, x <= 5: x R(x²) / S(x²) + (2/π) (log(x) J1(x) - 1/x)
Y1_R = (1.26320474790178026440e09, -6.47355876379160291031e11, 1.14509511541823727583e14,
        -8.12770255501325109621e15, 2.02439475713594898196e17,
        -7.78877196265950026825e17)  # fmt: skip
Y1_S = (1.0, 5.94301592346128195359e02, 2.35564092943068577943e05, 7.34811944459721705660e07,
        1.87601316108706159478e10, 3.88231277496238566008e12, 6.20557727146953693363e14,
        6.87141087355300489866e16, 3.97270608116560655612e18)  # fmt: skip

# the Hankel form's P = PN/PD and Q = QN/QD in w = 25/x², order 0 then order 1
HANKEL = {
    0: (
        (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e00,
         5.44725003058768775090e00, 8.74716500199817011941e00, 5.30324038235394892183e00,
         9.99999999999999997821e-01),
        (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e00,
         5.47097740330417105182e00, 8.76190883237069594232e00, 5.30605288235394617618e00,
         1.00000000000000000218e00),
        (-1.13663838898469149931e-02, -1.28252718670509318512e00, -1.95539544257735972385e01,
         -9.32060152123768231369e01, -1.77681167980488050595e02, -1.47077505154951170175e02,
         -5.14105326766599330220e01, -6.05014350600728481186e00),
        (1.0, 6.43178256118178023184e01, 8.56430025976980587198e02, 3.88240183605401609683e03,
         7.24046774195652478189e03, 5.93072701187316984827e03, 2.06209331660327847417e03,
         2.42005740240291393179e02),
    ),
    1: (
        (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e00,
         5.11207951146807644818e00, 8.42404590141772420927e00, 5.21451598682361504063e00,
         1.00000000000000000254e00),
        (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e00,
         5.07386386128601488557e00, 8.39985554327604159757e00, 5.20982848682361821619e00,
         9.99999999999999997461e-01),
        (5.10862594750176621635e-02, 4.98213872951233449420e00, 7.58238284132545283818e01,
         3.66779609360150777800e02, 7.10856304998926107277e02, 5.97489612400613639965e02,
         2.11688757100572135698e02, 2.52070205858023719784e01),
        (1.0, 7.42373277035675149943e01, 1.05644886038262816351e03, 4.98641058337653607651e03,
         9.56231892404756170795e03, 7.99704160447350683650e03, 2.82619278517639096600e03,
         3.36093607810698293419e02),
    ),
}  # fmt: skip

# K0, K1: Chebyshev coefficients, x <= 2 (in x² - 2) and x > 2 (in 8/x - 2)
K0_NEAR = (1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
           1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
           1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
           -5.35327393233902768720e-01)  # fmt: skip
K0_FAR = (5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
          -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
          6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
          -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
          1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
          -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
          2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
          -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
          2.44030308206595545468e00)  # fmt: skip
K1_NEAR = (-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
           -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
           -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
           -3.53155960776544875667e-01, 1.52530022733894777053e00)  # fmt: skip
K1_FAR = (-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
          1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
          -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
          3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
          -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
          2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
          -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
          1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
          2.72062619048444266945e00)  # fmt: skip


def polynomial(coefficients: tuple[float, ...], z: np.ndarray) -> np.ndarray:
    """Σ c_i z^(n-i) by Horner's rule (the coefficients from the highest power down)."""
    out = np.full_like(z, coefficients[0])
    for c in coefficients[1:]:
        out = out * z + c
    return out


def chebyshev(coefficients: tuple[float, ...], y: np.ndarray) -> np.ndarray:
    """Σ' c_k T_k(y/2) by Clenshaw's recurrence (c from the highest order down, the last halved),
    the form in which Cephes publishes its tables."""
    b0, b1, b2 = np.full_like(y, coefficients[0]), np.zeros_like(y), np.zeros_like(y)
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = y * b1 - b2 + c
    return 0.5 * (b0 - b2)


def _hankel(order: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(J, Y) of the order at x >= 5 (finite), from P, Q and the exact phase."""
    pn, pd, qn, qd = HANKEL[order]
    w = 25.0 / (x * x)
    p = polynomial(pn, w) / polynomial(pd, w)
    q = HANKEL_FROM / x * polynomial(qn, w) / polynomial(qd, w)
    c, s = np.cos(x), np.sin(x)
    if order == 0:  # φ = x - π/4
        cos_phase, sin_phase = (c + s) / math.sqrt(2.0), (s - c) / math.sqrt(2.0)
    else:  # φ = x - 3π/4
        cos_phase, sin_phase = (s - c) / math.sqrt(2.0), -(s + c) / math.sqrt(2.0)
    scale = SQRT_2_OVER_PI / np.sqrt(x)
    return scale * (p * cos_phase - q * sin_phase), scale * (p * sin_phase + q * cos_phase)


def _j_near(order: int, x: np.ndarray) -> np.ndarray:
    """J of the order for |x| <= 5 (x >= 0 for order 1: the caller gives it the sign)."""
    z = x * x
    (r1, r2), r, s = (
        (J0_ZEROS_SQUARED, J0_R, J0_S) if order == 0 else (J1_ZEROS_SQUARED, J1_R, J1_S)
    )
    out = (z - r1) * (z - r2) * polynomial(r, z) / polynomial(s, z)
    return out if order == 0 else out * x


def _j(order: int, a: np.ndarray) -> np.ndarray:
    x = np.abs(a)
    near = np.minimum(x, HANKEL_FROM)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        far = _hankel(order, np.maximum(x, HANKEL_FROM))[0]
        out = np.where(x <= HANKEL_FROM, _j_near(order, near), far)
    if order == 1:
        out = np.where(a < 0, -out, out)
    return out


def _y(order: int, a: np.ndarray) -> np.ndarray:
    near = np.clip(a, 0.0, HANKEL_FROM)
    z = near * near
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if order == 0:
            small = polynomial(Y0_R, z) / polynomial(Y0_S, z)
            small += TWO_OVER_PI * np.log(near) * _j_near(0, near)
        else:
            small = near * polynomial(Y1_R, z) / polynomial(Y1_S, z)
            small += TWO_OVER_PI * (_j_near(1, near) * np.log(near) - 1.0 / near)
        # (below the smallest normal x, 1/x overflows: Y1 is -inf there, as -2/(πx) is)
        far = _hankel(order, np.maximum(a, HANKEL_FROM))[1]
        out = np.where(a <= HANKEL_FROM, small, far)
    out = np.where(a == 0, -np.inf, out)
    return np.where(a < 0, np.nan, out)


def _k(order: int, a: np.ndarray, scaled: bool) -> np.ndarray:
    near = np.clip(a, 0.0, CHEBYSHEV_SPLIT)
    far = np.maximum(a, CHEBYSHEV_SPLIT)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        if order == 0:
            small = chebyshev(K0_NEAR, near * near - 2.0) - np.log(0.5 * near) * i0(near)
        else:
            small = np.log(0.5 * near) * i1(near) + chebyshev(K1_NEAR, near * near - 2.0) / near
        large = chebyshev(K0_FAR if order == 0 else K1_FAR, 8.0 / far - 2.0) / np.sqrt(far)
        if scaled:
            small = small * np.exp(near)
        else:
            large = large * np.exp(-far)
        out = np.where(a <= CHEBYSHEV_SPLIT, small, large)
    out = np.where(a == 0, np.inf, out)
    return np.where(a < 0, np.nan, out)


def _finite_only(out: np.ndarray, a: np.ndarray) -> np.ndarray:
    """J and Y are NaN at +-inf, as PyTorch's (its Hankel form takes cos(inf))."""
    return np.where(np.isinf(a), np.nan, out)


def bessel_j0(x: object) -> np.ndarray:
    """J0(x), elementwise (even; 1 at 0).

    >>> bessel_j0(np.array([0.0, 1.0]))
    array([1.        , 0.76519769])
    """
    a, dtype = floating(x)
    return _finite_only(_j(0, a), a).astype(dtype)


def bessel_j1(x: object) -> np.ndarray:
    """J1(x), elementwise (odd; 0 at 0).

    >>> bessel_j1(np.array([0.0, 1.0]))
    array([0.        , 0.44005059])
    """
    a, dtype = floating(x)
    return _finite_only(_j(1, a), a).astype(dtype)


def bessel_y0(x: object) -> np.ndarray:
    """Y0(x), elementwise (-inf at 0, NaN for x < 0).

    >>> bessel_y0(np.array([1.0, 2.0]))
    array([0.08825696, 0.51037567])
    """
    a, dtype = floating(x)
    return _finite_only(_y(0, a), a).astype(dtype)


def bessel_y1(x: object) -> np.ndarray:
    """Y1(x), elementwise (-inf at 0, NaN for x < 0).

    >>> bessel_y1(np.array([1.0, 2.0]))
    array([-0.78121282, -0.10703243])
    """
    a, dtype = floating(x)
    return _finite_only(_y(1, a), a).astype(dtype)


def modified_bessel_k0(x: object) -> np.ndarray:
    """K0(x), elementwise (+inf at 0, NaN for x < 0).

    >>> modified_bessel_k0(np.array([1.0, 2.0]))
    array([0.42102444, 0.11389387])
    """
    a, dtype = floating(x)
    return _k(0, a, scaled=False).astype(dtype)


def modified_bessel_k1(x: object) -> np.ndarray:
    """K1(x), elementwise (+inf at 0, NaN for x < 0).

    >>> modified_bessel_k1(np.array([1.0, 2.0]))
    array([0.60190723, 0.13986588])
    """
    a, dtype = floating(x)
    return _k(1, a, scaled=False).astype(dtype)


def scaled_modified_bessel_k0(x: object) -> np.ndarray:
    """exp(x) K0(x), elementwise (+inf at 0, NaN for x < 0).

    >>> scaled_modified_bessel_k0(np.array([1.0, 2.0]))
    array([1.14446308, 0.84156822])
    """
    a, dtype = floating(x)
    return _k(0, a, scaled=True).astype(dtype)


def scaled_modified_bessel_k1(x: object) -> np.ndarray:
    """exp(x) K1(x), elementwise (+inf at 0, NaN for x < 0).

    >>> scaled_modified_bessel_k1(np.array([1.0, 2.0]))
    array([1.63615349, 1.03347685])
    """
    a, dtype = floating(x)
    return _k(1, a, scaled=True).astype(dtype)
