//! `attention::rng::RandomState` against NumPy's legacy `RandomState`, bit for bit.
//!
//! The fixtures in `tests/fixtures/rng/` are call scripts with NumPy's outputs, written by
//! `tests/fixtures/make_rng_fixtures.py` (see its docstring for the format). Each test replays one
//! script on a `RandomState` and compares every value with `to_bits()`.

use std::iter::Peekable;
use std::path::PathBuf;

use attention::rng::RandomState;
use ndarray::{ArrayD, IxDyn, ShapeBuilder};
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv1a64(values: &[f64]) -> u64 {
    values
        .iter()
        .flat_map(|x| x.to_bits().to_le_bytes())
        .fold(FNV_OFFSET, |h, byte| {
            (h ^ u64::from(byte)).wrapping_mul(FNV_PRIME)
        })
}

fn hex_u64(s: &str) -> u64 {
    u64::from_str_radix(s, 16).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// The expected result of one call, as read from a fixture.
enum Expected {
    /// Every value: bit pattern (checked against the `repr` text too).
    Values(Vec<u64>),
    /// Count, FNV-1a hash of all bit patterns, first and last bit pattern.
    Digest {
        count: usize,
        fnv: u64,
        first: u64,
        last: u64,
    },
}

/// Reads the `= ...` value lines (or one `digest` line) that follow a call.
fn expected<'a>(lines: &mut Peekable<impl Iterator<Item = &'a str>>, what: &str) -> Expected {
    let mut values = Vec::new();
    while let Some(line) = lines.next_if(|l| l.starts_with('=') || l.starts_with("digest")) {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("digest") => {
                assert!(values.is_empty(), "{what}: digest mixed with values");
                let w: Vec<&str> = words.collect();
                return Expected::Digest {
                    count: w[0].parse().unwrap(),
                    fnv: hex_u64(w[1]),
                    first: hex_u64(w[2]),
                    last: hex_u64(w[3]),
                };
            }
            _ => {
                let b = hex_u64(words.next().unwrap());
                if let Some(repr) = words.next() {
                    let parsed: f64 = repr.parse().unwrap();
                    assert_eq!(parsed.to_bits(), b, "{what}: fixture repr {repr} != bits");
                }
                values.push(b);
            }
        }
    }
    Expected::Values(values)
}

fn check(got: &[f64], want: &Expected, what: &str) {
    match want {
        Expected::Values(bits) => {
            assert_eq!(got.len(), bits.len(), "{what}: length");
            for (i, (g, w)) in got.iter().zip(bits).enumerate() {
                assert_eq!(
                    g.to_bits(),
                    *w,
                    "{what}[{i}]: got {g:?}, NumPy {:?}",
                    f64::from_bits(*w)
                );
            }
        }
        Expected::Digest {
            count,
            fnv,
            first,
            last,
        } => {
            assert_eq!(got.len(), *count, "{what}: length");
            assert_eq!(got[0].to_bits(), *first, "{what}: first value {:?}", got[0]);
            assert_eq!(got[count - 1].to_bits(), *last, "{what}: last value");
            assert_eq!(fnv1a64(got), *fnv, "{what}: FNV-1a digest of all values");
        }
    }
}

/// Calls `randn`/`rand` with a statically typed shape chosen by rank (a `usize`, a tuple, an
/// array), and checks the same call with an `IxDyn` shape on a clone gives the same result.
fn array_call(rs: &mut RandomState, op: &str, dims: &[usize]) -> Vec<f64> {
    let call_dyn = |rs: &mut RandomState| -> ArrayD<f64> {
        match op {
            "randn" => rs.randn(IxDyn(dims)),
            _ => rs.rand(IxDyn(dims)),
        }
    };
    let mut twin = rs.clone();
    let dynamic = call_dyn(&mut twin);
    let typed: ArrayD<f64> = match (op, dims) {
        ("randn", &[n]) => rs.randn(n).into_dyn(),
        ("rand", &[n]) => rs.rand(n).into_dyn(),
        ("randn", &[a, b]) => rs.randn((a, b)).into_dyn(),
        ("rand", &[a, b]) => rs.rand((a, b)).into_dyn(),
        ("randn", &[a, b, c]) => rs.randn([a, b, c]).into_dyn(),
        ("rand", &[a, b, c]) => rs.rand([a, b, c]).into_dyn(),
        _ => call_dyn(rs),
    };
    assert_eq!(typed.shape(), dims, "{op}{dims:?}: shape");
    assert_eq!(dynamic.shape(), dims, "{op}{dims:?}: IxDyn shape");
    let typed: Vec<f64> = typed.iter().copied().collect();
    let dynamic: Vec<f64> = dynamic.iter().copied().collect();
    assert!(
        typed
            .iter()
            .zip(&dynamic)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "{op}{dims:?}: typed and IxDyn shapes disagree"
    );
    // Both generators must have ended in the same state (including the normal cache).
    assert_eq!(
        twin.standard_normal().to_bits(),
        rs.clone().standard_normal().to_bits()
    );
    typed
}

/// Replays one fixture script; returns the seeds it used and the number of calls checked.
fn replay(name: &str) -> (Vec<u32>, usize) {
    // Relative to the package root, which `cargo test` runs every test in: a copy of the package
    // (the students' handout, which reuses this build) reads its own fixtures.
    let path: PathBuf = ["tests", "fixtures", "rng", name].iter().collect();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}): run the tests with `cargo test`, which starts them in the \
             package root",
            path.display()
        )
    });
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .peekable();
    let mut rs: Option<RandomState> = None;
    let mut seeds = Vec::new();
    let mut calls = 0;
    while let Some(line) = lines.next() {
        let mut words = line.split_whitespace();
        let op = words.next().unwrap();
        let args: Vec<u64> = words.map(|w| w.parse().unwrap()).collect();
        if op == "seed" {
            let seed = u32::try_from(args[0]).unwrap();
            seeds.push(seed);
            rs = Some(RandomState::new(seed));
            continue;
        }
        let rs = rs.as_mut().expect("fixture call before any `seed` line");
        let what = format!(
            "{name}: seed {} call #{calls} `{line}`",
            seeds.last().unwrap()
        );
        let want = expected(&mut lines, &what);
        calls += 1;
        if op == "raw" {
            let Expected::Values(want) = want else {
                panic!("{what}: raw draws are stored in full")
            };
            let got: Vec<u64> = (0..args[0]).map(|_| u64::from(rs.next_u32())).collect();
            assert_eq!(got, want, "{what}: raw u32 stream");
            continue;
        }
        let got = match op {
            "random_sample" => vec![rs.random_sample()],
            "standard_normal" => vec![rs.standard_normal()],
            "randn" | "rand" => {
                let dims: Vec<usize> = args.iter().map(|&d| usize::try_from(d).unwrap()).collect();
                array_call(rs, op, &dims)
            }
            _ => panic!("{what}: unknown op {op:?}"),
        };
        check(&got, &want, &what);
    }
    assert!(calls > 0, "{name}: no calls");
    (seeds, calls)
}

#[test]
fn raw_u32_stream_matches_numpy_mt19937() {
    let (seeds, _) = replay("raw_u32.txt");
    assert_eq!(seeds, [0, 42, u32::MAX]);
}

#[test]
fn scalar_draws_match_numpy() {
    let (seeds, calls) = replay("scalars.txt");
    assert_eq!(seeds, [0, 42, u32::MAX]);
    assert_eq!(calls, 21);
}

#[test]
fn odd_count_sequence_carries_normal_cache_like_numpy() {
    // randn(3), randn((2, 3)), rand(5), randn(1) for each seed.
    let (seeds, calls) = replay("odd_sequence.txt");
    assert_eq!(seeds, [0, 42, u32::MAX]);
    assert_eq!(calls, 12);
}

#[test]
fn rand_keeps_pending_normal_like_numpy() {
    let (seeds, _) = replay("rand_keeps_cache.txt");
    assert_eq!(seeds, [42, u32::MAX]);
}

#[test]
fn three_d_shapes_match_numpy() {
    // randn(1, 6, 64) and rand(1, 6, 64) for seed 42, rand(2, 3, 4) for seed 0.
    replay("shape_3d.txt");
}

#[test]
fn lesson1_sequence_matches_numpy() {
    // Seed 42: x = randn(7, 16), then six randn(16, 8) weight matrices.
    let (seeds, calls) = replay("lesson1.txt");
    assert_eq!(seeds, [42]);
    assert_eq!(calls, 7);
}

#[test]
fn fortran_layout_is_filled_in_logical_c_order() {
    let c = RandomState::new(42).randn((3, 4));
    let f = RandomState::new(42).randn((3, 4).f());
    assert!(f.t().is_standard_layout(), "requested a Fortran layout");
    assert!(
        c.iter()
            .zip(f.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
}

#[test]
fn rand_crate_tools_work_on_random_state() {
    // `rand`'s shuffle and `RngExt` run on the raw MT19937 bits: reproducible per seed.
    let shuffled = |seed| {
        let mut v: Vec<u32> = (0..20).collect();
        v.shuffle(&mut RandomState::new(seed));
        v
    };
    let a = shuffled(42);
    assert_eq!(a, shuffled(42));
    assert_ne!(a, (0..20).collect::<Vec<_>>());
    let mut sorted = a.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..20).collect::<Vec<_>>());

    // `random::<u32>()` is one raw draw: the first MT19937 output for seed 0 (NumPy: 2357136044).
    let mut rs = RandomState::new(0);
    assert_eq!(rs.random::<u32>(), 2_357_136_044);
    let k = rs.random_range(0..10_u32);
    assert!(k < 10);
}
