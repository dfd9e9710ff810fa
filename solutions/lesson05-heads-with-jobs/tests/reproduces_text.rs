//! The reference solution reproduces what text 4 ("Two heads, two jobs") prints: both heads name
//! "light" for "packable", about 99% in head 1, half and half in head 2, and the same-category
//! positions of "jacket".

use lesson05_solution::setup::{CATEGORY, TOKENS, argmax_first};
use lesson05_solution::*;
use ndarray::s;

#[test]
fn both_heads_name_light_for_packable() {
    let ex = worked_example();
    assert_eq!(
        ex.x.shape(),
        &[6, 9],
        "6 position features + 3 category features"
    );
    let w = ex.weights();
    let names = ["head 1: previous token", "head 2: same category"];
    for (i, name) in names.iter().enumerate() {
        let last = w.slice(s![i, 5, ..]);
        assert_eq!(
            format!(
                "{name}: 'packable' attends most to {:?}",
                TOKENS[argmax_first(last)]
            )
            .replace('"', "'"),
            format!("{name}: 'packable' attends most to 'light'")
        );
    }
    assert_eq!(
        format!("{:.2}", w[[0, 5, 4]]),
        "0.99",
        "about 99% on 'light'"
    );
    assert_eq!(format!("{:.2}", w[[1, 5, 4]]), "0.50", "half on 'light'");
    assert_eq!(format!("{:.2}", w[[1, 5, 5]]), "0.50", "half on itself");
}

#[test]
fn same_category_of_jacket() {
    assert_eq!(
        same_category(&CATEGORY, 2).unwrap(),
        [1, 2],
        "print(same) -> [1, 2]"
    );
}
