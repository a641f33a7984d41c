# Single-process PyTorch LeNet-5, batch 128 (the mean gradient of K = 4 ranks x 32), Nesterov 0.05/0.9, evaluated on
# all 10,000 test images every 5 steps: the step where it first reaches 80 %, and the accuracies, per seed.
#   PEERS=../shared/peers /usr/bin/python3 single_process_torch.py 1,2,3
# prints: torch SEED STEPS_TO_80 ACC@5 ACC@10 ... ACC@150
import os, sys, torch, torch.nn as nn
sys.path.insert(0, os.environ.get("PEERS", "../shared/peers"))
from torch_peers import lenet
from ddp_peer import load_idx
torch.set_num_threads(1)
d = "/usr/share/datasets/fashion-mnist"
f = lambda n: load_idx(os.path.join(d, n))
xtr, ytr = f("train-images-idx3-ubyte.gz"), f("train-labels-idx1-ubyte.gz").long()
xte, yte = f("t10k-images-idx3-ubyte.gz"), f("t10k-labels-idx1-ubyte.gz").long()
mu, sd = 0.2860, 0.3530
prep = lambda x: ((x.float() / 255 - mu) / sd).unsqueeze(1)
Xte = prep(xte)
mode = sys.argv[2] if len(sys.argv) > 2 else "torch"
for seed in [int(s) for s in sys.argv[1].split(",")]:
    torch.manual_seed(seed)
    net = lenet()
    if mode == "zerobias":
        for m in net.modules():
            if hasattr(m, "bias") and m.bias is not None: nn.init.zeros_(m.bias)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    g = torch.Generator(); g.manual_seed(seed)
    perm = torch.randperm(len(xtr), generator=g)
    hit = None; accs = []
    for step in range(1, 151):
        i = perm[(step - 1) * 128: step * 128]
        opt.zero_grad(); nn.functional.cross_entropy(net(prep(xtr[i])), ytr[i]).backward(); opt.step()
        if step % 5 == 0:
            with torch.no_grad():
                acc = sum(int((net(Xte[j:j+2000]).argmax(1) == yte[j:j+2000]).sum()) for j in range(0, 10000, 2000)) / 10000
            accs.append(acc)
            if hit is None and acc >= 0.8: hit = step
    print(mode, seed, hit, " ".join(f"{a:.4f}" for a in accs), flush=True)
