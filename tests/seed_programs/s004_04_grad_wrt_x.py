from tapegrad import dtype as mstype  # (the seed uses mstype without importing it)

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

from tapegrad import Parameter
# f(x,y,z) = (x*z)*y
class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.matmul = ops.MatMul()
        self.z = Parameter(Tensor(np.array([1.0], np.float32)), name='z')
    def construct(self, x, y):
        x = x * self.z
        out = self.matmul(x, y)
        return out
# df/dx
class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtX, self).__init__()
        self.net = net
        self.grad_op = ops.GradOperation()
    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y)

x = Tensor([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], dtype=mstype.float32)
y = Tensor([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], dtype=mstype.float32)

grad = GradNetWrtX(Net())(x, y)
print(grad)

# out = (x*z)*y 关于x导数如下
ynp= y.asnumpy().T
a = np.ones((2,3))
out = np.matmul(a, ynp)
print(out)
