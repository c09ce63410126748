"""The two models of the GPU check: a linear+ReLU and a small CNN.

Shared by tests/models/make_cuda_fixture.py (which writes their programs
here, on a machine without a GPU) and tests/gpu/aoti_compile.py (which
compiles them with AOTInductor on the GPU machine).  Weights come from the
seed, so both sides build the same model.
"""
import torch


class LinearRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(16, 8)

    def forward(self, x):
        return torch.relu(self.linear(x))


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv(x)))
        return self.fc(torch.flatten(x, 1))


def seeded(cls):
    def make():
        torch.manual_seed(11)
        return cls()
    return make


# name -> (constructor, input shape)
MODELS = {
    "linear_relu": (seeded(LinearRelu), (4, 16)),
    "small_cnn": (seeded(SmallCnn), (1, 3, 8, 8)),
}
