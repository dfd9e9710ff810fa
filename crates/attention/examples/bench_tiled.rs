//! Benchmarks [`attention::tiled::tiled_attention`] against
//! [`attention::attend::scaled_dot_product`] (the plain forward, which holds the `(B, T, T)`
//! weights) on one head, seeded inputs, f64.
//!
//! ```text
//! cargo run --release -p attention --example bench_tiled -- --mode plain --seq 4096
//! cargo run --release -p attention --example bench_tiled -- --mode tiled --seq 4096
//! cargo run --release -p attention --example bench_tiled -- --mode both --seq 4096 --runs 7
//! ```
//!
//! Options: `--mode plain|tiled|both` (both), `--batch B` (1), `--seq T` (4096), `--hs hs` (64),
//! `--tile n` (128: tiles of n queries by n keys), `--runs N` (5), `--causal`.
//!
//! `plain` and `tiled` run one forward alone, `--runs` times after one warm-up, and print the
//! median, min and max time and the process's peak extra memory: Linux's `VmHWM` (the most
//! resident memory the process ever had) minus `VmRSS` after the inputs were drawn, so run each
//! in its own process. `both` alternates the two in the same process and prints the ratio of
//! their medians (tiled / plain), the comparison that noisy shared machines allow; its memory
//! line is the plain forward's. Inputs: `RandomState::new(0)`, `q`, `k`, `v` each
//! `randn(B, T, hs)`, in that order.

use attention::attend::scaled_dot_product;
use attention::mask::causal;
use attention::rng::RandomState;
use attention::tiled::{TileConfig, tiled_attention};
use ndarray::Array3;
use std::time::Instant;

/// The command line.
struct Args {
    mode: String,
    batch: usize,
    seq: usize,
    hs: usize,
    tile: usize,
    runs: usize,
    causal: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        mode: "both".to_owned(),
        batch: 1,
        seq: 4096,
        hs: 64,
        tile: 128,
        runs: 5,
        causal: false,
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
            "--mode" if ["plain", "tiled", "both"].contains(&value.as_str()) => a.mode = value,
            "--batch" => a.batch = number()?,
            "--seq" => a.seq = number()?,
            "--hs" => a.hs = number()?,
            "--tile" => a.tile = number()?,
            "--runs" => a.runs = number()?,
            _ => return Err(format!("unknown option {flag} {value}")),
        }
    }
    Ok(a)
}

/// A `kB` field of `/proc/self/status`, in bytes (`None` off Linux).
fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Median, min and max of `times`, in seconds.
fn summary(times: &mut [f64]) -> (f64, f64, f64) {
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0], times[times.len() - 1])
}

fn main() {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let mut rng = RandomState::new(0);
    let q: Array3<f64> = rng.randn((a.batch, a.seq, a.hs));
    let k: Array3<f64> = rng.randn((a.batch, a.seq, a.hs));
    let v: Array3<f64> = rng.randn((a.batch, a.seq, a.hs));
    let baseline = status_bytes("VmRSS:");
    let config = TileConfig {
        q_tile: a.tile,
        k_tile: a.tile,
        causal: a.causal,
    };
    let plain = || {
        let mask = a.causal.then(|| causal(a.seq, a.seq));
        let (out, _) = scaled_dot_product(
            q.view(),
            k.view(),
            v.view(),
            mask.as_ref().map(|m| m.view()).as_ref(),
        )
        .expect("shapes fit");
        out
    };
    let tiled = || {
        tiled_attention(q.view(), k.view(), v.view(), config)
            .expect("shapes fit")
            .0
    };
    let time = |f: &dyn Fn() -> Array3<f64>| {
        let start = Instant::now();
        std::hint::black_box(f());
        start.elapsed().as_secs_f64()
    };
    let forwards: Vec<(&str, &dyn Fn() -> Array3<f64>)> = match a.mode.as_str() {
        "plain" => vec![("plain", &plain)],
        "tiled" => vec![("tiled", &tiled)],
        _ => vec![("plain", &plain), ("tiled", &tiled)],
    };
    let mut times = vec![Vec::new(); forwards.len()];
    for (_, f) in &forwards {
        time(*f);
    }
    for _ in 0..a.runs {
        for (n, (_, f)) in forwards.iter().enumerate() {
            times[n].push(time(*f));
        }
    }
    println!(
        "B = {}, T = S = {}, hs = {}, causal = {}, tiles {} × {}",
        a.batch, a.seq, a.hs, a.causal, a.tile, a.tile
    );
    let mut medians = Vec::new();
    for ((name, _), t) in forwards.iter().zip(&mut times) {
        let (median, min, max) = summary(t);
        medians.push(median);
        println!(
            "{name}: median {median:.4} s (min {min:.4}, max {max:.4}) over {} runs",
            a.runs
        );
    }
    if let [plain_median, tiled_median] = medians[..] {
        println!("tiled / plain: {:.3}", tiled_median / plain_median);
    }
    match (baseline, status_bytes("VmHWM:")) {
        (Some(base), Some(peak)) => println!(
            "peak extra memory: {:.1} MiB",
            peak.saturating_sub(base) as f64 / (1 << 20) as f64
        ),
        _ => println!("peak extra memory: unavailable (no /proc/self/status)"),
    }
}
