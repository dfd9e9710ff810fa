//! The file name of a student's reports (`<stem>.json`, `<stem>.html`, `<stem>.md`) for any id:
//! an id is a submission's file name or a roster's cell, so it may be 255 bytes long (a file
//! system refuses the name with `.html` added) or hold characters a file name should not. The
//! gradebook and the pages keep the real id; only the file is named after [`stem`].

/// The longest stem, in bytes: with `.html` added, far from the 255 bytes a file name may have.
pub const MAX_STEM_BYTES: usize = 100;

/// Names Windows keeps for devices, whatever the extension (`con.json` cannot be created).
const DEVICES: &[&str] = &[
    "aux", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9", "con", "lpt1",
    "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9", "nul", "prn",
];

/// The file stem of the reports of the student `id`: `id` itself when it is a plain name
/// (letters, digits, `-`, `_`, `.`, `@`, `+`; not starting with `.`; at most [`MAX_STEM_BYTES`]);
/// else every other character as `_`, a leading `.` as `_`, a device name of Windows after a
/// `_` (and `class-run`, the class run's record), and an id too long cut to fit, with 8 hex digits of a hash of the whole id after it (two
/// long ids that start alike still get files of their own).
pub fn stem(id: &str) -> String {
    let plain = |c: char| c.is_alphanumeric() || "-_.@+".contains(c);
    let mut out: String = id.chars().map(|c| if plain(c) { c } else { '_' }).collect();
    if out.is_empty() || out.starts_with('.') {
        out.replace_range(..out.chars().next().map_or(0, char::len_utf8), "_");
    }
    let device = out.split('.').next().unwrap_or_default().to_lowercase();
    // The class run's record (`crate::official::stored::RECORD`) is no student's report.
    if DEVICES.contains(&device.as_str()) || device == "class-run" {
        out.insert(0, '_');
    }
    if out.len() > MAX_STEM_BYTES {
        let hash = hmac_sha256::Hash::hash(id.as_bytes());
        let mut cut = MAX_STEM_BYTES - 9;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('-');
        for b in &hash[..4] {
            out.push_str(&format!("{b:02x}"));
        }
    }
    out
}

/// Where the first two of `ids` are whose reports would share a file: the same [`stem`], or
/// stems that differ only in case (one file on macOS and Windows).
pub fn clash<'a>(ids: impl IntoIterator<Item = &'a str>) -> Option<(usize, usize)> {
    let mut seen = std::collections::HashMap::new();
    for (i, id) in ids.into_iter().enumerate() {
        if let Some(first) = seen.insert(stem(id).to_lowercase(), i) {
            return Some((first, i));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ids_are_their_own_stem() {
        for id in [
            "alice",
            "bob.smith",
            "s123-x_y",
            "a+b@uni.edu",
            "José",
            "王芳",
        ] {
            assert_eq!(stem(id), id);
        }
    }

    #[test]
    fn any_id_gets_a_short_safe_stem() {
        assert_eq!(stem("eve\"'><script>"), "eve____script_");
        assert_eq!(stem("a b\\c/d\u{202e}\n"), "a_b_c_d__");
        assert_eq!(stem(".hidden"), "_hidden");
        assert_eq!(stem(".."), "_.");
        assert_eq!(stem(""), "_");
        assert_eq!(stem("CON"), "_CON");
        assert_eq!(stem("nul.tar"), "_nul.tar");
        assert_eq!(stem("console"), "console");
        assert_eq!(stem("Class-Run"), "_Class-Run");
        assert_eq!(format!("{}.json", stem("class-run")), "_class-run.json");
        // 255 bytes, the longest entry name: cut, with a hash of the whole.
        for long in [
            "a".repeat(255),
            "é".repeat(127),
            format!("{}x", "a".repeat(100)),
        ] {
            let s = stem(&long);
            assert!(s.len() <= MAX_STEM_BYTES, "{s}");
            assert!(long.starts_with(&s[..s.len() - 9]), "{s}");
            assert!(s[s.len() - 9..].starts_with('-'), "{s}");
        }
        assert_eq!(
            stem(&"a".repeat(MAX_STEM_BYTES)),
            "a".repeat(MAX_STEM_BYTES)
        );
        let (one, two) = (
            format!("{}1", "a".repeat(200)),
            format!("{}2", "a".repeat(200)),
        );
        assert_ne!(stem(&one), stem(&two));
    }

    #[test]
    fn ids_sharing_a_file_clash() {
        assert_eq!(clash(["alice", "bob", "carol"]), None);
        assert_eq!(clash(["a b", "c", "a_b"]), Some((0, 2)));
        assert_eq!(clash(["x", "Alice", "alice"]), Some((1, 2)));
        assert_eq!(clash(["a/b", "y", "a:b"]), Some((0, 2)));
        // Cut ids keep a hash of the whole: they clash only when the same.
        let (one, two) = (
            format!("{}/1", "x".repeat(300)),
            format!("{}:1", "x".repeat(300)),
        );
        assert_eq!(clash([one.as_str(), two.as_str()]), None);
    }
}
