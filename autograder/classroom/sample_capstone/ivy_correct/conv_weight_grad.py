import numpy as np


@pieces.register
def conv_weight_grad(windows, grad_output):
    """Each group's weight gradient: its output gradient times its windows, transposed."""
    return np.einsum("gop,gkp->gok", grad_output, windows)
