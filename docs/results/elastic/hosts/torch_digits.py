"""The PyTorch peer of Digits.java under torchrun's elastic agent (torch.distributed.run, c10d rendezvous).

The same work as the LGC4J program: scikit-learn's digits (first 1,500 rows to train, the other 297 to test), an MLP
64-64 with ReLU, batch norm and Dropout 0.2, SGD lr 0.1, b = 16 per rank, DDP (dense all-reduce over gloo), a
checkpoint every 5 steps. torchrun says nothing about state, so the script does what a careful user does, and what
LGC4J does: rank 0 saves the model, the optimizer, the step and where it is in the epoch (examples consumed), and a
(re)started worker group resumes from the latest checkpoint, reading the rest of the epoch split over the new world
size (each rank a contiguous block of every global batch), then whole epochs.

    python3 -m torch.distributed.run --nnodes 1:2 --nproc_per_node 1 --rdzv_backend c10d \
        --rdzv_endpoint 127.0.0.1:PORT --rdzv_id digits --max_restarts 3 torch_digits.py DATA EPOCHS CKPT_DIR
"""
import gzip
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

B = 16
EVERY = 5


def load(path):
    rows = [list(map(float, line.split(","))) for line in gzip.open(path, "rt")]
    x = torch.tensor([r[:64] for r in rows], dtype=torch.float32) / 16.0
    y = torch.tensor([int(r[64]) for r in rows])
    return x[:1500], y[:1500], x[1500:], y[1500:]


def main():
    data, epochs, ckpt_dir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(7)
    torch.set_num_threads(1)
    x, y, tx, ty = load(data)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.BatchNorm1d(64), nn.Dropout(0.2), nn.Linear(64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    step, epoch, consumed = 0, 0, 0
    latest = os.path.join(ckpt_dir, "latest.pt")
    if os.path.exists(latest):
        state = torch.load(latest)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, epoch, consumed = state["step"], state["epoch"], state["consumed"]
        if rank == 0:
            print(json.dumps({"resumed": step, "epoch": epoch, "consumed": consumed, "world": world}), flush=True)
    ddp = DDP(model)
    loss_fn = nn.CrossEntropyLoss()
    started = time.time()
    while epoch < epochs:
        g = torch.Generator().manual_seed(1000 + epoch)
        order = torch.randperm(len(x), generator=g)
        while consumed + world * B <= len(x):
            idx = order[consumed + rank * B: consumed + (rank + 1) * B]
            opt.zero_grad()
            loss = loss_fn(ddp(x[idx]), y[idx])
            loss.backward()
            opt.step()
            consumed += world * B
            step += 1
            if step % EVERY == 0 and rank == 0:
                tmp = latest + ".tmp"
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "epoch": epoch,
                            "consumed": consumed}, tmp)
                os.replace(tmp, latest)
                open(os.path.join(ckpt_dir, f"step-{step:06d}"), "w").close()  # for the driver to wait on
        epoch, consumed = epoch + 1, 0
    if rank == 0:
        model.eval()
        with torch.no_grad():
            accuracy = (model(tx).argmax(1) == ty).float().mean().item()
        print(json.dumps({"steps": step, "test_accuracy": accuracy, "train_s": time.time() - started,
                          "world": world}), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
