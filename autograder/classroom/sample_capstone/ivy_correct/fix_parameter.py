def fix_parameter(lib):
    """scale as an nn.Parameter, so the optimizer sees it."""
    nn = lib.nn

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(64, 10)
            self.scale = nn.Parameter(lib.ones(10))

        def forward(self, images):
            return self.scale * self.linear(images.flatten(1))

    return Scaled()
