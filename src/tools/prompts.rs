//! MCP prompts (CONTRACT §5): reusable conversation starters that steer an agent to the right
//! tools. Arguments are strings; completion offers values where that helps.

use serde_json::Value;

use crate::store::accounts::Account;
use crate::strmap::StrMap;
use crate::value::json;
use crate::{Error, Result};

/// One prompt argument.
#[derive(Debug, Clone, Copy)]
pub struct Arg {
    pub name: &'static str,
    pub description: &'static str,
    pub required: bool,
    /// Values offered by `completion/complete` (filtered by prefix).
    pub completions: &'static [&'static str],
}

/// Builds a prompt's whole `messages` array from its (checked) arguments.
pub type MessagesFn = fn(&StrMap) -> Value;

/// One prompt.
#[derive(Clone)]
pub struct Prompt {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub arguments: &'static [Arg],
    /// Builds the user message text from the (checked) arguments.
    pub render: fn(&StrMap) -> String,
    /// Builds the whole `messages` array instead, for prompts with images or embedded resources.
    pub messages: Option<MessagesFn>,
}

/// The `account` argument every prompt takes: whose data the conversation is about.
const ACCOUNT: Arg = Arg {
    name: "account",
    description: "Optional: whose data, an account name from withings_accounts (default: the server's account)",
    required: false,
    completions: &[],
};

/// Every prompt, in the order `prompts/list` shows them.
pub fn all() -> Vec<Prompt> {
    vec![daily_checkin(), weekly_review(), body_sleep_investigation()]
}

fn daily_checkin() -> Prompt {
    Prompt {
        name: "withings_daily_checkin",
        title: "Daily check-in",
        description: "A short daily check-in on body, sleep, activity and heart from today's Withings data.",
        arguments: &[
            Arg {
                name: "focus",
                description: "Optional focus: body, sleep, activity, heart or recovery",
                required: false,
                completions: &["body", "sleep", "activity", "heart", "recovery"],
            },
            ACCOUNT,
        ],
        render: |a| {
            let focus = match a.get("focus") {
                Some(f) => format!(" Pay particular attention to {f}."),
                None => String::new(),
            };
            format!(
                "Give me my daily Withings check-in. Call `withings_daily_summary` for today (and \
                 `withings_connection_status` first if it fails). Summarise weight and body \
                 composition, last night's sleep, yesterday's activity and heart data in a few \
                 sentences, say which data is missing or stale, and suggest one or two concrete \
                 actions for today.{focus} Do not give medical diagnoses."
            )
        },
        messages: None,
    }
}

fn weekly_review() -> Prompt {
    Prompt {
        name: "withings_weekly_review",
        title: "Weekly review",
        description: "A weekly review against the previous week, with a plan for next week.",
        arguments: &[
            Arg {
                name: "goal",
                description: "Optional goal, e.g. lose fat, sleep more, move more, lower blood pressure",
                required: false,
                completions: &["lose fat", "gain muscle", "sleep more", "move more", "lower blood pressure"],
            },
            ACCOUNT,
        ],
        render: |a| {
            let goal = match a.get("goal") {
                Some(g) => format!(" My goal is: {g}. Tailor the plan to it."),
                None => String::new(),
            };
            format!(
                "Review my last 7 days of Withings data against the 7 days before. Call \
                 `withings_weekly_summary` with days=7 and compare_days=7, then `withings_trends` \
                 for weight if it is available. Report the scorecard, what changed beyond normal \
                 noise, the main bottleneck, and a realistic plan for next week based on my own \
                 baseline.{goal} Say plainly where data is insufficient."
            )
        },
        messages: None,
    }
}

fn body_sleep_investigation() -> Prompt {
    Prompt {
        name: "withings_body_sleep_investigation",
        title: "Body and sleep investigation",
        description: "Investigate how body measures and sleep relate over a date range.",
        arguments: &[
            Arg {
                name: "after",
                description: "Start date, YYYY-MM-DD (required)",
                required: true,
                completions: &[],
            },
            Arg {
                name: "before",
                description: "End date, YYYY-MM-DD (optional)",
                required: false,
                completions: &[],
            },
            ACCOUNT,
        ],
        render: |a| {
            let after = a.get("after").map(String::as_str).unwrap_or("");
            let before = match a.get("before") {
                Some(b) => format!(" and before={b}"),
                None => String::new(),
            };
            format!(
                "Investigate how my body measures and my sleep relate between {after} and {}. Call \
                 `withings_list_body_measures` and `withings_list_sleep_summary` with after={after}{before}, \
                 line the nights up with the next morning's weigh-ins by local date, and describe any \
                 pattern (e.g. short sleep before weight spikes), with the number of days each \
                 observation rests on. Treat correlations as hypotheses, not causes.",
                a.get("before").map(String::as_str).unwrap_or("today"),
            )
        },
        messages: None,
    }
}

/// Checks the arguments of `prompts/get` (missing required, unknown names, bad dates) and renders
/// the messages.
pub fn get(prompt: &Prompt, args: &StrMap) -> Result<Value> {
    for a in prompt.arguments {
        if a.required && !args.contains_key(a.name) {
            return Err(Error::arg(a.name, "is required"));
        }
    }
    for name in args.keys() {
        if !prompt.arguments.iter().any(|a| a.name == name) {
            return Err(Error::arg(name, "unknown argument"));
        }
    }
    for key in ["after", "before"] {
        if let Some(v) = args.get(key)
            && !looks_like_date(v)
        {
            return Err(Error::arg(key, format!("expected a date YYYY-MM-DD, got `{v}`")));
        }
    }
    let account = match args.get("account") {
        Some(a) => {
            let a = Account::parse(a).map_err(|e| Error::arg("account", e))?;
            format!(
                " This is about account `{a}` (one person on a shared install): pass `\"account\": \"{a}\"` to \
                 every Withings tool call, and say whose data it is."
            )
        }
        None => String::new(),
    };
    let messages = match prompt.messages {
        Some(build) => build(args),
        None => {
            let text = format!("{}{account}", (prompt.render)(args));
            json!([{"role": "user", "content": {"type": "text", "text": text}}])
        }
    };
    Ok(json!({"description": prompt.description, "messages": messages}))
}

/// Completion values for one argument of a prompt, filtered by prefix.
pub fn complete(prompt: &Prompt, arg: &str, prefix: &str) -> Vec<String> {
    // The values are ASCII words: ASCII case folding finds the same ones as Unicode's would (the
    // Kelvin sign, whose lowercase is an ASCII `k`, is folded too) without `str::to_lowercase`
    // (3 KB of the static binary, for this one use).
    let lower: String =
        prefix.chars().map(|c| if c == '\u{212A}' { 'k' } else { c.to_ascii_lowercase() }).collect();
    prompt
        .arguments
        .iter()
        .filter(|a| a.name == arg)
        .flat_map(|a| a.completions.iter())
        .filter(|v| v.starts_with(&lower))
        .map(|v| v.to_string())
        .collect()
}

fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_prefixes_match_in_any_case() {
        let p = daily_checkin();
        assert_eq!(complete(&p, "focus", "BO"), ["body"]);
        assert_eq!(complete(&p, "focus", "sLeE"), ["sleep"]);
        assert_eq!(complete(&p, "focus", "").len(), 5);
        assert!(complete(&p, "focus", "é").is_empty());
        assert!(complete(&p, "no such argument", "").is_empty());
    }
}
