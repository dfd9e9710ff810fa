//! SVG files: well-formed XML with the figure's title, panel titles, axis names and labels.

use ndarray::array;
use pictures::{Figure, svg};

fn texts(doc: &roxmltree::Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_owned())
        .collect()
}

#[test]
fn an_svg_carries_its_title_labels_and_values() {
    let fig = Figure::new("heads", "Head A & <B>")
        .labels(&["the", "keeper"], &["the", "keeper"])
        .panel("head A", array![[0.25, 0.75], [1.0, 0.0]].view())
        .panel("head B", array![[0.5, 0.5], [0.0, 1.0]].view());
    let dir = std::env::temp_dir().join(format!("pictures-svg-{}", std::process::id()));
    let path = svg::write(&fig, &dir).unwrap();
    assert_eq!(path, dir.join("heads.svg"));
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let root = doc.root_element();
    assert!(root.has_tag_name("svg"));
    let title = root
        .children()
        .find(|n| n.has_tag_name("title"))
        .and_then(|n| n.text());
    assert_eq!(title, Some("Head A & <B>"));
    let t = texts(&doc);
    for expected in [
        "Head A & <B>",
        "head A",
        "head B",
        "query",
        "key",
        "the",
        "keeper",
        "0.25",
        "0.75",
    ] {
        assert!(
            t.iter().any(|x| x == expected),
            "no <text> {expected:?} in {t:?}"
        );
    }
    // 2 panels x 4 cells, plus the 10-swatch scale, plus the background.
    let rects = doc.descendants().filter(|n| n.has_tag_name("rect")).count();
    assert!(rects >= 8 + 10, "{rects} rects");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn masks_are_drawn_as_ones_and_zeros() {
    let fig = Figure::new("causal", "causal mask")
        .axes("query position", "key position")
        .mask("allowed", array![[true, false], [true, true]].view());
    let svg = svg::to_svg(&fig).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let t = texts(&doc);
    assert_eq!(t.iter().filter(|x| *x == "1.00").count(), 3, "{t:?}");
    assert_eq!(t.iter().filter(|x| *x == "0.00").count(), 1, "{t:?}");
    assert!(t.iter().any(|x| x == "query position"));
    // Positions label rows and columns when no words are given.
    assert!(t.iter().filter(|x| *x == "1").count() >= 2, "{t:?}");
}
