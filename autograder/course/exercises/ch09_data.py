"""The cases chapter 9's exercises store, as torch 2.13 gave them: written by
``ch09_dispatch.write_data()`` (do not edit; tests/test_ch09_exercises.py compares them with what
torch gives now).

* ``MODE_SCHEMAS``: each op's schema arguments, ``(name, kwarg_only, has_default, default,
  is_list)`` (``mode_table()``);
* ``MODE_CALLS``: ``(program, call, op, values)`` of each call of ``MODE_PROGRAMS``
  (``mode_table()``);
* ``LOG_CALLS``: each snippet's logged calls, ``(name, args, kwargs, out)`` (``log_table()``).
"""

from __future__ import annotations

MODE_SCHEMAS: dict[str, tuple] = {
    'aten._log_softmax.default': (
        ('self', False, False, None, False), ('dim', False, False, None, False),
        ('half_to_float', False, False, None, False),
    ),
    'aten._softmax.default': (
        ('self', False, False, None, False), ('dim', False, False, None, False),
        ('half_to_float', False, False, None, False),
    ),
    'aten._to_copy.default': (
        ('self', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False), ('non_blocking', True, True, False, False),
        ('memory_format', True, True, None, False),
    ),
    'aten.add.Tensor': (
        ('self', False, False, None, False), ('other', False, False, None, False),
        ('alpha', True, True, 1, False),
    ),
    'aten.addmm.default': (
        ('self', False, False, None, False), ('mat1', False, False, None, False),
        ('mat2', False, False, None, False), ('beta', True, True, 1, False),
        ('alpha', True, True, 1, False),
    ),
    'aten.amax.default': (
        ('self', False, False, None, False), ('dim', False, True, ('tuple',), True),
        ('keepdim', False, True, False, False),
    ),
    'aten.arange.default': (
        ('end', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False),
    ),
    'aten.arange.start': (
        ('start', False, False, None, False), ('end', False, False, None, False),
        ('dtype', True, True, None, False), ('layout', True, True, None, False),
        ('device', True, True, None, False), ('pin_memory', True, True, None, False),
    ),
    'aten.arange.start_step': (
        ('start', False, False, None, False), ('end', False, False, None, False),
        ('step', False, True, 1, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False),
    ),
    'aten.argmax.default': (
        ('self', False, False, None, False), ('dim', False, True, None, False),
        ('keepdim', False, True, False, False),
    ),
    'aten.cat.default': (('tensors', False, False, None, True), ('dim', False, True, 0, False)),
    'aten.clamp.default': (
        ('self', False, False, None, False), ('min', False, True, None, False),
        ('max', False, True, None, False),
    ),
    'aten.clone.default': (
        ('self', False, False, None, False), ('memory_format', True, True, None, False),
    ),
    'aten.constant_pad_nd.default': (
        ('self', False, False, None, False), ('pad', False, False, None, True),
        ('value', False, True, 0, False),
    ),
    'aten.cumsum.default': (
        ('self', False, False, None, False), ('dim', False, False, None, False),
        ('dtype', True, True, None, False),
    ),
    'aten.div.Tensor_mode': (
        ('self', False, False, None, False), ('other', False, False, None, False),
        ('rounding_mode', True, False, None, False),
    ),
    'aten.empty.memory_format': (
        ('size', False, False, None, True), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False), ('memory_format', True, True, None, False),
    ),
    'aten.empty_like.default': (
        ('self', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False), ('memory_format', True, True, None, False),
    ),
    'aten.expand.default': (
        ('self', False, False, None, False), ('size', False, False, None, True),
        ('implicit', True, True, False, False),
    ),
    'aten.full.default': (
        ('size', False, False, None, True), ('fill_value', False, False, None, False),
        ('dtype', True, True, None, False), ('layout', True, True, None, False),
        ('device', True, True, None, False), ('pin_memory', True, True, None, False),
    ),
    'aten.full_like.default': (
        ('self', False, False, None, False), ('fill_value', False, False, None, False),
        ('dtype', True, True, None, False), ('layout', True, True, None, False),
        ('device', True, True, None, False), ('pin_memory', True, True, None, False),
        ('memory_format', True, True, None, False),
    ),
    'aten.gelu.default': (
        ('self', False, False, None, False), ('approximate', True, True, 'none', False),
    ),
    'aten.gt.Scalar': (('self', False, False, None, False), ('other', False, False, None, False)),
    'aten.index.Tensor': (
        ('self', False, False, None, False), ('indices', False, False, None, True),
    ),
    'aten.masked_fill.Scalar': (
        ('self', False, False, None, False), ('mask', False, False, None, False),
        ('value', False, False, None, False),
    ),
    'aten.max.dim': (
        ('self', False, False, None, False), ('dim', False, False, None, False),
        ('keepdim', False, True, False, False),
    ),
    'aten.max_pool2d_with_indices.default': (
        ('self', False, False, None, False), ('kernel_size', False, False, None, True),
        ('stride', False, True, ('tuple',), True), ('padding', False, True, ('tuple', 0, 0), True),
        ('dilation', False, True, ('tuple', 1, 1), True), ('ceil_mode', False, True, False, False),
    ),
    'aten.mean.dim': (
        ('self', False, False, None, False), ('dim', False, False, None, True),
        ('keepdim', False, True, False, False), ('dtype', True, True, None, False),
    ),
    'aten.native_layer_norm.default': (
        ('input', False, False, None, False), ('normalized_shape', False, False, None, True),
        ('weight', False, False, None, False), ('bias', False, False, None, False),
        ('eps', False, False, None, False),
    ),
    'aten.new_ones.default': (
        ('self', False, False, None, False), ('size', False, False, None, True),
        ('dtype', True, True, None, False), ('layout', True, True, None, False),
        ('device', True, True, None, False), ('pin_memory', True, True, None, False),
    ),
    'aten.new_zeros.default': (
        ('self', False, False, None, False), ('size', False, False, None, True),
        ('dtype', True, True, None, False), ('layout', True, True, None, False),
        ('device', True, True, None, False), ('pin_memory', True, True, None, False),
    ),
    'aten.nll_loss_forward.default': (
        ('self', False, False, None, False), ('target', False, False, None, False),
        ('weight', False, False, None, False), ('reduction', False, False, None, False),
        ('ignore_index', False, False, None, False),
    ),
    'aten.ones.default': (
        ('size', False, False, None, True), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False),
    ),
    'aten.ones_like.default': (
        ('self', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False), ('memory_format', True, True, None, False),
    ),
    'aten.permute.default': (
        ('self', False, False, None, False), ('dims', False, False, None, True),
    ),
    'aten.roll.default': (
        ('self', False, False, None, False), ('shifts', False, False, None, True),
        ('dims', False, True, ('tuple',), True),
    ),
    'aten.scalar_tensor.default': (
        ('s', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False),
    ),
    'aten.slice.Tensor': (
        ('self', False, False, None, False), ('dim', False, True, 0, False),
        ('start', False, True, None, False), ('end', False, True, None, False),
        ('step', False, True, 1, False),
    ),
    'aten.sort.default': (
        ('self', False, False, None, False), ('dim', False, True, -1, False),
        ('descending', False, True, False, False),
    ),
    'aten.split.Tensor': (
        ('self', False, False, None, False), ('split_size', False, False, None, False),
        ('dim', False, True, 0, False),
    ),
    'aten.split_with_sizes.default': (
        ('self', False, False, None, False), ('split_sizes', False, False, None, True),
        ('dim', False, True, 0, False),
    ),
    'aten.squeeze.default': (('self', False, False, None, False),),
    'aten.stack.default': (('tensors', False, False, None, True), ('dim', False, True, 0, False)),
    'aten.std.correction': (
        ('self', False, False, None, False), ('dim', False, True, None, True),
        ('correction', True, True, None, False), ('keepdim', True, True, False, False),
    ),
    'aten.sub.Tensor': (
        ('self', False, False, None, False), ('other', False, False, None, False),
        ('alpha', True, True, 1, False),
    ),
    'aten.sum.default': (('self', False, False, None, False), ('dtype', True, True, None, False)),
    'aten.sum.dim_IntList': (
        ('self', False, False, None, False), ('dim', False, False, None, True),
        ('keepdim', False, True, False, False), ('dtype', True, True, None, False),
    ),
    'aten.t.default': (('self', False, False, None, False),),
    'aten.topk.default': (
        ('self', False, False, None, False), ('k', False, False, None, False),
        ('dim', False, True, -1, False), ('largest', False, True, True, False),
        ('sorted', False, True, True, False),
    ),
    'aten.transpose.int': (
        ('self', False, False, None, False), ('dim0', False, False, None, False),
        ('dim1', False, False, None, False),
    ),
    'aten.unsqueeze.default': (
        ('self', False, False, None, False), ('dim', False, False, None, False),
    ),
    'aten.var.correction': (
        ('self', False, False, None, False), ('dim', False, True, None, True),
        ('correction', True, True, None, False), ('keepdim', True, True, False, False),
    ),
    'aten.view.default': (('self', False, False, None, False), ('size', False, False, None, True)),
    'aten.where.self': (
        ('condition', False, False, None, False), ('self', False, False, None, False),
        ('other', False, False, None, False),
    ),
    'aten.zeros.default': (
        ('size', False, False, None, True), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False),
    ),
    'aten.zeros_like.default': (
        ('self', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False), ('memory_format', True, True, None, False),
    ),
}
MODE_CALLS: tuple = (
    ('x.add(y, alpha=1)', 0, 'aten.add.Tensor', ('Tensor0', 'Tensor1', 1)),
    ('x.add(y, alpha=1.0)', 0, 'aten.add.Tensor', ('Tensor0', 'Tensor1', 1.0)),
    ('b.add(b, alpha=True)', 0, 'aten.add.Tensor', ('Tensor0', 'Tensor0', True)),
    ('x.add(y, alpha=2)', 0, 'aten.add.Tensor', ('Tensor0', 'Tensor1', 2)),
    ('x.add(2)', 0, 'aten.add.Tensor', ('Tensor0', 2, 1)),
    ('x.sub(y, alpha=0.5)', 0, 'aten.sub.Tensor', ('Tensor0', 'Tensor1', 0.5)),
    ('x.sum(1)', 0, 'aten.sum.dim_IntList', ('Tensor0', ('list', 1), False, None)),
    (
        'x.sum(dim=1, keepdim=False)', 0, 'aten.sum.dim_IntList',
        ('Tensor0', ('list', 1), False, None),
    ),
    ('x.sum(1, keepdim=True)', 0, 'aten.sum.dim_IntList', ('Tensor0', ('list', 1), True, None)),
    ('x.sum(1, dtype=None)', 0, 'aten.sum.dim_IntList', ('Tensor0', ('list', 1), False, None)),
    (
        'x.sum(1, dtype=torch.float64)', 0, 'aten.sum.dim_IntList',
        ('Tensor0', ('list', 1), False, ('dtype', 'float64')),
    ),
    ('x.sum((0, 1))', 0, 'aten.sum.dim_IntList', ('Tensor0', ('list', 0, 1), False, None)),
    ('x.sum()', 0, 'aten.sum.default', ('Tensor0', None)),
    ('x.sum([], keepdim=True)', 0, 'aten.sum.dim_IntList', ('Tensor0', ('list',), True, None)),
    (
        'n.sum(0, dtype=torch.int64)', 0, 'aten.sum.dim_IntList',
        ('Tensor0', ('list', 0), False, ('dtype', 'int64')),
    ),
    (
        'x.sum(1, True, dtype=torch.float32)', 0, 'aten.sum.dim_IntList',
        ('Tensor0', ('list', 1), True, ('dtype', 'float32')),
    ),
    ('x.std(1)', 0, 'aten.std.correction', ('Tensor0', ('list', 1), 1, False)),
    ('x.std(1, unbiased=False)', 0, 'aten.std.correction', ('Tensor0', ('list', 1), 0, False)),
    ('x.var(1, correction=0)', 0, 'aten.var.correction', ('Tensor0', ('list', 1), 0, False)),
    ('x.var(correction=1)', 0, 'aten.var.correction', ('Tensor0', None, 1, False)),
    ('x.std(1, keepdim=True)', 0, 'aten.std.correction', ('Tensor0', ('list', 1), 1, True)),
    (
        'x.var(1, correction=1, keepdim=False)', 0, 'aten.var.correction',
        ('Tensor0', ('list', 1), 1, False),
    ),
    ('x.var(None, correction=2.0)', 0, 'aten.var.correction', ('Tensor0', None, 2.0, False)),
    ('x.clamp(min=0)', 0, 'aten.clamp.default', ('Tensor0', 0, None)),
    ('x.clamp(max=1.0)', 0, 'aten.clamp.default', ('Tensor0', None, 1.0)),
    ('x.clamp(0, 1)', 0, 'aten.clamp.default', ('Tensor0', 0, 1)),
    ('x.clamp(None, 1)', 0, 'aten.clamp.default', ('Tensor0', None, 1)),
    ('x.clamp(-1.5, None)', 0, 'aten.clamp.default', ('Tensor0', -1.5, None)),
    (
        'F.max_pool2d(img, 2)', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 2), ('list',), ('list', 0, 0), ('list', 1, 1), False),
    ),
    (
        'F.max_pool2d(img, 2, padding=0)', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 2), ('list',), ('list', 0, 0), ('list', 1, 1), False),
    ),
    (
        'F.max_pool2d(img, 2, padding=[0, 0])', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 2), ('list',), ('list', 0, 0), ('list', 1, 1), False),
    ),
    (
        'F.max_pool2d(img, 3, 1, padding=(1, 1))', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 3, 3), ('list', 1, 1), ('list', 1, 1), ('list', 1, 1), False),
    ),
    (
        'F.max_pool2d(img, 2, dilation=1)', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 2), ('list',), ('list', 0, 0), ('list', 1, 1), False),
    ),
    (
        'F.max_pool2d(img, 2, 2, 0, 1, ceil_mode=True)', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 2), ('list', 2, 2), ('list', 0, 0), ('list', 1, 1), True),
    ),
    (
        'F.max_pool2d(img, (2, 1), dilation=2)', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 1), ('list',), ('list', 0, 0), ('list', 2, 2), False),
    ),
    (
        'torch.ones(2, 3)', 0, 'aten.ones.default',
        (('list', 2, 3), None, None, ('device', 'cpu'), False),
    ),
    (
        'torch.ones(2, dtype=torch.float64)', 0, 'aten.ones.default',
        (('list', 2), ('dtype', 'float64'), None, ('device', 'cpu'), False),
    ),
    (
        "torch.zeros((2,), device='meta')", 0, 'aten.zeros.default',
        (('list', 2), None, None, ('device', 'meta'), False),
    ),
    (
        'torch.zeros(2, pin_memory=False)', 0, 'aten.zeros.default',
        (('list', 2), None, None, ('device', 'cpu'), False),
    ),
    (
        'torch.full((2,), 1.5)', 0, 'aten.full.default',
        (('list', 2), 1.5, None, None, ('device', 'cpu'), False),
    ),
    (
        'torch.full([2], 7, dtype=torch.int64)', 0, 'aten.full.default',
        (('list', 2), 7, ('dtype', 'int64'), None, ('device', 'cpu'), False),
    ),
    (
        'torch.full((), True)', 0, 'aten.full.default',
        (('list',), True, None, None, ('device', 'cpu'), False),
    ),
    (
        'torch.ones(2, layout=torch.strided)', 0, 'aten.ones.default',
        (('list', 2), None, ('layout', 'strided'), ('device', 'cpu'), False),
    ),
    (
        'torch.empty(2, 2)', 0, 'aten.empty.memory_format',
        (('list', 2, 2), None, None, ('device', 'cpu'), False, None),
    ),
    ('x[None, i]', 0, 'aten.unsqueeze.default', ('Tensor0', 0)),
    ('x[None, i]', 1, 'aten.index.Tensor', ('Tensor0', ('list', None, 'Tensor1'))),
    ('x[i]', 0, 'aten.index.Tensor', ('Tensor0', ('list', 'Tensor1'))),
    ('x[:, i]', 0, 'aten.index.Tensor', ('Tensor0', ('list', None, 'Tensor1'))),
    ('torch.cat([x, y])', 0, 'aten.cat.default', (('list', 'Tensor0', 'Tensor1'), 0)),
    ('torch.cat((x, y), 1)', 0, 'aten.cat.default', (('list', 'Tensor0', 'Tensor1'), 1)),
    ('torch.cat([x, y], dim=0)', 0, 'aten.cat.default', (('list', 'Tensor0', 'Tensor1'), 0)),
    ('torch.stack([x, y])', 0, 'aten.stack.default', (('list', 'Tensor0', 'Tensor1'), 0)),
    ('x.mean(1)', 0, 'aten.mean.dim', ('Tensor0', ('list', 1), False, None)),
    ('x.mean((0, 1), keepdim=True)', 0, 'aten.mean.dim', ('Tensor0', ('list', 0, 1), True, None)),
    (
        'x.mean(-1, dtype=torch.float64)', 0, 'aten.mean.dim',
        ('Tensor0', ('list', -1), False, ('dtype', 'float64')),
    ),
    (
        'x.to(torch.float64)', 0, 'aten._to_copy.default',
        ('Tensor0', ('dtype', 'float64'), None, None, None, False, None),
    ),
    (
        "x.to('meta')", 0, 'aten._to_copy.default',
        (
            'Tensor0', ('dtype', 'float32'), ('layout', 'strided'), ('device', 'meta'), None, False,
            None,
        ),
    ),
    (
        'x.to(torch.float64, copy=True)', 0, 'aten._to_copy.default',
        ('Tensor0', ('dtype', 'float64'), None, None, None, False, None),
    ),
    (
        "x.to(device='meta', dtype=torch.float16)", 0, 'aten._to_copy.default',
        ('Tensor0', ('dtype', 'float16'), None, ('device', 'meta'), None, False, None),
    ),
    ('x.view(3, 2)', 0, 'aten.view.default', ('Tensor0', ('list', 3, 2))),
    ('x.view((6,))', 0, 'aten.view.default', ('Tensor0', ('list', 6))),
    ('x.reshape(6)', 0, 'aten.view.default', ('Tensor0', ('list', 6))),
    ('x.expand(2, 2, 3)', 0, 'aten.expand.default', ('Tensor0', ('list', 2, 2, 3), False)),
    ('x.expand((2, 2, 3))', 0, 'aten.expand.default', ('Tensor0', ('list', 2, 2, 3), False)),
    ('x.permute(1, 0)', 0, 'aten.permute.default', ('Tensor0', ('list', 1, 0))),
    ('x.transpose(0, 1)', 0, 'aten.transpose.int', ('Tensor0', 0, 1)),
    ('x.roll(1)', 0, 'aten.roll.default', ('Tensor0', ('list', 1), ('list',))),
    ('x.roll(1, 0)', 0, 'aten.roll.default', ('Tensor0', ('list', 1), ('list', 0))),
    ("x.div(2, rounding_mode='floor')", 0, 'aten.div.Tensor_mode', ('Tensor0', 2, 'floor')),
    ('x.div(2, rounding_mode=None)', 0, 'aten.div.Tensor_mode', ('Tensor0', 2, None)),
    ('F.gelu(x)', 0, 'aten.gelu.default', ('Tensor0', 'none')),
    ("F.gelu(x, approximate='tanh')", 0, 'aten.gelu.default', ('Tensor0', 'tanh')),
    ("F.gelu(x, approximate='none')", 0, 'aten.gelu.default', ('Tensor0', 'none')),
    ('x.t().contiguous()', 0, 'aten.t.default', ('Tensor0',)),
    (
        'x.t().contiguous()', 1, 'aten.clone.default',
        ('Tensor0', ('memory_format', 'contiguous_format')),
    ),
    ('x.clone()', 0, 'aten.clone.default', ('Tensor0', None)),
    ('x.max(1)', 0, 'aten.max.dim', ('Tensor0', 1, False)),
    ('x.max(1, keepdim=True)', 0, 'aten.max.dim', ('Tensor0', 1, True)),
    ('x.topk(2)', 0, 'aten.topk.default', ('Tensor0', 2, -1, True, True)),
    ('x.topk(2, largest=False)', 0, 'aten.topk.default', ('Tensor0', 2, -1, False, True)),
    ('x.sort(1, True)', 0, 'aten.sort.default', ('Tensor0', 1, True)),
    ('x.argmax()', 0, 'aten.argmax.default', ('Tensor0', None, False)),
    ('x.argmax(1, True)', 0, 'aten.argmax.default', ('Tensor0', 1, True)),
    ('torch.arange(5)', 0, 'aten.arange.default', (5, None, None, ('device', 'cpu'), False)),
    ('torch.arange(0, 5)', 0, 'aten.arange.start', (0, 5, None, None, ('device', 'cpu'), False)),
    (
        'torch.arange(0, 6, 2)', 0, 'aten.arange.start_step',
        (0, 6, 2, None, None, ('device', 'cpu'), False),
    ),
    (
        'torch.arange(0.0, 1.0, 0.5)', 0, 'aten.arange.start_step',
        (0.0, 1.0, 0.5, None, None, ('device', 'cpu'), False),
    ),
    (
        'F.layer_norm(x, (3,))', 0, 'aten.native_layer_norm.default',
        ('Tensor0', ('list', 3), None, None, 1e-05),
    ),
    ('x.squeeze()', 0, 'aten.squeeze.default', ('Tensor0',)),
    ('x.masked_fill(x > 2, 0.0)', 0, 'aten.gt.Scalar', ('Tensor0', 2)),
    ('x.masked_fill(x > 2, 0.0)', 1, 'aten.masked_fill.Scalar', ('Tensor0', 'Tensor1', 0.0)),
    (
        'x.new_zeros(2)', 0, 'aten.new_zeros.default',
        ('Tensor0', ('list', 2), None, None, None, False),
    ),
    (
        'x.new_ones((2, 2), dtype=torch.int64)', 0, 'aten.new_ones.default',
        ('Tensor0', ('list', 2, 2), ('dtype', 'int64'), None, None, False),
    ),
    ('torch.where(x > 1, x, 0.0)', 0, 'aten.gt.Scalar', ('Tensor0', 1)),
    (
        'torch.where(x > 1, x, 0.0)', 1, 'aten.scalar_tensor.default',
        (0.0, ('dtype', 'float32'), ('layout', 'strided'), ('device', 'cpu'), None),
    ),
    ('torch.where(x > 1, x, 0.0)', 2, 'aten.where.self', ('Tensor0', 'Tensor1', 'Tensor2')),
    ('x.split(2, 1)', 0, 'aten.split.Tensor', ('Tensor0', 2, 1)),
    ('x.split([1, 2], 1)', 0, 'aten.split_with_sizes.default', ('Tensor0', ('list', 1, 2), 1)),
    ('x.chunk(2)', 0, 'aten.split.Tensor', ('Tensor0', 1, 0)),
    ('F.softmax(x, 1)', 0, 'aten._softmax.default', ('Tensor0', 1, False)),
    (
        'F.log_softmax(x, -1, dtype=torch.float64)', 0, 'aten._to_copy.default',
        (
            'Tensor0', ('dtype', 'float64'), ('layout', 'strided'), ('device', 'cpu'), None, False,
            None,
        ),
    ),
    (
        'F.log_softmax(x, -1, dtype=torch.float64)', 1, 'aten._log_softmax.default',
        ('Tensor0', -1, False),
    ),
    ('F.linear(x, w, bias)', 0, 'aten.t.default', ('Tensor0',)),
    ('F.linear(x, w, bias)', 1, 'aten.addmm.default', ('Tensor0', 'Tensor1', 'Tensor2', 1, 1)),
    ('F.cross_entropy(x, i)', 0, 'aten._log_softmax.default', ('Tensor0', 1, False)),
    (
        'F.cross_entropy(x, i)', 1, 'aten.nll_loss_forward.default',
        ('Tensor0', 'Tensor1', None, 1, -100),
    ),
    ('F.pad(x, (1, 1))', 0, 'aten.constant_pad_nd.default', ('Tensor0', ('list', 1, 1), 0.0)),
    ('x[::2]', 0, 'aten.slice.Tensor', ('Tensor0', 0, 0, 9223372036854775807, 2)),
    ('x.amax((0, 1), True)', 0, 'aten.amax.default', ('Tensor0', ('list', 0, 1), True)),
    (
        'x.cumsum(1, dtype=torch.float64)', 0, 'aten.cumsum.default',
        ('Tensor0', 1, ('dtype', 'float64')),
    ),
    (
        'torch.zeros_like(x, dtype=torch.int64)', 0, 'aten.zeros_like.default',
        ('Tensor0', ('dtype', 'int64'), None, None, False, None),
    ),
    (
        'torch.ones_like(x, memory_format=torch.preserve_format)', 0, 'aten.ones_like.default',
        ('Tensor0', None, None, None, False, ('memory_format', 'preserve_format')),
    ),
    (
        "torch.empty_like(x, device='meta')", 0, 'aten.empty_like.default',
        ('Tensor0', None, None, ('device', 'meta'), False, None),
    ),
    (
        'torch.full_like(x, 2)', 0, 'aten.full_like.default',
        ('Tensor0', 2, None, None, None, False, None),
    ),
)
LOG_CALLS: dict[str, tuple] = {
    'v = x.view(3, 2)': (
        (
            'reftensor._ops.aten.view.default',
            (('tensor', 'x', 'float32', (2, 3)), ('list', 3, 2)), (),
            ('tensor', 'r1', 'float32', (3, 2)),
        ),
    ),
    'm = x * 2': (
        (
            'reftensor._ops.aten.mul.Tensor', (('tensor', 'x', 'float32', (2, 3)), 2), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'd = x / 3.0': (
        (
            'reftensor._ops.aten.div.Tensor', (('tensor', 'x', 'float32', (2, 3)), 3.0), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'z = x.sum(1, dtype=torch.float64)': (
        (
            'reftensor._ops.aten.sum.dim_IntList',
            (('tensor', 'x', 'float32', (2, 3)), ('list', 1)), (('dtype', ('dtype', 'float64')),),
            ('tensor', 'r1', 'float64', (2,)),
        ),
    ),
    'p = x.split(2, 1)': (
        (
            'reftensor._ops.aten.split.Tensor', (('tensor', 'x', 'float32', (2, 3)), 2, 1), (),
            ('list', ('tensor', 'r1', 'float32', (2, 2)), ('tensor', 'r2', 'float32', (2, 1))),
        ),
    ),
    'u = x.unbind(0)': (
        (
            'reftensor._ops.aten.unbind.int', (('tensor', 'x', 'float32', (2, 3)),), (),
            ('list', ('tensor', 'r1', 'float32', (3,)), ('tensor', 'r2', 'float32', (3,))),
        ),
    ),
    'mx = x.max(1)': (
        (
            'reftensor._ops.aten.max.dim', (('tensor', 'x', 'float32', (2, 3)), 1), (),
            ('tuple', ('tensor', 'r1', 'float32', (2,)), ('tensor', 'r2', 'int64', (2,))),
        ),
    ),
    'c = torch.cat([x, x], 1)': (
        (
            'reftensor._ops.aten.cat.default',
            (('list', ('tensor', 'x', 'float32', (2, 3)), ('tensor', 'x', 'float32', (2, 3))), 1),
            (), ('tensor', 'r1', 'float32', (2, 6)),
        ),
    ),
    'g = x[None, i]': (
        (
            'reftensor._ops.aten.unsqueeze.default', (('tensor', 'x', 'float32', (2, 3)), 0), (),
            ('tensor', 'r1', 'float32', (1, 2, 3)),
        ),
        (
            'reftensor._ops.aten.index.Tensor',
            (
                ('tensor', 'r1', 'float32', (1, 2, 3)),
                ('list', None, ('tensor', 'i', 'int64', (2,))),
            ),
            (), ('tensor', 'r2', 'float32', (1, 2, 3)),
        ),
    ),
    'h = x[:, i]': (
        (
            'reftensor._ops.aten.index.Tensor',
            (('tensor', 'x', 'float32', (2, 3)), ('list', None, ('tensor', 'i', 'int64', (2,)))),
            (), ('tensor', 'r1', 'float32', (2, 2)),
        ),
    ),
    't = x.clone(); t.add_(1)': (
        (
            'reftensor._ops.aten.clone.default', (('tensor', 'x', 'float32', (2, 3)),), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
        (
            'reftensor._ops.aten.add_.Tensor', (('tensor', 'r1', 'float32', (2, 3)), 1), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    't2 = x.clone(); t2.mul_(s)': (
        (
            'reftensor._ops.aten.clone.default', (('tensor', 'x', 'float32', (2, 3)),), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
        (
            'reftensor._ops.aten.mul_.Tensor',
            (('tensor', 'r1', 'float32', (2, 3)), ('tensor', 's', 'float32', ())), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'q = x.to(torch.float16)': (
        (
            'reftensor._ops.aten._to_copy.default', (('tensor', 'x', 'float32', (2, 3)),),
            (('dtype', ('dtype', 'float16')),), ('tensor', 'r1', 'float16', (2, 3)),
        ),
    ),
    'k = x.t().contiguous(memory_format=torch.contiguous_format)': (
        (
            'reftensor._ops.aten.t.default', (('tensor', 'x', 'float32', (2, 3)),), (),
            ('tensor', 'r1', 'float32', (3, 2)),
        ),
        (
            'reftensor._ops.aten.clone.default', (('tensor', 'r1', 'float32', (3, 2)),),
            (('memory_format', ('memory_format', 'contiguous_format')),),
            ('tensor', 'r2', 'float32', (3, 2)),
        ),
    ),
    "f = torch.zeros(2, 3, device='meta')": (
        (
            'reftensor._ops.aten.zeros.default', (('list', 2, 3),),
            (('device', ('device', 'meta')), ('pin_memory', False)),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'o = torch.ones((), dtype=torch.int64)': (
        (
            'reftensor._ops.aten.ones.default', (('list',),),
            (('dtype', ('dtype', 'int64')), ('device', ('device', 'cpu')), ('pin_memory', False)),
            ('tensor', 'r1', 'int64', ()),
        ),
    ),
    'w = s + 1': (
        (
            'reftensor._ops.aten.add.Tensor', (('tensor', 's', 'float32', ()), 1), (),
            ('tensor', 'r1', 'float32', ()),
        ),
    ),
    "r = x.div(2, rounding_mode='floor')": (
        (
            'reftensor._ops.aten.div.Tensor_mode', (('tensor', 'x', 'float32', (2, 3)), 2),
            (('rounding_mode', 'floor'),), ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'a = x.mean(-1, keepdim=True)': (
        (
            'reftensor._ops.aten.mean.dim',
            (('tensor', 'x', 'float32', (2, 3)), ('list', -1), True), (),
            ('tensor', 'r1', 'float32', (2, 1)),
        ),
    ),
    'l = torch.tensor([1.0, 2.0])': (
        (
            'reftensor._ops.aten.lift_fresh.default', (('tensor', 'r1', 'float32', (2,)),), (),
            ('tensor', 'r1', 'float32', (2,)),
        ),
    ),
    'it = s.item()': (
        (
            'reftensor._ops.aten._local_scalar_dense.default', (('tensor', 's', 'float32', ()),),
            (), 2.5,
        ),
    ),
    'cl = x.clamp(min=-0.5)': (
        (
            'reftensor._ops.aten.clamp.default', (('tensor', 'x', 'float32', (2, 3)), -0.5), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'am = x.argmax(1)': (
        (
            'reftensor._ops.aten.argmax.default', (('tensor', 'x', 'float32', (2, 3)), 1), (),
            ('tensor', 'r1', 'int64', (2,)),
        ),
    ),
    'ne = x.new_zeros(2)': (
        (
            'reftensor._ops.aten.new_zeros.default',
            (('tensor', 'x', 'float32', (2, 3)), ('list', 2)), (('pin_memory', False),),
            ('tensor', 'r1', 'float32', (2,)),
        ),
    ),
    'sl = x[::2]': (
        (
            'reftensor._ops.aten.slice.Tensor',
            (('tensor', 'x', 'float32', (2, 3)), 0, 0, 9223372036854775807, 2), (),
            ('tensor', 'r1', 'float32', (1, 3)),
        ),
    ),
    'ex = x.expand(2, 2, 3)': (
        (
            'reftensor._ops.aten.expand.default',
            (('tensor', 'x', 'float32', (2, 3)), ('list', 2, 2, 3)), (),
            ('tensor', 'r1', 'float32', (2, 2, 3)),
        ),
    ),
    "gl = torch.nn.functional.gelu(x, approximate='tanh')": (
        (
            'reftensor._ops.aten.gelu.default', (('tensor', 'x', 'float32', (2, 3)),),
            (('approximate', 'tanh'),), ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'st = torch.stack([x, x])': (
        (
            'reftensor._ops.aten.stack.default',
            (('list', ('tensor', 'x', 'float32', (2, 3)), ('tensor', 'x', 'float32', (2, 3))),), (),
            ('tensor', 'r1', 'float32', (2, 2, 3)),
        ),
    ),
    'pm = x.permute(1, 0)': (
        (
            'reftensor._ops.aten.permute.default',
            (('tensor', 'x', 'float32', (2, 3)), ('list', 1, 0)), (),
            ('tensor', 'r1', 'float32', (3, 2)),
        ),
    ),
    'ix = n[i]': (
        (
            'reftensor._ops.aten.index.Tensor',
            (('tensor', 'n', 'int64', (2, 3)), ('list', ('tensor', 'i', 'int64', (2,)))), (),
            ('tensor', 'r1', 'int64', (2, 3)),
        ),
    ),
    'wh = torch.where(x > 1, x, 0.0)': (
        (
            'reftensor._ops.aten.gt.Scalar', (('tensor', 'x', 'float32', (2, 3)), 1), (),
            ('tensor', 'r1', 'bool', (2, 3)),
        ),
        (
            'reftensor._ops.aten.scalar_tensor.default', (0.0,),
            (
                ('dtype', ('dtype', 'float32')), ('layout', ('layout', 'strided')),
                ('device', ('device', 'cpu')),
            ),
            ('tensor', 'r2', 'float32', ()),
        ),
        (
            'reftensor._ops.aten.where.self',
            (
                ('tensor', 'r1', 'bool', (2, 3)), ('tensor', 'x', 'float32', (2, 3)),
                ('tensor', 'r2', 'float32', ()),
            ),
            (), ('tensor', 'r3', 'float32', (2, 3)),
        ),
    ),
    "md = x.to('meta')": (
        (
            'reftensor._ops.aten._to_copy.default', (('tensor', 'x', 'float32', (2, 3)),),
            (
                ('dtype', ('dtype', 'float32')), ('layout', ('layout', 'strided')),
                ('device', ('device', 'meta')),
            ),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'cs = x.cumsum(0, dtype=torch.float64)': (
        (
            'reftensor._ops.aten.cumsum.default', (('tensor', 'x', 'float32', (2, 3)), 0),
            (('dtype', ('dtype', 'float64')),), ('tensor', 'r1', 'float64', (2, 3)),
        ),
    ),
    'bb = b.any()': (
        (
            'reftensor._ops.aten.any.default', (('tensor', 'b', 'bool', (2,)),), (),
            ('tensor', 'r1', 'bool', ()),
        ),
    ),
    'mp = torch.nn.functional.max_pool2d(img, 2)': (
        (
            'reftensor._ops.aten.max_pool2d_with_indices.default',
            (('tensor', 'img', 'float32', (1, 1, 4, 4)), ('list', 2, 2)), (),
            (
                'tuple', ('tensor', 'r1', 'float32', (1, 1, 2, 2)),
                ('tensor', 'r2', 'int64', (1, 1, 2, 2)),
            ),
        ),
    ),
    'sq = x.unsqueeze(-1).squeeze(-1)': (
        (
            'reftensor._ops.aten.unsqueeze.default', (('tensor', 'x', 'float32', (2, 3)), -1), (),
            ('tensor', 'r1', 'float32', (2, 3, 1)),
        ),
        (
            'reftensor._ops.aten.squeeze.dim', (('tensor', 'r1', 'float32', (2, 3, 1)), -1), (),
            ('tensor', 'r2', 'float32', (2, 3)),
        ),
    ),
    'sr = x.sort(1, True)': (
        (
            'reftensor._ops.aten.sort.default', (('tensor', 'x', 'float32', (2, 3)), 1, True), (),
            ('tuple', ('tensor', 'r1', 'float32', (2, 3)), ('tensor', 'r2', 'int64', (2, 3))),
        ),
    ),
    'eq = x.eq(n)': (
        (
            'reftensor._ops.aten.eq.Tensor',
            (('tensor', 'x', 'float32', (2, 3)), ('tensor', 'n', 'int64', (2, 3))), (),
            ('tensor', 'r1', 'bool', (2, 3)),
        ),
    ),
    'ch = x.chunk(3, 1)': (
        (
            'reftensor._ops.aten.split.Tensor', (('tensor', 'x', 'float32', (2, 3)), 1, 1), (),
            (
                'list', ('tensor', 'r1', 'float32', (2, 1)), ('tensor', 'r2', 'float32', (2, 1)),
                ('tensor', 'r3', 'float32', (2, 1)),
            ),
        ),
    ),
    'ar = torch.arange(3)': (
        (
            'reftensor._ops.aten.arange.default', (3,),
            (('device', ('device', 'cpu')), ('pin_memory', False)), ('tensor', 'r1', 'int64', (3,)),
        ),
    ),
    "em = torch.empty(0, device='meta')": (
        (
            'reftensor._ops.aten.empty.memory_format', (('list', 0),),
            (('device', ('device', 'meta')), ('pin_memory', False)),
            ('tensor', 'r1', 'float32', (0,)),
        ),
    ),
    'lt = x[i, None]': (
        (
            'reftensor._ops.aten.unsqueeze.default', (('tensor', 'x', 'float32', (2, 3)), 1), (),
            ('tensor', 'r1', 'float32', (2, 1, 3)),
        ),
        (
            'reftensor._ops.aten.index.Tensor',
            (('tensor', 'r1', 'float32', (2, 1, 3)), ('list', ('tensor', 'i', 'int64', (2,)))), (),
            ('tensor', 'r2', 'float32', (2, 1, 3)),
        ),
    ),
    'e0 = s.exp()': (
        (
            'reftensor._ops.aten.exp.default', (('tensor', 's', 'float32', ()),), (),
            ('tensor', 'r1', 'float32', ()),
        ),
    ),
    'hf = x.half().float()': (
        (
            'reftensor._ops.aten._to_copy.default', (('tensor', 'x', 'float32', (2, 3)),),
            (('dtype', ('dtype', 'float16')),), ('tensor', 'r1', 'float16', (2, 3)),
        ),
        (
            'reftensor._ops.aten._to_copy.default', (('tensor', 'r1', 'float16', (2, 3)),),
            (('dtype', ('dtype', 'float32')),), ('tensor', 'r2', 'float32', (2, 3)),
        ),
    ),
    'pw = x ** 2': (
        (
            'reftensor._ops.aten.pow.Tensor_Scalar', (('tensor', 'x', 'float32', (2, 3)), 2), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
}
