@pieces.register
def window_layout(shape, strides, offset, kernel, stride, dilation):
    """The as_strided (sizes, strides, offset) of the windows, (N, C, *out, *kernel)."""
    outs, out_steps, tap_steps = [], [], []
    for i, k in enumerate(kernel):
        length, step = shape[2 + i], strides[2 + i]
        outs.append((length - dilation[i] * (k - 1) - 1) // stride[i] + 1)
        out_steps.append(step * stride[i])
        tap_steps.append(step * dilation[i])
    sizes = (shape[0], shape[1], *outs, *kernel)
    return sizes, (strides[0], strides[1], *out_steps, *tap_steps), offset
