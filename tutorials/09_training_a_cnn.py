# %% [markdown]
# # 09 · Training a CNN on handwritten digits
#
# scikit-learn ships 1,797 handwritten digits as 8x8 grey images. A small LeNet-style network (two
# convolution blocks with batch normalisation and max-pooling, then two linear layers) learns to
# read them, with the pieces of a real training script: a `DataLoader` that shuffles the batches,
# Adam, a learning-rate schedule, a progress line per epoch, the weights saved to a file and loaded
# into a fresh model, and a look at the digits the network still gets wrong.
#
# It needs scikit-learn for the images: `pip install "tapegrad[tutorials]"` (which also brings
# matplotlib, used to draw the mistakes; without it they are drawn in text).

# %%
import sys
from pathlib import Path

import numpy as np

import tapegrad as tg
from tapegrad import nn
from tapegrad.utils.data import DataLoader, TensorDataset, random_split

try:
    from sklearn.datasets import load_digits
except ImportError:
    print(
        "This tutorial needs scikit-learn, which ships its 8x8 digit images. Install it with\n"
        '    pip install "tapegrad[tutorials]"    (or: pip install scikit-learn)\n'
        "and run it again."
    )
    raise SystemExit(0)  # (a script stops here without an error; a notebook shows SystemExit: 0)

tg.manual_seed(0)  # the split, the initial weights and the shuffled batches: the same every run
# Files go to tutorials/output/, whether this runs as a script from the repository root or as a
# notebook in tutorials/.
OUT = Path("tutorials/output") if Path("tutorials").is_dir() else Path("output")
OUT.mkdir(parents=True, exist_ok=True)
IN_NOTEBOOK = "ipykernel" in sys.modules

# %% [markdown]
# ## The data
#
# Each image is an 8x8 array of ink levels 0..16. A convolution wants `(N, C, H, W)`: N images, one
# channel (grey), 8 rows, 8 columns. `random_split` draws 1,437 images for training and keeps 360
# the network never trains on, to measure it honestly.

# %%
digits = load_digits()
images = (digits.images / 16.0).astype(np.float32)[:, None]  # (1797, 1, 8, 8), ink in 0..1
dataset = TensorDataset(tg.tensor(images), tg.tensor(digits.target.astype(np.int64)))
train_set, test_set = random_split(dataset, [1437, 360])
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)  # a new order every epoch
test_loader = DataLoader(test_set, batch_size=360)
print(f"{len(train_set)} training and {len(test_set)} test images of shape {images.shape[1:]}")

# %% [markdown]
# ## The network
#
# Each block is convolution, batch normalisation, ReLU, 2x2 max-pooling: 8x8 images become 16 maps
# of 4x4, then 32 maps of 2x2, flattened into 128 numbers for the two linear layers. `BatchNorm2d`
# normalises each channel with the batch's mean and variance while training, and keeps running
# averages of them (buffers, saved with the weights) for evaluation.


# %%
def make_model() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1),  # (N, 16, 8, 8)
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.MaxPool2d(2),  # (N, 16, 4, 4)
        nn.Conv2d(16, 32, kernel_size=3, padding=1),  # (N, 32, 4, 4)
        nn.BatchNorm2d(32),
        nn.ReLU(),
        nn.MaxPool2d(2),  # (N, 32, 2, 2)
        nn.Flatten(),  # (N, 128)
        nn.Linear(128, 64),
        nn.ReLU(),
        nn.Linear(64, 10),  # one score per digit
    )


model = make_model()
print(model)
print("parameters:", sum(p.size for p in model.parameters()))

# %% [markdown]
# ## Training
#
# The loop of every PyTorch script: for each batch, forward, loss, `backward`, `step`. The scheduler
# halves the learning rate every two epochs. `evaluate` switches to `eval()` mode (batch norm then
# uses its running statistics) and turns the tape off.


# %%
def evaluate(model: nn.Module, loader: DataLoader) -> float:
    """The fraction of images in `loader` whose highest score is their digit."""
    model.eval()
    correct = 0
    with tg.no_grad():
        for x, y in loader:
            correct += int((model(x).argmax(dim=1) == y).sum().item())
    model.train()
    return correct / len(loader.dataset)


loss_fn = nn.CrossEntropyLoss()
optimizer = tg.optim.Adam(model.parameters(), lr=0.01)
scheduler = tg.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
train_all = DataLoader(train_set, batch_size=len(train_set))  # for the training accuracy

for epoch in range(1, 7):
    total, seen = 0.0, 0
    lr = scheduler.get_last_lr()[0]
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total, seen = total + loss.item() * len(y), seen + len(y)
    scheduler.step()
    print(
        f"epoch {epoch}  loss {total / seen:.4f}  train accuracy {evaluate(model, train_all):.4f}"
        f"  test accuracy {evaluate(model, test_loader):.4f}  lr {lr:.5f}"
    )
accuracy = evaluate(model, test_loader)
print(f"final test accuracy {accuracy:.4f}")

# %% [markdown]
# ## Keeping the weights
#
# `state_dict()` holds the parameters and the batch-norm buffers (running mean and variance, and the
# count of batches seen). `tg.save` writes it as NumPy's `.npz`, no pickle; `tg.load` reads it back
# and `load_state_dict` copies it into a freshly built model, which then scores exactly the same.

# %%
path = OUT / "09_cnn_digits.npz"
tg.save(model.state_dict(), path)
state = tg.load(path)
print("saved", len(state), "tensors, e.g.", ", ".join(k for k in state if k.startswith("1.")))

fresh = make_model()  # new random weights: its accuracy is about chance until it loads the file
print(f"fresh model: test accuracy {evaluate(fresh, test_loader):.4f}")
fresh.load_state_dict(state)
reloaded = evaluate(fresh, test_loader)
print(f"reloaded model: test accuracy {reloaded:.4f}  same as trained: {reloaded == accuracy}")

# %% [markdown]
# ## The digits it gets wrong
#
# Several of them would make a person hesitate too.

# %%
fresh.eval()
with tg.no_grad():
    x, y = next(iter(test_loader))
    predicted = fresh(x).argmax(dim=1).numpy()
truth = y.numpy()
misread = np.flatnonzero(predicted != truth)
wrong = misread[:6]  # the first few, drawn below
titles = [f"{truth[i]} read as {predicted[i]}" for i in wrong]
print(f"{len(misread)} of {len(truth)} test images misread: {', '.join(titles)}")


def as_text(pictures: np.ndarray, titles: list) -> str:
    """8x8 ink levels in 0..1 drawn side by side with characters, darker meaning more ink."""
    shades = " .:-=+*#%@"
    rows = [" ".join(f"{title:<16}" for title in titles)]
    for r in range(pictures.shape[1]):  # row r of every picture, each pixel two characters wide
        row = [
            "".join(shades[round(v * (len(shades) - 1))] * 2 for v in picture[r])
            for picture in pictures
        ]
        rows.append(" ".join(row))
    return "\n".join(line.rstrip() for line in rows)


pictures = x.numpy()[wrong, 0]
try:
    import matplotlib.pyplot as plt
except ImportError:  # matplotlib is optional: without it the digits are drawn in text
    plt = None
if plt is not None and len(wrong):
    fig, axes = plt.subplots(1, len(wrong), figsize=(1.6 * len(wrong), 2.0), squeeze=False)
    for ax, picture, title in zip(axes[0], pictures, titles):
        ax.imshow(picture, cmap="gray_r", vmin=0, vmax=1)
        ax.set_title(title, fontsize=9)
        ax.axis("off")
    fig.savefig(OUT / "09_misclassified.png", dpi=100, bbox_inches="tight")
    print("drawn to", OUT / "09_misclassified.png")
    if not IN_NOTEBOOK:
        plt.close(fig)  # (in a notebook the figure shows below the cell)
if (plt is None or not IN_NOTEBOOK) and len(wrong):
    print(as_text(pictures, titles))
