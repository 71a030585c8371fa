@pieces.register
def unfold_layout(shape, stride, dimension, size, step):
    """(shape, stride) of t.unfold(dimension, size, step), for t of this layout."""
    windows = 0
    start = 0
    while start + size <= shape[dimension]:
        windows += 1
        start += step
    print(f"{windows} windows of {size}")  # debugging output is fine
    new_shape = list(shape)
    new_shape[dimension] = windows
    new_stride = list(stride)
    new_stride[dimension] = stride[dimension] * step
    return tuple(new_shape) + (size,), tuple(new_stride) + (stride[dimension],)
