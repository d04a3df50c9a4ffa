from tapegrad import nn, ops
from tapegrad import Tensor
import numpy as np

class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.sin = ops.Sin()
        self.cos = ops.Cos()

    def construct(self, x):
        a = self.sin(x)
        out = self.cos(a)
        return out

def forward():
    f = Net()
    x = np.array([1.0, 2.0, 5.0], np.float32)
    y1 = np.cos(np.sin(x))
    x = Tensor(x)
    y2 = f(x)

    print("y1 = ", y1)
    print("y2 = ", y2)

if __name__ == "__main__":
    forward()

from tapegrad import nn, ops
from tapegrad import Tensor
import numpy as np

class GradNet(nn.Cell):
    def __init__(self, net):
        super(GradNet, self).__init__()
        self.net = net
        self.grad_op = ops.GradOperation()
    def construct(self, x):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x)

def backward():
    f = Net()
    gradf = GradNet(f)
    x = np.array([1.0, 2.0, 5.0], np.float32)
    y1 = -np.sin(np.sin(x)) * np.cos(x)
    x = Tensor(x)
    y2 = gradf(x)

    print("y1 = ", y1)
    print("y2 = ", y2)

if __name__ == "__main__":
    backward()
