#!/usr/bin/env python3
"""NumPy side of the multi-head self-attention benchmark, run next to the Rust one.

Builds the same seeded inputs as `cargo run --release -p attention --example bench_mha`
(np.random.RandomState(0): x, then w_qkv / sqrt(D), then w_o / sqrt(D)), times the same forward
(fused QKV matmul, split heads, scaled scores, causal mask if asked, stable softmax, weights @ v,
merge heads, @ w_o), runs the Rust example, checks both outputs agree to 1e-9 and prints both
medians and the ratio.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
        python3 crates/attention/benches/bench_mha.py --batch 8 --seq 256 --width 512 --heads 8

`--no-rust` times NumPy alone; `--causal` benchmarks the causal variant on both sides.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def inputs(b, t, d):
    rs = np.random.RandomState(0)
    x = rs.randn(b, t, d)
    w_qkv = rs.randn(d, 3 * d) / np.sqrt(d)
    w_o = rs.randn(d, d) / np.sqrt(d)
    return x, w_qkv, w_o


def mha_forward(x, w_qkv, w_o, heads, causal):
    """Returns (output (B, T, D), weights (B, h, T, T))."""
    b, t, d = x.shape
    hs = d // heads
    qkv = x.reshape(b * t, d) @ w_qkv  # (B*T, 3D): columns [q | k | v]
    qkv = qkv.reshape(b, t, 3, heads, hs).transpose(2, 0, 3, 1, 4)  # (3, B, h, T, hs), views
    q, k, v = qkv[0], qkv[1], qkv[2]
    scores = q @ k.transpose(0, 1, 3, 2)  # (B, h, T, T)
    scores *= 1.0 / np.sqrt(hs)
    if causal:
        scores[..., ~np.tri(t, t, dtype=bool)] = -np.inf
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    out = scores @ v  # (B, h, T, hs)
    merged = out.transpose(0, 2, 1, 3).reshape(b * t, d)  # (B*T, D)
    return (merged @ w_o).reshape(b, t, d), scores


def blas_info():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "threadpoolctl not installed (pip install threadpoolctl)"
    parts = []
    for p in threadpool_info():
        if p.get("user_api") == "blas":
            parts.append(
                f"{p.get('internal_api')} {p.get('version')} "
                f"kernel={p.get('architecture')} threads={p.get('num_threads')}"
            )
    return "; ".join(parts) or "no BLAS found by threadpoolctl"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--no-rust", action="store_true", help="time NumPy only")
    a = ap.parse_args()

    b, t, d, h = a.batch, a.seq, a.width, a.heads
    x, w_qkv, w_o = inputs(b, t, d)
    for _ in range(a.warmup):
        mha_forward(x, w_qkv, w_o, h, a.causal)
    times = []
    for _ in range(a.runs):
        t0 = time.perf_counter()
        y, _w = mha_forward(x, w_qkv, w_o, h, a.causal)
        times.append(time.perf_counter() - t0)
    np_ms = statistics.median(times) * 1e3
    flops = 2 * b * t * d * 3 * d + 2 * b * t * d * d + 2 * 2 * b * h * t * t * (d // h)
    print(f"numpy {np.__version__}; BLAS: {blas_info()}")
    print(f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '<unset>')} "
          f"OPENBLAS_L2_SIZE={os.environ.get('OPENBLAS_L2_SIZE', '<unset>')}")
    print(f"numpy: B={b} T={t} D={d} h={h} causal={a.causal}: median {np_ms:.2f} ms "
          f"({flops / (np_ms * 1e6):.1f} GFLOP/s full-work count, {flops / 1e9:.2f} GFLOP)")
    if a.no_rust:
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.f64")
        cmd = ["cargo", "run", "--quiet", "--release", "-p", "attention", "--example", "bench_mha",
               "--", "--batch", str(b), "--seq", str(t), "--width", str(d), "--heads", str(h),
               "--runs", str(a.runs), "--warmup", str(a.warmup), "--write-output", path]
        if a.causal:
            cmd.append("--causal")
        res = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
        sys.stdout.write(res.stdout)
        if res.returncode != 0:
            sys.stderr.write(res.stderr)
            return res.returncode
        y_rust = np.fromfile(path, dtype="<f8").reshape(b, t, d)
    m = re.search(r"median ([0-9.]+) ms", res.stdout)
    rust_ms = float(m.group(1))
    err = float(np.max(np.abs(y_rust - y)))
    ok = err <= 1e-9
    print(f"max |rust - numpy| = {err:.3e} ({'OK' if ok else 'MISMATCH'}, tolerance 1e-9)")
    print(f"rust {rust_ms:.2f} ms / numpy {np_ms:.2f} ms = {rust_ms / np_ms:.3f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
