//! Fixtures for the official MCP conformance suite (`@modelcontextprotocol/conformance`).
//!
//! Test-only: everything here is invisible unless `WITHINGS_MCP_CONFORMANCE=1`. The suite calls
//! tools, resources and prompts with exact names and checks exact payloads (mcp.md, Part B §9);
//! compiling them in lets `make interop` run every generic scenario against the real binary.
//! The fixtures that need a notification channel or server-to-client requests cannot work on a
//! stateless JSON-only server; they answer plainly and are listed in the expected-failures file.

use serde_json::{Map, Value};

use crate::strmap::StrMap;
use crate::tools::catalogue::Part;
use crate::tools::prompts::{Arg, Prompt};
use crate::tools::{Annotations, Ctx, Output, Tool};
use crate::value::json;
use crate::{Error, Result};

/// The environment switch (read from the process environment: catalogue functions take no context).
pub const ENV: &str = "WITHINGS_MCP_CONFORMANCE";

/// A 1×1 PNG.
pub const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// A WAV of 8 silent 8-bit samples.
pub const WAV: &str = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

const NOT_STATELESS: &str =
    "not supported by a stateless server: this server cannot send requests to the client";

/// True when the fixtures are switched on.
pub fn enabled() -> bool {
    std::env::var_os(ENV).is_some_and(|v| v == "1")
}

/// The fixture tools, or none when disabled.
pub fn tools() -> Vec<Tool> {
    match enabled() {
        true => fixtures().into_iter().map(|f| f.tool).collect(),
        false => Vec::new(),
    }
}

/// A fixture tool's description or schema as JSON text; `None` for any other tool. The
/// fixtures build their schemas in code: they are not in the stored catalogue.
pub fn text(name: &str, part: Part) -> Option<String> {
    let f = fixtures().into_iter().find(|f| f.tool.name == name)?;
    let value = match part {
        Part::Description => Value::from(f.description),
        Part::Input => f.input,
        Part::Output => output_schema(),
    };
    serde_json::to_string(&value).ok()
}

/// The fixture prompts, or none when disabled.
pub fn prompts() -> Vec<Prompt> {
    match enabled() {
        true => fixture_prompts(),
        false => Vec::new(),
    }
}

/// `resources/list` entries, or none when disabled.
pub fn resources() -> Vec<Value> {
    match enabled() {
        true => vec![
            json!({"uri": "test://static-text", "name": "static-text", "description": "A static text resource.", "mimeType": "text/plain"}),
            json!({"uri": "test://static-binary", "name": "static-binary", "description": "A static binary resource (PNG).", "mimeType": "image/png"}),
        ],
        false => Vec::new(),
    }
}

/// `resources/templates/list` entries, or none when disabled.
pub fn templates() -> Vec<Value> {
    match enabled() {
        true => vec![json!({
            "uriTemplate": "test://template/{id}/data",
            "name": "template-data",
            "description": "JSON data for any id.",
            "mimeType": "application/json",
        })],
        false => Vec::new(),
    }
}

/// The `contents` of a fixture resource, or None (also when disabled).
pub fn read(uri: &str) -> Option<Value> {
    enabled().then(|| read_fixture(uri)).flatten()
}

fn read_fixture(uri: &str) -> Option<Value> {
    match uri {
        "test://static-text" => Some(
            json!([{"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."}]),
        ),
        "test://static-binary" => Some(json!([{"uri": uri, "mimeType": "image/png", "blob": PNG}])),
        _ => {
            let id = uri.strip_prefix("test://template/")?.strip_suffix("/data")?;
            if id.is_empty() || id.contains('/') {
                return None;
            }
            let text =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string();
            Some(json!([{"uri": uri, "mimeType": "application/json", "text": text}]))
        }
    }
}

fn no_args() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

fn string_arg(name: &str) -> Value {
    json!({
        "type": "object",
        "properties": {name: {"type": "string", "description": format!("The {name}.")}},
        "required": [name],
        "additionalProperties": false,
    })
}

fn output_schema() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string"}}})
}

fn text_output(text: &str, extra: Vec<Value>) -> Output {
    Output { structured: json!({"text": text}).into(), markdown: text.to_string(), extra }
}

/// A fixture tool with its description and input schema.
struct Fixture {
    tool: Tool,
    description: &'static str,
    input: Value,
}

fn tool(
    name: &'static str,
    description: &'static str,
    input: Value,
    handler: crate::tools::Handler,
) -> Fixture {
    Fixture {
        tool: Tool { name, title: name, annotations: Annotations::LOCAL_READ, handler },
        description,
        input,
    }
}

fn fixtures() -> Vec<Fixture> {
    vec![
        tool("test_simple_text", "Returns a simple text response.", no_args(), |_, _| {
            Ok(text_output("This is a simple text response for testing.", Vec::new()))
        }),
        tool("test_image_content", "Returns an image.", no_args(), |_, _| {
            Ok(text_output(
                "A 1x1 PNG image.",
                vec![json!({"type": "image", "data": PNG, "mimeType": "image/png"})],
            ))
        }),
        tool("test_audio_content", "Returns audio.", no_args(), |_, _| {
            Ok(text_output(
                "A short WAV clip.",
                vec![json!({"type": "audio", "data": WAV, "mimeType": "audio/wav"})],
            ))
        }),
        tool("test_embedded_resource", "Returns an embedded resource.", no_args(), |_, _| {
            let res = json!({"type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."
            }});
            Ok(text_output("An embedded resource.", vec![res]))
        }),
        tool("test_multiple_content_types", "Returns text, an image and a resource.", no_args(), |_, _| {
            let extra = vec![
                json!({"type": "image", "data": PNG, "mimeType": "image/png"}),
                json!({"type": "resource", "resource": {
                    "uri": "test://mixed-content-resource", "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"
                }}),
            ];
            Ok(text_output("Multiple content types test:", extra))
        }),
        tool("test_error_handling", "Always fails.", no_args(), |_, _| {
            Err(Error::boxed(Error::Unavailable(
                "This tool intentionally returns an error for testing".into(),
            )))
        }),
        tool(
            "test_tool_with_logging",
            "Would log during execution (no channel on stateless HTTP).",
            no_args(),
            |_, _| Ok(text_output("Tool with logging executed successfully", Vec::new())),
        ),
        tool(
            "test_tool_with_progress",
            "Would report progress (no channel on stateless HTTP).",
            no_args(),
            |_, _| Ok(text_output("Tool with progress executed successfully", Vec::new())),
        ),
        tool(
            "test_sampling",
            "Would ask the client's model (needs a server-to-client request).",
            string_arg("prompt"),
            unsupported,
        ),
        tool(
            "test_elicitation",
            "Would ask the user (needs a server-to-client request).",
            string_arg("message"),
            unsupported,
        ),
        tool(
            "test_elicitation_sep1034_defaults",
            "Would ask the user with defaults.",
            no_args(),
            unsupported,
        ),
        tool("test_elicitation_sep1330_enums", "Would ask the user with enums.", no_args(), unsupported),
        tool(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            json_schema_2020_12(),
            |_, _| Ok(text_output("ok", Vec::new())),
        ),
    ]
}

/// The scenario `json-schema-2020-12` checks that these keywords reach the client untouched:
/// `$schema`, `$defs` (with an `$anchor`), `additionalProperties`, `allOf`/`anyOf` and
/// `if`/`then`/`else`.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }},
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false,
    })
}

fn unsupported(_: &Ctx, _: &Map<String, Value>) -> Result<Output> {
    Err(Error::boxed(Error::Unavailable(NOT_STATELESS.into())))
}

fn fixture_prompts() -> Vec<Prompt> {
    const ARGS: &[Arg] = &[
        Arg { name: "arg1", description: "First argument", required: true, completions: &[] },
        Arg { name: "arg2", description: "Second argument", required: true, completions: &[] },
    ];
    const RESOURCE_URI: &[Arg] = &[Arg {
        name: "resourceUri",
        description: "URI of the resource to embed",
        required: true,
        completions: &[],
    }];
    vec![
        Prompt {
            name: "test_simple_prompt",
            title: "Simple prompt",
            description: "A simple prompt without arguments.",
            arguments: &[],
            render: |_| "This is a simple prompt for testing.".into(),
            messages: None,
        },
        Prompt {
            name: "test_prompt_with_arguments",
            title: "Prompt with arguments",
            description: "A prompt with two required arguments.",
            arguments: ARGS,
            render: |a| {
                let get = |k: &str| a.get(k).map(String::as_str).unwrap_or("");
                format!("Prompt with arguments: arg1='{}', arg2='{}'", get("arg1"), get("arg2"))
            },
            messages: None,
        },
        Prompt {
            name: "test_prompt_with_embedded_resource",
            title: "Prompt with an embedded resource",
            description: "A prompt that embeds the resource it is given.",
            arguments: RESOURCE_URI,
            render: |_| "Please process the embedded resource above.".into(),
            messages: Some(embedded_resource_messages),
        },
        Prompt {
            name: "test_prompt_with_image",
            title: "Prompt with an image",
            description: "A prompt that includes an image.",
            arguments: &[],
            render: |_| "Please analyze the image above.".into(),
            messages: Some(image_messages),
        },
    ]
}

fn embedded_resource_messages(args: &StrMap) -> Value {
    let uri = args.get("resourceUri").map(String::as_str).unwrap_or("");
    json!([
        {"role": "user", "content": {"type": "resource", "resource": {
            "uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing."
        }}},
        {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
    ])
}

fn image_messages(_: &StrMap) -> Value {
    json!([
        {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
        {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::config::Env;
    use crate::tools::prompts;

    fn ctx() -> Ctx {
        Ctx::new(Env::from_pairs(&[("HOME", "/nonexistent")]), 0)
    }

    fn find(name: &str) -> Tool {
        fixtures().into_iter().map(|f| f.tool).find(|t| t.name == name).unwrap()
    }

    #[test]
    fn fixture_tools_answer_what_the_suite_checks() {
        let cases = [
            ("test_simple_text", "This is a simple text response for testing.", vec![]),
            ("test_image_content", "A 1x1 PNG image.", vec!["image"]),
            ("test_audio_content", "A short WAV clip.", vec!["audio"]),
            ("test_embedded_resource", "An embedded resource.", vec!["resource"]),
            ("test_multiple_content_types", "Multiple content types test:", vec!["image", "resource"]),
        ];
        for (name, text, kinds) in cases {
            let t = find(name);
            let out = crate::tools::run(&ctx(), &t, &json!({})).unwrap();
            assert_eq!(out.markdown, text, "{name}");
            let got: Vec<&str> = out.extra.iter().map(|c| c["type"].as_str().unwrap()).collect();
            assert_eq!(got, kinds, "{name}");
            crate::tools::schema::check(&output_schema(), &out.structured.tree()).unwrap();
        }
        let err = crate::tools::run(&ctx(), &find("test_error_handling"), &json!({})).unwrap_err();
        assert_eq!(err.to_string(), "This tool intentionally returns an error for testing");
        let err = crate::tools::run(&ctx(), &find("test_sampling"), &json!({})).unwrap_err();
        assert!(matches!(*err, Error::InvalidArgument { ref name, .. } if name == "prompt"));
        let err = crate::tools::run(&ctx(), &find("test_sampling"), &json!({"prompt": "hi"})).unwrap_err();
        assert!(err.to_string().contains("stateless"));
    }

    #[test]
    fn media_payloads_have_real_signatures() {
        assert!(PNG.starts_with("iVBORw0KGgo"), "PNG signature");
        assert!(WAV.starts_with("UklGR"), "RIFF header");
    }

    #[test]
    fn resources_read_by_uri() {
        let cases = [
            ("test://static-text", Some("text/plain")),
            ("test://static-binary", Some("image/png")),
            ("test://template/123/data", Some("application/json")),
            ("test://template//data", None),
            ("test://template/1/2/data", None),
            ("test://nothing", None),
        ];
        for (uri, mime) in cases {
            let got = read_fixture(uri);
            assert_eq!(got.as_ref().map(|c| c[0]["mimeType"].as_str().unwrap()), mime, "{uri}");
        }
        let t = read_fixture("test://template/123/data").unwrap();
        let v: Value = serde_json::from_str(t[0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(v, json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"}));
    }

    #[test]
    fn prompts_render_messages() {
        let get = |name: &str, args: &[(&str, &str)]| {
            let p = fixture_prompts().into_iter().find(|p| p.name == name).unwrap();
            let args: StrMap = args.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            prompts::get(&p, &args)
        };
        let simple = get("test_simple_prompt", &[]).unwrap();
        assert_eq!(simple["messages"][0]["content"]["text"], "This is a simple prompt for testing.");
        let with = get("test_prompt_with_arguments", &[("arg1", "hello"), ("arg2", "world")]).unwrap();
        assert_eq!(
            with["messages"][0]["content"]["text"],
            "Prompt with arguments: arg1='hello', arg2='world'"
        );
        assert!(get("test_prompt_with_arguments", &[("arg1", "hello")]).is_err());
        let emb = get("test_prompt_with_embedded_resource", &[("resourceUri", "test://x")]).unwrap();
        assert_eq!(emb["messages"][0]["content"]["resource"]["uri"], "test://x");
        assert_eq!(emb["messages"][1]["content"]["text"], "Please process the embedded resource above.");
        let img = get("test_prompt_with_image", &[]).unwrap();
        assert_eq!(img["messages"][0]["content"]["type"], "image");
    }
}
