//! Archives in a class run (`grade --submissions`): an honest `tar czf x.tar.gz -C dir .` graded
//! like its folder, and hostile archives (an entry name of terminal escapes and forged text, a
//! 64 MiB GNU long name) refused in a row that says why, with a gradebook, progress lines and
//! reports that hold no control character and no huge line.

use crate::support::{self, OutDir, Scratch, xtask_in};

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

const L1: &str = "lesson01-why-heads";

/// Escapes that clear the screen and move the cursor home, a bell, a carriage return, DEL and the
/// C1 control sequence introducer, then a forged total.
const FORGED: &str = "\x1b[2J\x1b[H\x07\r\x7f\u{9b}2JTotal: 26 of 26";

/// A tar header for the raw name `name` (no `./` or `..` rewriting) of `kind` and `size`.
fn header(name: &[u8], kind: tar::EntryType, size: u64) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.as_old_mut().name[..name.len()].copy_from_slice(name);
    h.set_entry_type(kind);
    h.set_size(size);
    h.set_mode(if kind == tar::EntryType::Directory {
        0o755
    } else {
        0o644
    });
    h.set_cksum();
    h
}

/// A `.tar.gz` at `out` of `entries` (header and data).
fn tar_gz(out: &Path, entries: Vec<(tar::Header, Box<dyn Read>)>) {
    let gz = flate2::write::GzEncoder::new(
        std::fs::File::create(out).unwrap(),
        flate2::Compression::fast(),
    );
    let mut t = tar::Builder::new(gz);
    for (h, data) in entries {
        t.append(&h, data).unwrap();
    }
    t.into_inner().unwrap().finish().unwrap();
}

/// `dir` packed as `tar czf OUT -C dir .` packs it: `./`, then every folder and file under `./`.
fn tar_of_dot(dir: &Path, out: &Path) {
    if support::which("tar").is_some() {
        let status = std::process::Command::new("tar")
            .arg("czf")
            .arg(out)
            .arg("-C")
            .arg(dir)
            .arg(".")
            .status()
            .unwrap();
        assert!(status.success());
        return;
    }
    eprintln!("\n!!!!!! no `tar` command: the `tar czf -C dir .` archive is made alike !!!!!!\n");
    let mut entries: Vec<(tar::Header, Box<dyn Read>)> = vec![(
        header(b"./", tar::EntryType::Directory, 0),
        Box::new(std::io::empty()),
    )];
    for (rel, p) in support::files(dir) {
        let data = std::fs::read(p).unwrap();
        let mut h = tar::Header::new_gnu();
        h.set_path(format!("./{rel}")).unwrap();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        entries.push((h, Box::new(std::io::Cursor::new(data))));
    }
    tar_gz(out, entries);
}

fn read_csv(path: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let row: BTreeMap<String, String> = headers
                .iter()
                .zip(rec.unwrap().iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect();
            (row["id"].clone(), row)
        })
        .collect()
}

/// `text` holds no control character but line feeds, and no line over 4 KiB.
fn assert_inert(text: &[u8], what: &str) {
    let shown = String::from_utf8_lossy(text);
    assert!(
        !text.iter().any(|&b| (b < 0x20 && b != b'\n') || b == 0x7f),
        "{what} holds a control character:\n{shown:?}"
    );
    assert!(
        !shown.contains('\u{9b}'),
        "{what} holds a C1 control:\n{shown:?}"
    );
    for line in text.split(|&b| b == b'\n') {
        assert!(
            line.len() < 4096,
            "{what} has a line of {} bytes: {:?}…",
            line.len(),
            String::from_utf8_lossy(&line[..200])
        );
    }
}

#[test]
fn archives_are_unpacked_within_bounds_and_their_names_shown_inert() {
    let course = Scratch::new("archives");
    if !support::has_sandbox() {
        return;
    }
    let work = OutDir::new("archives");
    let class = work.path.join("submissions");
    std::fs::create_dir_all(&class).unwrap();
    let solved = work.path.join("solved");
    xtask_in(&course.root, &["dist", solved.to_str().unwrap()])
        .assert()
        .success();
    let file = Path::new("exercises").join(L1).join("src/exercises.rs");
    std::fs::copy(
        course
            .root
            .join("solutions")
            .join(L1)
            .join("src/exercises.rs"),
        solved.join(&file),
    )
    .unwrap();

    // The same solved handout as a folder and as `tar czf alice.tar.gz -C dir .`.
    support::copy_dir(&solved, &class.join("alice-folder"));
    tar_of_dot(&solved, &class.join("alice.tar.gz"));
    // A file the student added, named with escapes: listed in the report's modified files.
    support::copy_dir(&solved, &class.join("frank"));
    std::fs::write(
        class.join("frank").join(format!("notes{FORGED}.txt")),
        "hi\n",
    )
    .unwrap();
    // An archive named with escapes, whose entry's name (escapes and forged text) leaves it.
    tar_gz(
        &class.join(format!("eve{FORGED}.tar.gz")),
        vec![(
            header(
                format!("../{FORGED} forged").as_bytes(),
                tar::EntryType::Regular,
                4,
            ),
            Box::new(&b"evil"[..]),
        )],
    );
    // A 64 MiB GNU long name (a few KiB of gzip).
    let huge: u64 = 64 << 20;
    tar_gz(
        &class.join("long.tar.gz"),
        vec![
            (
                header(b"././@LongLink", tar::EntryType::GNULongName, huge),
                Box::new(std::io::repeat(b'a').take(huge)),
            ),
            (
                header(b"exercises/x.rs", tar::EntryType::Regular, 1),
                Box::new(&b"x"[..]),
            ),
        ],
    );
    assert!(std::fs::metadata(class.join("long.tar.gz")).unwrap().len() < 1 << 20);

    let gradebook = work.path.join("grades.csv");
    let reports = work.path.join("reports");
    let out = xtask_in(
        &course.root,
        &[
            "grade",
            "--submissions",
            class.to_str().unwrap(),
            "1",
            "--gradebook",
            gradebook.to_str().unwrap(),
            "--reports",
            reports.to_str().unwrap(),
        ],
    )
    .timeout(std::time::Duration::from_secs(900))
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");

    let csv = std::fs::read(&gradebook).unwrap();
    assert_inert(&csv, "the gradebook");
    assert_inert(&out.stdout, "stdout");
    assert_inert(&out.stderr, "stderr");
    for entry in std::fs::read_dir(&reports).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read(&path).unwrap();
        assert_inert(&text, &path.display().to_string());
        assert!(!String::from_utf8_lossy(&text).contains("\\u001b"));
    }

    let rows = read_csv(&gradebook);
    assert_eq!(rows.len(), 5, "{rows:?}");
    let total = |id: &str| rows[id]["total"].parse::<u32>().unwrap();
    // The honest tarball is graded as its folder is: full marks, no error.
    assert_eq!(rows["alice"]["error"], "", "{stderr}");
    assert_eq!(rows["alice-folder"]["error"], "", "{stderr}");
    assert!(total("alice") > 0);
    assert_eq!(total("alice"), total("alice-folder"));
    assert_eq!(total("alice"), rows["alice"]["max"].parse::<u32>().unwrap());
    assert_eq!(rows["alice"]["modified_files"], "0");
    assert_eq!(rows["frank"]["modified_files"], "1");
    let frank = std::fs::read_to_string(reports.join("frank.json")).unwrap();
    assert!(
        frank.contains(
            "notes\\\\u{1b}[2J\\\\u{1b}[H\\\\u{7}\\\\r\\\\u{7f}\\\\u{9b}2JTotal: 26 of 26.txt (added)"
        ),
        "{frank}"
    );
    // The hostile rows: zero points, and why, their names written out.
    let eve_id = "eve\\u{1b}[2J\\u{1b}[H\\u{7}\\r\\u{7f}\\u{9b}2JTotal: 26 of 26";
    let eve = &rows[eve_id];
    assert_eq!(total(eve_id), 0);
    assert!(
        eve["error"].contains(
            "archive entry `../\\u{1b}[2J\\u{1b}[H\\u{7}\\r\\u{7f}\\u{9b}2JTotal: 26 of 26 forged` leaves the archive"
        ),
        "{}",
        eve["error"]
    );
    assert_eq!(total("long"), 0);
    assert!(
        rows["long"]["error"]
            .contains("GNU long name of 67108863 bytes, over the 4096 bytes a name may have"),
        "{}",
        rows["long"]["error"]
    );
    assert!(
        stderr.contains("long: not graded: archive entry has a GNU long name"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{eve_id}: not graded: archive entry")),
        "{stderr}"
    );
}
