@pieces.register
def window_layout(shape, strides, offset, kernel, stride, dilation):
    """The windows' view (forgets that a dilated kernel's taps are spread out)."""
    outs = tuple((shape[2 + i] - k) // stride[i] + 1 for i, k in enumerate(kernel))
    steps = tuple(strides[2 + i] * stride[i] for i in range(len(kernel)))
    return ((shape[0], shape[1], *outs, *kernel),
            (strides[0], strides[1], *steps, *strides[2:]), offset)
