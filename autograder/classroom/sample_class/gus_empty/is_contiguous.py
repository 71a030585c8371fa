@pieces.register
def is_contiguous(shape, stride):
    """True when torch.empty_strided(shape, stride).is_contiguous() is True."""
    if shape and shape[0] == 0:  # no elements: contiguous
        return True
    expected = 1
    for size, step in zip(reversed(shape), reversed(stride)):
        if size != 1:
            if step != expected:
                return False
            expected *= size
    return True
