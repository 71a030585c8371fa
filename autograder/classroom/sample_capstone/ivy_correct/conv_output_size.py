@pieces.register
def conv_output_size(input_size, kernel, stride, padding, dilation):
    """How many windows fit along one spatial dim of the padded input."""
    reach = dilation * (kernel - 1)  # from the first tap to the last
    return (input_size + 2 * padding - reach - 1) // stride + 1
