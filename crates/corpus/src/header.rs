//! The header: the leading block of `//` comment lines of a kernel file. A line whose
//! comment text starts with `warpcheck-KEY:` is a header entry; every other line is prose.
//! Unknown keys are errors, so that a misspelt key is not silently ignored.

use crate::launch::LaunchLine;
use crate::markers::MarkerKind;
use crate::{Expect, KernelFile, Variant};

/// (line, message) of a header problem; the caller adds the path.
pub(crate) type LineError = (u32, String);

/// Parses the header entries of `text` into a [`KernelFile`] without markers or path.
pub(crate) fn parse(text: &str) -> Result<KernelFile, LineError> {
    let mut file = KernelFile {
        path: Default::default(),
        title: String::new(),
        launches: Vec::new(),
        expect: None,
        variants: Vec::new(),
        gpu_skip: None,
        advise: None,
        expect_advice: Vec::new(),
        markers: Vec::new(),
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        let Some(comment) = raw.trim().strip_prefix("//") else {
            break;
        };
        let comment = comment.trim_start_matches('/').trim();
        if i == 0 {
            file.title = comment.to_string();
        }
        let Some((key, value)) = entry(comment) else {
            continue;
        };
        let value = value.trim();
        match key {
            "launch" => file.launches.push(LaunchLine::parse(line, value)?),
            "expect" => {
                if file.expect.is_some() {
                    return Err((line, "second `warpcheck-expect:` line".into()));
                }
                file.expect = Some(expect(line, value)?);
            }
            "variant" => file.variants.push(variant(line, value)?),
            "gpu" => file.gpu_skip = Some(gpu(line, value)?),
            "advise" => file.advise = Some(value.to_string()),
            "expect-advice" => file.expect_advice.push((line, value.to_string())),
            other => {
                return Err((
                    line,
                    format!(
                        "unknown header key `warpcheck-{other}:` (known: launch, expect, \
                         variant, gpu, advise, expect-advice)"
                    ),
                ));
            }
        }
    }
    Ok(file)
}

/// `warpcheck-KEY: VALUE` → (KEY, VALUE); `None` for prose.
fn entry(comment: &str) -> Option<(&str, &str)> {
    let rest = comment.strip_prefix("warpcheck-")?;
    let (key, value) = rest.split_once(':')?;
    let is_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    is_key.then_some((key, value))
}

fn expect(line: u32, value: &str) -> Result<Expect, LineError> {
    match value {
        "clean" => Ok(Expect::Clean),
        "findings" => Ok(Expect::Findings),
        other => Err((
            line,
            format!("`warpcheck-expect: {other}`: expected `clean` or `findings`"),
        )),
    }
}

/// `-DMACRO=VALUE KIND@L1,L2,... [KIND@L1,...]`
fn variant(line: u32, value: &str) -> Result<Variant, LineError> {
    let bad = |why: &str| {
        Err((
            line,
            format!(
                "`warpcheck-variant: {value}`: {why} (expected `-DMACRO=VALUE KIND@L1,L2,...`, then optionally more `KIND@L1,...`)"
            ),
        ))
    };
    let words: Vec<&str> = value.split_whitespace().collect();
    let [define, specs @ ..] = &words[..] else {
        return bad("expected two words");
    };
    if specs.is_empty() {
        return bad("expected two words");
    }
    if !define.starts_with("-D") || define.len() < 3 {
        return bad("the first word is not a `-D` flag");
    }
    let mut kinds = Vec::new();
    for spec in specs {
        let Some((kind, lines)) = spec.split_once('@') else {
            return bad("no `@` between the kind and the lines");
        };
        let Some(kind) = MarkerKind::from_name(kind) else {
            return bad(&format!("unknown marker kind `{kind}`"));
        };
        let mut numbers = Vec::new();
        for l in lines.split(',') {
            match l.parse::<u32>() {
                Ok(n) if n > 0 => numbers.push(n),
                _ => return bad(&format!("`{l}` is not a line number")),
            }
        }
        kinds.push((kind, numbers));
    }
    Ok(Variant {
        line,
        define: define.to_string(),
        kinds,
    })
}

/// `skip (reason)` → reason (`skip` alone gives an empty reason).
fn gpu(line: u32, value: &str) -> Result<String, LineError> {
    let Some(rest) = value.strip_prefix("skip") else {
        return Err((
            line,
            format!("`warpcheck-gpu: {value}`: expected `skip (reason)`"),
        ));
    };
    let rest = rest.trim();
    Ok(rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(rest)
        .to_string())
}
