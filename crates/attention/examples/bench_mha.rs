//! Benchmarks [`attention::fast::mha_forward`] on seeded inputs.
//!
//! ```text
//! cargo run --release -p attention --example bench_mha -- --batch 8 --seq 256 --width 512 --heads 8
//! ```
//!
//! Options: `--batch B --seq T --width D --heads h --runs N (10) --warmup W (2) --causal
//! --kernel auto|avx512|avx2|neon|portable (auto) --write-output PATH` (the `(B, T, D)` output as raw
//! little-endian `f64`, C order).
//!
//! The first line printed names the kernel that ran (`kernel: avx2`, or
//! `kernel: avx2 (asked for avx512, which this CPU lacks)`).
//!
//! Inputs come from `RandomState::new(0)` in this order, as in
//! `crates/attention/benches/bench_mha.py`: `x = randn(B, T, D)`,
//! `w_qkv = randn(D, 3D) / √D`, `w_o = randn(D, D) / √D`.

use attention::fast::{Kernel, MhaConfig, mha_forward};
use attention::rng::RandomState;
use std::time::Instant;

struct Args {
    batch: usize,
    seq: usize,
    width: usize,
    heads: usize,
    runs: usize,
    warmup: usize,
    causal: bool,
    kernel: Kernel,
    write_output: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        batch: 8,
        seq: 256,
        width: 512,
        heads: 8,
        runs: 10,
        warmup: 2,
        causal: false,
        kernel: Kernel::Auto,
        write_output: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--causal" {
            a.causal = true;
            continue;
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|e| format!("{flag} {value}: {e}"))
        };
        match flag.as_str() {
            "--batch" => a.batch = number()?,
            "--seq" => a.seq = number()?,
            "--width" => a.width = number()?,
            "--heads" => a.heads = number()?,
            "--runs" => a.runs = number()?.max(1),
            "--warmup" => a.warmup = number()?,
            "--kernel" => a.kernel = value.parse().map_err(|e| format!("--kernel: {e}"))?,
            "--write-output" => a.write_output = Some(value),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(a)
}

fn main() {
    let a = parse_args().unwrap_or_else(|e| {
        eprintln!(
            "bench_mha: {e}\nusage: bench_mha [--batch B] [--seq T] [--width D] [--heads h] \
             [--runs N] [--warmup W] [--causal] [--kernel auto|avx512|avx2|neon|portable] \
             [--write-output PATH]"
        );
        std::process::exit(2);
    });
    let (b, t, d, h) = (a.batch, a.seq, a.width, a.heads);
    let mut rs = RandomState::new(0);
    let x = rs.randn((b, t, d));
    let scale = 1.0 / (d as f64).sqrt();
    let w_qkv = rs.randn((d, 3 * d)) * scale;
    let w_o = rs.randn((d, d)) * scale;

    let config = MhaConfig::new(h)
        .with_causal(a.causal)
        .with_kernel(a.kernel);
    let run = || mha_forward(x.view(), w_qkv.view(), w_o.view(), config);
    let ran = a.kernel.resolve();
    if ran == a.kernel || a.kernel == Kernel::Auto {
        println!("kernel: {ran}");
    } else {
        println!(
            "kernel: {ran} (asked for {}, which this CPU lacks)",
            a.kernel
        );
    }
    for _ in 0..a.warmup {
        run().unwrap_or_else(|e| panic!("{e}"));
    }
    let mut times = Vec::with_capacity(a.runs);
    let mut out = None;
    for _ in 0..a.runs {
        let start = Instant::now();
        let result = run().unwrap_or_else(|e| panic!("{e}"));
        times.push(start.elapsed().as_secs_f64() * 1e3);
        assert_eq!(result.kernel, ran, "the forward ran another kernel");
        // The last output is kept for `--write-output`; the one before is dropped here, outside
        // the timed region (as NumPy's is), and its buffers go back to the forward's pool.
        out = Some(result);
    }
    times.sort_by(f64::total_cmp);
    let median = if a.runs % 2 == 1 {
        times[a.runs / 2]
    } else {
        (times[a.runs / 2 - 1] + times[a.runs / 2]) / 2.0
    };
    let hs = d / h;
    let flops = (2 * b * t * d * 3 * d + 2 * b * t * d * d + 2 * 2 * b * h * t * t * hs) as f64;
    let causal_note = if a.causal {
        ", causal skip counted as full work"
    } else {
        ""
    };
    println!(
        "rust ({ran}): B={b} T={t} D={d} h={h} causal={}: median {median:.2} ms over {} runs \
         (min {:.2}, max {:.2}); {:.1} GFLOP/s ({:.2} GFLOP full-work count{causal_note})",
        a.causal,
        a.runs,
        times[0],
        times[a.runs - 1],
        flops / (median * 1e6),
        flops / 1e9,
    );
    let all: Vec<String> = times.iter().map(|t| format!("{t:.3}")).collect();
    println!("times_ms: {}", all.join(" "));
    if let (Some(path), Some(y)) = (a.write_output, out) {
        let bytes: Vec<u8> = y.output.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("writing {path}: {e}"));
    }
}
