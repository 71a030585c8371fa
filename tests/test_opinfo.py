"""torch's OpInfo samples for every op of reftensor's op table (``tests/opinfo.py``).

Each op runs a fixed number of sample and reference inputs per dtype (``DEFAULT_SAMPLES`` in
the full tier, the first 2 of them in the fast one), in every dtype both libraries have (the
fast tier: float32 and two more, ``opinfo.rotated_dtypes``);
``REFTENSOR_OPINFO=all`` runs every one of them (the deeper profile). A mismatch fails the
test unless ``ALLOWED`` names it, with the samples it covers and the check run instead.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest
import torch

import reftensor
from reftensor._ops import DispatchKey, aten
from tests import linalg_compare, opinfo, tiers

#: samples per op, dtype and kind: the fast tier the first 2, the full tier DEFAULT_SAMPLES (6)
LIMIT = None if os.environ.get("REFTENSOR_OPINFO") == "all" else tiers.pick(
    2, opinfo.DEFAULT_SAMPLES)
#: dtypes per op: the fast tier 3 (float32 and two that the op's name picks, so every dtype
#: runs on about a fifth of the ops: ``opinfo.rotated_dtypes``), the full tier all of them
DTYPES_PER_OP = None if os.environ.get("REFTENSOR_OPINFO") == "all" else tiers.pick(3, None)
#: every op of the table but the in-place form of another (``exp_``); ``zero_`` is its own
TABLE_OPS = sorted(p.__name__ for p in aten
                   if not p.__name__.endswith("_") or p.__name__[:-1] not in aten)
ENTRIES: dict[str, list[Any]] = {}
for _op in opinfo.entries(set(TABLE_OPS)):
    ENTRIES.setdefault(_op.name, []).append(_op)
#: internal ops that a Python method of torch's reaches, whose OpInfo entry is the method's:
#: ``t.to(...)`` is ``_to_copy`` when it copies, the properties ``t.T`` and ``t.mT`` are
#: ``numpy_T`` and ``mT``
THROUGH = {"_to_copy": "to", "numpy_T": "T", "mT": "mT"}
for _name, _method in THROUGH.items():
    ENTRIES[_name] = opinfo.entries({_method})

#: op name -> why torch's OpInfo has no entry for it, and which test covers it instead
NO_OPINFO: dict[str, str] = {
    "true_divide": "torch's OpInfo lists it nowhere, not even as an alias of div; "
                   "tests/op_db.py's entry runs it on every layout and dtype, with its "
                   "gradient and error inputs, and div's OpInfo samples run through div",
    "copy_": "torch's OpInfo has no entry for Tensor.copy_; tests/op_db.py's entry runs it "
             "on every layout and dtype (tensor or number sources, broadcast), on the meta "
             "device, with its gradient (CopyBackwards) and error inputs",
    **{name: f"torch's OpInfo has no entry for Tensor.{name}; tests/op_db.py's entry runs "
              "it on every layout and dtype with both libraries' generators seeded alike "
              "(values compared bit for bit), on the meta device, with its gradient (a "
              "zero) and error inputs, and tests/test_ch08_rng.py compares the streams"
       for name in ("uniform_", "random_", "exponential_")},
    **{name: f"torch's OpInfo has no entry for torch.{name}; tests/op_db.py's entry runs it "
              "on drawn sizes, dtypes and options with both libraries' generators seeded "
              "alike (values compared bit for bit), on the meta device, with its error "
              "inputs, and tests/test_ch08_rng.py compares the streams"
       for name in ("rand", "randperm")},
    "contiguous": "a method only (OpInfo's entry is found through reftensor.<name>, which "
                  "torch does not have either); tests/op_db.py's entry runs it on every "
                  "layout, dtype and memory format, with its gradient and error inputs",
    "detach": "torch's OpInfo has no entry for detach; tests/op_db.py's entry runs it on "
              "every layout and dtype (storage, version counter and aliasing compared)",
    "slice": "internal (no torch.slice or Tensor.slice in Python; OpInfo calls "
             "aten.slice.Tensor itself): narrow's OpInfo samples and op_db entry run it, "
             "with its gradient (SliceBackward0)",
    "_reshape_alias": "internal (not in torch's Python API): reshape's OpInfo samples and "
                      "op_db entry reach it for inputs that are not contiguous "
                      "(ReshapeAliasBackward0)",
    "_unsafe_view": "internal (not in torch's Python API): reshape's OpInfo samples and "
                    "op_db entry reach it when a copy is needed (UnsafeViewBackward0)",
    "alias": "internal (no Python binding in torch): ``t[...]`` reaches it; "
             "tests/test_ch02_indexing.py compares it with torch (AliasBackward0)",
    "index": "internal (torch's Python reaches it through t[tensor]): op_db's entry and "
             "tests/test_ch02_indexing.py's advanced indexing compare it with torch",
    "nonzero": "internal in reftensor (torch's Python binding of nonzero, with as_tuple, is "
               "hand-written and not offered yet): argwhere's OpInfo samples reach it, "
               "tests/op_db.py's entry runs it on every layout and dtype",
    "tanh_backward": "internal (torch.ops.aten.tanh_backward, no Python binding): "
                     "tests/op_db.py's entry runs it on every layout and float dtype, on "
                     "the meta device, with its gradient (TanhBackwardBackward0) and error "
                     "inputs; tanh's OpInfo samples and op_db entry reach it through "
                     "TanhBackward0",
    **{name: f"internal (torch.ops.aten.{name}, no Python binding): tests/op_db.py's entry "
              "runs it on every layout and dtype it takes, on the meta device, with its "
              "gradient (its BackwardBackward0 node) and error inputs; the OpInfo samples "
              f"and op_db entry of {op} reach it through its node, and "
              "tests/test_ch09_dispatch.py's programs compare the call a dispatch mode sees"
       for name, op in (("sigmoid_backward", "sigmoid"), ("threshold_backward", "relu"))},
    "lift_fresh": "internal (torch.ops.aten.lift_fresh, no Python binding): the op returns "
                  "its input; tests/op_db.py's entry runs it on every layout and dtype, and "
                  "tests/test_ch09_dispatch.py compares where torch.tensor, as_tensor, "
                  "new_tensor, from_numpy and a list index dispatch it",
    "lift_fresh_copy": "internal (torch.ops.aten.lift_fresh_copy, no Python binding): what "
                       "make_fx records for lift_fresh, a contiguous copy; "
                       "tests/test_ch09_make_fx.py compares the graphs that hold it and runs "
                       "them",
    "_local_scalar_dense": "internal (torch.ops.aten._local_scalar_dense, no Python "
                           "binding): item()'s op; tests/op_db.py's entry runs it on every "
                           "layout and dtype and on the meta device, and "
                           "tests/test_ch09_dispatch.py compares where item(), float(), "
                           "an index and a number argument dispatch it",
    "type_as": "torch's OpInfo has no entry for Tensor.type_as; tests/op_db.py's entry runs "
               "it on every layout and dtype, with meta and CPU others, and its gradient",
    **{name: f"torch's OpInfo has no entry for torch.{name}: softmax's and log_softmax's "
              "OpInfo samples reach it (SoftmaxBackward0, LogSoftmaxBackward0); "
              "tests/op_db.py's entry runs it on every layout and dtype, on the meta device, "
              "with its gradient and error inputs"
       for name in ("_softmax", "_log_softmax", "_log_softmax_backward_data")},
    # --- losses (chapter 6)
    **{name: f"internal (torch.ops.aten.{name}; nn.functional's loss reaches it): the "
              "OpInfo samples of nn.functional.nll_loss, cross_entropy, mse_loss and "
              "binary_cross_entropy reach it through their nodes, tests/op_db.py's entries "
              "run the forward ops on every layout and dtype, and tests/test_ch06_losses.py "
              "compares values, gradients and errors with torch"
       for name in ("nll_loss_nd", "nll_loss2d", "nll_loss_forward", "nll_loss_backward",
                    "nll_loss2d_forward", "nll_loss2d_backward", "mse_loss_backward",
                    "binary_cross_entropy_backward")},
    **{name: f"internal (torch.ops.aten.{name}, no OpInfo entry): the OpInfo samples of "
              "nn.functional.logsigmoid reach it (LogSigmoidBackward0 and its gradient); "
              "tests/op_db.py's entry runs it on every layout and float dtype, on the meta "
              "device, with its gradient and error inputs"
       for name in ("log_sigmoid_forward", "log_sigmoid_backward")},
    "_trilinear": "internal (torch.ops.aten._trilinear): bilinear's OpInfo samples reach it "
                  "(TrilinearBackward0); tests/op_db.py's entry runs it on every layout and "
                  "float dtype, on the meta device, with its gradient",
    **{name: f"internal (torch.ops.aten.{name}, no OpInfo entry): the OpInfo samples of "
              f"{forward} reach it through {node}; tests/op_db.py's entry runs it on every "
              "layout and float dtype and on the meta device"
       for name, forward, node in (
           ("gelu_backward", "nn.functional.gelu", "GeluBackward0"),
           ("embedding_backward", "nn.functional.embedding", "EmbeddingBackward0"),
           ("embedding_dense_backward", "nn.functional.embedding", "EmbeddingBackward0"),
           ("native_layer_norm_backward", "nn.functional.layer_norm",
            "NativeLayerNormBackward0"),
           ("native_batch_norm_backward", "nn.functional.batch_norm",
            "NativeBatchNormBackward0"))},
    "embedding_renorm_": "torch's OpInfo has no entry for torch.embedding_renorm_: "
                         "nn.functional.embedding's OpInfo samples with max_norm reach it; "
                         "tests/op_db.py's entry runs it on every layout and float dtype "
                         "(rows shared by an overlapping weight refused as torch does)",
}
#: the op that nn.functional.cross_entropy's OpInfo samples reach
THROUGH["cross_entropy_loss"] = "cross_entropy"
ENTRIES["cross_entropy_loss"] = opinfo.entries({"cross_entropy"})
#: torch.binary_cross_entropy_with_logits is the op (an int reduction); its OpInfo samples
#: are nn.functional's (a string): run through reftensor.nn.functional
ENTRIES["binary_cross_entropy_with_logits"] = [
    opinfo.NNFunctional(op, "binary_cross_entropy_with_logits") for op in opinfo.op_db
    if op.name == "nn.functional.binary_cross_entropy_with_logits"]
#: torch's log_sigmoid is nn.functional.logsigmoid (``torch._C._nn.log_sigmoid``): its OpInfo
#: samples, through reftensor.nn.functional
ENTRIES["log_sigmoid"] = [opinfo.NNFunctional(op, "logsigmoid") for op in opinfo.op_db
                          if op.name == "nn.functional.logsigmoid"]

#: torch.linalg.vector_norm is the op (``python_module: linalg``), run through
#: reftensor.linalg; torch.norm, a Python function, reaches it on strided tensors (a number
#: p, or "fro" over at most 2 dims), so norm's OpInfo samples run here too, but for
#: norm.nuc's: the nuclear norm is linalg.matrix_norm's (its entries below)
ENTRIES["linalg_vector_norm"] = [op for op in opinfo.op_db if op.name == "linalg.vector_norm"
                                 or (op.name == "norm" and op.variant_test_name != "nuc")]

NO_OPINFO["chain_matmul"] = ("torch's OpInfo has no entry for torch.chain_matmul (deprecated "
                             "for linalg.multi_dot, whose OpInfo samples run through the same "
                             "decomposition); tests/op_db.py's entry runs it on drawn chains, "
                             "every layout and dtype, with its gradient and error inputs")


#: torch.unique, a Python function, runs _unique2 (no dim) and unique_dim (a dim); its
#: OpInfo samples run here (unique_consecutive's are found by its own name)
ENTRIES["_unique2"] = opinfo.entries({"unique"})
NO_OPINFO["unique_dim"] = ("internal (no Python binding in torch): torch.unique with a dim "
                           "reaches it, and unique's OpInfo samples (under _unique2) run it")

#: torch.linalg.det and torch.linalg.solve(_ex), composites, run these structured ops: their
#: OpInfo samples (under linalg_det, linalg_solve, linalg_solve_ex, det) run them
NO_OPINFO["_linalg_det"] = ("what linalg.det and det run; their OpInfo samples (under "
                            "linalg_det and det) run it, tests/op_db.py's entry its LU and "
                            "pivots")
NO_OPINFO["_linalg_solve_ex"] = ("what linalg.solve and linalg.solve_ex run; their OpInfo "
                                 "samples (under linalg_solve, linalg_solve_ex) run it")




class SvdCompared:
    """An SVD OpInfo (``linalg.svd``, ``svd``) whose results both libraries give in
    ``linalg_compare.svd_compared``'s form: each singular vector sign-normalized (MKL's
    signs, torch's, are not OpenBLAS's, reftensor's; the samples have distinct singular
    values, so the vectors are otherwise unique), ``S``, and the factors' shapes and strides.
    Gradients flow through that form (the signs are constants), so they compare too, in
    float32 within ``gradient_tolerances`` (measured on the float32 samples: torch's own
    float32 gradient is up to 1e-5 of the largest from its float64 one, and reftensor's
    up to 1e-5 from torch's float32 one; 1/(S_i^2 - S_j^2) amplifies the factors'
    rounding). The function only (``Tensor.svd`` is the same op)."""

    gradient_tolerances = {"float32": (1e-4, 1e-4)}

    def __init__(self, view: Any, *, legacy: bool) -> None:
        self._view, self.name = view, view.name
        torch_fn, ref_fn = view.op, opinfo.reftensor_function(view)

        def form(result: Any) -> Any:
            return linalg_compare.svd_compared(result, legacy=legacy)

        self.op = lambda *a, **k: form(torch_fn(*a, **k))
        self.reftensor_function = lambda *a, **k: form(ref_fn(*a, **k))
        self.method_variant = self.inplace_variant = None

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._view, attribute)


ENTRIES["linalg_svd"] = [SvdCompared(op, legacy=False) for op in ENTRIES["linalg_svd"]]
ENTRIES["svd"] = [SvdCompared(op, legacy=True) for op in ENTRIES["svd"]]
NO_OPINFO["_linalg_svd"] = ("what linalg.svd, linalg.svdvals and svd run; their OpInfo "
                            "samples (under linalg_svd, linalg_svdvals, svd, and "
                            "linalg_matrix_norm's orders 2, -2, 'nuc') run it")
#: torch.norm's nuclear norm (norm.nuc's samples) is linalg.matrix_norm's
ENTRIES["linalg_matrix_norm"] += [op for op in opinfo.op_db
                                  if op.name == "norm" and op.variant_test_name == "nuc"]


#: linalg.eigh's eigenvectors are LAPACK's up to sign (MKL's in torch, OpenBLAS's in
#: reftensor): compared (values and gradients of their sum) through
#: tests/linalg_compare.py's sign_normalized; _linalg_eigh is what eigh and eigvalsh run.
#: The eigenvectors' gradient divides by the eigenvalues' gaps: in float32 torch's own is
#: off by 2.6e-5 from the float64 one on a sample whose smallest gap is 0.068 (reftensor's
#: 8e-7, measured), beyond float32's tolerance: gradients compared in float64 only
ENTRIES["linalg_eigh"] = [
    opinfo.Compared(op, linalg_compare.eigh_sign_normalized(torch, "eigh"),
                    linalg_compare.eigh_sign_normalized(reftensor, "eigh"),
                    grad_dtypes=(torch.float64,))
    for op in ENTRIES.get("linalg_eigh", [])]
NO_OPINFO["_linalg_eigh"] = ("what linalg.eigh and linalg.eigvalsh run; their OpInfo samples "
                             "(under linalg_eigh, linalg_eigvalsh) run it")


#: torch.cdist (a Python function over the op cdist) runs these: its OpInfo samples reach
#: _cdist_forward and its backward (CdistBackward0), or for p 2 over more than 25 rows
#: _euclidean_dist (EuclideanDistBackward0); tests/op_db.py's entries run each
NO_OPINFO.update({name: f"internal (torch.ops.aten.{name}, no OpInfo entry): cdist's OpInfo "
                        "samples reach it; tests/op_db.py's entry runs it on every layout, "
                        "on the meta device and with out="
                  for name in ("_cdist_forward", "_cdist_backward", "_euclidean_dist")})

#: padding (chapter 10, the capstone; issue 45): torch's OpInfo has nn.functional.pad's
#: samples (under pad: constant, reflect, replicate, replicate_negative and circular) and
#: constant_pad_nd's; the ops that pad's modes run have none of their own
NO_OPINFO.update({name: f"internal (torch.ops.aten.{name}, no OpInfo entry): the OpInfo "
                        "samples of nn.functional.pad (under pad) reach it; tests/op_db.py's "
                        "entry runs it on every layout, on the meta device, with out=, its "
                        "gradient and error inputs"
                  for name in [f"{kind}_pad{dims}d" for kind in ("reflection", "replication")
                               for dims in (1, 2, 3)]})
NO_OPINFO.update({name: f"internal (torch.ops.aten.{name}, no OpInfo entry): the gradients "
                        "of nn.functional.pad's reflect and replicate OpInfo samples (under "
                        "pad) run it, and its own gradient in the op_db entries' double "
                        "backward"
                  for name in [f"{kind}_pad{dims}d_backward"
                               for kind in ("reflection", "replication") for dims in (1, 2, 3)]})
NO_OPINFO["_pad_circular"] = ("internal (torch._C._nn._pad_circular): nn.functional.pad's "
                              "circular OpInfo samples (under pad) run it")
NO_OPINFO["_pad_enum"] = ("internal (torch._C._nn._pad_enum): the code of pad, whose OpInfo "
                          "samples (nn.functional.pad, every mode) run the same function")

#: nn.functional.unfold is the op im2col (its OpInfo samples run through
#: reftensor.nn.functional.unfold), not Tensor.unfold, the op unfold, whose OpInfo keeps its
#: own; torch's OpInfo has no nn.functional.fold: its gradient (Col2ImBackward0) runs under
#: unfold's double backward, and col2im's op_db entry runs it
ENTRIES["im2col"] = [op for op in ENTRIES.get("unfold", [])
                     if isinstance(op, opinfo.NNFunctional)]
ENTRIES["unfold"] = [op for op in ENTRIES.get("unfold", [])
                     if not isinstance(op, opinfo.NNFunctional)]
NO_OPINFO["col2im"] = ("torch's OpInfo has no nn.functional.fold: nn.functional.unfold's "
                       "samples (under im2col) reach it through Im2ColBackward0; "
                       "tests/op_db.py's entry runs it on every layout and float dtype, on "
                       "the meta device, with out=, its gradient and error inputs")


# --- pooling (chapter 10, the capstone; issue 45)
#: nn.functional.max_pool2d and max_pool1d (Python functions that pick the op from
#: return_indices) run their samples through reftensor.nn.functional: torch.max_pool2d and
#: torch.max_pool1d without indices, max_pool2d_with_indices and max_pool1d_with_indices with
ENTRIES["max_pool2d"] = [opinfo.NNFunctional(op, "max_pool2d") for op in opinfo.op_db
                         if op.name == "nn.functional.max_pool2d"]
ENTRIES["max_pool1d"] = [opinfo.NNFunctional(op, "max_pool1d") for op in opinfo.op_db
                         if op.name == "nn.functional.max_pool1d"]


def _max_pool2d_backward(*args: Any, kernel_size: Any = (), stride: Any = (),
                         padding: Any = (0,), dilation: Any = (1,), ceil_mode: bool = False,
                         **kwargs: Any) -> Any:
    """What torch's OpInfo ``max_pool2d_with_indices_backward`` runs (the pooled output's
    gradient of ones through ``aten.max_pool2d_with_indices_backward``), in reftensor."""
    out, indices = reftensor.nn.functional.max_pool2d_with_indices(
        *args, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
        ceil_mode=ceil_mode, return_indices=True)
    return aten.max_pool2d_with_indices_backward(
        reftensor.ones_like(out), *args, kernel_size, kernel_size if stride is None else stride,
        padding, dilation, ceil_mode, indices)


ENTRIES["max_pool2d_with_indices_backward"] = [
    opinfo.Compared(op, op.op, _max_pool2d_backward) for op in opinfo.op_db
    if op.name == "max_pool2d_with_indices_backward"]
NO_OPINFO.update({
    **{name: f"what nn.functional.{short} calls with return_indices=True; its OpInfo samples "
             f"(under {short}) run it, tests/op_db.py's entry runs it on every layout and "
             "dtype, on the meta device, with out= and its gradient"
       for name, short in (("max_pool2d_with_indices", "max_pool2d"),
                           ("max_pool1d_with_indices", "max_pool1d"))},
    "avg_pool2d_backward": "internal (torch.ops.aten.avg_pool2d_backward): the gradients of "
                           "avg_pool2d's OpInfo samples and op_db entries run it "
                           "(AvgPool2DBackward0), with their gradients of gradients",
})


def test_every_op_of_the_table_has_an_opinfo_entry_or_a_reason():
    missing = [name for name in TABLE_OPS if name not in ENTRIES and name not in NO_OPINFO]
    assert not missing, f"no OpInfo entry and no reason given: {missing}"


@pytest.mark.parametrize("name", [n for n in TABLE_OPS if n in ENTRIES])
def test_opinfo_samples_agree(name):
    mismatches = [m for op in ENTRIES[name]
                  for m in opinfo.check_op(op, limit=LIMIT, dtypes=DTYPES_PER_OP)]
    assert not mismatches, "\n".join(str(m) for m in mismatches[:20])


def test_the_fast_tier_runs_every_dtype_on_many_ops():
    """The fast tier's dtype rotation leaves no dtype to a handful of ops: each runs on at
    least a tenth of the ops that support it."""
    runs = {d: 0 for d in opinfo.DTYPES}
    supports = {d: 0 for d in opinfo.DTYPES}
    for name in TABLE_OPS:
        for op in ENTRIES.get(name, []):
            supported = {str(d).removeprefix("torch.") for d in op.dtypes} & set(opinfo.DTYPES)
            for dtype in supported:
                supports[dtype] += 1
            for dtype in opinfo.rotated_dtypes(opinfo._name(op), supported, 3):
                runs[dtype] += 1
    thin = {d: (runs[d], supports[d]) for d in opinfo.DTYPES if runs[d] * 10 < supports[d]}
    assert not thin, f"dtypes run on too few ops (runs, ops supporting it): {thin}"


def test_the_harness_finds_a_wrong_kernel(monkeypatch):
    """A control: exp's CPU kernel replaced by one that returns ones is reported."""
    op = aten.exp.default
    wrong = lambda self: reftensor.ones(self.shape, dtype=self.dtype)  # noqa: E731
    monkeypatch.setitem(op.kernels, DispatchKey.CPU, wrong)
    monkeypatch.setattr(op, "_cpu", wrong)
    found = opinfo.check_op(ENTRIES["exp"][0], limit=2)
    assert any("values differ" in m.what for m in found)


def test_the_stack_walk_finds_what_torchs_finds():
    """``opinfo.test_fn_on_the_stack``, installed over torch's ``extract_test_fn``, returns
    what torch's returns: None from a pytest function (so torch seeds samples with its fixed
    SEED), the test method from inside a unittest test, and the same samples come out."""
    import unittest

    assert opinfo.test_fn_on_the_stack() is opinfo.TORCHS_EXTRACT_TEST_FN() is None
    found = {}

    class TestSeeds(unittest.TestCase):
        def test_walk(self):
            found["ours"] = opinfo.test_fn_on_the_stack()
            found["torch's"] = opinfo.TORCHS_EXTRACT_TEST_FN()

    result = unittest.TextTestRunner(stream=open(os.devnull, "w")).run(TestSeeds("test_walk"))
    assert result.wasSuccessful()
    assert found["ours"] is found["torch's"] is TestSeeds.test_walk
    # the samples an OpInfo draws are the same with either walk
    op = ENTRIES["add"][0]
    ours = [s.input.clone() for s in op.sample_inputs("cpu", torch.float32)]
    common_utils = sys.modules["torch.testing._internal.common_utils"]
    core = sys.modules["torch.testing._internal.opinfo.core"]
    try:
        common_utils.extract_test_fn = core.extract_test_fn = opinfo.TORCHS_EXTRACT_TEST_FN
        theirs = [s.input.clone() for s in op.sample_inputs("cpu", torch.float32)]
    finally:
        common_utils.extract_test_fn = core.extract_test_fn = opinfo.test_fn_on_the_stack
    assert len(ours) == len(theirs) > 3
    assert all(torch.equal(a, b) for a, b in zip(ours, theirs, strict=True))
#: --- convolution (chapter 10, the capstone): nn.functional.conv1d/conv2d's OpInfo samples
#: run through torch.conv1d/conv2d (the ops) and reach these
NO_OPINFO.update({name: f"internal (torch's OpInfo has no entry for {name}): the OpInfo "
                        "samples of nn.functional.conv1d and conv2d reach it "
                        "(ConvolutionBackward0); tests/op_db.py's entry runs convolution on "
                        "every layout, transposed too, on the meta device and with out="
                  for name in ("convolution", "convolution_backward")})
NO_OPINFO["convolution_overrideable"] = (
    "internal (torch.ops.aten.convolution_overrideable, no OpInfo entry): a hook for other "
    "backends, NotImplementedError on CPU and meta in torch; "
    "tests/test_ch10_convolution.py checks it and its .out raise as torch's")
