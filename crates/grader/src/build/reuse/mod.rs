//! Every reuse of an earlier build, keyed by content (see [`crate::build::content`]): a warm local
//! grade skips cargo ([`freshness`]); a local build takes the lessons it kept ([`kept`]); a class
//! run shares a lesson's build between submissions with the same sources ([`class`]).

pub mod class;
pub mod freshness;
pub mod kept;

pub use class::BuildCache;
pub use freshness::{Listed, Recorded, Stamp};

use crate::build::output::{Built, CheckBinary};
use crate::course::{Lesson, Side};
use anyhow::{Context as _, Result};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::Ordering;

/// A lesson's earlier build: its check executables and its warnings.
pub struct Reused {
    /// The executables, ready to run.
    pub bins: Vec<CheckBinary>,
    /// The compiler's warnings for the lesson's crate.
    pub warnings: Vec<String>,
}

/// Where one build looks for earlier builds of its lessons, and keeps its own.
pub enum Reuse<'a> {
    /// No reuse: a submission's build outside a class run.
    Nothing,
    /// A local build: the kept builds of the target folder, by lesson and content.
    Local(kept::KeptBuilds),
    /// A submission's build in a class run: the run's builds, by lesson and student sources.
    Class {
        /// The run's builds.
        cache: &'a BuildCache,
        /// Per lesson id, its key ([`crate::build::content::class_keys`]).
        keys: HashMap<String, Option<String>>,
        /// Where the builds taken are copied (a private folder, as a build's own copies are).
        dir: crate::fsutil::TempDir,
    },
}

impl<'a> Reuse<'a> {
    /// The kept builds in `target` of local builds of `root`'s `side`.
    pub fn for_local(target: &Path, root: &Path, side: Side) -> Self {
        Self::Local(kept::KeptBuilds::new(target, root, side))
    }

    /// The builds `cache` holds for `lessons` of the grading copy `root` of `course`.
    pub fn for_submission(
        cache: &'a BuildCache,
        root: &Path,
        course: &crate::course::Course,
        lessons: &[&Lesson],
    ) -> Result<Self> {
        let keys = crate::build::content::class_keys(root, course, lessons);
        Ok(Self::Class {
            cache,
            keys: lessons.iter().map(|l| l.id.clone()).zip(keys).collect(),
            dir: crate::fsutil::scratch_dir("checks")?,
        })
    }

    /// An earlier build of `lesson` whose inputs' digest is `digest` (a local build's lookup
    /// needs it; a class run's keys are known), if one is kept and unchanged.
    pub fn lookup(&self, lesson: &Lesson, digest: Option<&str>) -> Option<Reused> {
        match self {
            Self::Nothing => None,
            Self::Local(kept) => {
                let (bins, warnings) = kept.take(lesson, &kept.key(lesson, digest?))?;
                Some(Reused { bins, warnings })
            }
            Self::Class { cache, keys, dir } => {
                let key = keys.get(&lesson.id)?.as_deref()?;
                let entry = cache.get(key)?;
                // A kept build that fails its check is forgotten and built again.
                let Some(bins) = entry.copy_verified(dir.path()) else {
                    cache.forget(key);
                    return None;
                };
                cache.reused.fetch_add(1, Ordering::SeqCst);
                Some(Reused {
                    bins,
                    warnings: entry.warnings,
                })
            }
        }
    }

    /// Keeps what this build made of `lesson` (from inputs whose digest is `digest`) for later
    /// builds; only successful builds are kept.
    pub fn record(
        &self,
        lesson: &Lesson,
        digest: &str,
        built: Option<&Built>,
        warnings: &[String],
    ) -> Result<()> {
        match self {
            Self::Nothing => {}
            Self::Local(kept) => {
                if let Some(Built::Ok(bins)) = built {
                    kept.keep(lesson, &kept.key(lesson, digest), bins, warnings);
                }
            }
            Self::Class { cache, keys, .. } => {
                cache.built.fetch_add(1, Ordering::SeqCst);
                let key = keys.get(&lesson.id).and_then(Option::as_deref);
                if let (Some(key), Some(Built::Ok(bins))) = (key, built) {
                    cache.put(key, bins, warnings)?;
                }
            }
        }
        Ok(())
    }

    /// The folder of the builds a class run's lookups copied, when this build keeps none of its
    /// own; else moves them into `private`, the build's own.
    pub fn place(
        self,
        reused: &mut [(&Lesson, Reused)],
        private: Option<&Path>,
    ) -> Result<Option<crate::fsutil::TempDir>> {
        let Self::Class { dir, .. } = self else {
            return Ok(None);
        };
        let Some(private) = private else {
            return Ok(Some(dir));
        };
        for (_, Reused { bins, .. }) in reused {
            for bin in bins {
                let to = private.join(bin.exe.file_name().unwrap_or_default());
                std::fs::rename(&bin.exe, &to)
                    .with_context(|| format!("cannot move {}", bin.exe.display()))?;
                bin.exe = to;
            }
        }
        Ok(None)
    }
}
