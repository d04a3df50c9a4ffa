# torch.autograd:
# The backward is cumulative, and the optimizer needs to be cleared after updating.

import tapegrad as torch
from tapegrad.autograd import Variable

x = Variable(torch.ones(2, 2),
             requires_grad=True)
x = x * 2
y = x - 1
y.backward(x)
