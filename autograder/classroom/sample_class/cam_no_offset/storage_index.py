@pieces.register
def storage_index(index, stride, storage_offset):
    """Storage element holding tensor element `index` (tuples of ints; returns an int)."""
    total = 0
    for k in range(len(index)):
        total += index[k] * stride[k]
    return total
