//! Cargo's dep-info records (`debug/.fingerprint/<unit>/dep-*`) pointed from a deleted copy of the
//! course at this one: a lesson's two crates compile each other's files, recorded by absolute
//! path, so without this cargo rebuilds a lesson whose sources are unchanged by content.
//! The format is cargo's `EncodedDepInfo`; a file not readable as version 1 is left alone.

use std::path::Path;

/// The marker cargo writes first (a file count of 1, then the kind 255), and the version it follows.
const MARKER: [u8; 5] = [1, 0, 0, 0, 0xff];
const VERSION: u8 = 1;

/// One file of a record: its kind (0 relative to the crate's folder, 1 relative to the target
/// folder or absolute), its path and, when cargo keeps checksums, the file's length and checksum.
struct File {
    kind: u8,
    path: Vec<u8>,
    checksum: Option<(u64, Vec<u8>)>,
}

/// A record: its files, and the rest (the environment variables) as it was.
struct Record {
    files: Vec<File>,
    rest: Vec<u8>,
}

fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, tail) = (bytes.get(..n)?, bytes.get(n..)?);
    *bytes = tail;
    Some(head)
}

fn take_u32(bytes: &mut &[u8]) -> Option<usize> {
    let b = take(bytes, 4)?;
    Some(u32::from_le_bytes(b.try_into().ok()?) as usize)
}

fn take_bytes<'a>(bytes: &mut &'a [u8]) -> Option<&'a [u8]> {
    let n = take_u32(bytes)?;
    take(bytes, n)
}

fn parse(mut bytes: &[u8]) -> Option<Record> {
    let bytes = &mut bytes;
    if take(bytes, MARKER.len())? != MARKER || take(bytes, 1)? != [VERSION] {
        return None;
    }
    let count = take_u32(bytes)?;
    let mut files = Vec::new();
    for _ in 0..count {
        let kind = *take(bytes, 1)?.first()?;
        if kind > 1 {
            return None;
        }
        let path = take_bytes(bytes)?.to_vec();
        let checksum = match take(bytes, 1)? {
            [0] => None,
            [1] => {
                let len = u64::from_le_bytes(take(bytes, 8)?.try_into().ok()?);
                Some((len, take_bytes(bytes)?.to_vec()))
            }
            _ => return None,
        };
        files.push(File {
            kind,
            path,
            checksum,
        });
    }
    Some(Record {
        files,
        rest: bytes.to_vec(),
    })
}

fn serialize(record: &Record) -> Vec<u8> {
    let mut out = MARKER.to_vec();
    out.push(VERSION);
    let push_bytes = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend((b.len() as u32).to_le_bytes());
        out.extend(b);
    };
    out.extend((record.files.len() as u32).to_le_bytes());
    for f in &record.files {
        out.push(f.kind);
        push_bytes(&mut out, &f.path);
        match &f.checksum {
            None => out.push(0),
            Some((len, sum)) => {
                out.push(1);
                out.extend(len.to_le_bytes());
                push_bytes(&mut out, sum);
            }
        }
    }
    out.extend(&record.rest);
    out
}

/// `path` moved to `root` when it is an absolute path into one of `dirs` (folders relative to a
/// course root, such as `exercises/lesson02-split-heads`) of another course root: that root, and
/// the part of `path` from the first of those folders on joined to `root`.
fn moved<'a>(path: &'a str, root: &str, dirs: &[String]) -> Option<(&'a str, String)> {
    if !path.starts_with('/') {
        return None;
    }
    let at = dirs
        .iter()
        .filter_map(|d| path.find(&format!("/{d}/")))
        .min()?;
    (path[..at] != *root).then(|| (&path[..at], format!("{root}{}", &path[at..])))
}

/// Points the files the dep-info record `file` names by absolute path in the folders `dirs` of
/// another copy of the course that no longer exists (see [`moved`]) at the same files under `root`
/// (an absolute path), keeping the record's modification time. Records naming a copy that still
/// exists stay as they are: that copy's builds (the instructors' tree's `cargo test` among them)
/// keep their own. Returns whether the record changed; a record that cannot be read, is not in
/// cargo's format or names no such file is left as it is.
pub fn repoint(file: &Path, root: &Path, dirs: &[String]) -> bool {
    let (Some(root), Ok(bytes), Ok(meta)) =
        (root.to_str(), std::fs::read(file), std::fs::metadata(file))
    else {
        return false;
    };
    let Some(mut record) = parse(&bytes) else {
        return false;
    };
    let mut changed = false;
    for f in record.files.iter_mut().filter(|f| f.kind == 1) {
        let Some((from, new)) = std::str::from_utf8(&f.path)
            .ok()
            .and_then(|p| moved(p, root, dirs))
        else {
            continue;
        };
        if !Path::new(from).exists() {
            f.path = new.into_bytes();
            changed = true;
        }
    }
    if !changed {
        return false;
    }
    let Ok(modified) = meta.modified() else {
        return false;
    };
    std::fs::write(file, serialize(&record)).is_ok()
        && std::fs::File::options()
            .write(true)
            .open(file)
            .and_then(|f| f.set_modified(modified))
            .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record as cargo 1.95 wrote it for a solutions' check target built in a copy of the
    /// course at `/tmp/course-leak-1JeVX4` (bytes taken from `xxd` of the real file).
    fn cargo_record(root: &str) -> Vec<u8> {
        let mut out = MARKER.to_vec();
        out.push(VERSION);
        out.extend(2u32.to_le_bytes());
        let abs = format!(
            "{root}/solutions/lesson02-split-heads/tests/../../../exercises/lesson02-split-heads/tests/checks.rs"
        );
        out.push(1);
        out.extend((abs.len() as u32).to_le_bytes());
        out.extend(abs.as_bytes());
        out.push(0);
        out.push(0);
        out.extend(17u32.to_le_bytes());
        out.extend(b"tests/lesson02.rs");
        out.push(0);
        out.extend(1u32.to_le_bytes());
        out.extend(20u32.to_le_bytes());
        out.extend(b"INSTA_WORKSPACE_ROOT");
        out.push(0);
        out
    }

    fn dirs() -> Vec<String> {
        vec![
            "exercises/lesson02-split-heads".to_owned(),
            "solutions/lesson02-split-heads".to_owned(),
        ]
    }

    #[test]
    fn cargos_records_read_and_write_back_unchanged() {
        let bytes = cargo_record("/tmp/course-leak-1JeVX4");
        assert_eq!(bytes.len(), 0xb8, "the length of the real file");
        let record = parse(&bytes).unwrap();
        assert_eq!(record.files.len(), 2);
        assert_eq!(record.files[1].path, b"tests/lesson02.rs");
        assert_eq!(serialize(&record), bytes);
        // With a checksum (cargo's `-Zchecksum-freshness`) too.
        let mut with_sum = record;
        with_sum.files[1].checksum = Some((42, b"sha256=ab".to_vec()));
        let again = parse(&serialize(&with_sum)).unwrap();
        assert_eq!(again.files[1].checksum, Some((42, b"sha256=ab".to_vec())));
        // Another version, another marker, a cut-off record: not read.
        let mut other = bytes.clone();
        other[5] = 2;
        assert!(parse(&other).is_none());
        assert!(parse(&bytes[1..]).is_none());
        assert!(parse(&bytes[..40]).is_none());
        // A record claiming four billion files (or a path of 4 GiB) is refused at its first
        // missing byte, nothing allocated ahead.
        let mut huge = bytes.clone();
        huge[6..10].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse(&huge).is_none());
        huge[6..10].copy_from_slice(&2u32.to_le_bytes());
        huge[11..15].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse(&huge).is_none());
    }

    #[test]
    fn paths_into_the_lesson_of_another_copy_move_to_this_one() {
        let d = dirs();
        let from = "/tmp/a/solutions/lesson02-split-heads/tests/../../../exercises/lesson02-split-heads/tests/checks.rs";
        assert_eq!(
            moved(from, "/work/course", &d),
            Some((
                "/tmp/a",
                "/work/course/solutions/lesson02-split-heads/tests/../../../exercises/lesson02-split-heads/tests/checks.rs".to_owned()
            ))
        );
        let hidden = "/tmp/b/exercises/lesson02-split-heads/../../solutions/lesson02-split-heads/tests/hidden/checks.rs";
        assert_eq!(
            moved(hidden, "/work/course", &d),
            Some((
                "/tmp/b",
                "/work/course/exercises/lesson02-split-heads/../../solutions/lesson02-split-heads/tests/hidden/checks.rs".to_owned()
            ))
        );
        // Already this copy's, relative, another lesson, a folder that only starts the same.
        assert_eq!(
            moved(&from.replace("/tmp/a", "/work/course"), "/work/course", &d),
            None
        );
        assert_eq!(moved("tests/lesson02.rs", "/work/course", &d), None);
        assert_eq!(
            moved("/tmp/a/exercises/lesson03-x/src/lib.rs", "/work/course", &d),
            None
        );
        assert_eq!(
            moved(
                "/tmp/a/exercises/lesson02-split-heads-old/src/lib.rs",
                "/work/course",
                &d
            ),
            None
        );
    }

    #[test]
    fn a_record_is_repointed_in_place_keeping_its_time() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("dep-test-integration-test-lesson02");
        std::fs::write(&file, cargo_record("/tmp/course-leak-1JeVX4")).unwrap();
        let then = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(then)
            .unwrap();
        assert!(repoint(&file, Path::new("/work/course"), &dirs()));
        assert_eq!(std::fs::read(&file).unwrap(), cargo_record("/work/course"));
        assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), then);
        // Nothing left to move; a copy that still exists keeps its record; a file in no format
        // of cargo's stays as it is.
        assert!(!repoint(&file, Path::new("/work/course"), &dirs()));
        let live = dir.path().to_str().unwrap();
        std::fs::write(&file, cargo_record(live)).unwrap();
        assert!(!repoint(&file, Path::new("/work/course"), &dirs()));
        assert_eq!(std::fs::read(&file).unwrap(), cargo_record(live));
        std::fs::write(&file, b"not a record").unwrap();
        assert!(!repoint(&file, Path::new("/elsewhere"), &dirs()));
        assert_eq!(std::fs::read(&file).unwrap(), b"not a record");
    }
}
