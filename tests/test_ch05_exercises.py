"""Chapter 5: the solution notebook's answers pass their checks on a fresh seed, typical
mistakes fail them, the cases describe torch's real graphs, and the trusted grading pipeline
gives the solutions full points."""

from __future__ import annotations

import heapq
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hypothesis_st

from autograder import checks
from autograder.course import exercises, references
from autograder.sandbox import bwrap as sandbox
from tests.notebooks import (
    answer_namespace,
    answer_sources,
    assert_grading_full_points_and_one_loss,
    assert_mistake_fails,
    assert_solution_passes,
    hidden_pairs,
)
from tests.strategies import examples

pytestmark = pytest.mark.ch05

CHAPTER = "ch05_autograd"
NAMES = ["backward_pass", "binary_backward", "collect_next_edges", "accumulate_grad",
         "set_history", "clamp_backward", "saved_tensor_error", "reduction_backward",
         "unary_backward", "call_hooks", "validate_outputs"]
FRESH_SEED = 20261121


RIGHT: dict[str, object] = answer_namespace()
for _grade_id, _text in answer_sources(CHAPTER).items():
    if _grade_id in NAMES:
        exec(compile(_text, f"<{CHAPTER}:{_grade_id}>", "exec"), RIGHT)


# ---------------------------------------------------------------- typical mistakes
def make_pass(*, wait=True, queue="heap", ties="seq", add=True, none_runs=True,
              pre_hooks=True, post_hooks=True, free="after", none_is_zero=False):
    """The solution's backward_pass with one rule broken (the keywords say which)."""

    class Ready:
        def __init__(self, node, buffer, count):
            self.node, self.buffer, self.seq, self.count = (node, buffer, node._sequence_nr(),
                                                           count)

        def __lt__(self, other):
            if queue == "oldest":
                return self.seq < other.seq
            if ties == "arrival" and self.seq == other.seq:
                return self.count < other.count
            return self.seq > other.seq

    def backward_pass(root, grads, keep_graph, calls):
        dependencies, seen, todo = {}, {root}, [root]
        while todo:
            for child, _ in todo.pop().next_functions:
                if child is not None:
                    dependencies[child] = dependencies.get(child, 0) + 1
                    if child not in seen:
                        seen.add(child)
                        todo.append(child)
        not_ready, pushed, count = {}, set(), itertools.count()
        ready = [Ready(root, list(grads), next(count))]
        while ready:
            task = ready.pop(0) if queue == "fifo" else heapq.heappop(ready)
            node = task.node
            if not none_runs and all(g is None for g in task.buffer) and node is not root:
                continue
            inputs = calls.pre_hooks(node, task.buffer)
            if not pre_hooks:
                inputs = task.buffer
            if not calls.needed(node):
                continue
            if free == "before" and not keep_graph:
                node.release_variables()
            outs = list(calls.apply(node, inputs))
            for i, (child, _) in enumerate(node.next_functions[:len(outs)]):
                if child is not None and outs[i] is not None:
                    outs[i] = calls.validate(node, i, outs[i])
            new = calls.post_hooks(node, outs, inputs)
            outs = new if post_hooks else outs
            if free == "after" and not keep_graph:
                node.release_variables()
            for (child, slot), grad in zip(node.next_functions, outs, strict=False):
                if child is None:
                    continue
                empty = 0.0 if none_is_zero else None
                buffer = not_ready.pop(child) if child in not_ready else \
                    [empty] * child.num_inputs()
                if grad is not None:
                    buffer[slot] = grad if buffer[slot] is None or not add else buffer[slot] + grad
                dependencies[child] -= 1
                if not wait and child not in pushed:
                    pushed.add(child)
                    task = Ready(child, buffer, next(count))
                    ready.append(task) if queue == "fifo" else heapq.heappush(ready, task)
                elif wait and dependencies[child] == 0:
                    task = Ready(child, buffer, next(count))
                    ready.append(task) if queue == "fifo" else heapq.heappush(ready, task)
                else:
                    not_ready[child] = buffer

    return backward_pass


def _mistake(name, doc, **broken):
    fn = make_pass(**broken)
    fn.__name__, fn.__doc__ = name, doc
    return fn


pass_without_waiting = _mistake(
    "pass_without_waiting", "Runs a node as soon as one gradient reaches it.", wait=False)
pass_first_in_first_out = _mistake(
    "pass_first_in_first_out", "Runs ready nodes in the order they became ready.",
    queue="fifo")
pass_oldest_first = _mistake(
    "pass_oldest_first", "A heap that runs the smallest sequence number first.",
    queue="oldest")
pass_ties_by_arrival = _mistake(
    "pass_ties_by_arrival", "Breaks ties in the order nodes became ready (a counter in the "
    "heap's entries), not as torch's heap leaves them.", ties="arrival")
pass_overwriting = _mistake(
    "pass_overwriting", "Keeps the last gradient that reaches a slot instead of the sum.",
    add=False)
pass_skipping_none = _mistake(
    "pass_skipping_none", "Skips a node that only None reached.", none_runs=False)
pass_ignoring_pre_hooks = _mistake(
    "pass_ignoring_pre_hooks", "Calls the pre-hooks but runs the node with its buffer.",
    pre_hooks=False)
pass_ignoring_post_hooks = _mistake(
    "pass_ignoring_post_hooks", "Calls the post-hooks but hands on what apply returned.",
    post_hooks=False)
pass_never_freeing = _mistake(
    "pass_never_freeing", "Never frees saved tensors.", free="never")
pass_freeing_before_apply = _mistake(
    "pass_freeing_before_apply", "Frees a node's saved tensors before it runs.",
    free="before")
pass_none_as_zero = _mistake(
    "pass_none_as_zero", "Starts each slot of an input buffer at 0.0 instead of None.",
    none_is_zero=True)


def _shape(v):
    return (len(v), *_shape(v[0])) if isinstance(v, list | tuple) else ()


def _expand(v, dims, index=()):
    """v broadcast to shape dims, as nested lists."""
    if len(index) == len(dims):
        own = _shape(v)
        for i, n in zip(index[len(index) - len(own):], own, strict=True):
            v = v[i if n > 1 else 0]
        return v
    return [_expand(v, dims, index + (i,)) for i in range(dims[len(index)])]


def _summed(g, target):
    """Nested lists ``g`` summed down to shape ``target`` (``sum_to_size``)."""
    def add(u, v):
        return [add(p, q) for p, q in zip(u, v, strict=True)] if isinstance(u, list) else u + v

    def total(rows):
        result = rows[0]
        for row in rows[1:]:
            result = add(result, row)
        return result

    while len(_shape(g)) > len(target):
        g = total(g)
    if not target:
        return g
    rows = [_summed(row, target[1:]) for row in g]
    return [total(rows)] if target[0] == 1 else rows


def backward_summed_down(op, x, y, grad):
    """Sums each gradient down to its input's shape: the engine's job, not the node's."""
    gx, gy = RIGHT["binary_backward"](op, x, y, grad)
    return _summed(gx, _shape(x)), _summed(gy, _shape(y))


def backward_mul_swapped(op, x, y, grad):
    """For x * y, multiplies grad by the input's own value instead of the other's."""
    if op == "*" and _shape(x) == _shape(y):
        return RIGHT["binary_backward"](op, y, x, grad)
    return RIGHT["binary_backward"](op, x, y, grad)


def backward_div_in_one_step(op, x, y, grad):
    """For x / y, writes y's gradient as -grad * x / (y * y), not in torch's order."""
    gx, gy = RIGHT["binary_backward"](op, x, y, grad)
    if op == "/":
        dims = _shape(grad)
        xs, ys = _expand(x, dims), _expand(y, dims)

        def rule(g, a, b):
            if isinstance(g, list):
                return [rule(*t) for t in zip(g, a, b, strict=True)]
            return -g * a / (b * b)

        gy = rule(grad, xs, ys)
    return gx, gy


def backward_div_without_minus(op, x, y, grad):
    """Forgets the minus sign of the quotient rule."""
    gx, gy = RIGHT["binary_backward"](op, x, y, grad)

    def negate(v):
        return [negate(u) for u in v] if isinstance(v, list) else -v

    return gx, (negate(gy) if op == "/" else gy)


def edges_whatever_the_mode(grad_mode, inputs, accumulator):
    """Records a node under no_grad and inference_mode too."""
    return RIGHT["collect_next_edges"](True, inputs, accumulator)


def edges_even_without_grad(grad_mode, inputs, accumulator):
    """Gives (None, 0) edges instead of no node when no input requires grad."""
    edges = RIGHT["collect_next_edges"](grad_mode, inputs, accumulator)
    if edges is None and grad_mode:
        return ((None, 0),) * len(inputs)
    return edges


def edges_slot_zero(grad_mode, inputs, accumulator):
    """Points every edge at slot 0 of its node (unbind's second output too)."""
    edges = RIGHT["collect_next_edges"](grad_mode, inputs, accumulator)
    return None if edges is None else tuple((node, 0) for node, _ in edges)


def edges_tensors_only(grad_mode, inputs, accumulator):
    """Leaves a number out instead of giving it a (None, 0) edge."""
    edges = RIGHT["collect_next_edges"](grad_mode, inputs, accumulator)
    return None if edges is None else tuple(
        e for e, x in zip(edges, inputs, strict=True) if x is not None)


def edges_leaf_by_requires_grad(grad_mode, inputs, accumulator):
    """Takes every tensor without a grad_fn that requires grad for a leaf with an
    AccumulateGrad, and calls accumulator(i) on a tensor with a grad_fn too."""
    if not grad_mode or not any(x is not None and x[0] for x in inputs):
        return None
    return tuple((None, 0) if x is None or not x[0] else (accumulator(i), 0)
                 for i, x in enumerate(inputs))


def history_every_output(outputs, needs, reads, saves):
    """Records the node on every output, integer ones too."""
    _, saved = RIGHT["set_history"](outputs, needs, reads, saves)
    return tuple(i if d is not None else None for i, d in enumerate(outputs)), saved


def history_real_floats_only(outputs, needs, reads, saves):
    """Takes complex outputs for not differentiable."""
    history, saved = RIGHT["set_history"](outputs, needs, reads, saves)
    return tuple(None if d is not None and d.startswith("complex") else h
                 for h, d in zip(history, outputs, strict=True)), saved


def history_saving_everything(outputs, needs, reads, saves):
    """Saves every tensor a formula reads, whether its input needs a gradient or not."""
    history = tuple(i if d is not None and d.startswith(("float", "bfloat", "complex"))
                    else None for i, d in enumerate(outputs))
    wanted = {name for names in reads if names is not None for name in names}
    return history, tuple((n, v, o is not None and history[o] is not None)
                          for n, v, o in saves if n in wanted)


def history_saving_own_input(outputs, needs, reads, saves):
    """Saves the inputs that need a gradient themselves (x * y: x when x does)."""
    history, _ = RIGHT["set_history"](outputs, needs, reads, saves)
    names = ("self", "other")
    wanted = {names[i] for i, need in enumerate(needs) if need and i < 2}
    wanted |= {name for need, r in zip(needs, reads, strict=True) if need and r
               for name in r if name not in names}
    return history, tuple((n, v, o is not None and history[o] is not None)
                          for n, v, o in saves if n in wanted)


def history_every_output_saved_as_output(outputs, needs, reads, saves):
    """Marks every saved output as the node's own, max's integer indices too."""
    history, saved = RIGHT["set_history"](outputs, needs, reads, saves)
    at = {name: output for name, _, output in saves}
    return history, tuple((n, v, at[n] is not None) for n, v, _ in saved)


def history_version_zero(outputs, needs, reads, saves):
    """Saves every tensor at version 0."""
    history, saved = RIGHT["set_history"](outputs, needs, reads, saves)
    return history, tuple((n, 0, o) for n, _, o in saved)


def accumulate_overwriting(shape, stride, grad, new):
    """Replaces .grad by the new gradient instead of adding to it."""
    values, strides, in_place = RIGHT["accumulate_grad"](shape, stride, None, new)
    return values, (strides if grad is None else tuple(grad[1])), grad is not None


def accumulate_out_of_place(shape, stride, grad, new):
    """Adds into a new contiguous tensor (grad = grad + new) instead of in place."""
    values, strides, _ = RIGHT["accumulate_grad"](shape, stride, grad, new)
    return values, (strides if grad is None else _contiguous(shape)), False


def _contiguous(shape):
    strides, running = [], 1
    for n in reversed(shape):
        strides.insert(0, running)
        running *= max(n, 1)
    return tuple(strides)


def accumulate_always_contiguous(shape, stride, grad, new):
    """Lays the first .grad out contiguously, whatever the leaf's layout."""
    values, strides, in_place = RIGHT["accumulate_grad"](shape, stride, grad, new)
    return values, (strides if grad is not None else _contiguous(shape)), in_place


def accumulate_always_like_the_leaf(shape, stride, grad, new):
    """Copies the leaf's strides even when the leaf is not dense (stride 0, stepped)."""
    values, strides, in_place = RIGHT["accumulate_grad"](shape, stride, grad, new)
    return values, (strides if grad is not None else tuple(stride)), in_place


def accumulate_size_one_dims_count(shape, stride, grad, new):
    """Checks density on every dim, size-1 dims included (a (1, 3) leaf of strides (7, 1) is
    dense, and keeps them)."""
    values, strides, in_place = RIGHT["accumulate_grad"](shape, stride, grad, new)
    if grad is None and 0 not in shape and tuple(stride) != _contiguous(shape) and any(
            n == 1 for n in shape):
        strides = _contiguous(shape)
    return values, strides, in_place


def clamp_exclusive(x, lo, hi, grad):
    """Passes the gradient to x only strictly inside (lo, hi)."""
    grad_x, grad_lo, grad_hi = RIGHT["clamp_backward"](x, lo, hi, grad)
    on_bound = [(lo is not None and v == lo[i]) or (hi is not None and v == hi[i])
                for i, v in enumerate(x)]
    return ([0.0 if edge else g for edge, g in zip(on_bound, grad_x, strict=True)],
            grad_lo, grad_hi)


def clamp_naive_bounds(x, lo, hi, grad):
    """Below lo always goes to lo, above hi to hi, even when lo >= hi."""
    grad_x, _, _ = RIGHT["clamp_backward"](x, lo, hi, grad)
    to_lo = None if lo is None else [g if v < lo[i] else 0.0
                                     for i, (v, g) in enumerate(zip(x, grad, strict=True))]
    to_hi = None if hi is None else [g if v > hi[i] else 0.0
                                     for i, (v, g) in enumerate(zip(x, grad, strict=True))]
    return grad_x, to_lo, to_hi


def clamp_summed(x, lo, hi, grad):
    """Sums each bound's gradient (as for a 0-d bound) instead of leaving it to the engine."""
    grad_x, grad_lo, grad_hi = RIGHT["clamp_backward"](x, lo, hi, grad)
    return (grad_x, None if grad_lo is None else [sum(grad_lo)],
            None if grad_hi is None else [sum(grad_hi)])


def make_reduction(*, wrap=True, empty_is_every=True, read_kept=True, by_numel=False,
                   sum_divides=False):
    """The solution's reduction_backward with one rule broken (the keywords say which)."""

    def reduction_backward(grad, sizes, dims, keepdim, mean):
        ndim = len(sizes)
        if ndim == 0:
            reduced = set()
        elif dims is None or (dims == () and empty_is_every):
            reduced = set(range(ndim))
        else:
            reduced = {d % ndim if wrap else d for d in dims}
        count = 1
        for d in range(ndim):
            if by_numel or d in reduced:
                count *= sizes[d]

        def element(index):
            g = grad
            for d, i in enumerate(index):
                if d not in reduced:
                    g = g[i]
                elif keepdim and read_kept:
                    g = g[0]
            return g / count if mean or sum_divides else g

        def fill(index):
            if len(index) == ndim:
                return element(index)
            return [fill((*index, i)) for i in range(sizes[len(index)])]

        return fill(())

    return reduction_backward


reduction_negative_dims_unwrapped = make_reduction(wrap=False)
reduction_negative_dims_unwrapped.__name__ = "reduction_negative_dims_unwrapped"
reduction_empty_dims_reduce_none = make_reduction(empty_is_every=False)
reduction_empty_dims_reduce_none.__name__ = "reduction_empty_dims_reduce_none"
reduction_keepdim_ignored = make_reduction(read_kept=False)
reduction_keepdim_ignored.__name__ = "reduction_keepdim_ignored"
reduction_mean_by_numel = make_reduction(by_numel=True)
reduction_mean_by_numel.__name__ = "reduction_mean_by_numel"
reduction_sum_divided = make_reduction(sum_divides=True)
reduction_sum_divided.__name__ = "reduction_sum_divided"


def _unary_mistake(name, doc, wrong_op, element):
    """The solution's unary_backward with ``wrong_op``'s rule replaced by ``element(g, s)``
    (``element(g, x, exponent)`` for ``pow``)."""

    def unary_backward(op, grad, saved, exponent=None):
        if op != wrong_op:
            return RIGHT["unary_backward"](op, grad, saved, exponent)

        def each(g, s):
            if isinstance(g, list | tuple):
                return [each(gi, si) for gi, si in zip(g, s, strict=True)]
            return element(g, s) if exponent is None else element(g, s, exponent)

        return each(grad, grad if saved is None else saved)

    unary_backward.__name__, unary_backward.__doc__ = name, doc
    return unary_backward


def _python_div(a, b):
    """Python's / made to return something at 0: inf whatever the signs, nan for 0 / 0."""
    if b == 0:
        return math.nan if a == 0 else math.inf
    return a / b


unary_tanh_rounded_twice = _unary_mistake(
    "unary_tanh_rounded_twice", "1 - r * r rounded twice, not as a fused multiply-add.",
    "tanh", lambda g, r: g * (1 - r * r))
unary_sigmoid_reordered = _unary_mistake(
    "unary_sigmoid_reordered", "g * r * (1 - r): the kernel's product in another order.",
    "sigmoid", lambda g, r: g * r * (1 - r))
unary_reciprocal_left_to_right = _unary_mistake(
    "unary_reciprocal_left_to_right", "-g * r * r, not -g * (r * r).",
    "reciprocal", lambda g, r: -g * r * r)
unary_rsqrt_by_power = _unary_mistake(
    "unary_rsqrt_by_power", "result.pow(3) as Python's r ** 3, not r * r * r.",
    "rsqrt", lambda g, r: -0.5 * g * r ** 3)
unary_log2_divided_twice = _unary_mistake(
    "unary_log2_divided_twice", "g / x / ln 2, not g / (x * ln 2).",
    "log2", lambda g, x: g / x / 0.6931471805599453)
unary_log_by_python = _unary_mistake(
    "unary_log_by_python", "Python's /: ZeroDivisionError at x = 0.", "log", lambda g, x: g / x)
unary_log_unsigned_inf = _unary_mistake(
    "unary_log_unsigned_inf", "g / 0 as inf whatever the signs of g and of the 0.",
    "log", _python_div)
unary_asin_by_math_sqrt = _unary_mistake(
    "unary_asin_by_math_sqrt", "1 / math.sqrt(1 - x * x): raises at |x| >= 1.",
    "asin", lambda g, x: g * (1 / math.sqrt(-x * x + 1)))
unary_relu_passing_at_zero = _unary_mistake(
    "unary_relu_passing_at_zero", "the gradient passes where the result is 0 (r < 0, not <=).",
    "relu", lambda g, r: 0.0 if r < 0 else g)
unary_abs_by_copysign = _unary_mistake(
    "unary_abs_by_copysign", "the sign of x as copysign(1, x): +-1 at 0 and -0.0.",
    "abs", lambda g, x: g * math.copysign(1.0, x))


def make_hooks(*, none_skipped=False, retain_first=False, pre_first=False,
               read_at_start=False, live_dicts=False, counted=True, by_dunder_name=False,
               none_clears=False, post_swapped=False, post_unchained=False,
               none_checked=True, lists=False, tensor_unchained=False, checked_values=True,
               post_counted_by_grads=False, got_expected_swapped=False):
    """The solution's call_hooks with one rule broken (the keywords say which)."""

    def call_hooks(hooks, grads, outputs=None):
        def name(hook):
            if by_dunder_name:
                return hook.__name__
            hook_name = getattr(hook, "__name__", None)
            return hook_name if isinstance(hook_name, str) else "<unknown>"

        def checked(hook, old, new):
            if none_checked and new is not None and old is None:
                raise RuntimeError("can't replace a None gradient with a non-None value")
            if checked_values and new is not None and old is not None:
                hooks.check_result(name(hook), old, new)
            return new

        def listed(hook_dict):
            return hook_dict.values() if live_dicts else list(hook_dict.values())

        def call_all(hook_dict, values, *more, expected=None):
            original = list(values)
            for hook in hook_dict if read_at_start else listed(hook_dict):
                new = hook(tuple(original if post_unchained else values), *more)
                if new is None:
                    continue
                if not isinstance(new, tuple | (list if lists else tuple)):
                    raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
                want = len(values) if expected is None else expected
                if counted and len(new) != want:
                    got, wanted = (want, len(new)) if got_expected_swapped else (len(new), want)
                    raise RuntimeError(
                        f"hook '{name(hook)}' has returned an incorrect number of values "
                        f"(got {got}, but expected {wanted})")
                values = [checked(hook, old, v) for old, v in zip(values, new, strict=False)]
            return values

        if read_at_start:  # every dict read before any hook runs
            snap = {"pre": list(hooks.pre_hooks.values()),
                    "post": list(hooks.post_hooks.values()),
                    "tensor": [(slot, list(d.values())) for slot, d in hooks.tensor_pre_hooks]}
        else:
            snap = {"pre": hooks.pre_hooks, "post": hooks.post_hooks,
                    "tensor": [(slot, d) for slot, d in hooks.tensor_pre_hooks]}
        if outputs is not None:
            inputs, outs = list(outputs), tuple(grads)
            if post_swapped:
                inputs, outs = list(grads), tuple(outputs)
            return call_all(snap["post"], inputs, outs,
                            expected=len(grads) if post_counted_by_grads else None)
        grads = list(grads)

        def tensor_hooks():
            for slot, tensor_hook_dict in snap["tensor"]:
                original = grads[slot]
                hooks_now = (tensor_hook_dict if read_at_start
                             else listed(tensor_hook_dict))
                for hook in hooks_now:
                    if none_skipped and grads[slot] is None:
                        continue
                    new = hook(original if tensor_unchained else grads[slot])
                    if none_clears:
                        grads[slot] = new
                    elif new is not None:
                        grads[slot] = checked(hook, grads[slot], new)

        def retains():
            for slot, retain in list(hooks.retains_grad_hooks.items()):
                retain(grads[slot])

        if pre_first:
            grads = call_all(snap["pre"], grads)
        if retain_first:
            retains()
        tensor_hooks()
        if not retain_first:
            retains()
        return grads if pre_first else call_all(snap["pre"], grads)

    return call_hooks


def _hooks_mistake(name, doc, **broken):
    fn = make_hooks(**broken)
    fn.__name__, fn.__doc__ = name, doc
    return fn


hooks_none_skipped = _hooks_mistake(
    "hooks_none_skipped", "A tensor hook is not called with a None gradient.", none_skipped=True)
hooks_retain_first = _hooks_mistake(
    "hooks_retain_first", "retain_grad's hooks before the tensor hooks.", retain_first=True)
hooks_pre_first = _hooks_mistake(
    "hooks_pre_first", "The node's pre-hooks before the tensor hooks.", pre_first=True)
hooks_read_at_start = _hooks_mistake(
    "hooks_read_at_start", "Every dict read before any hook runs: a hook removed from a later "
    "turn still runs.", read_at_start=True)
hooks_live_dicts = _hooks_mistake(
    "hooks_live_dicts", "Iterating the live dict: a removal during its turn raises.",
    live_dicts=True)
hooks_uncounted = _hooks_mistake(
    "hooks_uncounted", "No check of the tuple's length (zip drops the extra).", counted=False)
hooks_by_dunder_name = _hooks_mistake(
    "hooks_by_dunder_name", "hook.__name__: AttributeError for a partial.", by_dunder_name=True)
hooks_none_clears = _hooks_mistake(
    "hooks_none_clears", "A tensor hook returning None makes the gradient None.",
    none_clears=True)
hooks_post_swapped = _hooks_mistake(
    "hooks_post_swapped", "Post-hooks get (grad_outputs, grad_inputs) and replace the "
    "gradients.", post_swapped=True)
hooks_post_unchained = _hooks_mistake(
    "hooks_post_unchained", "Each hook gets the original tuple, not what the one before "
    "returned.", post_unchained=True)
hooks_none_replaced = _hooks_mistake(
    "hooks_none_replaced", "A value may replace a None.", none_checked=False)
hooks_lists = _hooks_mistake("hooks_lists", "A node hook may return a list.", lists=True)
hooks_tensor_unchained = _hooks_mistake(
    "hooks_tensor_unchained", "Each tensor hook gets the original gradient.",
    tensor_unchained=True)
hooks_unchecked = _hooks_mistake(
    "hooks_unchecked", "hooks.check_result not called: a float, a tuple, another dtype pass.",
    checked_values=False)
hooks_post_counted_by_grads = _hooks_mistake(
    "hooks_post_counted_by_grads", "A post-hook's tuple counted against grad_outputs.",
    post_counted_by_grads=True)
hooks_got_expected_swapped = _hooks_mistake(
    "hooks_got_expected_swapped", "The message's two numbers swapped.",
    got_expected_swapped=True)


def _pow_right(g, x, e):
    return RIGHT["unary_backward"]("pow", g, x, e)


def _rsqrt_plus_inf_at_zero(g, x, e):
    if e != 0.5 or x != 0:
        return _pow_right(g, x, e)
    return g * (0.5 * math.inf)


unary_pow_by_python_power = _unary_mistake(
    "unary_pow_by_python_power", "Python's x ** (e - 1): one rounding (x ** 3 is not "
    "x * x * x, x ** -2 not 1 / (x * x)); raises at 0, complex below 0.",
    "pow", lambda g, x, e: 0.0 if e == 0 else g * (e * x ** (e - 1)))
unary_pow_cubed_once = _unary_mistake(
    "unary_pow_cubed_once", "x ** 4's x.pow(3) and x ** -1's x.pow(-2) rounded once, every "
    "corner right.", "pow", lambda g, x, e: g * (e * float(
        Fraction(x) ** int(e - 1))) if e in (4, -1) and math.isfinite(x) and x != 0
    else _pow_right(g, x, e))
unary_pow_grad_first = _unary_mistake(
    "unary_pow_grad_first", "g * 3 * (x * x), left to right: the gradient scaled first.",
    "pow", lambda g, x, e: g * 3 * (x * x) if e == 3 else _pow_right(g, x, e))
unary_pow_zero_by_formula = _unary_mistake(
    "unary_pow_zero_by_formula", "the exponent 0 by the formula, g * (0 * (1 / x)): nan at 0.",
    "pow", lambda g, x, e: g * (0.0 * (math.inf if x == 0 else 1 / x)) if e == 0
    else _pow_right(g, x, e))
unary_pow_rsqrt_plus_inf = _unary_mistake(
    "unary_pow_rsqrt_plus_inf", "x ** 0.5: rsqrt(-0.0) as +inf (1 / sqrt(-0.0) is 1 / -0.0).",
    "pow", _rsqrt_plus_inf_at_zero)
unary_logit_everywhere = _unary_mistake(
    "unary_logit_everywhere", "g / (x * (1 - x)) outside [0, 1] too, not nan.",
    "logit", lambda g, x: RIGHT["unary_backward"]("log", g, x * (1 - x)))
unary_logit_divided_twice = _unary_mistake(
    "unary_logit_divided_twice", "g / x / (1 - x), not g / (x * (1 - x)).",
    "logit", lambda g, x: math.nan if not 0 < x < 1 else g / x / (1 - x))
unary_nan_to_num_inf_passes = _unary_mistake(
    "unary_nan_to_num_inf_passes", "only nan stops the gradient; inf and -inf let it pass.",
    "nan_to_num", lambda g, x: g * (0.0 if x != x else 1.0))


def _rsqrt(v):
    return RIGHT["unary_backward"]("pow", 1.0, v, 0.5) * 2  # 0.5 * rsqrt(v), doubled: exact


unary_acosh_complex_form = _unary_mistake(
    "unary_acosh_complex_form", "torch's complex form, rsqrt(x + 1) * rsqrt(x - 1).",
    "acosh", lambda g, x: g * (_rsqrt(x + 1) * _rsqrt(x - 1)))
unary_asinh_divided = _unary_mistake(
    "unary_asinh_divided", "g / sqrt(x * x + 1), not g * rsqrt(x * x + 1).",
    "asinh", lambda g, x: g / math.sqrt(x * x + 1))
unary_atanh_factored = _unary_mistake(
    "unary_atanh_factored", "g / ((1 - x) * (1 + x)), not g / (1 - x * x).",
    "atanh", lambda g, x: RIGHT["unary_backward"]("log", g, (1 - x) * (1 + x)))


def make_validate(*, from_front=False, fewer_dims=False, both_ways=False, device_first=False,
                  move_all=False, refuse_all=False, cast_skipped=False, tuples=False,
                  swapped=False, no_index=False, sum_always_to_grad=False):
    """The solution's validate_outputs with one rule broken (the keywords say which)."""
    def validate_outputs(name, i, grad, shape, dtype, device):
        def check_device(grad):
            if grad.device != device:
                if grad.dim() != 0 and not move_all or refuse_all:
                    where = (f"{grad.device} but got {device}" if swapped
                             else f"{device} but got {grad.device}")
                    raise RuntimeError(f"Function {name} returned an invalid gradient at index "
                                       f"{'' if no_index else i} - expected device {where}")
                grad = grad.to(device)
            return grad

        if device_first:
            grad = check_device(grad)
        if tuple(grad.shape) != tuple(shape):
            ndim, target = len(shape), tuple(grad.shape)
            if from_front:
                expandable = ndim <= len(target) and all(
                    size in (1, target[k]) for k, size in enumerate(shape))
            elif fewer_dims:
                expandable = all(size in (1, t) for size, t in zip(shape[::-1], target[::-1],
                                                                    strict=False))
            elif both_ways:
                expandable = all(s in (1, t) or t == 1
                                 for s, t in zip(shape[::-1], target[::-1], strict=False))
            else:
                expandable = ndim <= len(target) and all(
                    size in (1, target[len(target) - ndim + k]) for k, size in enumerate(shape))
            if not expandable:
                got, want = ((tuple(grad.shape), tuple(shape)) if tuples
                             else (list(grad.shape), list(shape)))
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index "
                    f"{'' if no_index else i} - got {got} but expected shape compatible with "
                    f"{want}")
            grad = grad.sum_to_size(shape)
        if not cast_skipped and grad.dtype != dtype:
            grad = grad.to(dtype)
        if not device_first:
            grad = check_device(grad)
        return grad

    return validate_outputs


def _validate_mistake(name, doc, **broken):
    fn = make_validate(**broken)
    fn.__name__, fn.__doc__ = name, doc
    return fn


validate_from_front = _validate_mistake(
    "validate_from_front", "Shapes compared from the first dimension, not the last.",
    from_front=True)
validate_fewer_dims = _validate_mistake(
    "validate_fewer_dims", "zip from the last dimension without counting dimensions: a "
    "gradient with fewer passes.",
    fewer_dims=True)
validate_both_ways = _validate_mistake(
    "validate_both_ways", "Broadcast-compatible either way: a 1 in the gradient passes.",
    both_ways=True)
validate_device_first = _validate_mistake(
    "validate_device_first", "The device checked before the shape.", device_first=True)
validate_move_all = _validate_mistake(
    "validate_move_all", "Every gradient moved to the input's device.", move_all=True)
validate_refuse_all = _validate_mistake(
    "validate_refuse_all", "A 0-d gradient on another device refused too.", refuse_all=True)
validate_cast_skipped = _validate_mistake(
    "validate_cast_skipped", "No cast to the input's dtype.", cast_skipped=True)
validate_tuples = _validate_mistake(
    "validate_tuples", "The shapes printed as tuples.", tuples=True)
validate_devices_swapped = _validate_mistake(
    "validate_devices_swapped", "The two devices of the message swapped.", swapped=True)
validate_no_index = _validate_mistake(
    "validate_no_index", "The message without the gradient's index.", no_index=True)


def validate_unsummed(name, i, grad, shape, dtype, device):
    """Checks the shape but hands on the gradient in its own shape (never summed down)."""
    if grad.dtype != dtype:
        grad = grad.to(dtype)
    out = RIGHT["validate_outputs"](name, i, grad, shape, dtype, device)
    return grad if tuple(grad.shape) != tuple(shape) else out


def validate_by_sum_to_size(name, i, grad, shape, dtype, device):
    """Leaves the rule to sum_to_size: tries it and turns its error into torch's message."""
    if tuple(grad.shape) != tuple(shape):
        try:
            grad = grad.sum_to_size(shape)
        except RuntimeError:
            raise RuntimeError(
                f"Function {name} returned an invalid gradient at index {i} - got "
                f"{list(grad.shape)} but expected shape compatible with {list(shape)}") from None
    return RIGHT["validate_outputs"](name, i, grad, shape, dtype, device)


def validate_none_when_matching(name, i, grad, shape, dtype, device):
    """Returns None when nothing differs (no final return)."""
    if (tuple(grad.shape), grad.dtype, grad.device) == (tuple(shape), dtype, device):
        return None
    return RIGHT["validate_outputs"](name, i, grad, shape, dtype, device)


def saved_current_grad_fn(saved_version, version, type_name, shape, saved_by, grad_fn):
    """Names the tensor's grad_fn now, even for a result its node saved."""
    return RIGHT["saved_tensor_error"](saved_version, version, type_name, shape, None, grad_fn)


def saved_full_node_name(saved_version, version, type_name, shape, saved_by, grad_fn):
    """Prints the node's name as it is (ExpBackward0, not Exp)."""
    message = RIGHT["saved_tensor_error"](saved_version, version, type_name, shape, saved_by,
                                          grad_fn)
    node = saved_by or grad_fn
    if message is None or node is None:
        return message
    short = node.removesuffix("Backward0")
    return message.replace(f"output 0 of {short},", f"output 0 of {node},")


def saved_versions_swapped(saved_version, version, type_name, shape, saved_by, grad_fn):
    """Says the tensor is at the version it was saved at, and expected the new one."""
    return RIGHT["saved_tensor_error"](version, saved_version, type_name, shape, saved_by,
                                       grad_fn)


WRONG = [  # (exercise, answer, whether it still passes the visible test: never)
    ("backward_pass", pass_without_waiting, False),
    ("backward_pass", pass_first_in_first_out, False),
    ("backward_pass", pass_oldest_first, False),
    ("backward_pass", pass_ties_by_arrival, False),
    ("backward_pass", pass_overwriting, False),
    ("backward_pass", pass_skipping_none, False),
    ("backward_pass", pass_ignoring_pre_hooks, False),
    ("backward_pass", pass_ignoring_post_hooks, False),
    ("backward_pass", pass_never_freeing, False),
    ("backward_pass", pass_freeing_before_apply, False),
    ("backward_pass", pass_none_as_zero, False),
    ("binary_backward", backward_summed_down, False),
    ("binary_backward", backward_mul_swapped, False),
    ("binary_backward", backward_div_in_one_step, False),
    ("binary_backward", backward_div_without_minus, False),
    ("collect_next_edges", edges_whatever_the_mode, False),
    ("collect_next_edges", edges_even_without_grad, False),
    ("collect_next_edges", edges_slot_zero, False),
    ("collect_next_edges", edges_tensors_only, False),
    ("collect_next_edges", edges_leaf_by_requires_grad, False),
    ("accumulate_grad", accumulate_overwriting, False),
    ("accumulate_grad", accumulate_out_of_place, False),
    ("accumulate_grad", accumulate_always_contiguous, False),
    ("accumulate_grad", accumulate_always_like_the_leaf, False),
    ("accumulate_grad", accumulate_size_one_dims_count, False),
    ("set_history", history_every_output, False),
    ("set_history", history_real_floats_only, False),
    ("set_history", history_saving_everything, False),
    ("set_history", history_saving_own_input, False),
    ("set_history", history_every_output_saved_as_output, False),
    ("set_history", history_version_zero, False),
    ("clamp_backward", clamp_exclusive, False),
    ("clamp_backward", clamp_naive_bounds, False),
    ("clamp_backward", clamp_summed, False),
    ("reduction_backward", reduction_keepdim_ignored, False),
    ("reduction_backward", reduction_mean_by_numel, False),
    ("reduction_backward", reduction_empty_dims_reduce_none, False),
    ("reduction_backward", reduction_negative_dims_unwrapped, False),
    ("reduction_backward", reduction_sum_divided, False),
    ("unary_backward", unary_tanh_rounded_twice, False),
    ("unary_backward", unary_sigmoid_reordered, False),
    ("unary_backward", unary_reciprocal_left_to_right, False),
    ("unary_backward", unary_rsqrt_by_power, False),
    ("unary_backward", unary_log2_divided_twice, False),
    ("unary_backward", unary_log_by_python, False),
    ("unary_backward", unary_log_unsigned_inf, False),
    ("unary_backward", unary_asin_by_math_sqrt, False),
    ("unary_backward", unary_relu_passing_at_zero, False),
    ("unary_backward", unary_abs_by_copysign, False),
    ("call_hooks", hooks_none_skipped, False),
    ("call_hooks", hooks_retain_first, False),
    ("call_hooks", hooks_pre_first, False),
    ("call_hooks", hooks_read_at_start, False),
    ("call_hooks", hooks_live_dicts, False),
    ("call_hooks", hooks_uncounted, False),
    ("call_hooks", hooks_by_dunder_name, False),
    ("call_hooks", hooks_none_clears, False),
    ("call_hooks", hooks_post_swapped, False),
    ("call_hooks", hooks_post_unchained, False),
    ("call_hooks", hooks_none_replaced, False),
    ("call_hooks", hooks_lists, False),
    ("call_hooks", hooks_tensor_unchained, False),
    ("call_hooks", hooks_unchecked, False),
    ("call_hooks", hooks_post_counted_by_grads, False),
    ("call_hooks", hooks_got_expected_swapped, False),
    ("unary_backward", unary_pow_by_python_power, False),
    ("unary_backward", unary_pow_cubed_once, False),
    ("unary_backward", unary_pow_grad_first, False),
    ("unary_backward", unary_pow_zero_by_formula, False),
    ("unary_backward", unary_pow_rsqrt_plus_inf, False),
    ("unary_backward", unary_logit_everywhere, False),
    ("unary_backward", unary_logit_divided_twice, False),
    ("unary_backward", unary_nan_to_num_inf_passes, False),
    ("unary_backward", unary_acosh_complex_form, False),
    ("unary_backward", unary_asinh_divided, False),
    ("unary_backward", unary_atanh_factored, False),
    ("validate_outputs", validate_from_front, False),
    ("validate_outputs", validate_fewer_dims, False),
    ("validate_outputs", validate_both_ways, False),
    ("validate_outputs", validate_device_first, False),
    ("validate_outputs", validate_move_all, False),
    ("validate_outputs", validate_refuse_all, False),
    ("validate_outputs", validate_cast_skipped, False),
    ("validate_outputs", validate_tuples, False),
    ("validate_outputs", validate_devices_swapped, False),
    ("validate_outputs", validate_no_index, False),
    ("validate_outputs", validate_unsummed, False),
    ("validate_outputs", validate_none_when_matching, False),
    ("validate_outputs", validate_by_sum_to_size, False),
    ("saved_tensor_error", saved_current_grad_fn, False),
    ("saved_tensor_error", saved_full_node_name, False),
    ("saved_tensor_error", saved_versions_swapped, False),
]


# ---------------------------------------------------------------- the checks

@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_visible_and_hidden_on_a_fresh_seed(name, capsys):
    checks.check(name, RIGHT[name])
    assert_solution_passes(name, RIGHT[name], capsys.readouterr().out, FRESH_SEED, 50)


@pytest.mark.parametrize("name,answer,passes_visible", WRONG,
                         ids=[f"{w[0]}-{w[1].__name__}" for w in WRONG])
def test_typical_mistakes_fail_hidden(name, answer, passes_visible):
    assert_mistake_fails(name, answer, passes_visible)


REFUSALS = {"backward_pass": [], "binary_backward": [], "collect_next_edges": [],
            "accumulate_grad": [], "set_history": [], "clamp_backward": [],
            "saved_tensor_error": [], "reduction_backward": [], "unary_backward": [],
            "call_hooks": [], "validate_outputs": []}


def test_hidden_cases_are_deterministic_and_reach_the_refusals():
    for name in NAMES:
        pairs = hidden_pairs(name)
        cases = [case for case, _ in pairs]
        assert cases == checks.cases(name, hidden=True) and len(cases) >= 50
        assert set(exercises.get(name).fixed) <= set(cases)
        kinds = [f"raises {e.exception}" if isinstance(e, references.Raises)
                 else type(e).__name__ for _, e in pairs]
        for refusal in REFUSALS[name]:
            assert kinds.count(refusal) >= 3, (name, refusal)
        assert sum(k not in REFUSALS[name] for k in kinds) >= len(kinds) // 2, name


def test_hidden_cases_cover_both_answers_of_the_yes_no_parts():
    messages = [e for _, e in hidden_pairs("saved_tensor_error")]
    assert messages.count(None) >= 10 and len(messages) - messages.count(None) >= 50
    edges = [e for _, e in hidden_pairs("collect_next_edges")]
    assert edges.count(None) >= 15 and len(edges) - edges.count(None) >= 50
    kinds = {edge[0] is None for e in edges if e is not None for edge in e}
    assert kinds == {True, False}
    histories = [e for _, e in hidden_pairs("set_history")]
    assert sum(None in h for h, _ in histories) >= 10 and sum(not s for _, s in histories) >= 10
    assert sum(len(s) >= 1 for _, s in histories) >= 30


def test_backward_pass_reference_is_torchs_recorded_trace():
    """The reference is torch's own engine, read from pre-hooks, not a model of it: the
    diamond's order is the one the priority rule decides (not creation order reversed), and
    what t1 and a receive are sums over two paths."""
    ex = exercises.get("backward_pass")
    (ran, grads, freed, error), = references.compute(ex, [ex.fixed[2]])[0]
    assert [name for name, _ in ran] == ["t5", "t4", "t3", "c", "t2", "t1", "a", "b"]
    assert dict(ran)["t1"] == [0.5 * 3.0 + 0.1 * 0.3] and error is None
    assert freed == ["t1", "t2", "t3", "t4", "t5"] and dict(grads)["d"] is None


def test_the_reference_piece_gets_full_marks():
    """reftensor's own engine loop is a right answer on every hidden case (the default
    seed's and a fresh one's)."""
    from reftensor.autograd.engine import backward_pass

    assert checks.judge("backward_pass", backward_pass, hidden_pairs("backward_pass")).passed
    checks.check("backward_pass", backward_pass, hidden=True, seed=FRESH_SEED)


BACKWARD_PROGRAM = """
import json

import reftensor
from reftensor import pieces
from tests.notebooks import register_every_answer
from tests.test_ch05_exercises import pass_overwriting

assert reftensor.__file__.startswith({edition!r}), reftensor.__file__
register_every_answer()


def grads(lib):
    a = lib.tensor(3.0, requires_grad=True)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    p, q = x.unbind()
    (a * a + a * p * 0.5).exp().backward()
    return a.grad.item(), x.grad.tolist()


answer = pieces.answer("backward_pass")
roots = []


def backward_pass(root, grads_, keep_graph, calls):
    roots.append(type(root).__name__)
    return answer(root, grads_, keep_graph, calls)


with pieces.trace() as used:
    right = grads(reftensor)
pieces.register(backward_pass)
spied = grads(reftensor)
pass_overwriting.__name__ = "backward_pass"
pieces.register(pass_overwriting)
wrong = grads(reftensor)
print(json.dumps([right, "backward_pass" in used, spied, roots, wrong]))
"""


def test_the_student_editions_backward_runs_the_students_backward_pass(tmp_path):
    """In the student edition every backward() runs the registered backward_pass: with the
    instructor's answer it gives torch's gradients, a spy sees the call, and an answer that
    overwrites instead of adding changes them."""
    import json
    import os
    import subprocess
    import sys

    import torch

    from autograder.course import edition
    from tests.notebooks import REPO

    edition.write_student_edition(tmp_path)
    code = BACKWARD_PROGRAM.format(edition=str(tmp_path / "reftensor"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(tmp_path), str(REPO)))}
    done = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    right, used, spied, roots, wrong = json.loads(done.stdout.strip().splitlines()[-1])
    a = torch.tensor(3.0, requires_grad=True)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    p, _ = x.unbind()
    (a * a + a * p * 0.5).exp().backward()
    assert right == spied == [a.grad.item(), x.grad.tolist()]
    assert used and roots == ["ExpBackward0"]
    assert wrong != right


# ---------------------------------------------------------------- recording an op
def test_reftensor_records_the_exercises_programs_as_torch_does():
    """Every hidden program of exercises 1 and 2, run on reftensor (which records every op
    with the pieces' bodies), gives torch's edges, outputs and saved tensors; and the
    library hands set_history exactly the case's arguments."""
    import reftensor
    from autograder.course.exercises.ch05_autograd import edges_run, history_run
    from reftensor.autograd import graph

    for case, truth in hidden_pairs("collect_next_edges"):
        got = edges_run(reftensor, case.ctx("op"), case.ctx("refs"), case.ctx("mode"))
        assert got == truth, case
    calls, real = [], graph.set_history
    graph.set_history = lambda *args: (calls.append(args), real(*args))[1]
    try:
        for case, truth in hidden_pairs("set_history"):
            if "complex64" in case.args[0]:  # reftensor has no complex dtype
                continue
            calls.clear()
            got = history_run(reftensor, case.ctx("op"), case.ctx("x"), case.ctx("y"),
                              [name for name, _, _ in case.args[3]])
            assert got == truth, case
            assert calls[-1] == case.args, (calls[-1], case.args)
    finally:
        graph.set_history = real


def _graph_facts(tensors, leaves):
    """What recording decided, as plain data: per tensor its requires_grad, is_leaf,
    output_nr, node, the node's edges, and the leaves' grads after a backward through every
    float result (an error: its type)."""
    nodes: dict[int, int] = {}

    def node_id(node):
        return None if node is None else nodes.setdefault(id(node), len(nodes))

    facts = []
    keep = []  # nodes stay alive while their ids are in use
    for t in tensors:
        fn = t.grad_fn
        keep.append(fn)
        entry = [t.requires_grad, t.is_leaf, t.output_nr, node_id(fn)]
        if fn is not None:
            entry.append(type(fn).__name__)
            entry.append([(node_id(n), nr, None if n is None else n.name())
                          for n, nr in fn.next_functions])
        facts.append(entry)
    roots = [t for t in tensors if t.grad_fn is not None]
    grads = []
    if roots:
        loss = sum(r.float().sum() for r in roots)
        try:
            loss.backward()
            grads = [None if leaf.grad is None else leaf.grad.tolist() for leaf in leaves]
        except RuntimeError:
            grads = ["RuntimeError"]
    del keep
    return facts, grads


STEPS = ("mul", "mul_number", "div", "add", "exp", "sin", "max", "unbind", "long", "view",
         "detach", "no_grad_mul", "exp_", "mul_", "same")


def _run_steps(lib, steps, flags):
    a = lib.tensor([1.5, -0.5], requires_grad=flags[0])
    b = lib.tensor([0.25, 2.0], dtype=lib.float64, requires_grad=flags[1])
    c = lib.tensor([3.0, 1.0])
    pool = [a, b, c]
    for kind, i, j in steps:
        x, y = pool[i % len(pool)], pool[j % len(pool)]
        if kind == "mul":
            out = [x * y]
        elif kind == "mul_number":
            out = [x * 2.5]
        elif kind == "div":
            out = [x / (y * y + 1)]
        elif kind == "add":
            out = [x + y]
        elif kind == "exp":
            out = [x.exp()]
        elif kind == "sin":
            out = [x.sin()]
        elif kind == "max":
            out = list(x.max(0))
        elif kind == "unbind":
            out = list(x.unbind())
        elif kind == "long":
            out = [x.long()]
        elif kind == "view":
            out = [x.view(2) if x.dim() else x.view(())]
        elif kind == "detach":
            out = [x.detach()]
        elif kind == "no_grad_mul":
            with lib.no_grad():
                out = [x * y]
        elif kind == "same":
            out = [x * x]
        else:  # in place, on a fresh result (a leaf that requires grad would refuse)
            t = x * 1.0
            getattr(t, kind)(*(() if kind == "exp_" else (y.detach().float(),)))
            out = [t]
        pool += [t for t in out if t.is_floating_point() or t.dtype == lib.int64]
    return pool, [a, b]


@settings(max_examples=examples(60), deadline=None)
@given(steps=hypothesis_st.lists(hypothesis_st.tuples(
           hypothesis_st.sampled_from(STEPS), hypothesis_st.integers(0, 12),
           hypothesis_st.integers(0, 12)), min_size=1, max_size=6),
       flags=hypothesis_st.tuples(hypothesis_st.booleans(), hypothesis_st.booleans()))
def test_reftensor_records_generated_programs_as_torch_does(steps, flags):
    """Generated programs, recorded by reftensor through collect_next_edges and set_history,
    give torch's graphs (requires_grad, is_leaf, output_nr, nodes and their edges) and
    torch's gradients."""
    import torch

    import reftensor

    results = []
    for lib in (torch, reftensor):
        try:
            pool, leaves = _run_steps(lib, steps, flags)
            results.append(_graph_facts(pool, leaves))
        except (RuntimeError, IndexError) as err:  # a 0-d unbind, a refused in-place
            results.append(("raised", type(err).__name__))
    (want, want_grads), (got, got_grads) = results
    assert got == want
    if want == "raised" or want_grads in ([], ["RuntimeError"]):
        assert got_grads == want_grads
        return
    assert [g is None for g in got_grads] == [g is None for g in want_grads]
    for g, w in zip(got_grads, want_grads, strict=True):
        if w is not None:  # float32 exp and sin may differ from torch's in the last bit
            np.testing.assert_allclose(g, w, rtol=1e-6)


RECORDED = """
def program(lib):
    x = lib.tensor([1.5, -0.5, 2.0], requires_grad=True)
    w = lib.tensor([2.0, 3.0, 0.5])
    p, q, r = (x * 2).unbind()
    values, indices = x.max(0)
    h = x * 1.0
    z = h * w
    h.add_(1)  # h was not saved (w needs no gradient): z's backward runs
    try:
        z.sum().backward()
        z_error = None
    except RuntimeError as err:
        z_error = str(err)[:40]
    y = p * 3 + q * 5 + values
    y.backward()
    return (x.grad.tolist(), indices.requires_grad, z_error,
            [nr for _, nr in y.grad_fn.next_functions[0][0].next_functions])
"""

RECORD_PROGRAM = """
import json

import reftensor
from reftensor import pieces
from tests.notebooks import register_every_answer
from tests.test_ch05_exercises import RECORDED, edges_slot_zero, history_every_output

assert reftensor.__file__.startswith({edition!r}), reftensor.__file__
register_every_answer()
exec(RECORDED)
with pieces.trace() as used:
    right = program(reftensor)
edges_slot_zero.__name__ = "collect_next_edges"
pieces.register(edges_slot_zero)
wrong_edges = program(reftensor)
register_every_answer()
history_every_output.__name__ = "set_history"
pieces.register(history_every_output)
wrong_history = program(reftensor)
print(json.dumps([right, sorted(used), wrong_edges, wrong_history]))
"""


def test_the_student_edition_records_every_op_with_the_students_pieces(tmp_path):
    """In the student edition every recorded op runs the registered collect_next_edges and
    set_history: with the instructor's answers the graph is torch's, and a wrong answer
    changes what reftensor computes (every edge at slot 0: unbind's gradients reach the
    wrong element; recording the node on every output: max's integer indices require
    grad)."""
    import json
    import os
    import subprocess
    import sys

    import torch

    from autograder.course import edition
    from tests.notebooks import REPO

    edition.write_student_edition(tmp_path)
    code = RECORD_PROGRAM.format(edition=str(tmp_path / "reftensor"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(tmp_path), str(REPO)))}
    done = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    right, used, wrong_edges, wrong_history = json.loads(done.stdout.strip().splitlines()[-1])
    namespace: dict[str, object] = {}
    exec(RECORDED, namespace)  # noqa: S102 - the program above, on torch
    truth = json.loads(json.dumps(namespace["program"](torch)))  # type: ignore[operator]
    assert right == truth
    assert {"collect_next_edges", "set_history"} <= set(used)
    assert wrong_edges[0] != right[0] and wrong_edges[3] == [0, 0]
    assert right[1] is False and wrong_history[1] is True


UNANSWERED_PROGRAM = """
import json

import reftensor
from reftensor import pieces
from tests.notebooks import answer_sources

assert reftensor.__file__.startswith({edition!r}), reftensor.__file__
for chapter in ("ch01_storage", "ch02_views", "ch03_broadcasting", "ch04_dtype_device"):
    namespace = {{"pieces": pieces}}
    for name, text in answer_sources(chapter).items():
        if name in pieces.PIECES:
            exec(text, namespace)
a = reftensor.tensor([1.0, 2.0], requires_grad=True)


def attempt():
    try:
        return "recorded" if (a * 2).grad_fn is not None else "no node"
    except NotImplementedError as err:
        return str(err).split(" (")[0]


said = [attempt()]
ch05, namespace = answer_sources("ch05_autograd"), {{"pieces": pieces}}
exec(ch05["collect_next_edges"], namespace)
said.append(attempt())
with reftensor.no_grad():
    said.append(attempt())
exec(ch05["set_history"], namespace)
said.append(attempt())
print(json.dumps(said))
"""


def test_the_student_edition_records_nothing_until_the_recording_exercises_are_answered(
        tmp_path):
    """Recording is chapter 5's first two exercises, and no library code stands in for them:
    an op on a tensor that requires grad raises NotImplementedError naming exercise 1 until
    collect_next_edges is answered, then exercise 2 until set_history is (under no_grad,
    exercise 1 alone answers: no node); then it records."""
    import json
    import os
    import subprocess
    import sys

    from autograder.course import edition
    from tests.notebooks import REPO

    edition.write_student_edition(tmp_path)
    code = UNANSWERED_PROGRAM.format(edition=str(tmp_path / "reftensor"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(tmp_path), str(REPO))),
           "REFTENSOR_NOTEBOOKS": str(tmp_path / "no notebooks")}
    done = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [
        "collect_next_edges is a piece you write: exercise 1 of chapter 5",
        "set_history is a piece you write: exercise 2 of chapter 5",
        "no node",
        "recorded"]


# ---------------------------------------------------------------- the grading pipeline
@pytest.mark.grading
@pytest.mark.slow
@pytest.mark.skipif(not sandbox.status().available,
                    reason=f"no sandbox: {sandbox.status().reason}")
def test_grading_gives_the_solutions_full_points_and_a_mistake_loses_them(tmp_path):
    """The trusted pipeline on a fresh seed: the solution gets every automatic point; one
    typical mistake in an exercise no other answer calls loses that exercise only."""
    assert_grading_full_points_and_one_loss(tmp_path, CHAPTER, "set_history",
                                            history_saving_everything, 44)
