#!/usr/bin/env python3
"""NumPy side of the multi-head self-attention benchmark, run next to the Rust one.

Builds the same seeded inputs as `cargo run --release -p attention --example bench_mha`
(np.random.RandomState(0): x, then w_qkv / sqrt(D), then w_o / sqrt(D)), times the same forward
(fused QKV matmul, split heads, scaled scores, causal mask if asked, stable softmax, weights @ v,
merge heads, @ w_o), runs the Rust example, checks both outputs agree to 1e-9 and prints both
medians and the ratio.

NumPy and Rust alternate in rounds of `--runs` timed calls each. The machine is shared (other
builds and tests run on the same two cores), so each round also measures the CPU time that
other processes used while it ran (from /proc/stat, less this script's and its child's own
time); a round in which they took more than `--max-foreign` of the cores is reported and left
out. Rounds repeat until `--rounds` clean ones are in (at most `--max-rounds`); the medians are
over all timed calls of the clean rounds.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        python3 crates/attention/benches/bench_mha.py --batch 8 --seq 256 --width 512 --heads 8

`--causal` benchmarks the causal variant on both sides; `--no-rust` times NumPy alone;
`--numpy-isa avx2` holds NumPy to AVX2 + FMA (OpenBLAS's Haswell kernel, no AVX-512 ufunc loops),
the NumPy an AVX2-only machine runs, next to `--kernel avx2`;
`--rust-exe PATH` runs a prebuilt example instead of `cargo run --release`; `--kernel K`
(auto, avx512, avx2 or portable; repeatable) times each named Rust kernel in every round, next to
the same NumPy round (default: auto). Each kernel's output is checked against NumPy's.
"""

import argparse
import os
import resource
import re
import statistics
import subprocess
import sys
import tempfile
import time

# NumPy's SIMD dispatch and OpenBLAS's kernel are chosen when NumPy is imported, so
# `--numpy-isa avx2` is handled here: the script runs itself again with both held to AVX2 + FMA,
# as NumPy would run on a CPU without AVX-512.
NUMPY_AVX2_ENV = {
    "OPENBLAS_CORETYPE": "Haswell",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
}
if "--numpy-isa=avx2" in sys.argv or any(
    a == "--numpy-isa" and b == "avx2" for a, b in zip(sys.argv, sys.argv[1:])
):
    if any(os.environ.get(k) != v for k, v in NUMPY_AVX2_ENV.items()):
        os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, **NUMPY_AVX2_ENV})

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


def numpy_simd():
    """NumPy's dispatched SIMD levels that are on, e.g. "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        return "unknown"
    on = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    return " ".join(on) or "baseline only"


def busy_seconds():
    """CPU seconds spent by all processes on the machine (every core), from /proc/stat."""
    with open("/proc/stat") as f:
        vals = [int(v) for v in f.readline().split()[1:9]]
    return (sum(vals) - vals[3] - vals[4]) / os.sysconf("SC_CLK_TCK")


def own_seconds():
    """CPU seconds used by this script and its finished children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def foreign_share(fn):
    """Runs fn(); returns (its result, the share of all cores other processes used meanwhile)."""
    b0, o0, t0 = busy_seconds(), own_seconds(), time.perf_counter()
    result = fn()
    b1, o1, t1 = busy_seconds(), own_seconds(), time.perf_counter()
    foreign = max(0.0, (b1 - b0) - (o1 - o0))
    return result, foreign / ((t1 - t0) * (os.cpu_count() or 1))


def time_numpy(x, w_qkv, w_o, heads, causal, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = mha_forward(x, w_qkv, w_o, heads, causal)
        times.append((time.perf_counter() - t0) * 1e3)
        del result  # freed outside the timed region, as in the Rust example
    return times


def run_rust(a, kernel, out_path):
    if a.rust_exe:
        cmd = [a.rust_exe]
    else:
        cmd = ["cargo", "run", "--quiet", "--release", "-p", "attention", "--example",
               "bench_mha", "--"]
    cmd += ["--batch", str(a.batch), "--seq", str(a.seq), "--width", str(a.width),
            "--heads", str(a.heads), "--runs", str(a.runs), "--warmup", str(a.warmup),
            "--kernel", kernel]
    if a.causal:
        cmd.append("--causal")
    if out_path:
        cmd += ["--write-output", out_path]
    res = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stdout + res.stderr)
        sys.exit(res.returncode)
    summary = next(line for line in res.stdout.splitlines() if line.startswith("rust"))
    summary = next(line for line in res.stdout.splitlines() if line.startswith("kernel:")) + \
        "\n" + summary
    times = [float(v) for v in re.search(r"times_ms: (.*)", res.stdout).group(1).split()]
    return summary, times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--runs", type=int, default=10, help="timed calls per round and side")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3, help="clean rounds wanted")
    ap.add_argument("--max-rounds", type=int, default=20)
    ap.add_argument("--max-foreign", type=float, default=0.05,
                    help="largest share of the cores other processes may use in a clean round")
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--no-rust", action="store_true", help="time NumPy only")
    ap.add_argument("--rust-exe", help="a prebuilt bench_mha example to run instead of `cargo run`")
    ap.add_argument("--kernel", action="append", choices=["auto", "avx512", "avx2", "neon", "portable"],
                    help="Rust kernel to time (repeatable; default auto)")
    ap.add_argument("--numpy-isa", choices=["native", "avx2"], default="native",
                    help="avx2: hold NumPy's SIMD and OpenBLAS's kernel to AVX2 + FMA "
                         "(OPENBLAS_CORETYPE=Haswell, NPY_DISABLE_CPU_FEATURES), as on a CPU "
                         "without AVX-512")
    a = ap.parse_args()

    b, t, d, h = a.batch, a.seq, a.width, a.heads
    x, w_qkv, w_o = inputs(b, t, d)
    flops = 2 * b * t * d * 3 * d + 2 * b * t * d * d + 2 * 2 * b * h * t * t * (d // h)
    print(f"numpy {np.__version__}; BLAS: {blas_info()}")
    print(f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '<unset>')} "
          f"OPENBLAS_L2_SIZE={os.environ.get('OPENBLAS_L2_SIZE', '<unset>')}; "
          f"NumPy SIMD dispatch on: {numpy_simd()} (--numpy-isa {a.numpy_isa})")
    print(f"B={b} T={t} D={d} h={h} causal={a.causal}; {flops / 1e9:.2f} GFLOP full-work count "
          f"(causal skip counted as full work); {a.rounds} rounds x {a.runs} runs per side")

    kernels = [] if a.no_rust else (a.kernel or ["auto"])
    for _ in range(a.warmup):
        y, _w = mha_forward(x, w_qkv, w_o, h, a.causal)
    # Per side ("numpy" or a kernel): timed calls of the clean rounds, of all rounds, and the
    # per-round medians of the clean rounds.
    sides = ["numpy"] + kernels
    clean_times = {s: [] for s in sides}
    all_times = {s: [] for s in sides}
    round_medians = {s: [] for s in sides}
    y_rust = {}
    clean = 0
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.max_rounds):
            if clean >= a.rounds:
                break
            rounds = {}
            rounds["numpy"], foreign = foreign_share(
                lambda: time_numpy(x, w_qkv, w_o, h, a.causal, a.runs))
            for kernel in kernels:
                out_path = os.path.join(tmp, f"out-{kernel}.f64") if r == 0 else None
                (summary, times), rust_foreign = foreign_share(
                    lambda: run_rust(a, kernel, out_path))
                rounds[kernel] = times
                foreign = max(foreign, rust_foreign)
                if r == 0:
                    print(summary)
                    y_rust[kernel] = np.fromfile(out_path, dtype="<f8").reshape(b, t, d)
            ok = foreign <= a.max_foreign
            line = f"round {r + 1}: " + ", ".join(
                f"{s} median {statistics.median(rounds[s]):.2f} ms" for s in sides)
            line += f"; other processes used {100 * foreign:.0f}% of the cores"
            print(line + ("" if ok else " -> left out"))
            for s in sides:
                all_times[s] += rounds[s]
                if ok:
                    clean_times[s] += rounds[s]
                    round_medians[s].append(statistics.median(rounds[s]))
            clean += ok
    if clean < a.rounds:
        print(f"WARNING: only {clean} clean rounds in {a.max_rounds}; medians over all rounds")
        clean_times = all_times

    np_ms = statistics.median(clean_times["numpy"])
    status = 0
    for s in sides:
        ms = statistics.median(clean_times[s])
        rm = round_medians[s]
        spread = f"; round medians {min(rm):.2f}-{max(rm):.2f}" if rm else ""
        print(f"{s:>8}: median {ms:.2f} ms over {len(clean_times[s])} calls "
              f"(min {min(clean_times[s]):.2f}, max {max(clean_times[s]):.2f}{spread}) "
              f"{flops / (ms * 1e6):.1f} GFLOP/s")
    for kernel in kernels:
        ms = statistics.median(clean_times[kernel])
        err = float(np.max(np.abs(y_rust[kernel] - y)))
        ok = err <= 1e-9
        status |= not ok
        ratios = [rk / rn for rk, rn in zip(round_medians[kernel], round_medians["numpy"])]
        spread = f" (per round {min(ratios):.3f}-{max(ratios):.3f})" if ratios else ""
        print(f"{kernel}: max |rust - numpy| = {err:.3e} ({'OK' if ok else 'MISMATCH'}, "
              f"tolerance 1e-9); ratio rust / numpy = {ms / np_ms:.3f}{spread}")
    return status


if __name__ == "__main__":
    sys.exit(main())
