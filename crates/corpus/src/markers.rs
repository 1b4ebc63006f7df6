//! `//~` markers: the findings a correct tool reports on a line, e.g.
//! `//~ bank-conflict(32) uncoalesced(32)`. `bank-conflict` and `uncoalesced` carry their
//! degree N; the other kinds carry none.

use crate::header::LineError;

/// The kinds of marker (tests/kernels/README.md, "Markers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MarkerKind {
    SharedRace,
    GlobalRace,
    /// A write-write race whose writes all store one value (a warning).
    BenignRace,
    BarrierDivergence,
    Deadlock,
    OutOfBounds,
    UninitRead,
    Misaligned,
    BankConflict,
    Uncoalesced,
    /// A device-side `free` of a device-heap block freed already.
    DoubleFree,
}

impl MarkerKind {
    pub const ALL: [MarkerKind; 11] = [
        MarkerKind::SharedRace,
        MarkerKind::GlobalRace,
        MarkerKind::BenignRace,
        MarkerKind::BarrierDivergence,
        MarkerKind::Deadlock,
        MarkerKind::OutOfBounds,
        MarkerKind::UninitRead,
        MarkerKind::Misaligned,
        MarkerKind::BankConflict,
        MarkerKind::Uncoalesced,
        MarkerKind::DoubleFree,
    ];

    /// The name as markers spell it (`uncoalesced`).
    pub fn name(self) -> &'static str {
        match self {
            MarkerKind::SharedRace => "shared-race",
            MarkerKind::GlobalRace => "global-race",
            MarkerKind::BenignRace => "benign-race",
            MarkerKind::BarrierDivergence => "barrier-divergence",
            MarkerKind::Deadlock => "deadlock",
            MarkerKind::OutOfBounds => "out-of-bounds",
            MarkerKind::UninitRead => "uninit-read",
            MarkerKind::DoubleFree => "double-free",
            MarkerKind::Misaligned => "misaligned",
            MarkerKind::BankConflict => "bank-conflict",
            MarkerKind::Uncoalesced => "uncoalesced",
        }
    }

    /// The finding code warpcheck reports for it (`uncoalesced-access`).
    pub fn code(self) -> &'static str {
        match self {
            MarkerKind::Uncoalesced => "uncoalesced-access",
            other => other.name(),
        }
    }

    pub fn from_name(name: &str) -> Option<MarkerKind> {
        MarkerKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind whose finding code is `code`.
    pub fn from_code(code: &str) -> Option<MarkerKind> {
        MarkerKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// Whether the marker carries a degree `(N)`.
    pub fn has_degree(self) -> bool {
        matches!(self, MarkerKind::BankConflict | MarkerKind::Uncoalesced)
    }

    /// Whether a finding of this kind names both lines of a pair (races), or the waiting
    /// barrier and the loop that keeps others away (deadlock), all of them marked.
    pub fn marks_related_lines(self) -> bool {
        matches!(
            self,
            MarkerKind::SharedRace
                | MarkerKind::GlobalRace
                | MarkerKind::BenignRace
                | MarkerKind::Deadlock
        )
    }
}

/// One finding a `//~` marker asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Marker {
    /// 1-based source line.
    pub line: u32,
    pub kind: MarkerKind,
    /// N of `bank-conflict(N)` (wavefronts per phase) and `uncoalesced(N)` (sectors).
    pub degree: Option<u32>,
}

impl std::fmt::Display for Marker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.kind.name())?;
        if let Some(d) = self.degree {
            write!(f, "({d})")?;
        }
        write!(f, "@{}", self.line)
    }
}

/// The markers of every line of `text`, in line order.
pub(crate) fn parse(text: &str) -> Result<Vec<Marker>, LineError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i as u32 + 1;
        let Some((_, rest)) = line.split_once("//~") else {
            continue;
        };
        if rest.trim().is_empty() {
            return Err((n, "`//~` without a marker".into()));
        }
        for word in rest.split_whitespace() {
            out.push(marker(n, word)?);
        }
    }
    Ok(out)
}

/// `kind` or `kind(N)`.
fn marker(line: u32, word: &str) -> Result<Marker, LineError> {
    let (name, degree) = match word.split_once('(') {
        Some((name, rest)) => {
            let n = rest
                .strip_suffix(')')
                .and_then(|n| n.parse::<u32>().ok())
                .ok_or((
                    line,
                    format!("marker `{word}`: expected KIND(N) with N a number"),
                ))?;
            (name, Some(n))
        }
        None => (word, None),
    };
    let kind = MarkerKind::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = MarkerKind::ALL.iter().map(|k| k.name()).collect();
        (
            line,
            format!("unknown marker `{name}` (known: {})", known.join(", ")),
        )
    })?;
    match (kind.has_degree(), degree) {
        (true, None) => Err((
            line,
            format!("marker `{name}` needs its degree: `{name}(N)`"),
        )),
        (false, Some(_)) => Err((line, format!("marker `{name}` takes no degree"))),
        _ => Ok(Marker { line, kind, degree }),
    }
}
