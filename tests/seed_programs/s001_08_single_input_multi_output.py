import numpy as np
from tapegrad import ops, Tensor
import tapegrad.nn as nn
import tapegrad as ms
class Net(nn.Cell):
    """Feedforward network model"""
    def __init__(self):
        super(Net, self).__init__()
        self.sin = ops.Sin()
        self.cos = ops.Cos()
    def construct(self, x):
        out1 = self.sin(x)
        out2 = self.cos(x)
        return out1, out2
x_train = Tensor(np.array([3.1415926]), dtype=ms.float32)
net = Net()
firstgrad = ms.grad(net)
secondgrad = ms.grad(firstgrad)
output = secondgrad(x_train)
# Print the result.
result = np.around(output.asnumpy(), decimals=2)
print(result)
