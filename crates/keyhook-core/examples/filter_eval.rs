//! Evaluates webhook filters the way keyhook does, for the differential test against a
//! reference CEL evaluator (`.ci/cel-differential.sh`): one JSON object a line on stdin,
//! `{"expr", "event", "profileId", "data"}` (other fields are ignored), one answer a line on
//! stdout, in the same order:
//!
//! - `{"accepted": false, "verdict": null, "message": WHY}`: `Filter::new` refuses the
//!   expression when it is written (a webhook could not have it);
//! - `{"accepted": true, "verdict": true|false|"error", "message": KIND|null}`: what
//!   `Filter::matches` says of the event.
//!
//! Each line is read with keyhook's own JSON parser (`input::parse_json`), so `data`'s numbers
//! reach the filter as they reach it from `events emit` or `POST /events`: `1` and `1.0` as
//! the sender wrote them. A line that is not such an object stops the run (exit 2).
//!
//! `cargo run -p keyhook-core --example filter_eval < .ci/cel/differential.jsonl`

use std::io::{BufRead, Write};

use keyhook_core::service::filter::{Filter, Vars};
use keyhook_core::service::input::parse_json;
use serde_json::{json, Value};

fn main() {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    for (n, line) in stdin.lines().enumerate() {
        let line = line.unwrap_or_else(|e| fail(n, &format!("cannot read: {e}")));
        let answer = match case(&line) {
            Ok((expr, event, profile_id, data)) => {
                judge(&expr, &event, profile_id.as_deref(), &data)
            }
            Err(m) => fail(n, &m),
        };
        writeln!(stdout, "{answer}").unwrap_or_else(|e| fail(n, &format!("cannot write: {e}")));
    }
    stdout
        .flush()
        .unwrap_or_else(|e| fail(0, &format!("cannot write: {e}")));
}

/// The fields of one input line.
fn case(line: &str) -> Result<(String, String, Option<String>, Value), String> {
    let v = parse_json(line.as_bytes())?;
    let text = |field: &str| match &v[field] {
        Value::String(s) => Ok(Some(s.clone())),
        Value::Null => Ok(None),
        _ => Err(format!("{field} must be a string or null")),
    };
    let expr = text("expr")?.ok_or("expr is required")?;
    let event = text("event")?.ok_or("event is required")?;
    let profile_id = text("profileId")?;
    let data = match &v["data"] {
        Value::Object(_) => v["data"].clone(),
        _ => return Err("data must be an object".into()),
    };
    Ok((expr, event, profile_id, data))
}

/// What keyhook makes of one filter on one event.
fn judge(expr: &str, event: &str, profile_id: Option<&str>, data: &Value) -> Value {
    let filter = match Filter::new(expr) {
        Ok(f) => f,
        Err(why) => return json!({"accepted": false, "verdict": null, "message": why}),
    };
    match filter.matches(&Vars::new(event, profile_id, data)) {
        Ok(b) => json!({"accepted": true, "verdict": b, "message": null}),
        Err(kind) => json!({"accepted": true, "verdict": "error", "message": kind}),
    }
}

fn fail(line: usize, message: &str) -> ! {
    eprintln!("filter_eval: line {}: {message}", line + 1);
    std::process::exit(2)
}
