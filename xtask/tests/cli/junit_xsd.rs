//! JUnit XML as CI systems read it: the grader's `--format junit` checked against the JUnit 10
//! schema (`tests/fixtures/junit/junit-10.xsd`) by a subset check of our own and by `xmllint`
//! when it is installed.

use crate::support::which;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Asserts that the JUnit report at `xml_path` follows junit-10.xsd: always the subset check
/// below, and `xmllint --schema` too when it is on `PATH` (else it says loudly that it skipped it).
pub fn assert_follows_junit_10(xml_path: &Path) {
    let xml = std::fs::read_to_string(xml_path).unwrap();
    let xsd_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit/junit-10.xsd");
    let xsd = std::fs::read_to_string(&xsd_path).unwrap();
    check_against_xsd(&xml, &xsd);
    match which("xmllint") {
        Some(tool) => {
            let res = std::process::Command::new(tool)
                .args(["--noout", "--schema"])
                .arg(&xsd_path)
                .arg(xml_path)
                .output()
                .unwrap();
            assert!(
                res.status.success(),
                "xmllint rejects the JUnit report:\n{}",
                String::from_utf8_lossy(&res.stderr)
            );
        }
        None => eprintln!(
            "\n!!!!!! SKIPPED: xmllint is not on PATH, so the JUnit report was checked only by the \
             built-in junit-10.xsd subset check (apt-get install libxml2-utils) !!!!!!\n"
        ),
    }
}

/// Calls `visit` with every start tag of `xml` in document order and whether it is empty
/// (`<a/>`), and with the names `visit` pushed for the elements still open (an end tag pops one);
/// returns what is left open at the end.
fn walk(
    xml: &str,
    mut visit: impl FnMut(&quick_xml::events::BytesStart, bool, &mut Vec<String>),
) -> Vec<String> {
    use quick_xml::events::Event;
    let mut r = quick_xml::Reader::from_str(xml);
    let mut open = Vec::new();
    loop {
        match r.read_event().unwrap() {
            Event::Start(e) => visit(&e, false, &mut open),
            Event::Empty(e) => visit(&e, true, &mut open),
            Event::End(_) => {
                open.pop();
            }
            Event::Eof => return open,
            _ => {}
        }
    }
}

/// Checks `xml` against the element declarations of `xsd` (the subset junit-10.xsd uses: global
/// elements with their attributes, required ones, and the elements they may contain), and every
/// `time` of a suite against the `SUREFIRE_TIME` pattern.
fn check_against_xsd(xml: &str, xsd: &str) {
    #[derive(Default, Debug)]
    struct Decl {
        attrs: BTreeSet<String>,
        required: BTreeSet<String>,
        children: BTreeSet<String>,
        text: bool,
    }
    let mut decls: BTreeMap<String, Decl> = BTreeMap::new();
    let attr = |e: &quick_xml::events::BytesStart, k: &str| {
        e.attributes()
            .flatten()
            .find(|a| a.key.as_ref() == k)
            .map(|a| a.value.to_string())
    };
    walk(xsd, |e, empty, stack| {
        let tag = e.name().as_ref().to_owned();
        // The global element being declared: the outermost xs:element with a name.
        let owner = stack.first().cloned();
        match tag.as_str() {
            "xs:element" if stack.is_empty() => {
                let name = attr(e, "name").unwrap();
                let d = decls.entry(name.clone()).or_default();
                d.text = attr(e, "type").as_deref() == Some("xs:string")
                    || attr(e, "type").as_deref() == Some("rerunType");
                if !empty {
                    stack.push(name);
                }
                return;
            }
            "xs:element" => {
                if let (Some(o), Some(re)) = (&owner, attr(e, "ref")) {
                    decls.get_mut(o).unwrap().children.insert(re);
                }
            }
            "xs:attribute" => {
                if let Some(o) = &owner {
                    let name = attr(e, "name").unwrap();
                    let d = decls.get_mut(o).unwrap();
                    if attr(e, "use").as_deref() == Some("required") {
                        d.required.insert(name.clone());
                    }
                    d.attrs.insert(name);
                }
            }
            "xs:complexType" => {
                if let Some(o) = &owner
                    && attr(e, "mixed").as_deref() == Some("true")
                {
                    decls.get_mut(o).unwrap().text = true;
                }
            }
            _ => {}
        }
        if !empty && !stack.is_empty() {
            stack.push(tag);
        }
    });
    assert!(decls.contains_key("testsuite") && decls["testsuite"].required.contains("errors"));

    let time_ok = |t: &str| {
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        int.chars().all(|c| c.is_ascii_digit()) && frac.chars().all(|c| c.is_ascii_digit())
    };
    let unclosed = walk(xml, |e, empty, open| {
        let name = e.name().as_ref().to_owned();
        let d = decls
            .get(&name)
            .unwrap_or_else(|| panic!("<{name}> is not in the schema"));
        match open.last() {
            None => assert_eq!(name, "testsuites", "the root"),
            Some(parent) => assert!(
                decls[parent].children.contains(&name),
                "<{name}> may not be inside <{parent}>"
            ),
        }
        let mut seen = BTreeSet::new();
        for a in e.attributes() {
            let a = a.unwrap();
            let k = a.key.as_ref().to_owned();
            assert!(d.attrs.contains(&k), "<{name} {k}=…> is not in the schema");
            if k == "time" && name.starts_with("testsuite") {
                let v = a.value.to_string();
                assert!(time_ok(&v), "time `{v}` is not a SUREFIRE_TIME");
            }
            seen.insert(k);
        }
        for req in &d.required {
            assert!(seen.contains(req), "<{name}> lacks `{req}`");
        }
        if !empty {
            open.push(name);
        }
    });
    assert!(unclosed.is_empty(), "unclosed elements: {unclosed:?}");
}

/// The subset check can fail: an element, an attribute and a nesting junit-10.xsd does not allow,
/// a missing required attribute, a time that is not a `SUREFIRE_TIME`, an unclosed element.
#[test]
fn the_subset_check_refuses_what_junit_10_does_not_allow() {
    let xsd_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit/junit-10.xsd");
    let xsd = std::fs::read_to_string(xsd_path).unwrap();
    let suite = r#"<testsuite name="l" tests="1" failures="0" errors="0" time="0.5">"#;
    let good =
        format!(r#"<testsuites>{suite}<testcase name="c" time="0.1"/></testsuite></testsuites>"#);
    check_against_xsd(&good, &xsd);
    for (bad, why) in [
        (good.replace("<testcase ", "<check "), "not in the schema"),
        (
            good.replace(r#"name="c""#, r#"name="c" file="x.rs""#),
            "is not in the schema",
        ),
        (
            "<testsuites><testcase/></testsuites>".to_string(),
            "may not be inside",
        ),
        (good.replace(r#" errors="0""#, ""), "lacks `errors`"),
        (
            good.replace(r#"time="0.5""#, r#"time="0,5""#),
            "SUREFIRE_TIME",
        ),
        (good.replace("</testsuites>", ""), "unclosed"),
    ] {
        let caught = std::panic::catch_unwind(|| check_against_xsd(&bad, &xsd))
            .expect_err(&format!("accepted: {bad}"));
        let message = caught
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| caught.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        assert!(message.contains(why), "{bad}: {message}");
    }
}
