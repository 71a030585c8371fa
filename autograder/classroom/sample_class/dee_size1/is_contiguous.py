@pieces.register
def is_contiguous(shape, stride):
    """True when torch.empty_strided(shape, stride).is_contiguous() is True."""
    if 0 in shape:
        return True
    expected = 1
    for size, step in zip(reversed(shape), reversed(stride)):
        if step != expected:
            return False
        expected *= size
    return True
