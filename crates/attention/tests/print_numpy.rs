//! `attention::print` against NumPy 2.x `print(arr)`, byte for byte.
//!
//! The fixtures in `tests/fixtures/print/` hold an input array, the print options and NumPy's
//! output; they are written by `tests/fixtures/make_print_fixtures.py` (see its docstring for the
//! format).

use std::path::{Path, PathBuf};

use attention::print::{NumpyPrint, PrintOptions, format_array, np, np_with};
use ndarray::{ArrayD, IxDyn, array};

/// One fixture file, parsed.
struct Case {
    name: String,
    array: ArrayD<f64>,
    opts: PrintOptions,
    expected: String,
}

/// The fixtures, relative to the package root, which `cargo test` runs every test in: not a path
/// compiled in, so that a copy of the package (the students' handout, which reuses this build)
/// tests its own files.
fn fixture_dir() -> PathBuf {
    PathBuf::from("tests/fixtures/print")
}

fn parse_case(path: &Path) -> Case {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (header, expected) = text
        .split_once("\n---\n")
        .unwrap_or_else(|| panic!("{name}: no `---` line"));
    let expected = expected
        .strip_suffix('\n')
        .unwrap_or_else(|| panic!("{name}: output must end with a newline"))
        .to_owned();

    let (mut shape, mut precision, mut suppress, mut values) = (None, None, None, None);
    let mut arange = None;
    for line in header.lines().filter(|l| !l.starts_with('#')) {
        let (key, rest) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("{name}: bad line {line:?}"));
        let words = rest.split_whitespace();
        match key {
            "shape" => {
                shape = Some(
                    words
                        .map(|w| w.parse::<usize>().unwrap())
                        .collect::<Vec<_>>(),
                )
            }
            "precision" => precision = Some(rest.trim().parse::<usize>().unwrap()),
            "suppress" => suppress = Some(rest.trim().parse::<bool>().unwrap()),
            "values" => values = Some(words.map(parse_f64).collect::<Vec<_>>()),
            "arange" => {
                let v: Vec<f64> = words.map(parse_f64).collect();
                arange = Some((v[0], v[1]));
            }
            _ => panic!("{name}: unknown key {key:?}"),
        }
    }
    let shape = shape.unwrap_or_else(|| panic!("{name}: no shape"));
    let len: usize = shape.iter().product();
    let values = match (values, arange) {
        (Some(v), None) => v,
        (None, Some((offset, divisor))) => {
            (0..len).map(|i| (i as f64 - offset) / divisor).collect()
        }
        _ => panic!("{name}: need exactly one of `values` and `arange`"),
    };
    let array = ArrayD::from_shape_vec(IxDyn(&shape), values)
        .unwrap_or_else(|e| panic!("{name}: values do not fit the shape: {e}"));
    Case {
        name,
        array,
        opts: PrintOptions::new(precision.unwrap(), suppress.unwrap()),
        expected,
    }
}

/// Python `repr` of a float: decimal digits, `nan`, `inf` or `-inf` (Rust parses all exactly).
fn parse_f64(word: &str) -> f64 {
    word.parse()
        .unwrap_or_else(|e| panic!("bad float {word:?}: {e}"))
}

fn all_cases() -> Vec<Case> {
    let dir = fixture_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "cannot read {} ({e}): run the tests with `cargo test`, which starts them in the \
                 package root",
                dir.display()
            )
        })
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    paths.iter().map(|p| parse_case(p)).collect()
}

#[test]
fn every_fixture_matches_numpy() {
    let cases = all_cases();
    assert!(cases.len() >= 25, "only {} fixtures", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let got = format_array(&case.array, case.opts);
        if got != case.expected {
            failures.push(format!(
                "--- {} ({:?})\nexpected:\n{}\ngot:\n{}",
                case.name, case.opts, case.expected, got
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn fixtures_cover_every_dimensionality_and_option_set() {
    let cases = all_cases();
    for ndim in 0..=4 {
        assert!(
            cases.iter().any(|c| c.array.ndim() == ndim),
            "no {ndim}-D fixture"
        );
    }
    for precision in [2, 4, 8] {
        for suppress in [false, true] {
            assert!(
                cases
                    .iter()
                    .any(|c| c.opts == PrintOptions::new(precision, suppress)),
                "no fixture with precision={precision}, suppress={suppress}"
            );
        }
    }
}

/// The rows quoted in the lesson text (`np.set_printoptions(precision=2, suppress=True)`).
#[test]
fn lesson_text_rows() {
    let w = array![
        [
            0.1203, 0.0712, 0.2811, 0.1187, 0.1004, 0.1392, 0.0873, 0.0889
        ],
        [
            0.0915, 0.0123, 0.1876, 0.0912, 0.0489, 0.0417, 0.3408, 0.2010
        ],
        [
            0.1312, 0.001, 0.2899, 0.0642, 0.2211, 0.0009, 0.1456, 0.1461
        ],
    ];
    let expected = "[[0.12 0.07 0.28 0.12 0.1  0.14 0.09 0.09]\n \
                    [0.09 0.01 0.19 0.09 0.05 0.04 0.34 0.2 ]\n \
                    [0.13 0.   0.29 0.06 0.22 0.   0.15 0.15]]";
    assert_eq!(format_array(&w, PrintOptions::lesson()), expected);
    assert_eq!(np(&w).to_string(), expected);
    assert_eq!(w.view().np().to_string(), expected);
    assert_eq!(format!("{}", w.np_with(PrintOptions::LESSON)), expected);
}

#[test]
fn defaults_are_numpys() {
    assert_eq!(PrintOptions::default(), PrintOptions::new(8, false));
    assert_eq!(PrintOptions::lesson(), PrintOptions::new(2, true));
    let a = array![1.0, 2.0, 3.0];
    assert_eq!(
        np_with(&a, PrintOptions::default()).to_string(),
        "[1. 2. 3.]"
    );
}
