//! A directory of files the user asked for (`export --out DIR`), replaced as a set: each file is
//! staged beside its final name and all of them are renamed into place only once every one is
//! complete, so a run that fails or is killed half-way leaves the previous files as they were.

use std::fs::{self, File, TryLockError};
use std::path::{Path, PathBuf};

use crate::store::fsutil::{self, Staged, WriteOptions};
use crate::{Error, Result};

/// Files in the directory: private, and never written through a symbolic link.
const FILE: WriteOptions = WriteOptions { mode: 0o600, refuse_symlink: true };

/// An open, locked output directory.
pub struct OutDir {
    dir: PathBuf,
    /// Held while the run lasts: a second run into the same directory is refused, not mixed in.
    _lock: File,
}

impl OutDir {
    /// Opens `dir`, creating it (mode 0700) when missing, locks it against a concurrent run, and
    /// removes the temp files that an interrupted run left for any of `names`.
    pub fn open(dir: &Path, names: &[String]) -> Result<OutDir> {
        fsutil::ensure_private_dir(dir)?;
        let lock = File::open(dir).map_err(|e| Error::io(format!("opening {}", dir.display()), e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(Error::boxed(Error::Config(format!(
                    "another export is writing to {}; wait for it to finish",
                    dir.display()
                ))));
            }
            Err(TryLockError::Error(e)) => return Err(Error::io(format!("locking {}", dir.display()), e)),
        }
        remove_leftovers(dir, names)?;
        Ok(OutDir { dir: dir.to_path_buf(), _lock: lock })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Starts writing `name` in the directory (0600; a symbolic link there is refused).
    pub fn stage(&self, name: &str) -> Result<Staged> {
        Staged::create(&self.dir.join(name), FILE)
    }
}

/// Puts every staged file in place. Called once all of them are complete.
pub fn commit_all(files: Vec<Staged>) -> Result<()> {
    files.into_iter().try_for_each(Staged::commit)
}

/// Only our own temp names are touched: nothing else in a directory the user chose is ours.
/// The lock is held, so no other run is writing them.
fn remove_leftovers(dir: &Path, names: &[String]) -> Result<()> {
    let prefixes: Vec<String> = names.iter().map(|n| fsutil::temp_prefix(n)).collect();
    let entries = fs::read_dir(dir).map_err(|e| Error::io(format!("reading {}", dir.display()), e))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if prefixes.iter().any(|p| name.starts_with(p.as_str())) {
            fsutil::remove_if_exists(&entry.path())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::store::fsutil::{mode_of, test_dir};

    fn names() -> Vec<String> {
        vec!["a.csv".to_string(), "b.csv".to_string()]
    }

    #[test]
    fn a_set_replaces_the_old_files_only_when_committed() {
        let d = test_dir("outdir");
        let out = OutDir::open(&d.join("x/y"), &names()).unwrap();
        assert_eq!(mode_of(&d.join("x/y")).unwrap(), Some(0o700));
        let stage = |text: &str| -> Vec<Staged> {
            names()
                .iter()
                .map(|n| {
                    let mut s = out.stage(n).unwrap();
                    s.write_all(text.as_bytes()).unwrap();
                    s
                })
                .collect()
        };
        commit_all(stage("old")).unwrap();
        // A run that stops before committing leaves the old set and no temp file.
        drop(stage("new"));
        for n in names() {
            assert_eq!(fs::read_to_string(out.path().join(&n)).unwrap(), "old");
            assert_eq!(mode_of(&out.path().join(&n)).unwrap(), Some(0o600));
        }
        assert_eq!(fs::read_dir(out.path()).unwrap().count(), 2);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn leftovers_of_a_killed_run_go_and_a_second_run_is_refused() {
        let d = test_dir("outdir-left");
        fs::create_dir_all(&d).unwrap();
        for f in [".a.csv.tmp-1-0", ".b.csv.tmp-99-3", ".c.csv.tmp-1-0", "notes.txt"] {
            fs::write(d.join(f), "x").unwrap();
        }
        let out = OutDir::open(&d, &names()).unwrap();
        let mut left: Vec<String> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".c.csv.tmp-1-0", "notes.txt"], "only our own temp names are removed");
        let err = OutDir::open(&d, &names()).err().unwrap().to_string();
        assert!(err.contains("another export"), "{err}");
        drop(out);
        assert!(OutDir::open(&d, &names()).is_ok());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_link_in_place_of_a_file_is_refused_and_its_target_untouched() {
        let d = test_dir("outdir-link");
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("target"), "keep").unwrap();
        std::os::unix::fs::symlink(d.join("target"), d.join("a.csv")).unwrap();
        let out = OutDir::open(&d, &names()).unwrap();
        let err = out.stage("a.csv").err().unwrap().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(fs::read_to_string(d.join("target")).unwrap(), "keep");
        fs::remove_dir_all(&d).unwrap();
    }
}
