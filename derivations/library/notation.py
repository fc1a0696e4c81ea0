"""The notation of the shipped claims: every definition once, in one home per topic, with the
symbols it is about.  A claim module imports its symbols and definitions from here and writes
its statements and steps with them (``derivations.engine.core.definitions``); both routes check the
claims with the definitions unfolded.

Cite a definition by its name in a step (``Step(expr, "the definition of x̂", ("x̂",))``) when the
step folds or unfolds it.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Notation

# --- LayerNorm: one row x ∈ ℝ^d ------------------------------------------------------------------

d = sp.Symbol("d", integer=True, positive=True)
x = sp.IndexedBase("x", real=True)
g = sp.IndexedBase("g", real=True)  # ∂L/∂x̂ for one row
eps = sp.Symbol("varepsilon", positive=True)
i, j, k = sp.symbols("i j k", integer=True, positive=True)

LAYERNORM = Notation("LayerNorm", (d, x, g, eps))
mu = sp.Symbol("mu", real=True)
MU = LAYERNORM.define("μ", mu, sp.Sum(x[k], (k, 1, d)) / d, text="the mean of the row")
var = sp.Symbol("sigma2", nonnegative=True)
VAR = LAYERNORM.define("σ²", var, sp.Sum((x[k] - mu) ** 2, (k, 1, d)) / d, r"\sigma^{2}",
                       text="its variance (biased, as the model computes it)")
sigma = sp.Symbol("sigma_varepsilon", positive=True)
SIGMA = LAYERNORM.define("σ_ε", sigma, sp.sqrt(var + eps), r"\sigma_{\varepsilon}",
                         text="its standard deviation, kept away from 0 by ε > 0")
xhat = sp.IndexedBase("xhat", real=True)
XHAT = LAYERNORM.define("x̂", xhat, (x[i] - mu) / sigma, params=(i,),
                        text="the normalised row")
gbar = sp.Symbol("gbar", real=True)
GBAR = LAYERNORM.define("ḡ", gbar, sp.Sum(g[i], (i, 1, d)) / d, text="the mean of g")
gxbar = sp.Symbol("gxhatbar", real=True)
GXBAR = LAYERNORM.define("mean of g x̂", gxbar, sp.Sum(g[i] * xhat[i], (i, 1, d)) / d,
                         r"\overline{g\hat{x}}", text="the mean of g ⊙ x̂")

# --- softmax: logits z ∈ ℝ^n --------------------------------------------------------------------

n = sp.Symbol("n", integer=True, positive=True)
z = sp.IndexedBase("z", real=True)
T = sp.Symbol("T", positive=True)
vx = sp.IndexedBase("x", real=True)  # a vector the Jacobian acts on
l = sp.Symbol("l", integer=True, positive=True)

SOFTMAX = Notation("softmax", (n, z, T, vx))
Z = sp.Symbol("Z", positive=True)
Z_DEF = SOFTMAX.define("Z", Z, sp.Sum(sp.exp(z[k]), (k, 1, n)), text="the normaliser")
s = sp.IndexedBase("s", positive=True)
S_DEF = SOFTMAX.define("s", s, sp.exp(z[i]) / Z, params=(i,), text="softmax(z)_i")
xbar = sp.Symbol("xbar", real=True)
XBAR_DEF = SOFTMAX.define("x̄", xbar, sp.Sum(s[l] * vx[l], (l, 1, n)),
                          text="the mean of x under s")
Zt = sp.Symbol("Ztilde", positive=True)
ZT_DEF = SOFTMAX.define("Z̃", Zt, sp.Sum(sp.exp(z[k] / T), (k, 1, n)),
                        text="the normaliser at temperature T")
st = sp.IndexedBase("stilde", positive=True)
ST_DEF = SOFTMAX.define("s̃", st, sp.exp(z[i] / T) / Zt, params=(i,),
                        text="softmax(z/T)_i, the softmax at temperature T")

# --- cross-entropy: one example (logits z, target class k) and a batch (logits Z_{b,c}) ---------

tc = sp.Symbol("k", integer=True, positive=True)  # the target class
B = sp.Symbol("B", integer=True, positive=True)
ZB = sp.IndexedBase("Z", real=True)  # the batch's logits, row b
u = sp.IndexedBase("u", positive=True)  # the targets' weights
lb, bb, cb, mb = sp.symbols("l b c m", integer=True, positive=True)


class _Target(sp.Function):
    """y_{b,c}, the target probability of class c for sample b.

    Every row lies on the simplex; ``doit`` writes it as u_{b,c}/Σ_m u_{b,m} with u > 0, so that
    numeric checks draw targets satisfying Σ_c y_{b,c} = 1.  One-hot rows are the limit u → e_k
    and every identity here is rational in u, so it holds there too.
    """

    # the class count is an argument so that substituting a size for n reaches the definition
    nargs = 3

    def doit(self, **hints):
        row, col, size = self.args
        return u[row, col] / sp.Sum(u[row, mb], (mb, 1, size))

    def _latex(self, printer, exp=None):
        row, col = (printer._print(x) for x in self.args[:2])
        tex = f"y_{{{row},{col}}}"
        return tex if exp is None else f"{tex}^{{{exp}}}"


def Target(row: sp.Basic, col: sp.Basic) -> sp.Basic:  # noqa: N802 - reads as the symbol y
    """y_{row,col} over n classes."""
    return _Target(row, col, n)


CROSS_ENTROPY = Notation("cross-entropy", (n, z, tc, B, ZB, u))
p = sp.IndexedBase("p", positive=True)
P_DEF = CROSS_ENTROPY.define("p", p, sp.exp(z[j]) / sp.Sum(sp.exp(z[lb]), (lb, 1, n)),
                             params=(j,), text="the predicted probability of class j")
y1 = sp.IndexedBase("y", nonnegative=True)
Y_DEF = CROSS_ENTROPY.define("y", y1, sp.KroneckerDelta(j, tc), params=(j,),
                             text="the one-hot target of class k")
ell = sp.Symbol("ell", real=True)
ELL_DEF = CROSS_ENTROPY.define("ℓ", ell, -sp.log(p[tc]), text="the loss of the example")
PB = sp.IndexedBase("P", positive=True)
PB_DEF = CROSS_ENTROPY.define("P", PB, sp.exp(ZB[bb, cb]) / sp.Sum(sp.exp(ZB[bb, lb]), (lb, 1, n)),
                              params=(bb, cb), text="softmax(Z_b)_c, the probabilities of row b")
L_CE = sp.Symbol("L", real=True)
LB_DEF = CROSS_ENTROPY.define(
    "L", L_CE, -sp.Sum(sp.Sum(Target(bb, cb) * sp.log(PB[bb, cb]), (cb, 1, n)), (bb, 1, B)) / B,
    text="the mean loss over the batch, each target row y_b a probability vector")

# --- Adam ----------------------------------------------------------------------------------------

t = sp.Symbol("t", integer=True, positive=True)
ti = sp.Symbol("i", integer=True)  # the step a gradient was taken at
beta_1, beta_2 = sp.symbols("beta_1 beta_2", positive=True)
ga = sp.IndexedBase("g", real=True)  # the gradient at each step

ADAM = Notation("Adam", (beta_1, beta_2, ga))
m = sp.IndexedBase("m", real=True)
M_DEF = ADAM.define("m", m, (1 - beta_1) * sp.Sum(beta_1 ** (t - ti) * ga[ti], (ti, 1, t)),
                    params=(t,), text="the first moment: the moving average of g, from m_0 = 0")
v = sp.IndexedBase("v", real=True)
V_DEF = ADAM.define("v", v, (1 - beta_2) * sp.Sum(beta_2 ** (t - ti) * ga[ti] ** 2, (ti, 1, t)),
                    params=(t,), text="the second moment: the moving average of g², from v_0 = 0")
mhat = sp.IndexedBase("mhat", real=True)
MHAT_DEF = ADAM.define("m̂", mhat, m[t] / (1 - beta_1**t), params=(t,),
                       text="the first moment with its bias corrected")
vhat = sp.IndexedBase("vhat", real=True)
VHAT_DEF = ADAM.define("v̂", vhat, v[t] / (1 - beta_2**t), params=(t,),
                       text="the second moment with its bias corrected")

alpha = sp.Symbol("alpha", positive=True)
epsilon = sp.Symbol("epsilon", nonnegative=True)
m_t, v_t = sp.Symbol("m_t", real=True), sp.Symbol("v_t", positive=True)  # raw moments at step t
ADAM_STEP = Notation("Adam's step", (alpha, beta_1, beta_2, t, m_t, v_t, epsilon))
alpha_t = sp.Symbol("alpha_t", real=True)
ALPHA_T_DEF = ADAM_STEP.define("α_t", alpha_t, alpha * sp.sqrt(1 - beta_2**t) / (1 - beta_1**t),
                               text="the step size of the efficient form")
mhat_t = sp.Symbol("mhat_t", real=True)
MHAT_T_DEF = ADAM_STEP.define("m̂_t", mhat_t, m_t / (1 - beta_1**t),
                              text="the bias-corrected first moment")
vhat_t = sp.Symbol("vhat_t", real=True)
VHAT_T_DEF = ADAM_STEP.define("v̂_t", vhat_t, v_t / (1 - beta_2**t),
                              text="the bias-corrected second moment")

# ε outside the root or inside it: the two denominators
mh, vh = sp.Symbol("mhat_t", real=True), sp.Symbol("vhat_t", positive=True)  # any values
EPSILON = Notation("Adam's ε", (vh, epsilon))
a_out = sp.Symbol("a", positive=True)
A_OUT_DEF = EPSILON.define("a", a_out, sp.sqrt(vh) + epsilon,
                           text="the denominator with ε outside the root (Algorithm 1)")
b_in = sp.Symbol("b", positive=True)
B_IN_DEF = EPSILON.define("b", b_in, sp.sqrt(vh + epsilon),
                          text="the denominator with ε inside the root")

# --- GELU ----------------------------------------------------------------------------------------

xg = sp.Symbol("x", real=True)
zg = sp.Symbol("z", real=True)
GELU = Notation("GELU", (xg,))
Phi = sp.Function("Phi", real=True)
# ½(1 + erf(x/√2)) as written (SymPy would print erf(√2x/2)/2 + ½)
_HALF = sp.Rational(1, 2)
PHI_DEF = GELU.define("Φ", Phi, sp.Mul(_HALF, sp.Add(1, sp.erf(sp.Mul(
    xg, sp.Pow(sp.sqrt(2), -1, evaluate=False), evaluate=False)), evaluate=False),
    evaluate=False), r"\Phi", params=(xg,),
                      text="the standard normal distribution function")
phi = sp.Function("phi", real=True)
PHI_PDF_DEF = GELU.define("φ", phi, sp.exp(-xg**2 / 2) / sp.sqrt(2 * sp.pi), r"\varphi",
                          params=(xg,), text="the standard normal density")
sig = sp.Function("sigma", real=True)
SIG_DEF = GELU.define("σ", sig, 1 / (1 + sp.exp(-zg)), r"\sigma", params=(zg,),
                      text="the logistic sigmoid")
cg = sp.Symbol("c", positive=True)
C_DEF = GELU.define("c", cg, sp.sqrt(sp.Mul(2, sp.Pow(sp.pi, -1, evaluate=False), evaluate=False),
                                       evaluate=False), text="the tanh form's scale")
ag = sp.Symbol("a", positive=True)
A_DEF = GELU.define("a", ag, sp.Rational(44715, 10**6),
                    text="the tanh form's cubic coefficient, as the model's float reads")
ug = sp.Symbol("u", real=True)
U_DEF = GELU.define("u", ug, cg * sp.Add(xg, ag * xg**3, evaluate=False),
                    text="the tanh form's argument")
