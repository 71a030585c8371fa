@pieces.register
def is_contiguous(shape, stride):
    """True when torch.empty_strided(shape, stride).is_contiguous() is True."""
    numel = 1
    for n in shape:
        numel *= n
    if numel == 0:
        return True
    expected = 1
    for k in range(len(shape) - 1, -1, -1):
        if shape[k] != 1:
            if stride[k] != expected:
                return False
            expected = expected * shape[k]
    return True
