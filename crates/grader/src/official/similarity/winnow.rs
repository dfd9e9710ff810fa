//! Fingerprints of a token stream by winnowing (Schleimer, Wilkerson and Aiken, "Winnowing: Local
//! Algorithms for Document Fingerprinting", SIGMOD 2003): hash every k-gram of tokens, then keep
//! the smallest hash of every window of `W` consecutive k-grams.
//!
//! Two streams that share a run of at least `W + K - 1` tokens share a fingerprint, and runs shorter
//! than `K` tokens are never seen.

use super::normalize::Token;

/// Tokens per k-gram. Identifiers are all one token, so short runs (`let _ = _(_, _)?;`, 10
/// tokens) are everywhere: 13 tokens is about a line and a half of code, rarely shared by chance.
pub const K: usize = 13;

/// k-grams per window: any shared run of `W + K - 1 = 20` tokens (about two lines) is found,
/// while a function keeps about one fingerprint in four tokens (`2 / (W + 1)`).
pub const W: usize = 8;

/// The fingerprints of `tokens`, sorted and without repeats; none when it is shorter than [`K`].
pub fn fingerprints(tokens: &[Token]) -> Vec<u64> {
    let hashes = kgram_hashes(tokens);
    let mut out = Vec::new();
    if hashes.is_empty() {
        return out;
    }
    // The rightmost smallest hash of each window (the paper's "robust winnowing"): a run of equal
    // hashes gives one fingerprint, not one per window.
    let width = W.min(hashes.len());
    let mut last = usize::MAX;
    for start in 0..=hashes.len() - width {
        let window = &hashes[start..start + width];
        let mut pick = 0;
        for (i, h) in window.iter().enumerate() {
            if *h <= window[pick] {
                pick = i;
            }
        }
        if start + pick != last {
            last = start + pick;
            out.push(hashes[last]);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The hash of each k-gram of `tokens`, by a rolling polynomial hash, then mixed so that the
/// smallest of a window is any k-gram's, not the one whose tokens have the smallest codes.
pub fn kgram_hashes(tokens: &[Token]) -> Vec<u64> {
    const BASE: u64 = 0x100_0000_01b3;
    if tokens.len() < K {
        return Vec::new();
    }
    let top = (1..K).fold(1u64, |p, _| p.wrapping_mul(BASE));
    let mut h = 0u64;
    let mut out = Vec::with_capacity(tokens.len() - K + 1);
    for (i, &t) in tokens.iter().enumerate() {
        if i >= K {
            h = h.wrapping_sub(u64::from(tokens[i - K]).wrapping_mul(top));
        }
        h = h.wrapping_mul(BASE).wrapping_add(u64::from(t));
        if i + 1 >= K {
            out.push(mix(h));
        }
    }
    out
}

/// SplitMix64's finaliser: every bit of the result depends on every bit of `h`.
fn mix(mut h: u64) -> u64 {
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(seed: u32, n: usize) -> Vec<Token> {
        (0..n as u64)
            .map(|i| (mix(i ^ (u64::from(seed) << 32)) % 50) as Token)
            .collect()
    }

    #[test]
    fn a_rolling_hash_equals_the_hash_of_each_kgram_alone() {
        let t = stream(7, 40);
        let all = kgram_hashes(&t);
        assert_eq!(all.len(), 40 - K + 1);
        for (i, h) in all.iter().enumerate() {
            assert_eq!(*h, kgram_hashes(&t[i..i + K])[0]);
        }
    }

    #[test]
    fn a_shared_run_of_w_plus_k_minus_1_tokens_shares_a_fingerprint() {
        let run = stream(1, W + K - 1);
        for (before, after) in [(0, 0), (5, 31), (60, 3)] {
            let a = [stream(2, before), run.clone(), stream(3, after)].concat();
            let b = [stream(4, after + 9), run.clone(), stream(5, before)].concat();
            let (fa, fb) = (fingerprints(&a), fingerprints(&b));
            assert!(
                fa.iter().any(|h| fb.binary_search(h).is_ok()),
                "{before} {after}"
            );
        }
        assert!(fingerprints(&stream(1, K - 1)).is_empty());
        assert_eq!(fingerprints(&stream(1, K)).len(), 1);
    }

    #[test]
    fn about_two_fingerprints_per_window() {
        let n = fingerprints(&stream(9, 10_000)).len();
        let expected = 2 * 10_000 / (W + 1);
        assert!(n > expected * 8 / 10 && n < expected * 12 / 10, "{n}");
    }
}
