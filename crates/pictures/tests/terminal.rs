//! The terminal renderer: ramp vs colour, the environment's say, labels, layout.

use ndarray::array;
use pictures::term::{ColorMode, RAMP, cell, render};
use pictures::{Demo, Figure, Options};

fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| (*v).to_owned())
    }
}

fn two_heads() -> Figure {
    Figure::new("two", "two heads")
        .labels(&["the", "rain", "jacket"], &["the", "rain", "jacket"])
        .panel(
            "head 0",
            array![[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]].view(),
        )
        .panel(
            "head 1",
            array![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]].view(),
        )
}

#[test]
fn colour_only_on_a_terminal_without_no_color() {
    assert_eq!(ColorMode::choose(false, env(&[])), ColorMode::Ramp);
    assert_eq!(
        ColorMode::choose(false, env(&[("COLORTERM", "truecolor")])),
        ColorMode::Ramp
    );
    assert_eq!(ColorMode::choose(true, env(&[])), ColorMode::Ansi256);
    assert_eq!(
        ColorMode::choose(true, env(&[("COLORTERM", "truecolor")])),
        ColorMode::TrueColor
    );
    assert_eq!(
        ColorMode::choose(true, env(&[("COLORTERM", "24bit")])),
        ColorMode::TrueColor
    );
    assert_eq!(
        ColorMode::choose(true, env(&[("NO_COLOR", "1"), ("COLORTERM", "truecolor")])),
        ColorMode::Ramp
    );
    // no-color.org: an empty NO_COLOR does not count.
    assert_eq!(
        ColorMode::choose(true, env(&[("NO_COLOR", "")])),
        ColorMode::Ansi256
    );
    assert_eq!(
        ColorMode::choose(true, env(&[("TERM", "dumb")])),
        ColorMode::Ramp
    );
}

#[test]
fn the_ramp_has_no_escape_codes_and_spans_blank_to_at() {
    let text = render(&two_heads(), ColorMode::Ramp, 100);
    assert!(!text.contains('\x1b'), "{text}");
    assert!(!text.contains('█'), "{text}");
    assert_eq!(cell(0.0, ColorMode::Ramp), "  ");
    assert_eq!(cell(1.0, ColorMode::Ramp), "@@");
    assert_eq!(cell(0.5, ColorMode::Ramp), "++"); // 0.5 x 9 = 4.5 rounds up to index 5
    // Every level maps into the ramp, monotonically.
    let mut last = 0;
    for i in 0..=100 {
        let c = cell(f64::from(i) / 100.0, ColorMode::Ramp)
            .chars()
            .next()
            .unwrap();
        let at = RAMP.find(c).unwrap();
        assert!(at >= last);
        last = at;
    }
    // Row 1 of head 0 is [0.5, 0.5, 0]: two middle cells and a blank one.
    assert!(text.contains("1 rain   ++++    "), "{text}");
}

#[test]
fn colour_modes_shade_with_blocks_and_escapes() {
    let tc = render(&two_heads(), ColorMode::TrueColor, 100);
    assert!(tc.contains("\x1b[38;2;253;231;37m██\x1b[0m"), "1 is yellow");
    assert!(
        tc.contains("\x1b[38;2;68;1;84m██\x1b[0m"),
        "0 is dark purple"
    );
    let c256 = render(&two_heads(), ColorMode::Ansi256, 100);
    assert!(c256.contains("\x1b[38;5;"), "{c256}");
    assert!(!c256.contains("38;2;"));
    assert_ne!(cell(0.0, ColorMode::Ansi256), cell(1.0, ColorMode::Ansi256));
}

#[test]
fn labels_titles_and_axes_are_drawn() {
    let text = render(&two_heads(), ColorMode::Ramp, 100);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "two heads (rows: query, columns: key)");
    // Both panels side by side on one band.
    assert!(
        lines[1].starts_with("head 0") && lines[1].contains("head 1"),
        "{text}"
    );
    assert!(lines[2].contains(" 0 1 2"), "column numbers: {text}");
    assert!(lines[3].starts_with("0 the    @@"), "{text}");
    assert!(lines[5].starts_with("2 jacket "), "{text}");
    assert!(text.contains("scale: \" .:-=+*#%@\" from 0 (blank) to 1 (@)"));
}

#[test]
fn column_words_are_listed_when_they_differ_from_the_rows() {
    let fig = Figure::new("x", "cross")
        .labels(&["a", "b"], &["k0", "k1", "k2"])
        .panel("head 0", array![[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]].view());
    let text = render(&fig, ColorMode::Ramp, 100);
    assert!(text.contains("key columns: 0 k0, 1 k1, 2 k2"), "{text}");
    let same = render(&two_heads(), ColorMode::Ramp, 100);
    assert!(!same.contains("key columns"), "{same}");
}

#[test]
fn narrow_terminals_wrap_panels_into_bands() {
    let text = render(&two_heads(), ColorMode::Ramp, 20);
    let titles: Vec<&str> = text.lines().filter(|l| l.starts_with("head ")).collect();
    assert_eq!(titles, ["head 0", "head 1"], "{text}");
}

#[test]
fn compare_puts_each_reference_head_next_to_yours() {
    let dir = std::env::temp_dir().join(format!("pictures-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let reference = dir.join("ref.json");
    std::fs::write(
        &reference,
        serde_json::to_string(&vec![two_heads()]).unwrap(),
    )
    .unwrap();
    let opts = Options::parse(["--compare".to_owned(), reference.display().to_string()]).unwrap();
    let d = Demo::new("lesson00", opts, ColorMode::Ramp, 200, true).unwrap();
    d.figure("two", "two heads", |f| {
        Ok(
            f.labels(&["the", "rain", "jacket"], &["the", "rain", "jacket"])
                .panel("head 0", ndarray::Array2::zeros((3, 3)).view()),
        )
    });
    d.figure("two", "two heads", |_| -> pictures::Val<Figure> {
        todo!("run_heads: project X")
    });
    let out = d.output();
    let first = out.lines().nth(1).unwrap();
    assert!(
        first.starts_with("yours: head 0") && first.contains("reference: head 0"),
        "{out}"
    );
    assert!(first.contains("reference: head 1"), "{out}");
    assert!(
        out.contains(
            "[picture: two heads] (not drawn: `run_heads` is not implemented yet (todo!()))"
        ),
        "{out}"
    );
    assert!(out.contains("(the reference only)"), "{out}");
    assert_eq!(d.finish(), std::process::ExitCode::from(1));
    std::fs::remove_dir_all(dir).unwrap();
}
