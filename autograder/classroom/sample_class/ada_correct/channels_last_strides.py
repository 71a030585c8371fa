@pieces.register
def channels_last_strides(shape):
    """Strides of torch.empty(shape, memory_format=torch.channels_last), shape being 4-d."""
    N, C, H, W = shape
    sc = 1
    sw = C
    sh = W * C
    sn = H * W * C
    return (sn, sc, sh, sw)
