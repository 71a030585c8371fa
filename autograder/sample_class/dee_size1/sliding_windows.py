def sliding_windows(n, size, step):
    """(shape, stride) of torch.arange(n).unfold(0, size, step), as two tuples of ints."""
    windows = 0
    start = 0
    while start + size <= n:
        windows += 1
        start += step
    print(f"{windows} windows of {size}")  # debugging output is fine
    return (windows, size), (step, 1)
