import numpy as np


@pieces.register
def max_pool_window(windows, positions):
    """Each window's maximum and where it is, walking its taps as torch's loop does."""
    flat_w = windows.reshape(-1, windows.shape[-1])
    flat_p = positions.reshape(-1, positions.shape[-1])
    values = np.empty(len(flat_w), dtype=windows.dtype)
    indices = np.empty(len(flat_w), dtype=np.int64)
    for row, (taps, where) in enumerate(zip(flat_w, flat_p)):
        best, at = None, None
        for value, position in zip(taps, where):
            if position < 0:
                continue  # the padding is never picked
            if best is None or value > best or value != value:
                best, at = value, position
        values[row], indices[row] = best, at
    return values.reshape(windows.shape[:-1]), indices.reshape(windows.shape[:-1])
