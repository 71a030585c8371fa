@pieces.register
def contiguous_strides(shape):
    """Row-major strides of a tensor of this shape, as torch.empty(shape).stride() gives."""
    if len(shape) == 0:
        return ()
    rest = contiguous_strides(shape[1:])
    if not rest:
        return (1,)
    return (rest[0] * max(shape[1], 1),) + rest
