//! A `warpcheck-launch:` line: the options of `warpcheck run`'s command line
//! (`--kernel`, `--grid`, `--block`, `--shared`, `--arg`, `--seed`), each as `--opt VALUE`
//! or `--opt=VALUE`. Argument specs stay text (`n=1024`, `a=f32[n]:rand`): their grammar
//! belongs to the emulator's argument binder; this module only splits NAME from SPEC and
//! reads integer scalars, which the static lints instantiate.

use std::collections::BTreeMap;

use crate::header::LineError;

/// Grid or block dimensions (x, y, z), each at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim3(pub [u32; 3]);

impl Default for Dim3 {
    fn default() -> Dim3 {
        Dim3([1, 1, 1])
    }
}

impl Dim3 {
    /// The number of blocks or threads.
    pub fn count(self) -> u64 {
        self.0.iter().map(|&d| u64::from(d)).product()
    }
}

impl std::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{},{})", self.0[0], self.0[1], self.0[2])
    }
}

/// Parses `X[,Y[,Z]]` (or `XxYxZ`): 1 to 3 positive integers.
pub fn parse_dim3(s: &str) -> Result<Dim3, String> {
    let parts: Vec<&str> = s.split([',', 'x']).map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!(
            "`{s}`: expected 1 to 3 dimensions, e.g. 256 or 16,16"
        ));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse::<u32>()
            .map_err(|_| format!("`{p}` is not a dimension (a positive integer)"))?;
        if d[i] == 0 {
            return Err(format!("`{s}`: dimensions must be at least 1"));
        }
    }
    Ok(Dim3(d))
}

/// One `warpcheck-launch:` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchLine {
    /// Header line number.
    pub line: u32,
    /// The text after `warpcheck-launch:`, trimmed (the options as the CLI takes them).
    pub text: String,
    pub kernel: Option<String>,
    pub grid: Dim3,
    pub block: Dim3,
    /// Dynamic shared memory in bytes.
    pub shared: u32,
    pub seed: u64,
    /// `NAME=SPEC`, in order.
    pub args: Vec<String>,
}

impl LaunchLine {
    /// Parses the options of a launch line found on header line `line`.
    pub(crate) fn parse(line: u32, text: &str) -> Result<LaunchLine, LineError> {
        let mut l = LaunchLine {
            line,
            text: text.to_string(),
            kernel: None,
            grid: Dim3::default(),
            block: Dim3::default(),
            shared: 0,
            seed: 0,
            args: Vec::new(),
        };
        let bad = |m: String| (line, format!("bad warpcheck-launch line: {m}"));
        let mut words = text.split_whitespace();
        while let Some(word) = words.next() {
            let (opt, inline) = match word.split_once('=') {
                Some((o, v)) if o.starts_with("--") => (o, Some(v)),
                _ => (word, None),
            };
            let value = match inline.or_else(|| words.next()) {
                Some(v) => v,
                None => return Err(bad(format!("`{opt}` needs a value"))),
            };
            match opt {
                "--kernel" | "-k" => l.kernel = Some(value.to_string()),
                "--grid" => l.grid = parse_dim3(value).map_err(|e| bad(format!("--grid {e}")))?,
                "--block" => {
                    l.block = parse_dim3(value).map_err(|e| bad(format!("--block {e}")))?
                }
                "--shared" => l.shared = number(value).map_err(|e| bad(format!("--shared {e}")))?,
                "--seed" => l.seed = number(value).map_err(|e| bad(format!("--seed {e}")))?,
                "--arg" => {
                    if !value.contains('=') || value.starts_with('=') {
                        return Err(bad(format!("--arg `{value}`: expected NAME=SPEC")));
                    }
                    l.args.push(value.to_string());
                }
                other => {
                    return Err(bad(format!(
                        "unknown option `{other}` (known: --kernel, --grid, --block, \
                         --shared, --arg, --seed)"
                    )));
                }
            }
        }
        Ok(l)
    }

    /// The kernel name, or `""` when the line names none.
    pub fn kernel_name(&self) -> &str {
        self.kernel.as_deref().unwrap_or_default()
    }

    /// The arguments as (NAME, SPEC).
    pub fn arg_pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.args.iter().filter_map(|a| a.split_once('='))
    }

    /// The integer scalar arguments (`n=1024`), which the static lints instantiate.
    pub fn int_scalars(&self) -> BTreeMap<String, i128> {
        self.arg_pairs()
            .filter_map(|(n, v)| Some((n.to_string(), v.parse::<i128>().ok()?)))
            .collect()
    }
}

fn number<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.parse()
        .map_err(|_| format!("`{s}` is not a non-negative integer"))
}
