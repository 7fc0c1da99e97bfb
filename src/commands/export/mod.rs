//! `withings-mcp export [--out DIR] [--after D] [--before D] [--format csv|jsonl] [--only a,b]`:
//! the person's data as files they own, one per domain.
//!
//! Each domain streams through the list tools' own fetch-and-decode path (`data::stream`),
//! window by window and page by page, into a staged file: the records as JSON lines as they come;
//! for CSV, those lines are read back into rows once every column is known (`domain::table`).
//! No record is held longer than its page, so memory stays flat whatever the range. The files
//! replace the previous export together, once every one is complete (`store::outdir`): a run that
//! fails, or is killed, leaves the previous files as they were.
//!
//! Bounds. An export is not a tool call: the per-call budget of 60 requests and deadline do not
//! apply. Instead: requests are paced at 100 in any minute (`withings::pace`), under Withings' 120
//! per app; each request has its own timeout (30 s, `WITHINGS_HTTP_TIMEOUT_SECS`) and the client's
//! usual retries (3 tries), and a 601 may wait out a `Retry-After` of up to a minute. An upstream
//! that stalls or keeps failing ends the run within those bounds, with an error naming the domain.
//!
//! Range. `--after` bounds it; without it each domain starts at its first record, found by
//! bisection over 1980 to `--before`: each probe is one request that asks whether any record lies
//! in a range and reads only its first page (a dozen requests at most per domain, not one per
//! window of an empty past). Sleep detail starts the evening before the first sleep summary.
//! Intraday samples (24 hours a request, no paging: no cheap probe of their own) start at the
//! first day of activity, since the trackers that record them also record each day's activity.
//! That is every day of a tracker's history, a request each (a year: under four minutes at the
//! pace), which the progress line counts.

mod progress;

use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde::Serialize;
use serde_json::Value;

use crate::cli::{ExportFormat, ExportOpts};
use crate::commands::export::progress::Progress;
use crate::domain::named::Named;
use crate::domain::privacy::PrivacyMode;
use crate::domain::table::Columns;
use crate::domain::time::{self, CivilDate, DateArg, Instant, Range, Zone, Zones};
use crate::store::fsutil::Staged;
use crate::store::outdir::{self, OutDir};
use crate::tools::Ctx;
use crate::tools::data::{self, Settings, Source};
use crate::tools::intraday;
use crate::value::Json;
use crate::withings::budget::Call;
use crate::withings::client::Client;
use crate::withings::pace::Pace;
use crate::{Error, Result};

/// Where files go without `--out` (another account's go to `withings-export-NAME`).
const DEFAULT_DIR: &str = "withings-export";

/// The earliest day an export looks at without `--after` (manual entries can be backdated).
const FLOOR: CivilDate = CivilDate { y: 1980, m: 1, d: 1 };

/// Where the search for a first record stops: finer would cost more probes than it saves.
const CLOSE_ENOUGH_DAYS: i64 = 31;

/// One exported domain.
struct Domain {
    name: &'static str,
    /// The list tool it reads as; `None`: intraday samples (`tools::intraday`).
    source: Option<Source>,
    /// Where its first record is looked for (sleep detail takes 7 days a request and intraday a
    /// day, too dear to probe: sleep summaries and activity days stand in).
    first_in: Source,
    /// Days before that first record's day to start at (a night begins the evening before).
    lead_days: i64,
}

/// Every domain, in the order they are written.
const DOMAINS: &[Domain] = &[
    Domain { name: "measures", source: Some(Source::Measures), first_in: Source::Measures, lead_days: 0 },
    Domain { name: "heart", source: Some(Source::Heart), first_in: Source::Heart, lead_days: 0 },
    Domain { name: "activity", source: Some(Source::Activity), first_in: Source::Activity, lead_days: 0 },
    Domain { name: "workouts", source: Some(Source::Workouts), first_in: Source::Workouts, lead_days: 0 },
    Domain {
        name: "sleep_summary",
        source: Some(Source::SleepSummary),
        first_in: Source::SleepSummary,
        lead_days: 0,
    },
    Domain { name: "sleep", source: Some(Source::SleepDetail), first_in: Source::SleepSummary, lead_days: 1 },
    Domain { name: "intraday", source: None, first_in: Source::Activity, lead_days: 0 },
];

/// What the run prints on stdout.
#[derive(Serialize)]
struct Summary {
    account: String,
    dir: String,
    format: &'static str,
    range: SummaryRange,
    privacy_mode: &'static str,
    units: &'static str,
    files: Vec<FileSummary>,
    requests: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    demo: bool,
}

#[derive(Serialize)]
struct SummaryRange {
    /// `--after`, else the earliest first record of any domain (`null`: none at all).
    after: Option<String>,
    before: String,
    zone: String,
}

#[derive(Serialize)]
struct FileSummary {
    domain: &'static str,
    path: String,
    records: usize,
    /// The first day read (`null`: the domain has no record in the range).
    after: Option<String>,
}

/// Runs the command and returns the exit code.
pub fn run(ctx: &Ctx, opts: &ExportOpts) -> Result<u8> {
    let domains = chosen(opts.only.as_deref())?;
    let cfg = ctx.config()?;
    let zone = ctx.zone(&cfg)?;
    let range = requested(opts, &zone, ctx.now)?;
    // Raw records are Withings' own JSON, which has no table form: a CSV holds the decoded fields.
    let privacy = match (opts.format, cfg.privacy_mode()?) {
        (ExportFormat::Csv, PrivacyMode::Raw) => PrivacyMode::Structured,
        (_, mode) => mode,
    };
    let units = cfg.units()?;
    let s = Settings { cfg, zone, privacy, units };
    let account = ctx.env.account()?;
    let dir_path = match (&opts.out, account.is_default()) {
        (Some(out), _) => PathBuf::from(out),
        (None, true) => PathBuf::from(DEFAULT_DIR),
        // Two people exporting side by side never write into each other's files.
        (None, false) => PathBuf::from(format!("{DEFAULT_DIR}-{}", account.name())),
    };
    let names: Vec<String> = domains.iter().map(|d| format!("{}.{}", d.name, opts.format.name())).collect();
    let dir = OutDir::open(&dir_path, &names)?;
    let progress = Rc::new(Progress::new(std::io::stderr().is_terminal()));
    let job = Ctx { call: Call { started: None, sink: Some(progress.clone()) }, ..ctx.clone() };
    // The demo has no rate limit to keep under.
    let pace = match ctx.demo() {
        true => None,
        false => Some(Pace::export(ctx.env.get("WITHINGS_EXPORT_RATE"))?),
    };
    let client = job.client(&s.cfg, &s.zone)?.for_job(pace);
    let mut run = Job {
        client,
        ctx: &job,
        s: &s,
        zones: Zones::new(s.zone.clone()),
        firsts: Vec::new(),
        progress: &progress,
        format: opts.format,
    };
    let mut staged = Vec::new();
    let mut files = Vec::new();
    for (d, name) in domains.iter().zip(&names) {
        progress.begin(d.name);
        let (file, records, fetched) =
            run.domain(d, &dir, name, &range, opts.after.is_none()).map_err(|e| {
                progress.stop();
                Error::Export { domain: d.name, dir: dir_path.display().to_string(), reason: e.to_string() }
            })?;
        progress.end();
        let after = fetched.map(|r| r.start_date.to_string());
        files.push(FileSummary { domain: d.name, path: file.path().display().to_string(), records, after });
        staged.push(file);
    }
    outdir::commit_all(staged)?;
    let after = match opts.after {
        Some(_) => Some(range.start_date.to_string()),
        None => files.iter().filter_map(|f| f.after.clone()).min(),
    };
    let summary = Summary {
        account: account.name().to_string(),
        dir: dir.path().display().to_string(),
        format: opts.format.name(),
        range: SummaryRange { after, before: range.end_date.to_string(), zone: s.zone.name().to_string() },
        privacy_mode: s.privacy.name(),
        units: s.units.name(),
        files,
        requests: progress.all_requests(),
        demo: ctx.demo(),
    };
    // Through a `Value`, whose writer the program has anyway: writing the struct directly would
    // compile serde_json's serializer once more for these three types.
    let text = serde_json::to_value(&summary)
        .and_then(|v| serde_json::to_string(&v))
        .map_err(|e| Error::json("the export summary", e))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").and_then(|()| out.flush()).map_err(|e| Error::io("stdout", e))?;
    Ok(0)
}

/// The domains `--only` names (all without it), in their fixed order.
fn chosen(only: Option<&[String]>) -> Result<Vec<&'static Domain>> {
    let Some(names) = only else { return Ok(DOMAINS.iter().collect()) };
    if let Some(bad) = names.iter().find(|n| !DOMAINS.iter().any(|d| d.name == n.as_str())) {
        let all: Vec<&str> = DOMAINS.iter().map(|d| d.name).collect();
        return Err(Error::boxed(Error::Usage(format!(
            "export: unknown domain `{bad}` in --only; choose from {}",
            all.join(", ")
        ))));
    }
    Ok(DOMAINS.iter().filter(|d| names.iter().any(|n| n == d.name)).collect())
}

/// `--after` (else `FLOOR`) to `--before` (else now) in the user's zone; a bad date is a usage
/// error.
fn requested(opts: &ExportOpts, zone: &Zone, now: i64) -> Result<Range> {
    let parse = |flag: &str, value: &Option<String>| -> Result<Option<DateArg>> {
        match value {
            None => Ok(None),
            Some(v) => time::parse_date_arg(v)
                .map(Some)
                .map_err(|e| Error::boxed(Error::Usage(format!("export: {flag}: {e}")))),
        }
    };
    let after = parse("--after", &opts.after)?.unwrap_or(DateArg::Day(FLOOR));
    let before = parse("--before", &opts.before)?;
    time::resolve_range(Some(after), before, zone, Instant(now), 1).map_err(|e| {
        Error::boxed(Error::Usage(format!(
            "export: {}",
            e.replace("`after`", "--after").replace("`before`", "--before")
        )))
    })
}

/// What every domain of one run shares.
struct Job<'a> {
    client: Client,
    ctx: &'a Ctx,
    s: &'a Settings,
    /// The zones records named so far: CSV rows are written in them.
    zones: Zones,
    /// First record days found so far, by where they were looked for.
    firsts: Vec<(Source, Option<CivilDate>)>,
    progress: &'a Progress,
    format: ExportFormat,
}

impl Job<'_> {
    /// Writes one domain's file (staged, not yet in place); its record count and the range
    /// read (`None`: nothing to read).
    fn domain(
        &mut self,
        d: &Domain,
        dir: &OutDir,
        name: &str,
        range: &Range,
        from_first: bool,
    ) -> Result<(Staged, usize, Option<Range>)> {
        let fetch = match from_first {
            false => Some(*range),
            true => self.since_first(d, range)?,
        };
        let mut lines = dir.stage(name)?;
        let mut columns = Columns::new();
        let (mut count, mut buf) = (0, Vec::new());
        if let Some(r) = &fetch {
            let (csv, progress) = (self.format == ExportFormat::Csv, self.progress);
            let mut put = |rec: Json| {
                write_line(&mut lines, &mut buf, &rec)?;
                if csv {
                    columns.see(&rec.tree());
                }
                count += 1;
                progress.record();
                Ok(())
            };
            let (zone, privacy) = (&self.s.zone, self.s.privacy);
            match d.source {
                Some(source) => {
                    data::stream(self.ctx, &mut self.client, source, r, self.s, &mut self.zones, &mut put)?
                }
                None => intraday::each_window(&mut self.client, r, zone, privacy, &mut |v| put(v.into()))?,
            }
        }
        let file = match self.format {
            ExportFormat::Jsonl => lines,
            ExportFormat::Csv => self.table(dir, name, lines, &columns)?,
        };
        Ok((file, count, fetch))
    }

    /// The CSV of the records staged as JSON lines in `lines` (which then go).
    fn table(&self, dir: &OutDir, name: &str, mut lines: Staged, columns: &Columns) -> Result<Staged> {
        let io = writing;
        lines.flush().map_err(io(lines.path()))?;
        let mut csv = dir.stage(name)?;
        let reader = BufReader::new(File::open(lines.temp_path()).map_err(io(lines.path()))?);
        let mut first = true;
        for line in reader.lines() {
            let rec: Value = serde_json::from_str(&line.map_err(io(lines.path()))?)
                .map_err(|e| Error::json(format!("reading back {}", lines.path().display()), e))?;
            if first {
                csv.write_all(columns.header().as_bytes()).map_err(io(csv.path()))?;
                first = false;
            }
            csv.write_all(columns.row(&rec, &self.zones).as_bytes()).map_err(io(csv.path()))?;
        }
        Ok(csv)
    }

    /// The range to read `d` over: from the day of its first record (less its lead) to the end
    /// of `range`; `None` when it has no record in `range`.
    fn since_first(&mut self, d: &Domain, range: &Range) -> Result<Option<Range>> {
        let first = match self.firsts.iter().find(|(s, _)| *s == d.first_in) {
            Some((_, f)) => *f,
            None => {
                let f = first_day(&mut self.client, d.first_in, range, &self.s.zone)?;
                self.firsts.push((d.first_in, f));
                f
            }
        };
        Ok(first.map(|day| {
            let day = day.add_days(-d.lead_days).max(range.start_date);
            Range { start: self.s.zone.local_midnight(day).max(range.start), start_date: day, ..*range }
        }))
    }
}

/// A day no later than the first record of `source` in `range` and at most `CLOSE_ENOUGH_DAYS`
/// before it, by bisection: "is there a record before day X?" is one request that reads a page.
/// Each probe that finds records also narrows the search to the earliest one it saw.
fn first_day(client: &mut Client, source: Source, range: &Range, zone: &Zone) -> Result<Option<CivilDate>> {
    let Some(mut seen) = data::first_day_seen(client, source, range, zone)? else { return Ok(None) };
    // No record before `lo`; one on `seen`.
    let mut lo = range.start_date;
    while seen.days() - lo.days() > CLOSE_ENOUGH_DAYS {
        let mid = lo.add_days((seen.days() - lo.days()) / 2);
        let before_mid = Range {
            start: zone.local_midnight(lo).max(range.start),
            end: zone.local_midnight(mid),
            start_date: lo,
            end_date: mid.add_days(-1),
        };
        match data::first_day_seen(client, source, &before_mid, zone)? {
            Some(day) => seen = day.min(seen),
            None => lo = mid,
        }
    }
    Ok(Some(lo))
}

/// The error for an I/O failure on `path`.
fn writing(path: &Path) -> impl Fn(std::io::Error) -> Box<Error> + '_ {
    move |e| Error::io(format!("writing {}", path.display()), e)
}

/// `rec` and a line end, through `buf` (serializing into a `Vec` reuses the serializer the rest
/// of the program has, where one for the file's writer type would be another copy of it).
fn write_line(out: &mut Staged, buf: &mut Vec<u8>, rec: &Json) -> Result<()> {
    buf.clear();
    match rec {
        Json::Tree(v) => {
            serde_json::to_writer(&mut *buf, v).map_err(|e| Error::json("an exported record", e))?
        }
        Json::Text(t) => buf.extend_from_slice(t.as_bytes()),
    }
    buf.push(b'\n');
    out.write_all(buf).map_err(writing(out.path()))
}
