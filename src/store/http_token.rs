//! The bearer token that HTTP mode requires on `POST /mcp` (CONTRACT §8.3):
//! `WITHINGS_MCP_HTTP_TOKEN`, else `~/.withings-mcp/http-token` (0600 in the 0700 directory),
//! created on first start from 256 random bits. The randomness is passed in (`fresh`), so this
//! file does only the file work.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::store::config::Env;
use crate::store::fsutil;
use crate::{Error, Result};

/// The environment variable that names the token instead of the file.
pub const ENV_KEY: &str = "WITHINGS_MCP_HTTP_TOKEN";
/// The longest token accepted, in bytes (a generated one has 64).
const MAX_LEN: usize = 1024;

/// The token and where it came from.
pub struct HttpToken {
    pub secret: String,
    pub origin: Origin,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `WITHINGS_MCP_HTTP_TOKEN`.
    Env,
    /// The token file, as found.
    File(PathBuf),
    /// The token file, created just now: the one time its token may be shown.
    Created(PathBuf),
}

// Never print the secret by accident (`{:?}` in a log line or an error).
impl std::fmt::Debug for HttpToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpToken").field("secret", &"<hidden>").field("origin", &self.origin).finish()
    }
}

/// `~/.withings-mcp/http-token`.
pub fn path(env: &Env) -> Result<PathBuf> {
    Ok(env.state_dir()?.join("http-token"))
}

/// The token from the environment, else from the token file, which is created (with a token
/// from `fresh`) when it does not exist. A file readable by others is refused, like tokens.json.
pub fn load_or_create(env: &Env, fresh: &dyn Fn() -> Result<String>) -> Result<HttpToken> {
    if let Some(value) = env.get(ENV_KEY) {
        let secret = valid(value).ok_or_else(|| {
            Error::Config(format!(
                "{ENV_KEY} must be 1 to {MAX_LEN} printable characters without spaces (it is sent as `Authorization: Bearer <token>`)"
            ))
        })?;
        return Ok(HttpToken { secret, origin: Origin::Env });
    }
    let path = path(env)?;
    match read(&path)? {
        Some(secret) => Ok(HttpToken { secret, origin: Origin::File(path) }),
        None => create(&path, &fresh()?),
    }
}

/// A token as written: trimmed, printable ASCII, no spaces, not empty, not too long.
fn valid(raw: &str) -> Option<String> {
    let t = raw.trim();
    let ok = !t.is_empty() && t.len() <= MAX_LEN && t.bytes().all(|b| b.is_ascii_graphic());
    ok.then(|| t.to_string())
}

/// The token in the file; `None` when there is no file.
fn read(path: &Path) -> Result<Option<String>> {
    fsutil::check_private(path, "HTTP token file")?;
    let mut text = String::new();
    match fs::File::open(path) {
        Ok(f) => f.take(MAX_LEN as u64 + 2).read_to_string(&mut text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
    }
    .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    match valid(&text) {
        Some(secret) => Ok(Some(secret)),
        None => Err(Error::boxed(Error::Config(format!(
            "{} does not hold a token (1 to {MAX_LEN} printable characters); delete it and start again to have a new one made",
            path.display()
        )))),
    }
}

/// Creates the token file without ever replacing one: written in full under a temporary name,
/// then hard-linked into place, which fails if another process made the file first (then its
/// token is the one used). So no reader ever sees a half-written or a second token.
fn create(path: &Path, secret: &str) -> Result<HttpToken> {
    let dir = fsutil::parent(path);
    fsutil::ensure_private_dir(&dir)?;
    let staging = dir.join(format!(".http-token.new-{}", std::process::id()));
    fsutil::write_atomic(&staging, format!("{secret}\n").as_bytes(), 0o600)?;
    let linked = fs::hard_link(&staging, path);
    let _ = fs::remove_file(&staging);
    match linked {
        Ok(()) => Ok(HttpToken { secret: secret.to_string(), origin: Origin::Created(path.to_path_buf()) }),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match read(path)? {
            Some(secret) => Ok(HttpToken { secret, origin: Origin::File(path.to_path_buf()) }),
            None => Err(Error::boxed(Error::Config(format!(
                "{} vanished while it was being created",
                path.display()
            )))),
        },
        Err(e) => Err(Error::io(format!("creating {} (or set {ENV_KEY} instead)", path.display()), e)),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn home(tag: &str) -> (PathBuf, Env) {
        let d = fsutil::test_dir(&format!("http-token-{tag}"));
        fs::create_dir_all(&d).unwrap();
        let env = Env::from_pairs(&[("HOME", d.to_str().unwrap())]);
        (d, env)
    }

    fn fixed() -> Result<String> {
        Ok("a".repeat(64))
    }

    #[test]
    fn created_once_private_then_reused() {
        let (d, env) = home("create");
        let first = load_or_create(&env, &fixed).unwrap();
        let path = d.join(".withings-mcp/http-token");
        assert_eq!(first.origin, Origin::Created(path.clone()));
        assert_eq!(fsutil::mode_of(&path).unwrap(), Some(0o600));
        assert_eq!(fsutil::mode_of(&d.join(".withings-mcp")).unwrap(), Some(0o700));
        let never = || -> Result<String> { panic!("a second token was made") };
        let again = load_or_create(&env, &never).unwrap();
        assert_eq!((&again.secret, again.origin), (&first.secret, Origin::File(path.clone())));
        // Only the token file is left: no staging or temp file.
        assert_eq!(fs::read_dir(d.join(".withings-mcp")).unwrap().count(), 1);
        assert!(!format!("{first:?}").contains("aaaa"), "Debug hides the secret");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn the_environment_wins_and_bad_tokens_are_refused() {
        let (d, _) = home("env");
        let env = |v: &str| Env::from_pairs(&[("HOME", d.to_str().unwrap()), (ENV_KEY, v)]);
        let t = load_or_create(&env(" s3cret \n"), &fixed).unwrap();
        assert_eq!((t.secret.as_str(), t.origin), ("s3cret", Origin::Env));
        assert!(!d.join(".withings-mcp/http-token").exists(), "no file when the environment has a token");
        for bad in ["  ", "two words", "tab\there", "é"] {
            let e = load_or_create(&env(bad), &fixed).unwrap_err().to_string();
            assert!(e.contains(ENV_KEY), "{bad:?}: {e}");
        }
        let e = load_or_create(&env("leaked words"), &fixed).unwrap_err().to_string();
        assert!(!e.contains("leaked"), "the value is never echoed: {e}");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_loose_or_garbled_file_is_refused_with_advice() {
        let (d, env) = home("loose");
        load_or_create(&env, &fixed).unwrap();
        let path = d.join(".withings-mcp/http-token");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let e = load_or_create(&env, &fixed).unwrap_err().to_string();
        assert!(e.contains("chmod 600") && e.contains("http-token"), "{e}");
        assert!(!e.contains("aaaa"), "{e}");
        fs::write(&path, "\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let e = load_or_create(&env, &fixed).unwrap_err().to_string();
        assert!(e.contains("does not hold a token"), "{e}");
        fs::remove_dir_all(&d).unwrap();
    }
}
