//! The entries of a submissions folder, and opening one (a folder or an archive) to grade or read.

use crate::course::Course;
use crate::official::archive;
use crate::report::student_text;
use anyhow::{Context as _, Result, anyhow, bail};
use std::path::{Path, PathBuf};

/// One entry of the submissions folder.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its file name.
    pub name: String,
    /// Its name without archive extension.
    pub id: String,
    /// Its path.
    pub path: PathBuf,
}

/// The entries of `dir`, sorted by name; hidden files (`.DS_Store`, …) and a Gradescope export's
/// metadata (`submission_metadata.yml`, beside its submissions' folders) are skipped.
pub fn entries(dir: &Path) -> Result<Vec<Entry>> {
    let read = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the submissions folder {}", dir.display()))?;
    let mut out = Vec::new();
    for entry in read.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let metadata = name == crate::official::late::gradescope::EXPORT_METADATA
            && entry.file_type().is_ok_and(|t| t.is_file());
        if name.starts_with('.') || name == "__MACOSX" || metadata {
            continue;
        }
        let id = archive::kind(&name).map_or(name.as_str(), |(_, stem)| stem);
        out.push(Entry {
            id: id.to_owned(),
            path: entry.path(),
            name,
        });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id).then(a.path.cmp(&b.path)));
    Ok(out)
}

/// The entries of the submissions folder `dir` for reading alone (`similarity`), sorted by id: an
/// error when it holds none; two entries that share an id (a roster may tell them apart) are
/// known by their file names instead.
pub fn class_entries(dir: &Path) -> Result<Vec<Entry>> {
    let mut list = entries(dir)?;
    if list.is_empty() {
        bail!("{} holds no submission", dir.display());
    }
    let shared: std::collections::BTreeSet<String> = list
        .windows(2)
        .filter(|pair| pair[0].id == pair[1].id)
        .map(|pair| pair[0].id.clone())
        .collect();
    for e in &mut list {
        if shared.contains(&e.id) {
            e.id = e.name.clone();
        }
    }
    Ok(list)
}

/// True when `dir` holds a course handout or its `exercises/` folder.
fn is_submission(dir: &Path, course: &Course) -> bool {
    let has_lessons = |d: &Path| course.lessons.iter().any(|l| d.join(&l.dir).is_dir());
    has_lessons(&dir.join("exercises")) || has_lessons(dir)
}

/// The folder to grade inside `dir`: `dir` itself, or its only sub-folder (a submission zipped
/// as a folder).
pub fn resolve(dir: &Path, course: &Course) -> Result<PathBuf> {
    // A link out is named as such; any other link is refused too (see `submission::find_link`).
    if let Some(link) =
        archive::escaping_link(dir).or_else(|| crate::official::submission::find_link(dir))
    {
        return Err(anyhow!(link));
    }
    // A folder holding only `exercises/` (no handout around it) is graded as that folder, so the
    // handout files it never had are not reported as deleted.
    let pick = |d: &Path| {
        if d.join("exercises").is_dir() && !d.join("Cargo.toml").is_file() {
            d.join("exercises")
        } else {
            d.to_path_buf()
        }
    };
    if is_submission(dir, course) {
        return Ok(pick(dir));
    }
    let subdirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.') && name != "__MACOSX" && e.path().is_dir()
        })
        .map(|e| e.path())
        .collect();
    if let [only] = subdirs.as_slice()
        && is_submission(only, course)
    {
        return Ok(pick(only));
    }
    let dirs: Vec<&str> = course.lessons.iter().map(|l| l.dir.as_str()).collect();
    Err(anyhow!(
        "not a submission of this course: no exercises/ folder or lesson folder ({}) at its top or one folder down",
        dirs.join(", ")
    ))
}

/// The folder to grade for the submission at `path`, the one way every grading path reads a
/// submission (`--submission`, `--submissions`' entries, the Gradescope bundle): a folder, or a
/// `.zip`/`.tar.gz` unpacked into a scratch folder (returned, to keep until grading ends), then
/// [`resolve`]d: a handout, its `exercises/` folder alone, or either one folder down.
pub fn open(path: &Path, course: &Course) -> Result<(Option<crate::fsutil::TempDir>, PathBuf)> {
    open_only(path, course, None)
}

/// [`open`], writing out of an archive only the paths `keep` accepts, when given (every entry is
/// checked all the same, see [`archive::extract_only`]): what a reader of a few files needs.
pub fn open_only(
    path: &Path,
    course: &Course,
    keep: Option<&dyn Fn(&Path) -> bool>,
) -> Result<(Option<crate::fsutil::TempDir>, PathBuf)> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok((None, resolve(path, course)?)),
        Ok(_) => {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let (kind, _) = archive::kind(&name).with_context(|| {
                format!(
                    "`{}` is not a folder, a .zip or a .tar.gz: nothing to grade",
                    student_text::name(&name)
                )
            })?;
            let scratch = crate::fsutil::scratch_dir("batch-unpacked")?;
            let limits = archive::Limits::default();
            match keep {
                Some(keep) => archive::extract_only(path, kind, scratch.path(), limits, keep)?,
                None => archive::extract(path, kind, scratch.path(), limits)?,
            }
            let dir = resolve(scratch.path(), course)?;
            Ok((Some(scratch), dir))
        }
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::official::submission;
    use std::io::Write as _;

    /// `dir`'s files (relative names, `/`-separated) written into a zip at `out`, under `prefix`.
    fn zip_dir(dir: &Path, prefix: &str, out: &Path) {
        let mut z = zip::ZipWriter::new(std::fs::File::create(out).unwrap());
        for rel in crate::fsutil::files_under(dir, dir, &|_, _| false) {
            let options = zip::write::SimpleFileOptions::default();
            z.start_file(format!("{prefix}{rel}"), options).unwrap();
            z.write_all(&std::fs::read(dir.join(&rel)).unwrap())
                .unwrap();
        }
        z.finish().unwrap();
    }

    /// `dir`'s files as a gzipped tarball at `out`, at its top.
    fn tar_dir(dir: &Path, out: &Path) {
        let gz = flate2::write::GzEncoder::new(
            std::fs::File::create(out).unwrap(),
            flate2::Compression::fast(),
        );
        let mut t = tar::Builder::new(gz);
        for rel in crate::fsutil::files_under(dir, dir, &|_, _| false) {
            t.append_path_with_name(dir.join(&rel), &rel).unwrap();
        }
        t.into_inner().unwrap().finish().unwrap();
    }

    /// What grading reads of the upload at `path`: its modified files against the handout
    /// `expected`, the digest of its sources, and the id it gets when none is given.
    fn read_as_graded(
        path: &Path,
        course: &Course,
        expected: &Path,
    ) -> (Vec<String>, String, Option<String>) {
        let (_unpacked, dir) = open(path, course).unwrap();
        let sub = submission::locate(&dir, course).unwrap();
        let sources = submission::read_sources(course, &sub).unwrap();
        (
            submission::modified_files(course, &sub, expected),
            crate::course::manifest::sources_digest(&sources),
            submission::default_id(path),
        )
    }

    /// A Gradescope bulk export: one folder per submission, and its metadata beside them, which
    /// is no submission (a folder of that name would be one).
    #[test]
    fn a_gradescope_exports_metadata_is_no_submission() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("submission_1001")).unwrap();
        std::fs::write(dir.path().join("submission_1002.zip"), "").unwrap();
        std::fs::write(dir.path().join("submission_metadata.yml"), "---\n").unwrap();
        std::fs::write(dir.path().join(".DS_Store"), "").unwrap();
        let ids = |dir: &Path| -> Vec<String> {
            entries(dir).unwrap().into_iter().map(|e| e.name).collect()
        };
        assert_eq!(ids(dir.path()), ["submission_1001", "submission_1002.zip"]);
        let other = tempfile::tempdir().unwrap();
        std::fs::create_dir(other.path().join("submission_metadata.yml")).unwrap();
        assert_eq!(ids(other.path()), ["submission_metadata.yml"]);
    }

    /// Every shape a student may upload (a handout, its `exercises/` folder alone, that folder
    /// named directly, an archive of either, one folder down or not; the Gradescope bundle grades
    /// its upload through the same `open`) reaches the same sources, and an untouched handout
    /// lists no modified file (an `exercises/`-only upload was shown every other file "deleted").
    #[test]
    fn every_shape_of_an_upload_reads_the_same_sources_and_no_modified_file() {
        let root = crate::course::layout::find_root(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        let course = Course::load(&root).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let expected = tmp.path().join("expected");
        crate::official::handout::make(&root, &course, &expected).unwrap();
        // A handout with lesson 1 solved.
        let full = tmp.path().join("alice-handout");
        crate::official::handout::make(&root, &course, &full).unwrap();
        let lesson = &course.lessons[0];
        let file = Path::new("src").join("exercises.rs");
        std::fs::copy(
            lesson
                .crate_dir(&root, crate::course::Side::Solutions)
                .join(&file),
            lesson
                .crate_dir(&full, crate::course::Side::Exercises)
                .join(&file),
        )
        .unwrap();
        // Its `exercises/` folder alone, then archives of both.
        let only = tmp.path().join("bob");
        let files = crate::fsutil::files_under(&full.join("exercises"), &full, &|_, _| false);
        crate::fsutil::copy_files(&full, &only, &files).unwrap();
        let zipped = tmp.path().join("carol.zip");
        zip_dir(&only, "carol/", &zipped);
        let tarred = tmp.path().join("dan.tar.gz");
        tar_dir(&full, &tarred);

        let (_, pristine, _) = read_as_graded(&expected, &course, &expected);
        let (_, solved, _) = read_as_graded(&full, &course, &expected);
        assert_ne!(solved, pristine, "the solved lesson was not read");
        for (path, id) in [
            (&full, "alice-handout"),
            (&only, "bob"),
            (&only.join("exercises"), "exercises"),
            (&zipped, "carol"),
            (&tarred, "dan"),
        ] {
            let (modified, digest, default_id) = read_as_graded(path, &course, &expected);
            let shown = path.display();
            assert_eq!(modified, Vec::<String>::new(), "{shown}");
            assert_eq!(digest, solved, "{shown}");
            assert_eq!(default_id.as_deref(), Some(id), "{shown}");
        }
    }

    /// What a student changed outside their sources (a snapshot "adjusted", a note added) is
    /// listed against today's handout: from a whole handout, every such file; from its
    /// `exercises/` folder alone, what lies under `exercises/`. A huge file (sparse: it costs its
    /// author nothing) is listed without being read.
    #[test]
    fn changes_outside_the_sources_are_listed_for_each_upload_shape_and_never_read() {
        let root = crate::course::layout::find_root(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        let course = Course::load(&root).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let expected = tmp.path().join("expected");
        crate::official::handout::make(&root, &course, &expected).unwrap();
        let h = tmp.path().join("handout");
        crate::official::handout::make(&root, &course, &h).unwrap();
        let lesson = &course.lessons[0];
        let snapshots = lesson
            .crate_dir(&h, crate::course::Side::Exercises)
            .join("tests/snapshots");
        let snap = crate::fsutil::files_under(&snapshots, &h, &|_, _| false)
            .into_iter()
            .find(|f| f.ends_with(".snap"))
            .expect("lesson 1 hands out a snapshot");
        let text = std::fs::read_to_string(h.join(&snap)).unwrap();
        std::fs::write(h.join(&snap), format!("{text}[9] 99999\n")).unwrap();
        std::fs::write(h.join("NOTES.md"), "my notes\n").unwrap();
        let (modified, _, _) = read_as_graded(&h, &course, &expected);
        assert_eq!(
            modified,
            ["NOTES.md (added)".to_owned(), format!("{snap} (changed)")]
        );
        let (modified, _, _) = read_as_graded(&h.join("exercises"), &course, &expected);
        assert_eq!(modified, [format!("{snap} (changed)")]);
        let huge = std::fs::File::create(h.join("data.bin")).unwrap();
        huge.set_len(64 << 30).unwrap();
        let (modified, _, _) = read_as_graded(&h, &course, &expected);
        assert!(
            modified.contains(&"data.bin (added)".to_owned()),
            "{modified:?}"
        );
    }
}
