def build_cnn(lib):
    """Ivy's digits CNN: two conv blocks (conv, ReLU, pool), then one Linear."""

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            # the order of creation is the order of the weights' draws
            self.conv1 = lib.nn.Conv2d(1, 16, kernel_size=3, stride=1, padding=1)
            self.conv2 = lib.nn.Conv2d(16, 32, kernel_size=3, stride=1, padding=1)
            self.fc = lib.nn.Linear(128, 10)
            self.pool = lib.nn.MaxPool2d(2)

        def forward(self, images):
            h = self.pool(lib.relu(self.conv1(images)))
            h = self.pool(lib.relu(self.conv2(h)))
            return self.fc(h.view(h.shape[0], -1))

    return Net()
