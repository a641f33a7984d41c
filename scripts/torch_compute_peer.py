#!/usr/bin/python3
"""PyTorch's forward + backward of LGC4J's zoo models, the peer of `lgc bench dense`'s compute table.

The models are the zoo's (lgc-data's ModelZoo), layer for layer: LeNet-5 (small-cnn), its narrow copy (tiny-cnn) and
the small ResNet with batch normalization (small-resnet); batch 32 of 28x28x1 inputs, cross-entropy on 10 classes.
For each thread count given, torch.set_num_threads(n), then rounds of timed steps after a warm-up; prints one JSON
line per model and thread count: {"model", "threads", "ms": [mean of each round]}.

    apt-get install -y python3-torch
    /usr/bin/python3 scripts/torch_compute_peer.py --threads 1,2 --rounds 5 --steps 20
"""
import argparse
import json
import time

import torch
from torch import nn


def lenet(c1, c2, fc):
    return nn.Sequential(
        nn.Conv2d(1, c1, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(c2 * 16, fc), nn.ReLU(), nn.Linear(fc, 10))


def conv_bn(cin, cout, k, stride):
    return [nn.Conv2d(cin, cout, k, stride, padding=k // 2, bias=False), nn.BatchNorm2d(cout)]


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.main = nn.Sequential(*conv_bn(cin, cout, 3, stride), nn.ReLU(), *conv_bn(cout, cout, 3, 1))
        self.skip = (nn.Identity() if stride == 1 and cin == cout
                     else nn.Sequential(*conv_bn(cin, cout, 1, stride)))

    def forward(self, x):
        return torch.relu(self.main(x) + self.skip(x))


def small_resnet():
    return nn.Sequential(*conv_bn(1, 16, 3, 1), nn.ReLU(), nn.MaxPool2d(2),
                         Block(16, 16, 1), Block(16, 32, 2),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))


MODELS = {
    "small-cnn": lambda: lenet(20, 50, 500),
    "tiny-cnn": lambda: lenet(6, 12, 64),
    "small-resnet": small_resnet,
}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--models", default=",".join(MODELS))
    a = p.parse_args()
    torch.manual_seed(0)
    x, y = torch.rand(32, 1, 28, 28), torch.arange(32) % 10
    loss = nn.CrossEntropyLoss()
    for threads in [int(t) for t in a.threads.split(",")]:
        torch.set_num_threads(threads)
        nets = {name: MODELS[name]() for name in a.models.split(",")}
        times = {name: [] for name in nets}

        def step(net):
            net.zero_grad()
            loss(net(x), y).backward()

        for net in nets.values():
            for _ in range(a.warmup):
                step(net)
        for _ in range(a.rounds):  # rounds interleave the models, so a noisy moment hits all of them
            for name, net in nets.items():
                start = time.perf_counter()
                for _ in range(a.steps):
                    step(net)
                times[name].append((time.perf_counter() - start) / a.steps * 1e3)
        for name in nets:
            print(json.dumps({"torch": torch.__version__, "model": name, "threads": threads, "ms": times[name]}))


if __name__ == "__main__":
    main()
