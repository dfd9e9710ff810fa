//! From every submission's fingerprints to the pairs that look alike: what never counts is removed
//! first, then each pair that shares a fingerprint is scored.

use std::collections::HashMap;

/// Two submissions that look alike.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// The first student's id (the smaller).
    pub a: String,
    /// The second student's id.
    pub b: String,
    /// From 0 to 1: the share of fingerprints they have in common, over the units both wrote.
    pub score: f64,
    /// The units (exercise names, or `<lesson id>:other`) whose own share reaches the threshold.
    pub exercises: Vec<String>,
}

/// A share of the class: a fingerprint found in more submissions than this (and more than two)
/// is code every answer shares (a signature, a common idiom), like MOSS's `-m`.
pub const COMMON_SHARE: f64 = 0.3;

/// Fingerprints a unit needs, once the handout's and the common ones are gone, to count at all:
/// fewer (a one-line exercise) cannot tell copying from the only way to write it.
pub const MIN_FINGERPRINTS: usize = 6;

/// One submission's fingerprints: its id and, per unit of the comparison, the sorted hashes.
#[derive(Debug, Clone)]
pub struct Prints {
    /// The student's id.
    pub id: String,
    /// Per unit (in the order of the unit names given to [`pairs`]), sorted fingerprints.
    pub units: Vec<Vec<u64>>,
}

/// The pairs of `class` scoring at least `threshold`, highest first. `units` names the units;
/// `handout` holds, per unit, the handed-out code's fingerprints (sorted).
pub fn pairs(
    mut class: Vec<Prints>,
    units: &[String],
    handout: &[&[u64]],
    threshold: f64,
) -> Vec<Pair> {
    remove_handout_and_common(&mut class, handout);
    // Units too short to tell have no weight, in either submission of a pair.
    for p in &mut class {
        for u in &mut p.units {
            if u.len() < MIN_FINGERPRINTS {
                u.clear();
            }
        }
    }
    let shared = shared_counts(&class, units.len());
    let mut out: Vec<Pair> = shared
        .into_iter()
        .filter_map(|((i, j), per_unit)| {
            score(
                &class[i as usize],
                &class[j as usize],
                &per_unit,
                units,
                threshold,
            )
        })
        .collect();
    out.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then_with(|| (&x.a, &x.b).cmp(&(&y.a, &y.b)))
    });
    out
}

/// Removes from every unit the handout's fingerprints, then those of more than
/// [`COMMON_SHARE`] of the class (counting each submission once).
fn remove_handout_and_common(class: &mut [Prints], handout: &[&[u64]]) {
    let mut count: HashMap<u64, usize> = HashMap::new();
    for p in class.iter_mut() {
        for (u, handout) in p.units.iter_mut().zip(handout) {
            u.retain(|h| handout.binary_search(h).is_err());
        }
        let mut all: Vec<u64> = p.units.concat();
        all.sort_unstable();
        all.dedup();
        for h in all {
            *count.entry(h).or_default() += 1;
        }
    }
    let limit = ((COMMON_SHARE * class.len() as f64).ceil() as usize).max(2);
    for p in class.iter_mut() {
        for u in &mut p.units {
            u.retain(|h| count[h] <= limit);
        }
    }
}

/// For every pair of submissions sharing a fingerprint in a unit: per unit, how many they share.
fn shared_counts(class: &[Prints], n_units: usize) -> HashMap<(u32, u32), Vec<(usize, usize)>> {
    let mut out: HashMap<(u32, u32), Vec<(usize, usize)>> = HashMap::new();
    for unit in 0..n_units {
        let mut holders: HashMap<u64, Vec<u32>> = HashMap::new();
        for (i, p) in class.iter().enumerate() {
            for h in &p.units[unit] {
                holders.entry(*h).or_default().push(i as u32);
            }
        }
        let mut counts: HashMap<(u32, u32), usize> = HashMap::new();
        for list in holders.values() {
            for (n, &i) in list.iter().enumerate() {
                for &j in &list[n + 1..] {
                    *counts.entry((i, j)).or_default() += 1;
                }
            }
        }
        for (pair, n) in counts {
            out.entry(pair).or_default().push((unit, n));
        }
    }
    out
}

/// The pair `a`, `b` when it scores at least `threshold`: per unit both wrote, the share of the
/// smaller side's fingerprints they have in common; overall, the mean of those shares weighted by
/// the smaller side's size. The units listed are those at or above the threshold themselves.
fn score(
    a: &Prints,
    b: &Prints,
    shared: &[(usize, usize)],
    units: &[String],
    threshold: f64,
) -> Option<Pair> {
    let smaller = |u: usize| a.units[u].len().min(b.units[u].len());
    let weight: usize = (0..units.len()).map(smaller).sum();
    let common: usize = shared.iter().map(|(_, n)| n).sum();
    let score = common as f64 / weight.max(1) as f64;
    if score < threshold {
        return None;
    }
    let mut matched: Vec<usize> = shared
        .iter()
        .filter(|(u, n)| *n as f64 / smaller(*u) as f64 >= threshold)
        .map(|(u, _)| *u)
        .collect();
    matched.sort_unstable();
    let (a, b) = if a.id <= b.id { (a, b) } else { (b, a) };
    Some(Pair {
        a: a.id.clone(),
        b: b.id.clone(),
        score,
        exercises: matched.into_iter().map(|u| units[u].clone()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prints(id: &str, units: &[std::ops::Range<u64>]) -> Prints {
        Prints {
            id: id.to_owned(),
            units: units.iter().map(|r| r.clone().collect()).collect(),
        }
    }

    fn names() -> Vec<String> {
        vec!["one".into(), "two".into()]
    }

    #[test]
    fn a_copy_scores_its_share_and_names_the_units_that_match() {
        let class = vec![
            prints("b", &[0..20, 100..120]),
            prints("a", &[0..20, 200..220]),
            prints("c", &[300..320, 400..420]),
        ];
        let found = pairs(class, &names(), &[&[], &[]], 0.4);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].a.as_str(), found[0].b.as_str()), ("a", "b"));
        assert_eq!(found[0].score, 0.5);
        assert_eq!(found[0].exercises, ["one"]);
    }

    #[test]
    fn handout_common_and_short_fingerprints_never_count() {
        // Two students share only the handout's code.
        let two = vec![prints("a", &[0..20, 30..40]), prints("b", &[0..20, 40..50])];
        let handout: Vec<u64> = (0..20).collect();
        let per_unit = [&handout[..], &handout[..]];
        assert!(pairs(two.clone(), &names(), &per_unit, 0.01).is_empty());
        assert_eq!(pairs(two, &names(), &[&[], &[]], 0.01).len(), 1);
        // Five of six share 20..40: code every answer has.
        let six: Vec<Prints> = (0..6u64)
            .map(|i| {
                let common = if i < 5 { 20..40 } else { 90..110 };
                prints(&format!("s{i}"), &[common, 1000 + i * 10..1010 + i * 10])
            })
            .collect();
        assert!(pairs(six, &names(), &[&[], &[]], 0.01).is_empty());
        // Two share a unit of five fingerprints: too short to tell; six are enough.
        for (n, found) in [(5, 0), (MIN_FINGERPRINTS as u64, 1)] {
            let short = vec![prints("a", &[0..n, 30..40]), prints("b", &[0..n, 40..50])];
            assert_eq!(
                pairs(short, &names(), &[&[], &[]], 0.01).len(),
                found,
                "{n}"
            );
        }
    }

    #[test]
    fn the_score_is_weighted_by_size_and_pairs_come_highest_first() {
        let class = vec![
            prints("a", &[0..10, 100..130]),
            prints("b", &[0..10, 200..230]),
            prints("c", &[500..510, 100..130]),
            prints("d", &[900..910, 900..930]),
        ];
        let found = pairs(class, &names(), &[&[], &[]], 0.2);
        let got: Vec<(&str, &str, f64)> = found
            .iter()
            .map(|p| (p.a.as_str(), p.b.as_str(), p.score))
            .collect();
        assert_eq!(got, [("a", "c", 0.75), ("a", "b", 0.25)]);
        assert_eq!(found[1].exercises, ["one"]);
    }
}
