@pieces.register
def storage_index(index, stride, storage_offset):
    """Storage element holding tensor element `index` (tuples of ints; returns an int)."""
    # offset + sum of index_k * stride_k
    return storage_offset + sum(i * s for i, s in zip(index, stride))
