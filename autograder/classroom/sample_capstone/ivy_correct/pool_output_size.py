@pieces.register
def pool_output_size(size, kernel, padding, stride, dilation, ceil_mode):
    """How many windows a pool has along one spatial dim."""
    room = size + 2 * padding - dilation * (kernel - 1) - 1
    if ceil_mode:
        count = -(-room // stride) + 1  # rounded up
        if (count - 1) * stride >= size + padding:  # the last one starts in the padding
            count -= 1
        return count
    return room // stride + 1
