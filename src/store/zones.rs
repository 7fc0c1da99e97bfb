//! The system zone database: the user's zone (`WITHINGS_TZ`, else the machine's) and the zones
//! records name, read from TZif files under `TZDIR` (default `/usr/share/zoneinfo`) and
//! `/etc/localtime`. The parsing itself is pure (`domain::time`); this module only finds and
//! reads the bytes, never more than a zone file can hold.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::domain::time::{MAX_POSIX_TZ_LEN, MAX_TZIF_BYTES, Zone, Zones};
use crate::store::config::Env;
use crate::{Error, Result};

/// The default zone database directory.
pub const ZONEINFO_DIR: &str = "/usr/share/zoneinfo";

/// The user's zone from `spec` (`WITHINGS_TZ`: an IANA name or a fixed offset), else the
/// machine's zone (`TZ` from `env`, then `/etc/localtime`), else UTC.
pub fn user_zone(env: &Env, spec: Option<&str>) -> Result<Zone> {
    let dir = zoneinfo_dir(env);
    match spec.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => {
            if let Some(z) = Zone::parse_fixed(s) {
                return Ok(z);
            }
            check_zone_name(s).map_err(Error::Config)?;
            read_named_zone(&dir, s).map_err(|why| {
                Error::boxed(Error::Config(format!(
                    "unknown time zone `{s}` in WITHINGS_TZ ({why}); use an IANA name such as \
                     Europe/Paris or a fixed offset such as +02:00"
                )))
            })
        }
        None => Ok(machine_zone(&dir, env.get("TZ"))),
    }
}

/// Adds the zones records name (their `"timezone"` fields) to `zones`; names that cannot be
/// loaded are skipped, so those records fall back to the user's zone.
pub fn add_record_zones<'a>(env: &Env, zones: &mut Zones, names: impl IntoIterator<Item = &'a str>) {
    // Generic only in this shell: the loader below is compiled once, not once per caller's
    // iterator type (nine of them; binary size), and so is the walk over the names.
    add_zones(env, zones, &mut names.into_iter());
}

fn add_zones(env: &Env, zones: &mut Zones, names: &mut dyn Iterator<Item = &str>) {
    let dir = zoneinfo_dir(env);
    for name in names {
        if zones.knows(name) {
            continue;
        }
        let zone = match Zone::parse_fixed(name) {
            Some(z) => Some(z.renamed(name)),
            None => check_zone_name(name).ok().and_then(|()| read_named_zone(&dir, name).ok()),
        };
        if let Some(z) = zone {
            zones.insert(z);
        }
    }
}

fn zoneinfo_dir(env: &Env) -> PathBuf {
    PathBuf::from(env.get("TZDIR").unwrap_or(ZONEINFO_DIR))
}

/// Rejects names that could escape the zone database directory.
fn check_zone_name(name: &str) -> Result<(), String> {
    let ok_chars =
        name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+' | '.'));
    if name.starts_with('/') || name.split('/').any(|part| part == ".." || part == "." || part.is_empty()) {
        return Err(format!("time zone `{name}` must be an IANA name such as Europe/Paris, not a path"));
    }
    match ok_chars && name.len() <= 64 {
        true => Ok(()),
        false => Err(format!("time zone `{name}` is not a valid IANA zone name")),
    }
}

fn read_named_zone(dir: &Path, name: &str) -> Result<Zone, String> {
    let path = dir.join(name);
    let bytes = read_bounded(&path)?;
    Zone::from_tzif(name, &bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads at most one byte more than a zone file may hold, so a huge or endless file (a FIFO, a
/// device, a crafted `TZDIR`) costs no more than that.
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_TZIF_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    match bytes.len() > MAX_TZIF_BYTES {
        true => Err(format!("{}: larger than the {MAX_TZIF_BYTES} bytes a zone file can be", path.display())),
        false => Ok(bytes),
    }
}

fn machine_zone(dir: &Path, tz_env: Option<&str>) -> Zone {
    let tz =
        tz_env.map(|t| t.trim_start_matches(':')).filter(|t| !t.is_empty() && t.len() <= MAX_POSIX_TZ_LEN);
    if let Some(tz) = tz {
        if let Some(z) = Zone::parse_fixed(tz) {
            return z;
        }
        if check_zone_name(tz).is_ok()
            && let Ok(z) = read_named_zone(dir, tz)
        {
            return z;
        }
        if let Some(z) = Zone::from_posix(tz) {
            return z;
        }
    }
    let localtime = Path::new("/etc/localtime");
    let name = std::fs::read_link(localtime)
        .ok()
        .and_then(|target| {
            let s = target.to_string_lossy().into_owned();
            s.split_once("zoneinfo/").map(|(_, n)| n.to_string())
        })
        .unwrap_or_else(|| "localtime".to_string());
    let zone = read_bounded(localtime).ok().and_then(|b| Zone::from_tzif(&name, &b).ok());
    match zone {
        Some(z) if matches!(name.as_str(), "UTC" | "Etc/UTC" | "Etc/UCT" | "UCT" | "Etc/Zulu" | "Zulu") => {
            z.renamed("UTC")
        }
        Some(z) => z,
        None => Zone::utc(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time::{DateArg, Instant, parse_date_arg};

    fn at(s: &str) -> Instant {
        match parse_date_arg(s).unwrap() {
            DateArg::At(t) => t,
            DateArg::Day(_) => panic!("{s} is a day"),
        }
    }

    fn env(tz: Option<&str>, tzdir: &str) -> Env {
        let mut pairs = vec![("TZDIR", tzdir)];
        pairs.extend(tz.map(|t| ("TZ", t)));
        Env::from_pairs(&pairs)
    }

    #[test]
    fn user_zone_specs() {
        let e = env(None, ZONEINFO_DIR);
        let cases = [
            (Some("Europe/Paris"), "Europe/Paris"),
            (Some("+02:00"), "+02:00"),
            (Some("UTC"), "UTC"),
            (Some(" America/New_York "), "America/New_York"),
        ];
        for (spec, name) in cases {
            assert_eq!(user_zone(&e, spec).unwrap().name(), name);
        }
        for bad in ["Mars/Olympus_Mons", "../etc/passwd", "/etc/localtime", "Europe/../Europe/Paris", "a b"] {
            let err = user_zone(&e, Some(bad)).unwrap_err().to_string();
            assert!(err.starts_with("configuration:"), "{err}");
            assert!(err.contains(bad), "{err}");
        }
        // The machine zone: TZ first (a name, a fixed offset or a POSIX rule).
        assert_eq!(user_zone(&env(Some("Europe/Paris"), ZONEINFO_DIR), None).unwrap().name(), "Europe/Paris");
        let ny = user_zone(&env(Some(":America/New_York"), ZONEINFO_DIR), None).unwrap();
        assert_eq!(ny.name(), "America/New_York");
        let posix = user_zone(&env(Some("CET-1CEST,M3.5.0,M10.5.0/3"), ZONEINFO_DIR), None).unwrap();
        assert_eq!(posix.offset_at(at("2026-07-01T00:00Z")), 7200);
        // Without TZ, /etc/localtime decides; on any machine it yields a usable zone.
        assert!(!user_zone(&e, None).unwrap().name().is_empty());
    }

    #[test]
    fn record_zones_fall_back_to_the_user_zone() {
        let mut zones = Zones::new(Zone::fixed(3600));
        add_record_zones(&env(None, ZONEINFO_DIR), &mut zones, ["Europe/Paris", "Nowhere/Else", "../x"]);
        assert_eq!(zones.for_record(Some("Europe/Paris")).name(), "Europe/Paris");
        assert_eq!(zones.for_record(Some("Nowhere/Else")).name(), "+01:00");
        assert_eq!(zones.for_record(None).name(), "+01:00");
        assert!(!zones.knows("../x"));
    }

    /// TZDIR is the snapshot's, not the process's: the same name resolves in the directory the
    /// `Env` names.
    #[test]
    fn tzdir_comes_from_the_env_snapshot() {
        let dir = crate::store::fsutil::test_dir("zones-tzdir");
        std::fs::create_dir_all(dir.join("Test")).unwrap();
        std::fs::copy(format!("{ZONEINFO_DIR}/Asia/Tokyo"), dir.join("Test/Home")).unwrap();
        let z = user_zone(&env(None, dir.to_str().unwrap()), Some("Test/Home")).unwrap();
        assert_eq!(z.offset_at(Instant(0)), 9 * 3600);
        assert!(user_zone(&env(None, ZONEINFO_DIR), Some("Test/Home")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A TZif header that claims 2^31 - 1 transitions (16 GB of reservations before the fix) and
    /// a zone file of endless zeros are refused with a message, quickly and without the memory.
    #[test]
    fn crafted_zone_files_are_refused_within_bounds() {
        let dir = crate::store::fsutil::test_dir("zones-crafted");
        std::fs::create_dir_all(dir.join("Evil")).unwrap();
        let mut b = b"TZif2".to_vec();
        b.extend([0u8; 15]);
        for n in [0i32, 0, 0, i32::MAX, 1, 4] {
            b.extend(n.to_be_bytes());
        }
        b.extend([0u8; 64]);
        std::fs::write(dir.join("Evil/Huge"), &b).unwrap();
        std::fs::write(dir.join("Evil/Big"), vec![0u8; MAX_TZIF_BYTES + 10]).unwrap();
        let e = env(None, dir.to_str().unwrap());
        let err = user_zone(&e, Some("Evil/Huge")).unwrap_err().to_string();
        assert!(err.contains("announces") && err.contains("Evil/Huge"), "{err}");
        let err = user_zone(&e, Some("Evil/Big")).unwrap_err().to_string();
        assert!(err.contains("larger than"), "{err}");
        // The same crafted bytes as the machine zone: TZ names them, the reader falls back.
        let z = user_zone(&env(Some("Evil/Huge"), dir.to_str().unwrap()), None).unwrap();
        assert!(!z.name().is_empty());
        // /dev/zero is endless: the bounded read stops after one byte past the limit.
        let err = user_zone(&env(None, "/dev"), Some("zero")).unwrap_err().to_string();
        assert!(err.contains("larger than"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
