//! The registry of finding codes: every code warpcheck emits, with its default severity,
//! the tool that emits it, a one-line summary and a long explanation.
//!
//! The registry is one table (`code/table.rs`), one row per code, expanded by the
//! `registry!` macro below into the [`Code`] enum and its [`Info`] rows. Everything that
//! talks about codes — the JSON and SARIF renderers, `warpcheck explain`, the README's
//! table — reads it from here, so a code's name and text live in exactly one place.

use crate::Severity;
use std::fmt;
use std::str::FromStr;

/// Who emits a code: a checker of `warpcheck check`, the emulator, the lints, the parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// `check --tool race` (and `advise --emit-cuda`'s dependence test).
    Race,
    /// `check --tool sync`.
    Sync,
    /// `check --tool mem`.
    Mem,
    /// `check --tool init`.
    Init,
    /// `check --tool bank`.
    Bank,
    /// `check --tool coalesce`.
    Coalesce,
    /// The emulator, whatever is checked: `check` and `run`.
    Emulator,
    /// `warpcheck lint`.
    Lint,
    /// The PTX parser, in every command that reads a kernel.
    Parser,
    /// Lowering PTX to the typed IR, in every command that analyses a kernel.
    Lowering,
    /// `check --gpu`: instrumented PTX on a GPU (or the emulator).
    Gpu,
    /// Program mode's CUDA runtime: `run`/`check` of a whole program.
    Runtime,
}

impl Tool {
    /// How the tool is invoked, as `explain` and the README show it.
    pub fn label(self) -> &'static str {
        match self {
            Tool::Race => "check --tool race",
            Tool::Sync => "check --tool sync",
            Tool::Mem => "check --tool mem",
            Tool::Init => "check --tool init",
            Tool::Bank => "check --tool bank",
            Tool::Coalesce => "check --tool coalesce",
            Tool::Emulator => "check, run",
            Tool::Lint => "lint",
            Tool::Parser => "parser",
            Tool::Lowering => "lowering",
            Tool::Gpu => "check --gpu",
            Tool::Runtime => "run, check PROGRAM",
        }
    }
}

/// One row of the registry.
#[derive(Debug, PartialEq, Eq)]
pub struct Info {
    /// The stable kebab-case name findings carry, e.g. `shared-race`.
    pub name: &'static str,
    /// The severity the code is reported with.
    pub severity: Severity,
    /// Who emits it; empty for a code that nothing emits yet.
    pub tools: &'static [Tool],
    /// One line saying what the code means.
    pub summary: &'static str,
    /// "What it does": what the check looks for.
    pub what: &'static str,
    /// "Why is this bad": what goes wrong on a GPU.
    pub why: &'static str,
    /// The language of the two snippets (`cuda`, `ptx`, `sh`).
    pub lang: &'static str,
    /// A short snippet that gets the finding.
    pub example: &'static str,
    /// The same snippet corrected.
    pub fixed: &'static str,
}

/// Expands the table into `Code`, `Code::ALL` and `Code::info`. Each row is
/// `Variant { name: "kebab-name", severity: Error, tools: [Race, Lint], summary: "…",
/// what: "…", why: "…", lang: "cuda", example: "…", fixed: "…" }`.
macro_rules! registry {
    ($(
        $(#[$attr:meta])*
        $variant:ident {
            name: $name:literal,
            severity: $severity:ident,
            tools: [$($tool:ident),* $(,)?],
            summary: $summary:literal,
            what: $what:literal,
            why: $why:literal,
            lang: $lang:literal,
            example: $example:literal,
            fixed: $fixed:literal $(,)?
        }
    )*) => {
        /// A finding code. Serialised (JSON, SARIF) as its kebab-case [`Code::name`], and
        /// ordered by it, so that sorting findings by code orders them by name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $(
                #[doc = $summary]
                $(#[$attr])*
                $variant,
            )*
        }

        impl Code {
            /// Every code, in the table's order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The code's row of the registry.
            pub fn info(self) -> &'static Info {
                match self {
                    $(Code::$variant => &Info {
                        name: $name,
                        severity: Severity::$severity,
                        tools: &[$(Tool::$tool),*],
                        summary: $summary,
                        what: $what,
                        why: $why,
                        lang: $lang,
                        example: $example,
                        fixed: $fixed,
                    },)*
                }
            }
        }
    };
}

mod table;
pub use table::Code;

impl Code {
    /// The kebab-case name, e.g. `shared-race`.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The severity the code is reported with.
    pub fn severity(self) -> Severity {
        self.info().severity
    }

    /// The one-line summary.
    pub fn summary(self) -> &'static str {
        self.info().summary
    }

    /// Whether some part of warpcheck emits this code today.
    pub fn is_emitted(self) -> bool {
        !self.info().tools.is_empty()
    }

    /// Who emits it, e.g. `check --tool race, lint`, or `not emitted yet`.
    pub fn tools_label(self) -> String {
        let tools = self.info().tools;
        if tools.is_empty() {
            return "not emitted yet".to_string();
        }
        tools
            .iter()
            .map(|t| t.label())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The code with this kebab-case name.
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// The code whose name is closest to `name` (by Jaro-Winkler similarity), for "did
    /// you mean" messages; `None` when nothing is reasonably close.
    pub fn closest(name: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .map(|c| (strsim::jaro_winkler(name, c.name()), c))
            .filter(|(score, _)| *score >= 0.7)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, c)| c)
    }

    /// The long explanation as markdown: summary, "What it does", "Why is this bad",
    /// "Example" and "Fixed".
    pub fn explanation(self) -> String {
        let i = self.info();
        format!(
            "{}\n\n## What it does\n\n{}\n\n## Why is this bad\n\n{}\n\n## Example\n\n```{lang}\n{}\n```\n\n## Fixed\n\n```{lang}\n{}\n```\n",
            i.summary,
            i.what,
            i.why,
            i.example.trim_matches('\n'),
            i.fixed.trim_matches('\n'),
            lang = i.lang,
        )
    }

    /// The registry as a markdown table (code, severity, emitted by, summary), as the
    /// README shows it.
    pub fn markdown_table() -> String {
        let mut out =
            String::from("| Code | Severity | Emitted by | Summary |\n| --- | --- | --- | --- |\n");
        for c in Code::ALL {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                c.name(),
                c.severity().name(),
                c.tools_label(),
                c.summary().replace('|', "\\|")
            ));
        }
        out
    }

    /// The code as JSON: its name, severity, tools, summary, the explanation's sections
    /// and the whole explanation as markdown.
    pub fn to_json(self) -> serde_json::Value {
        let i = self.info();
        serde_json::json!({
            "name": i.name,
            "severity": i.severity,
            "tools": i.tools.iter().map(|t| t.label()).collect::<Vec<_>>(),
            "emitted": self.is_emitted(),
            "summary": i.summary,
            "what": i.what,
            "why": i.why,
            "lang": i.lang,
            "example": i.example.trim_matches('\n'),
            "fixed": i.fixed.trim_matches('\n'),
            "explanation": self.explanation(),
        })
    }

    /// The registry as JSON: `{"codes": [...]}`, one [`Code::to_json`] object per code.
    pub fn registry_json() -> serde_json::Value {
        let codes: Vec<serde_json::Value> = Code::ALL.iter().map(|c| c.to_json()).collect();
        serde_json::json!({ "codes": codes })
    }
}

impl Ord for Code {
    fn cmp(&self, other: &Code) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

impl PartialOrd for Code {
    fn partial_cmp(&self, other: &Code) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown code name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCode {
    pub name: String,
    /// The closest known code, if any is close.
    pub closest: Option<Code>,
}

impl fmt::Display for UnknownCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown finding code `{}`", self.name)?;
        if let Some(c) = self.closest {
            write!(f, " (did you mean `{c}`?)")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownCode {}

impl FromStr for Code {
    type Err = UnknownCode;

    fn from_str(s: &str) -> Result<Code, UnknownCode> {
        Code::from_name(s).ok_or_else(|| UnknownCode {
            name: s.to_string(),
            closest: Code::closest(s),
        })
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_and_parse_back() {
        for (i, c) in Code::ALL.iter().enumerate() {
            let n = c.name();
            assert!(
                !n.is_empty()
                    && n.split('-')
                        .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())),
                "{n} is not kebab-case"
            );
            assert_eq!(n.parse::<Code>(), Ok(*c));
            assert!(
                Code::ALL[..i].iter().all(|d| d.name() != n),
                "{n} appears twice"
            );
        }
    }

    #[test]
    fn every_row_has_a_full_explanation() {
        for c in Code::ALL {
            let i = c.info();
            for (field, text) in [
                ("summary", i.summary),
                ("what", i.what),
                ("why", i.why),
                ("example", i.example),
                ("fixed", i.fixed),
            ] {
                assert!(!text.trim().is_empty(), "{c}: empty {field}");
            }
            assert!(i.summary.ends_with('.'), "{c}: summary without a full stop");
            assert!(!i.summary.contains('\n'), "{c}: summary on several lines");
            assert_ne!(i.example, i.fixed, "{c}: the fix changes nothing");
            let e = c.explanation();
            for heading in [
                "## What it does",
                "## Why is this bad",
                "## Example",
                "## Fixed",
            ] {
                assert!(e.contains(heading), "{c}: no {heading}");
            }
        }
    }

    #[test]
    fn unknown_names_suggest_the_closest_code() {
        let e = "shared-rac".parse::<Code>().unwrap_err();
        assert_eq!(e.closest, Some(Code::SharedRace));
        assert_eq!(
            e.to_string(),
            "unknown finding code `shared-rac` (did you mean `shared-race`?)"
        );
        assert_eq!(Code::closest("zzzzzzzzzzzzzzzzzzzz"), None);
    }

    #[test]
    fn codes_order_by_name() {
        // The table lists barrier-count before bank-conflict; the names order the other way.
        assert!(Code::BankConflict < Code::BarrierCount);
        let mut all = Code::ALL.to_vec();
        all.sort();
        let names: Vec<&str> = all.iter().map(|c| c.name()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
    }

    #[test]
    fn serialises_as_its_name() {
        assert_eq!(
            serde_json::to_value(Code::UncoalescedAccess).ok(),
            Some(serde_json::json!("uncoalesced-access"))
        );
        let back: Code = serde_json::from_str("\"bank-conflict\"").expect("parses");
        assert_eq!(back, Code::BankConflict);
        assert!(serde_json::from_str::<Code>("\"no-such-code\"").is_err());
    }

    #[test]
    fn benign_races_are_warnings_of_the_race_checker_and_gpu_mode() {
        assert_eq!(Code::BenignRace.severity(), Severity::Warning);
        assert!(Code::BenignRace.is_emitted());
        assert_eq!(
            Code::BenignRace.tools_label(),
            "check --tool race, check --gpu"
        );
        assert!(Code::SharedRace.is_emitted());
        assert_eq!(Code::SharedRace.tools_label(), "check --tool race, lint");
    }

    #[test]
    fn markdown_table_has_a_row_per_code() {
        let t = Code::markdown_table();
        assert_eq!(t.lines().count(), Code::ALL.len() + 2);
        assert!(t.contains(
            "| `bank-conflict` | warning | check --tool bank, lint | Shared-memory accesses of a warp"
        ));
    }
}
