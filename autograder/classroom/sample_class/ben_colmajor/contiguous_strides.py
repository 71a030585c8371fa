@pieces.register
def contiguous_strides(shape):
    """Row-major strides of a tensor of this shape, as torch.empty(shape).stride() gives."""
    strides = []
    step = 1
    for size in shape:          # first dim moves fastest
        strides.append(step)
        step *= max(size, 1)
    return tuple(strides)
