//! Charts through the real binary on the demo account (issues 7 and 12): the `withings_chart`
//! tool's PNG image and its text, the `chart` command's formats and file rules, golden SVGs,
//! and every chart kind read back by an independent PNG decoder (tests/it/png_decode.py).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::demo::{CHART_AFTER, CHART_BEFORE, METRICS, NOW, TZ, assert_no_bad_numbers, demo, golden};
use crate::fake::{TempHome, run};

/// `--demo chart ARGS` in `home` (also the working directory): exit code, raw stdout, stderr.
fn chart(home: &TempHome, args: &[&str]) -> (i32, Vec<u8>, String) {
    let mut c = demo(home, NOW, &[&["chart"], args].concat());
    c.current_dir(&home.dir);
    let out = c.output().unwrap();
    (out.status.code().unwrap_or(-1), out.stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `--demo chart METRIC` over the golden window, written to `--out FILE.ext`: the file's bytes.
fn chart_file(metric: &str, ext: &str) -> Vec<u8> {
    let home = TempHome::new("chart");
    let out: PathBuf = home.dir.join(format!("{metric}.{ext}"));
    let out_s = out.display().to_string();
    let (code, stdout, stderr) =
        chart(&home, &[metric, "--after", CHART_AFTER, "--before", CHART_BEFORE, "--out", &out_s]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty(), "with --out, nothing on stdout");
    assert_eq!(mode(&out), 0o600, "{metric}.{ext}");
    std::fs::read(&out).unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Reads a PNG with the independent decoder (Python's zlib for inflate and CRCs). `None`, with
/// a loud message, only outside CI when python3 is missing.
fn decode_png(png: &[u8], thumb: Option<&Path>) -> Option<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/png_decode.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script);
    if let Some(t) = thumb {
        cmd.arg("--thumb").arg(t);
    }
    let child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("SKIPPED: python3 is not available ({e}); PNGs were not decoded");
            return None;
        }
        Err(e) => panic!("python3 is required in CI: {e}"),
    };
    let mut stdin = child.stdin.take().unwrap();
    let input = png.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "the decoder refused the PNG: {}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn golden_charts() {
    for metric in ["weight", "steps", "sleep_duration", "systolic"] {
        let svg = chart_file(metric, "svg");
        let text = std::str::from_utf8(&svg).unwrap();
        assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"), "{metric}");
        assert_no_bad_numbers(text);
        assert!(text.contains(CHART_AFTER) && text.contains(CHART_BEFORE) && text.contains(TZ), "{metric}");
        assert!(text.contains(">DEMO<"), "{metric}: a demo chart says so");
        assert_eq!(chart_file(metric, "svg"), svg, "{metric}: two runs differ");
        golden(&format!("chart_{metric}.svg"), &svg);
    }
}

#[test]
fn every_chart_kind_is_a_png_that_a_decoder_reads() {
    // CHART_PNG_OUT=dir keeps every picture and its half-size thumbnail for a look.
    let keep = std::env::var("CHART_PNG_OUT").ok();
    for metric in METRICS {
        let png = chart_file(metric, "png");
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{metric}");
        assert_eq!(chart_file(metric, "png"), png, "{metric}: two runs differ");
        let thumb = keep.as_ref().map(|d| Path::new(d).join(format!("{metric}-thumb.png")));
        if let Some(dir) = &keep {
            std::fs::write(Path::new(dir).join(format!("{metric}.png")), &png).unwrap();
        }
        let Some(info) = decode_png(&png, thumb.as_deref()) else { return };
        assert_eq!(
            (info["width"].as_u64(), info["height"].as_u64()),
            (Some(800), Some(400)),
            "{metric}: {info}"
        );
        assert_eq!(info["chunks"], json!(["IHDR", "IDAT", "IEND"]), "{metric}");
        // A picture, not a blank page: text, points, the trend and its band.
        let ink = info["ink"].as_f64().unwrap();
        assert!((0.04..0.6).contains(&ink), "{metric}: {ink} of the pixels are inked");
        // Compressed for real: an 800×400 RGB image is 960,000 bytes raw.
        assert!(png.len() < 60_000, "{metric}: {} bytes", png.len());
    }
}

#[test]
fn axis_labels_follow_the_unit_system() {
    let home = TempHome::new("chart-units");
    let cases = [
        ("weight", "metric", "Weight (kg)"),
        ("weight", "imperial", "Weight (lb)"),
        ("fat_mass", "uk", "Fat mass (lb)"),
        ("sleep_duration", "imperial", "Sleep duration (h)"),
    ];
    for (metric, units, label) in cases {
        let (code, svg, stderr) = chart(&home, &[metric, "--units", units, "--format", "svg"]);
        assert_eq!(code, 0, "{stderr}");
        let svg = String::from_utf8(svg).unwrap();
        assert!(svg.contains(&format!(">{label}<")), "{metric} {units}: {svg}");
    }
}

/// Runs the stdio server in demo mode on `messages`; returns the replies.
fn stdio(messages: &[Value]) -> Vec<Value> {
    let home = TempHome::new("chart-stdio");
    let mut child = demo(&home, NOW, &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn the_chart_tool_returns_a_png_and_says_what_it_shows() {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "1"}}});
    let call = |id: i64, args: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "withings_chart", "arguments": args}});
    let replies = stdio(&[
        init,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call(1, json!({"metric": "weight", "after": CHART_AFTER, "before": CHART_BEFORE})),
        call(2, json!({"metric": "bmi"})),
        call(
            3,
            json!({"metric": "weight", "after": CHART_AFTER, "before": CHART_BEFORE, "units": "imperial"}),
        ),
    ]);
    let by_id = |id: i64| replies.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("no reply {id}"));
    let result = &by_id(1)["result"];
    assert_ne!(result["isError"], true, "{result}");
    let content = result["content"].as_array().unwrap();
    // Hosts that show images take PNG; SVG as image content breaks some of them.
    assert!(!result.to_string().contains("image/svg+xml"), "{result}");
    let images: Vec<&Value> = content.iter().filter(|c| c["type"] == "image").collect();
    assert_eq!(images.len(), 1, "{result}");
    assert_eq!(images[0]["mimeType"], "image/png");
    let png = base64_decode(images[0]["data"].as_str().unwrap()).expect("valid base64");
    // The MCP tool and the shell command draw the same picture.
    assert_eq!(png, chart_file("weight", "png"));
    let s = &result["structuredContent"];
    assert_eq!(
        (s["mime_type"].as_str(), s["width"].as_u64(), s["height"].as_u64()),
        (Some("image/png"), Some(800), Some(400))
    );
    let latest = s["latest_trend"].as_f64().unwrap();
    // The plotted series, for hosts that draw the chart themselves, ends on the latest trend.
    let series = s["series"].as_array().unwrap();
    assert!(series.len() > 10 && series.len() as u64 <= s["readings"].as_u64().unwrap(), "{s}");
    assert_eq!(series.last().unwrap()["trend"].as_f64(), Some(latest));
    // The text says what the chart shows: metric, range, zone, points and the latest trend.
    let text = content.iter().find(|c| c["type"] == "text").unwrap()["text"].as_str().unwrap();
    for want in [
        "Weight".to_string(),
        CHART_AFTER.to_string(),
        CHART_BEFORE.to_string(),
        TZ.to_string(),
        format!("{} readings", s["readings"]),
        format!("Latest trend value: {latest} kg"),
        "Demo account".to_string(),
    ] {
        assert!(text.contains(&want), "{want:?} not in {text}");
    }
    let imperial = &by_id(3)["result"];
    let text = imperial["content"][0]["text"].as_str().unwrap();
    let lb = imperial["structuredContent"]["latest_trend"].as_f64().unwrap();
    assert!((lb / latest - 2.204_62).abs() < 0.01, "{lb} lb vs {latest} kg");
    assert!(text.contains(&format!("Latest trend value: {lb} lb")), "{text}");

    let home = TempHome::new("chart-uk");
    let args = json!({"metric": "weight", "units": "uk"}).to_string();
    let r = run(demo(&home, NOW, &["call", "withings_chart", "--json", &args, "--markdown"]));
    let line = r.stdout.lines().find(|l| l.starts_with("- Latest trend value:")).unwrap_or_default();
    assert!(line.contains(" lb (") && line.contains(" st ") && line.ends_with(" lb)"), "{}", r.stdout);

    let bad = &by_id(2)["result"];
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(bad["content"][0]["text"].as_str().unwrap().contains("metric"), "{bad}");
}

#[test]
fn call_markdown_never_promises_an_image_it_does_not_print() {
    let home = TempHome::new("chart-md");
    let args = json!({"metric": "weight", "after": CHART_AFTER, "before": CHART_BEFORE}).to_string();
    let r = run(demo(&home, NOW, &["call", "withings_chart", "--json", &args, "--markdown"]));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("Latest trend value:") && r.stdout.contains("PNG"), "{}", r.stdout);
    for promise in ["follows", "below", "attached above"] {
        assert!(!r.stdout.contains(promise), "{promise:?}: {}", r.stdout);
    }
}

#[test]
fn out_dash_is_stdout_and_the_format_follows_the_name() {
    let home = TempHome::new("chart-out");
    let (code, stdout, stderr) = chart(&home, &["weight", "--out", "-"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with(b"<svg"), "SVG by default");
    assert!(!home.dir.join("-").exists(), "no file named -");
    let (code, stdout, _) = chart(&home, &["weight", "--out", "-", "--format", "png"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with(b"\x89PNG"));
    let (_, stdout, _) = chart(&home, &["weight", "--format", "png"]);
    assert!(stdout.starts_with(b"\x89PNG"), "stdout without --out too");
    // The extension decides unless --format does; a relative name lands in the working directory.
    for (args, file, png) in [
        (&["--out", "a.PNG"][..], "a.PNG", true),
        (&["--out", "b.svg"][..], "b.svg", false),
        (&["--out", "c.svg", "--format", "png"][..], "c.svg", true),
        (&["--out", "d.out"][..], "d.out", false),
    ] {
        let (code, stdout, stderr) = chart(&home, &[&["weight"], args].concat());
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.is_empty());
        let bytes = std::fs::read(home.dir.join(file)).unwrap();
        assert_eq!(bytes.starts_with(b"\x89PNG"), png, "{file}");
        assert_eq!(mode(&home.dir.join(file)), 0o600, "{file}");
    }
}

#[test]
fn a_chart_file_is_private_atomic_and_never_written_through_a_link() {
    let home = TempHome::new("chart-link");
    let dir = home.dir.join("out");
    std::fs::create_dir_all(&dir).unwrap();
    let target = home.dir.join("precious.txt");
    std::fs::write(&target, "keep me").unwrap();
    let link = dir.join("chart.svg");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (code, stdout, stderr) = chart(&home, &["weight", "--out", link.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.starts_with("withings-mcp: ") && stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    // A dangling link is refused too: nothing is created where it points.
    let nowhere = home.dir.join("nowhere.png");
    let dangling = dir.join("dangling.png");
    std::os::unix::fs::symlink(&nowhere, &dangling).unwrap();
    let (code, _, _) = chart(&home, &["weight", "--out", dangling.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(!nowhere.exists());
    // An existing, readable file is replaced by a private one, and no temp file is left.
    let old = dir.join("old.png");
    std::fs::write(&old, "old").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (code, _, stderr) = chart(&home, &["weight", "--out", old.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(std::fs::read(&old).unwrap().starts_with(b"\x89PNG"));
    assert_eq!(mode(&old), 0o600);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
}

#[test]
fn chart_usage_errors_exit_2_and_name_the_problem() {
    let home = TempHome::new("chart-usage");
    let cases: [(&[&str], &str); 6] = [
        (&["bmi"], "bmi"),
        (&["weight", "--units", "furlongs"], "units"),
        (&["weight", "--format", "gif"], "--format"),
        (&["weight", "--after", "yesterday"], "after"),
        (&[], "METRIC"),
        (&["weight", "--size", "3"], "--size"),
    ];
    for (args, named) in cases {
        let out = home.dir.join("never.svg");
        let mut all = args.to_vec();
        all.extend(["--out", out.to_str().unwrap()]);
        let (code, stdout, stderr) = chart(&home, &all);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty() && !out.exists(), "{args:?}");
        assert!(stderr.starts_with("withings-mcp: ") && stderr.contains(named), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
}

/// Minimal standard base64 decoding (no dependency); `None` on a malformed input.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let bytes = s.trim_end_matches('=').as_bytes();
    if !s.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::new();
    for chunk in bytes.chunks(4) {
        let v: Vec<u8> = chunk.iter().map(|&c| value(c)).collect::<Option<_>>()?;
        let n = v.iter().fold(0u32, |acc, &x| acc << 6 | u32::from(x)) << (6 * (4 - v.len()));
        out.extend(&n.to_be_bytes()[1..v.len()]);
    }
    Some(out)
}

#[test]
fn base64_decoder_is_right() {
    for (enc, dec) in [("", ""), ("Zg==", "f"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("PHN2Zz4=", "<svg>")] {
        assert_eq!(base64_decode(enc).unwrap(), dec.as_bytes(), "{enc}");
    }
    assert_eq!(base64_decode("Zm9"), None);
}

#[test]
fn the_readme_picture_is_what_its_command_makes() {
    // README "Pictures": WITHINGS_MCP_NOW=1773576000 WITHINGS_TZ=Europe/Paris \
    //   withings-mcp --demo chart weight --out docs/chart-weight.png
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let command = format!(
        "WITHINGS_MCP_NOW={NOW} WITHINGS_TZ={TZ} withings-mcp --demo chart weight --out docs/chart-weight.png"
    );
    assert!(readme.contains(&command), "README must show: {command}");
    assert!(readme.contains("](docs/chart-weight.png)"));
    let home = TempHome::new("chart-readme");
    let (code, png, stderr) = chart(&home, &["weight", "--out", "-", "--format", "png"]);
    assert_eq!(code, 0, "{stderr}");
    let committed = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/chart-weight.png")).unwrap();
    assert!(png == committed, "docs/chart-weight.png is stale: run the command above and commit it");
}
