//! The reference solution reproduces what lesson 9's text prints (`cargo xtask demo lesson09`).

use lesson09_solution::*;

#[test]
fn the_texts_figures() {
    let ex = worked_example();
    assert_eq!(ex.q.dim(), (1, 2, 8, 4));
}
