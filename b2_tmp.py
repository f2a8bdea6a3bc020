import timeit, numpy as np, sys
import autograph as ag
x = np.ones(4)
def add_one(x):
    return x + 1
K = 3.0
def add_k(x):
    return x + K
class M:
    def __init__(self): self.w = 2.0
    @ag.function
    def __call__(self, x): return x * self.w
f = ag.function(add_one); g = ag.function(add_k); m = M()
for fn in (f, g, m):
    for _ in range(10): fn(x)
res = {}
for name, fn in (("add_one", f), ("add_global", g), ("method_attr", m)):
    res[name] = min(timeit.repeat(lambda: fn(x), number=20000, repeat=15)) / 20000 * 1e9
print(sys.argv[1], " ".join(f"{k}={v:.0f}" for k, v in res.items()))
