//! A class past one machine: `grade --submissions DIR --shard K/N` grades the K-th of N parts of
//! the class, and `class-page RDIR --merge` puts the parts' report folders back together
//! ([`crate::official::merge`]).
//!
//! The parts are cut from the class's students in id order (the roster's, else the entries'):
//! part K holds the students from position ⌊(K−1)·n/N⌋ up to, not including, ⌊K·n/N⌋. Every job
//! of a matrix reads the same class folder and roster, so the N parts are disjoint, cover the
//! class, and differ in size by at most one student.

use anyhow::{Result, bail};
use std::ops::Range;

/// Part `k` of `n` (1 ≤ k ≤ n).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shard {
    /// Which part, from 1.
    pub k: usize,
    /// Of how many.
    pub n: usize,
}

impl Shard {
    /// `K/N`, with 1 ≤ K ≤ N.
    pub fn parse(text: &str) -> Result<Shard> {
        let parsed = text
            .split_once('/')
            .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((k, n)) if 1 <= k && k <= n => Ok(Shard { k, n }),
            _ => bail!("`{text}` is no shard: write K/N, part K of N, with 1 <= K <= N (e.g. 2/4)"),
        }
    }

    /// The positions of this part among `len` students in id order.
    pub fn range(self, len: usize) -> Range<usize> {
        (self.k - 1) * len / self.n..self.k * len / self.n
    }

    /// This part of `items`, which are in id order.
    pub fn select<T>(self, mut items: Vec<T>) -> Vec<T> {
        let range = self.range(items.len());
        items.truncate(range.end);
        items.drain(..range.start);
        items
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_of_n_is_read_only_with_1_le_k_le_n() {
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { k: 2, n: 4 });
        assert_eq!(Shard::parse("1/1").unwrap().to_string(), "1/1");
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "-1/3", "1/3/4", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad} was taken");
        }
    }

    #[test]
    fn the_parts_partition_the_class_in_order_and_differ_by_at_most_one() {
        for len in 0..40 {
            for n in 1..9 {
                let ids: Vec<usize> = (0..len).collect();
                let parts: Vec<Vec<usize>> = (1..=n)
                    .map(|k| Shard { k, n }.select(ids.clone()))
                    .collect();
                assert_eq!(parts.concat(), ids, "{len} students, {n} parts");
                let sizes: Vec<usize> = parts.iter().map(Vec::len).collect();
                let (min, max) = (sizes.iter().min(), sizes.iter().max());
                assert!(max.unwrap() - min.unwrap() <= 1, "{sizes:?}");
            }
        }
    }
}
