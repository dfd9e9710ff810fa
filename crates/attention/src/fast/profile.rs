//! Timings of the forward and its parts (`cargo test --release -p attention --features profile --lib -- --ignored
//! --nocapture profile`): not checks, a tool for tuning the kernels. The parts run on one
//! thread, `B = 1`; each figure is the fastest of several calls, the least disturbed by other
//! work on a shared machine.

use super::gemm::PackedB;
use super::kernel::{Isa, Kernel};
use super::softmax::softmax_rows;
use super::{Shape, pool};
use crate::rng::RandomState;
use ndarray::{Array2, ArrayView2, ArrayViewMut2, ArrayViewMut3, Axis};
use std::time::Instant;

/// The benchmark's sizes (`bench_mha.py`'s defaults): `T`, `D`, heads `h`; `B = 8` where a whole
/// forward runs.
const T: usize = 256;
const D: usize = 512;
const HEADS: usize = 8;

/// The fastest of `3 · runs` calls of `f` (after one warm-up call), in wall-clock milliseconds: on a machine shared with
/// other work, the least disturbed call.
fn fastest_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    (0..runs * 3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

/// The benchmark's weights (`bench_mha`'s): `w_qkv = randn(D, 3D) / √D`, `w_o = randn(D, D) /
/// √D`, drawn from `rs` in that order. Unscaled, the scores would be `√D` times larger and the
/// softmax rows nearly one-hot, unlike the benchmark's.
fn benchmark_weights(rs: &mut RandomState, d: usize) -> (Array2<f64>, Array2<f64>) {
    let scale = 1.0 / (d as f64).sqrt();
    let w_qkv: Array2<f64> = rs.randn((d, 3 * d)) * scale;
    let w_o: Array2<f64> = rs.randn((d, d)) * scale;
    (w_qkv, w_o)
}

/// The kernels of `kernels` that this CPU runs as asked, each with its level (a kernel the CPU
/// lacks would fall back to another, whose figures would be printed under the wrong name).
fn levels(kernels: &[Kernel]) -> impl Iterator<Item = (Kernel, Isa)> + '_ {
    kernels
        .iter()
        .map(|&kernel| (kernel, Isa::new(kernel)))
        .filter(|(kernel, isa)| isa.kernel() == *kernel)
}

#[test]
#[ignore = "timings, not a check"]
fn profile() {
    let (t, d, heads) = (T, D, HEADS);
    let hs = d / heads;
    let mut rs = RandomState::new(0);
    let x: Array2<f64> = rs.randn((t, d));
    let (w_qkv, w_o) = benchmark_weights(&mut rs, d);
    for (kernel, isa) in levels(&Kernel::ALL) {
        let mut qkv = Array2::<f64>::zeros((t, 3 * d));
        let mut out = Array2::<f64>::zeros((t, d));
        let pq = PackedB::new(w_qkv.view(), 1, isa);
        let po = PackedB::new(w_o.view(), 1, isa);
        let ms_qkv = fastest_ms(21, || pq.matmul(1.0, x.view(), qkv.view_mut()));
        let ms_o = fastest_ms(21, || po.matmul(1.0, x.view(), out.view_mut()));
        let ms_pack = fastest_ms(21, || drop(PackedB::new(w_qkv.view(), 1, isa)));
        let mut w = vec![0.0; heads * t * t];
        let mut merged = Array2::<f64>::zeros((t, d));
        let shape = Shape {
            t,
            d,
            hs,
            causal: true,
            isa,
        };
        let ms_att = fastest_ms(21, || {
            attend_heads(&shape, qkv.view(), &mut w, merged.view_mut())
        });
        let mut sm = vec![0.5; heads * t * t];
        let ms_soft = fastest_ms(21, || {
            for (i, c) in sm.chunks_mut(t * t).enumerate() {
                let rows = ArrayViewMut2::from_shape((t, t), c).unwrap();
                softmax_rows(rows, if i % 2 == 0 { Some(0) } else { None }, isa);
            }
        });
        let gf = |flops: f64, ms: f64| flops / ms / 1e6;
        let fq = 2.0 * (t * d * 3 * d) as f64;
        let fo = 2.0 * (t * d * d) as f64;
        println!(
            "{kernel:>8}: qkv {ms_qkv:.2} ms ({:.1} GFLOP/s), out {ms_o:.2} ms ({:.1}), pack w_qkv \
             {ms_pack:.2} ms, causal attention (8 heads) {ms_att:.2} ms, softmax (8 full) {ms_soft:.2} ms",
            gf(fq, ms_qkv),
            gf(fo, ms_o),
        );
        drop(pool::take(0));
    }
}

/// [`Shape::attend_heads`] with the `(h, T, T)` weights in a flat buffer `w`.
fn attend_heads(shape: &Shape, qkv: ArrayView2<f64>, w: &mut [f64], merged: ArrayViewMut2<f64>) {
    let heads = w.len() / (shape.t * shape.t);
    let w = ArrayViewMut3::from_shape((heads, shape.t, shape.t), w).unwrap();
    shape.attend_heads(qkv, w, merged);
}

/// The benchmark's inputs for `b` batch elements (`bench_mha`'s, seed 0): `x (b, T, D)`, then
/// [`benchmark_weights`].
fn benchmark_inputs(b: usize) -> (ndarray::Array3<f64>, Array2<f64>, Array2<f64>) {
    let mut rs = RandomState::new(0);
    let x = rs.randn((b, T, D));
    let (w_qkv, w_o) = benchmark_weights(&mut rs, D);
    (x, w_qkv, w_o)
}

/// What the forward runs `b` batch elements through on one thread, at the benchmark's sizes with
/// the causal mask: the heads' [`Shape`], the `(B, h, T, T)` weights, the `(B, T, D)` output and
/// the forward's own scratch buffers (aligned, padded rows).
fn sequence_buffers(b: usize, isa: Isa) -> (Shape, Vec<f64>, ndarray::Array3<f64>, super::Scratch) {
    let shape = Shape {
        t: T,
        d: D,
        hs: D / HEADS,
        causal: true,
        isa,
    };
    let weights = vec![0.0; b * HEADS * T * T];
    let out = ndarray::Array3::<f64>::zeros((b, T, D));
    (shape, weights, out, super::Scratch::new(T, D))
}

/// The forward's phases in the order it runs them, on one thread (`B = 4`, the benchmark's
/// inputs): the two weight matrices packed once per call, then per batch element its `qkv`
/// product, its heads' attention and its output product, through the same scratch buffers
/// (`cargo test --release -p attention --features profile --lib -- --ignored --nocapture
/// --test-threads=1 forward_phases`). Means over 10 calls after a warm-up call, for each SIMD
/// level the CPU has; set against `profile`'s parts alone, they show what running the parts in
/// sequence costs (the forward splits the batch over the cores, each running these phases).
#[test]
#[ignore = "timings, not a check"]
fn profile_forward_phases() {
    let (b, t, heads, calls) = (4, T, HEADS, 10);
    let (x, w_qkv, w_o) = benchmark_inputs(b);
    for (kernel, isa) in levels(&Kernel::ALL) {
        let (shape, mut weights, mut out, mut scratch) = sequence_buffers(b, isa);
        let (mut qkv, mut merged) = scratch.views();
        // Milliseconds summed over the calls after the first: packing, `qkv`, attention, `out`.
        let mut ms = [0.0; 4];
        for call in 0..=calls {
            let mut lap = [0.0; 4];
            let mut clock = Instant::now();
            let mut tick = |phase: usize, lap: &mut [f64; 4]| {
                lap[phase] += clock.elapsed().as_secs_f64() * 1e3;
                clock = Instant::now();
            };
            let (pq, po) = (
                PackedB::new(w_qkv.view(), 1, isa),
                PackedB::new(w_o.view(), 1, isa),
            );
            tick(0, &mut lap);
            let elements = x.outer_iter().zip(weights.chunks_mut(heads * t * t));
            for ((xb, wb), ob) in elements.zip(out.outer_iter_mut()) {
                pq.matmul(1.0, xb, qkv.view_mut());
                tick(1, &mut lap);
                attend_heads(&shape, qkv.view(), wb, merged.view_mut());
                tick(2, &mut lap);
                po.matmul(1.0, merged.view(), ob);
                tick(3, &mut lap);
            }
            if call > 0 {
                ms.iter_mut().zip(lap).for_each(|(m, l)| *m += l);
            }
        }
        let per = |phase: usize, n: usize| ms[phase] / (calls * n) as f64;
        println!(
            "{kernel:>8}: packing the weights {:.2} ms per call; per batch element: qkv {:.2} ms, \
             attention ({heads} heads) {:.2} ms, out {:.2} ms (means of {calls} calls, one thread, B = {b})",
            per(0, 1),
            per(1, b),
            per(2, b),
            per(3, b),
        );
    }
}

#[test]
#[ignore = "timings, not a check"]
fn profile_forward_overheads() {
    use ndarray::{Array3, Array4};
    let (b, t, d, heads) = (8, T, D, HEADS);
    let (x, w_qkv, w_o) = benchmark_inputs(b);
    for kernel in [Kernel::Avx512, Kernel::Avx2] {
        let config = super::MhaConfig::new(heads)
            .with_causal(true)
            .with_kernel(kernel);
        let ms = fastest_ms(5, || {
            drop(super::mha_forward(x.view(), w_qkv.view(), w_o.view(), config).unwrap());
        });
        println!("{kernel}: forward {ms:.2} ms (fastest of 15)");
    }
    // Fresh output arrays, every page written once, by two threads.
    let mut keep = Vec::new();
    let ms = fastest_ms(5, || {
        let mut w = Array4::<f64>::zeros((b, heads, t, t));
        let mut o = Array3::<f64>::zeros((b, t, d));
        std::thread::scope(|s| {
            let (w1, w2) = w.view_mut().split_at(Axis(0), b / 2);
            let (o1, o2) = o.view_mut().split_at(Axis(0), b / 2);
            s.spawn(move || {
                let (mut w1, mut o1) = (w1, o1);
                w1.fill(1.0);
                o1.fill(1.0);
            });
            let (mut w2, mut o2) = (w2, o2);
            w2.fill(1.0);
            o2.fill(1.0);
        });
        keep.push((w, o));
        if keep.len() > 2 {
            keep.remove(0);
        }
    });
    println!("fresh (B, h, T, T) + (B, T, D), filled by 2 threads (freed later): {ms:.2} ms");
}

/// The machine's FMA peak: the SIMD levels exist only with the `simd` feature.
#[cfg(feature = "simd")]
mod peak {

    /// Ten independent chains of fused multiply-adds on one level's vectors (enough to cover the
    /// FMA latency of two units): the throughput no GEMM kernel of that level can beat.
    struct FmaChains<S>(S, usize);

    impl<S: super::super::gemm::tiles::Lanes> pulp::NullaryFnOnce for FmaChains<S> {
        type Output = f64;

        #[inline(always)]
        fn call(self) -> f64 {
            let FmaChains(simd, steps) = self;
            let (a, b) = (
                simd.splat(std::hint::black_box(1.0 - 1e-9)),
                simd.splat(std::hint::black_box(1e-9)),
            );
            let mut acc = [simd.splat(std::hint::black_box(1.0)); 10];
            for _ in 0..steps {
                for x in &mut acc {
                    *x = simd.mul_add(*x, a, b);
                }
            }
            acc.iter()
                .map(|v| pulp::bytemuck::cast_slice::<S::V, f64>(std::slice::from_ref(v))[0])
                .sum()
        }
    }

    /// GFLOP/s of [`FmaChains`] on one thread, the best of nine runs of about 0.2 s.
    fn fma_gflops<S: super::super::gemm::tiles::Lanes>(simd: S) -> f64 {
        let steps = 4_000_000;
        let flops = (steps * 10 * S::W * 2) as f64;
        let ms = super::fastest_ms(3, || {
            std::hint::black_box(simd.vectorize(FmaChains(simd, std::hint::black_box(steps))));
        });
        flops / ms / 1e6
    }

    /// The machine's fused multiply-add peak per SIMD level, on one thread and on every core at
    /// once (`cargo test --release -p attention --features profile --lib -- --ignored --nocapture fma_peak`), and the
    /// shortest time the causal benchmark forward (`B = 8, T = 256, D = 512, h = 8`) could take at
    /// that peak: its two projections (4.29 GFLOP) plus at least half of the attention's 1.07
    /// GFLOP. The ratio targets are set against NumPy; this says how far any kernel could go.
    #[test]
    #[ignore = "timings, not a check"]
    fn fma_peak() {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let (b, t, d) = (8.0, 256.0, 512.0);
        let least_gflop =
            (2.0 * b * t * d * 3.0 * d + 2.0 * b * t * d * d + 2.0 * b * t * t * d) / 1e9;
        let report = |name: &str, one: f64, all: f64| {
            println!(
                "{name}: one thread {one:.1} GFLOP/s, {threads} threads at once {all:.1} GFLOP/s in \
                 all; the causal benchmark forward ({least_gflop:.2} GFLOP at least) needs at least \
                 {:.1} ms at that peak",
                least_gflop / all * 1e3
            );
        };
        let run = |f: &(dyn Fn() -> f64 + Sync)| {
            let one = f();
            let all: f64 = std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads).map(|_| s.spawn(f)).collect();
                handles.into_iter().map(|h| h.join().unwrap()).sum()
            });
            (one, all)
        };
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(simd) = pulp::x86::V4::try_new() {
                let (one, all) = run(&|| fma_gflops(simd));
                report("avx512", one, all);
            }
            if let Some(simd) = pulp::x86::V3::try_new() {
                let (one, all) = run(&|| fma_gflops(simd));
                report("avx2", one, all);
            }
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(simd) = pulp::aarch64::Neon::try_new() {
            let (one, all) = run(&|| fma_gflops(simd));
            report("neon", one, all);
        }
    }
}

/// One causal head's attention split into its parts, one thread, `T = 256, hs = 64`, for each
/// SIMD level the CPU has: packing the keys and values, the scores, the softmax and
/// `weights @ v`, each over the level's causal query blocks
/// (`cargo test --release -p attention --features profile --lib -- --ignored --nocapture attention_parts`).
#[test]
#[ignore = "timings, not a check"]
fn profile_attention_parts() {
    use super::gemm::Skip;
    use ndarray::s;
    let (t, d, heads) = (T, D, HEADS);
    let hs = d / heads;
    let mut rs = RandomState::new(0);
    let qkv: Array2<f64> = rs.randn((t, 3 * d));
    let scale = 1.0 / (hs as f64).sqrt();
    let q = qkv.slice(s![.., 0..hs]);
    let k = qkv.slice(s![.., d..d + hs]);
    let v = qkv.slice(s![.., 2 * d..2 * d + hs]);
    for (kernel, isa) in levels(&[Kernel::Avx512, Kernel::Avx2, Kernel::Neon]) {
        let mut w = Array2::<f64>::zeros((t, t));
        let mut o = Array2::<f64>::zeros((t, hs));
        let pack = fastest_ms(41, || {
            drop((PackedB::new(k.t(), 1, isa), PackedB::new(v, 1, isa)));
        });
        let kt = PackedB::new(k.t(), 1, isa);
        let vp = PackedB::new(v, 1, isa);
        let blocks = || super::causal_blocks(t, isa);
        let scores = fastest_ms(41, || {
            for (r0, r1) in blocks() {
                kt.matmul_prefix(
                    scale,
                    q.slice(s![r0..r1, ..]),
                    w.slice_mut(s![r0..r1, ..r1]),
                    Skip::MaskedC { r0 },
                )
            }
        });
        let soft = fastest_ms(41, || {
            // Whole rows, as the forward runs it: the keys `r1..` are zeroed here too.
            for (r0, r1) in blocks() {
                softmax_rows(w.slice_mut(s![r0..r1, ..]), Some(r0), isa)
            }
        });
        let av = fastest_ms(41, || {
            for (r0, r1) in blocks() {
                vp.matmul_prefix(
                    1.0,
                    w.slice(s![r0..r1, ..r1]),
                    o.slice_mut(s![r0..r1, ..]),
                    Skip::ZeroA { r0 },
                )
            }
        });
        println!(
            "{kernel:>6}, one head: pack k, v {pack:.3} ms, scores {scores:.3} ms, softmax {soft:.3} ms, \
             weights @ v {av:.3} ms"
        );
    }
}

/// Other tile shapes and blockings against the one in use, on the `(T, D) @ (D, 3D)` projection,
/// one thread, for each x86 level the CPU has: AVX-512 (in use: `8 × 16`, `KC = 512`,
/// `MC = 256`) and AVX2 (in use: `6 × 8`, `KC = 256`, `MC = 96`, or 264 on AMD)
/// (`cargo test --release -p attention --features profile --lib -- --ignored --nocapture blocking`).
/// The variants take turns in each of 30 rounds and each is reported as its median ratio to the
/// first variant of the same round, so that the machine's drift (this VM's speed moves by half
/// within minutes) cancels out.
#[cfg(all(feature = "simd", target_arch = "x86_64"))]
#[test]
#[ignore = "timings, not a check"]
fn profile_blocking() {
    use super::gemm::Skip;
    use super::gemm::tiles::Tiles;
    let (t, d) = (T, D);
    let mut rs = RandomState::new(0);
    let x: Array2<f64> = rs.randn((t, d));
    let w: Array2<f64> = rs.randn((d, 3 * d));
    let (x, w) = (&x, &w);
    /// One variant: the level's type and value, `MR`, vectors per row of a tile, lanes per
    /// vector, `KC`, `MC`.
    macro_rules! variant {
        ($level:ty, $simd:expr, $mr:literal, $nv:literal, $lanes:literal, $kc:literal, $mc:literal) => {{
            type T = Tiles<$level, $mr, $nv, { $nv * $lanes }, $kc>;
            let simd = $simd;
            let (buf, off) = T::pack_all(w.view(), 1);
            let name = format!("{}x{} KC {} MC {}", $mr, $nv * $lanes, $kc, $mc);
            (
                name,
                Box::new(move |c: &mut Array2<f64>| {
                    let panels = &buf[off..off + T::packed_len(d, 3 * d)];
                    T::matmul(
                        simd,
                        1.0,
                        x.view(),
                        panels,
                        (d, 3 * d),
                        c.view_mut(),
                        Skip::None,
                        $mc,
                    )
                }) as Box<dyn Fn(&mut Array2<f64>)>,
            )
        }};
    }
    /// The variants of one level, `(MR, vectors per row, KC, MC)` each; the first is the one in
    /// use (for AVX2: on Intel; AMD uses the second).
    macro_rules! variants {
        ($level:ty, $simd:expr, $lanes:literal: $(($mr:literal, $nv:literal, $kc:literal, $mc:literal)),+ $(,)?) => {
            [$(variant!($level, $simd, $mr, $nv, $lanes, $kc, $mc)),+]
        };
    }
    if let Some(v4) = pulp::x86::V4::try_new() {
        println!("AVX-512:");
        #[rustfmt::skip]
        let variants = variants!(pulp::x86::V4, v4, 8:
            (8, 2, 512, 256), (8, 2, 256, 256), (8, 2, 384, 256), (8, 2, 512, 128),
            (12, 2, 512, 96), (14, 2, 256, 112), (8, 3, 512, 128),
        );
        race(t, d, &variants);
    }
    if let Some(v3) = pulp::x86::V3::try_new() {
        println!("AVX2:");
        #[rustfmt::skip]
        let variants = variants!(pulp::x86::V3, v3, 4:
            (6, 2, 256, 96), (6, 2, 256, 264), (6, 2, 256, 132), (6, 2, 256, 48),
            (6, 2, 512, 96), (6, 2, 512, 264), (6, 2, 128, 96),
        );
        race(t, d, &variants);
    }
}

/// A blocking to race: its name and the product it runs into a `(t, 3d)` output.
#[cfg(all(feature = "simd", target_arch = "x86_64"))]
type Variant<'a> = (String, Box<dyn Fn(&mut Array2<f64>) + 'a>);

/// Runs `variants` (a name and a product into a `(t, 3d)` output) in turns, 30 rounds, and
/// prints each one's median ratio to the first and its best time.
#[cfg(all(feature = "simd", target_arch = "x86_64"))]
fn race(t: usize, d: usize, variants: &[Variant<'_>]) {
    let mut c = Array2::<f64>::zeros((t, 3 * d));
    let mut ratios = vec![Vec::new(); variants.len()];
    let mut best = vec![f64::INFINITY; variants.len()];
    for _ in 0..30 {
        let ms: Vec<f64> = variants
            .iter()
            .map(|(_, f)| {
                (0..3)
                    .map(|_| {
                        let t0 = Instant::now();
                        f(&mut c);
                        t0.elapsed().as_secs_f64() * 1e3
                    })
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        for i in 0..variants.len() {
            ratios[i].push(ms[i] / ms[0]);
            best[i] = best[i].min(ms[i]);
        }
    }
    for (i, (name, _)) in variants.iter().enumerate() {
        let r = &mut ratios[i];
        r.sort_by(f64::total_cmp);
        println!(
            "{name}: median ratio to the first {:.3} (quartiles {:.3}-{:.3}), best {:.2} ms",
            r[15], r[7], r[22], best[i]
        );
    }
}

/// The attention's parts where the forward runs them: per batch element right after its `qkv`
/// product, the scores written into a reused `(B, h, T, T)` buffer as the forward writes its
/// recycled output (16 MiB here, out of the private caches between uses), one thread, `B = 4`
/// (`cargo test --release -p attention --features profile --lib -- --ignored --nocapture
/// attention_in_context`). Means per batch element over 10 calls, for each SIMD level the CPU
/// has: set against `profile_attention_parts` (one head, everything in cache), they show what
/// running in sequence costs each part. The loop is [`super::Head::attend`]'s causal one, timed.
#[test]
#[ignore = "timings, not a check"]
fn profile_attention_in_context() {
    use super::gemm::Skip;
    use ndarray::s;
    let (b, t, heads, calls) = (4, T, HEADS, 10);
    let (x, w_qkv, w_o) = benchmark_inputs(b);
    for (kernel, isa) in levels(&[Kernel::Avx512, Kernel::Avx2, Kernel::Neon]) {
        let (shape, mut weights, mut out, mut scratch) = sequence_buffers(b, isa);
        let (hs, scale) = (shape.hs, 1.0 / (shape.hs as f64).sqrt());
        let (mut qkv, mut merged) = scratch.views();
        let (pq, po) = (
            PackedB::new(w_qkv.view(), 1, isa),
            PackedB::new(w_o.view(), 1, isa),
        );
        // Milliseconds summed over the calls after the first: pack k and v, scores, softmax,
        // weights @ v.
        let mut ms = [0.0; 4];
        for call in 0..=calls {
            let mut lap = [0.0; 4];
            let elements = x.outer_iter().zip(weights.chunks_mut(heads * t * t));
            for ((xb, wb), ob) in elements.zip(out.outer_iter_mut()) {
                pq.matmul(1.0, xb, qkv.view_mut());
                let mut w = ndarray::ArrayViewMut3::from_shape((heads, t, t), wb).unwrap();
                for hi in 0..heads {
                    let mut clock = Instant::now();
                    let mut tick = |part: usize| {
                        lap[part] += clock.elapsed().as_secs_f64() * 1e3;
                        clock = Instant::now();
                    };
                    let head = shape.head(
                        qkv.view(),
                        0,
                        hi,
                        w.index_axis_mut(Axis(0), hi),
                        merged.slice_mut(s![.., hi * hs..(hi + 1) * hs]),
                    );
                    let super::Head {
                        q,
                        k,
                        v,
                        mut w,
                        mut o,
                    } = head;
                    let (kt, vp) = (PackedB::new(k.t(), 1, isa), PackedB::new(v, 1, isa));
                    tick(0);
                    for (r0, r1) in super::causal_blocks(t, isa) {
                        kt.matmul_prefix(
                            scale,
                            q.slice(s![r0..r1, ..]),
                            w.slice_mut(s![r0..r1, ..r1]),
                            Skip::MaskedC { r0 },
                        );
                        tick(1);
                        softmax_rows(w.slice_mut(s![r0..r1, ..]), Some(r0), isa);
                        tick(2);
                        vp.matmul_prefix(
                            1.0,
                            w.slice(s![r0..r1, ..r1]),
                            o.slice_mut(s![r0..r1, ..]),
                            Skip::ZeroA { r0 },
                        );
                        tick(3);
                    }
                }
                po.matmul(1.0, merged.view(), ob);
            }
            if call > 0 {
                ms.iter_mut().zip(lap).for_each(|(m, l)| *m += l);
            }
        }
        let per = |part: usize| ms[part] / (calls * b) as f64;
        println!(
            "{kernel:>6}, per batch element ({heads} heads), in the forward's order: pack k, v {:.3} ms, \
             scores {:.3} ms, softmax {:.3} ms, weights @ v {:.3} ms (means of {calls} calls, B = {b})",
            per(0),
            per(1),
            per(2),
            per(3),
        );
    }
}
