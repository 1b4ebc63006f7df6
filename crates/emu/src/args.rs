//! Kernel arguments as users write them (`--arg NAME=SPEC`), and their materialisation.
//!
//! ```text
//! ARG     := NAME '=' SPEC
//! SPEC    := NUMBER                          scalar: 1024, -3, 0x10, 0.5, 1e-3
//!          | ELEM '[' SIZE? ']' (':' INIT)?  buffer: f32[n*n]:rand
//! ELEM    := f16 | f32 | f64 | i8 | i16 | i32 | i64 | u8 | u16 | u32 | u64
//! SIZE    := integer expression over scalar arguments: + - * / % and parentheses
//! INIT    := zeros (default) | iota | rand | uninit | fill(NUMBER) | file(PATH)
//!          | '[' NUMBER (',' NUMBER)* ']'
//! ```
//!
//! The size may be left out (`i32[]:[1,2,3]`, `f32[]:file(x.npy)`) when the initialiser
//! determines it. Initialisers, in full:
//! * `zeros`: every byte 0.
//! * `iota`: element i holds the value i (converted to the element type).
//! * `rand`: seeded pseudo-random values — floats uniform in [0, 1), integers uniform in
//!   [0, 100). The stream depends only on the seed and the argument's name, so adding or
//!   reordering arguments does not change the others' values. The generator is SplitMix64
//!   (Steele, Lea, Flood 2014), fixed here so that stored expectations stay valid.
//! * `uninit`: the buffer is marked uninitialised (the `init` checker reports reads of it);
//!   its bytes hold the pattern 0xCD so that runs stay deterministic.
//! * `fill(x)`: every element is x.
//! * `file(path)`: a NumPy `.npy` file (little-endian, C order, dtype matching ELEM) or,
//!   for any other extension, raw little-endian elements.
//! * a literal list: exactly the given elements.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;

/// Element types of buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    F16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
}

impl ElemType {
    pub const ALL: [ElemType; 11] = [
        ElemType::F16,
        ElemType::F32,
        ElemType::F64,
        ElemType::I8,
        ElemType::I16,
        ElemType::I32,
        ElemType::I64,
        ElemType::U8,
        ElemType::U16,
        ElemType::U32,
        ElemType::U64,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ElemType::F16 => "f16",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::I8 => "i8",
            ElemType::I16 => "i16",
            ElemType::I32 => "i32",
            ElemType::I64 => "i64",
            ElemType::U8 => "u8",
            ElemType::U16 => "u16",
            ElemType::U32 => "u32",
            ElemType::U64 => "u64",
        }
    }

    pub fn from_name(s: &str) -> Option<ElemType> {
        ElemType::ALL.into_iter().find(|e| e.name() == s)
    }

    pub fn size(self) -> usize {
        match self {
            ElemType::I8 | ElemType::U8 => 1,
            ElemType::F16 | ElemType::I16 | ElemType::U16 => 2,
            ElemType::F32 | ElemType::I32 | ElemType::U32 => 4,
            ElemType::F64 | ElemType::I64 | ElemType::U64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F16 | ElemType::F32 | ElemType::F64)
    }

    /// The NumPy dtype string for this type, e.g. `<f4`.
    pub fn npy_descr(self) -> &'static str {
        match self {
            ElemType::F16 => "<f2",
            ElemType::F32 => "<f4",
            ElemType::F64 => "<f8",
            ElemType::I8 => "|i1",
            ElemType::I16 => "<i2",
            ElemType::I32 => "<i4",
            ElemType::I64 => "<i8",
            ElemType::U8 => "|u1",
            ElemType::U16 => "<u2",
            ElemType::U32 => "<u4",
            ElemType::U64 => "<u8",
        }
    }

    /// Encodes a number as one little-endian element. Integers must fit the type.
    pub fn encode(self, v: Number, out: &mut Vec<u8>) -> Result<(), String> {
        let int = |lo: i128, hi: i128| -> Result<i128, String> {
            match v {
                Number::Int(i) if (lo..=hi).contains(&i) => Ok(i),
                Number::Int(i) => Err(format!("{i} does not fit in {}", self.name())),
                Number::Float(f) => Err(format!(
                    "{f} is not an integer, but the type is {}",
                    self.name()
                )),
            }
        };
        match self {
            ElemType::F16 => out.extend(half::f16::from_f64(v.as_f64()).to_le_bytes()),
            ElemType::F32 => out.extend((v.as_f64() as f32).to_le_bytes()),
            ElemType::F64 => out.extend(v.as_f64().to_le_bytes()),
            ElemType::I8 => {
                out.extend((int(i8::MIN as i128, i8::MAX as i128)? as i8).to_le_bytes())
            }
            ElemType::I16 => {
                out.extend((int(i16::MIN as i128, i16::MAX as i128)? as i16).to_le_bytes())
            }
            ElemType::I32 => {
                out.extend((int(i32::MIN as i128, i32::MAX as i128)? as i32).to_le_bytes())
            }
            ElemType::I64 => {
                out.extend((int(i64::MIN as i128, i64::MAX as i128)? as i64).to_le_bytes())
            }
            ElemType::U8 => out.extend((int(0, u8::MAX as i128)? as u8).to_le_bytes()),
            ElemType::U16 => out.extend((int(0, u16::MAX as i128)? as u16).to_le_bytes()),
            ElemType::U32 => out.extend((int(0, u32::MAX as i128)? as u32).to_le_bytes()),
            ElemType::U64 => out.extend((int(0, u64::MAX as i128)? as u64).to_le_bytes()),
        }
        Ok(())
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A numeric literal: integers keep full precision, anything with `.`/`e` is a float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    pub fn parse(s: &str) -> Option<Number> {
        let s = s.trim();
        let (neg, body) = match s.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        let int = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            i128::from_str_radix(h, 16).ok()
        } else if let Some(b) = body.strip_prefix("0b") {
            i128::from_str_radix(b, 2).ok()
        } else if !body.is_empty() && body.bytes().all(|c| c.is_ascii_digit()) {
            body.parse::<i128>().ok()
        } else {
            None
        };
        if let Some(i) = int {
            return Some(Number::Int(if neg { -i } else { i }));
        }
        let lower = body.to_ascii_lowercase();
        let f = match lower.as_str() {
            "inf" | "infinity" => f64::INFINITY,
            "nan" => f64::NAN,
            _ if body
                .bytes()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || c == b'.') =>
            {
                body.parse::<f64>().ok()?
            }
            _ => return None,
        };
        Some(Number::Float(if neg { -f } else { f }))
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(x) => write!(f, "{x}"),
        }
    }
}

/// An integer size expression over scalar arguments.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeExpr {
    Const(i128),
    Name(String),
    Binary(char, Box<SizeExpr>, Box<SizeExpr>),
}

impl SizeExpr {
    /// Evaluates with the given integer scalars. Errors name the unknown argument or the
    /// failing operation.
    pub fn eval(&self, scalars: &HashMap<String, Number>) -> Result<i128, String> {
        Ok(match self {
            SizeExpr::Const(c) => *c,
            SizeExpr::Name(n) => match scalars.get(n) {
                Some(Number::Int(i)) => *i,
                Some(Number::Float(f)) => {
                    return Err(format!("size uses `{n}`, which is the non-integer {f}"));
                }
                None => return Err(format!("size uses `{n}`, which is not a scalar argument")),
            },
            SizeExpr::Binary(op, a, b) => {
                let (a, b) = (a.eval(scalars)?, b.eval(scalars)?);
                let r = match op {
                    '+' => a.checked_add(b),
                    '-' => a.checked_sub(b),
                    '*' => a.checked_mul(b),
                    '/' => a.checked_div(b),
                    '%' => a.checked_rem(b),
                    _ => None,
                };
                r.ok_or_else(|| {
                    format!("size expression overflows or divides by zero: {a} {op} {b}")
                })?
            }
        })
    }
}

impl fmt::Display for SizeExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeExpr::Const(c) => write!(f, "{c}"),
            SizeExpr::Name(n) => f.write_str(n),
            SizeExpr::Binary(op, a, b) => write!(f, "({a}{op}{b})"),
        }
    }
}

/// How a buffer's contents are produced.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Zeros,
    Iota,
    Rand,
    Uninit,
    Fill(Number),
    File(PathBuf),
    Literal(Vec<Number>),
}

/// One `--arg` value before sizes are known.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    Scalar(Number),
    Buffer {
        elem: ElemType,
        len: Option<SizeExpr>,
        init: Init,
    },
}

/// A parsed `--arg NAME=SPEC`.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: String,
    pub spec: ArgSpec,
}

/// A buffer with its contents, ready to be placed in the emulator's global memory.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferValue {
    pub elem: ElemType,
    pub len: usize,
    pub bytes: Vec<u8>,
    /// False when the buffer was given as `:uninit`: every byte starts uninitialised.
    pub initialized: bool,
}

/// Parses `NAME=SPEC`.
pub fn parse_arg(text: &str) -> Result<Arg, String> {
    let (name, spec) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: expected NAME=VALUE, e.g. n=1024 or a=f32[n]:rand"))?;
    let name = name.trim();
    // A struct field is named by its path: `p.n`, `p.inner.x`, `p.a[2]`.
    let field_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '[' | ']');
    if name.is_empty()
        || !name.starts_with(|c: char| c.is_alphabetic() || c == '_')
        || !name.chars().all(field_char)
    {
        return Err(format!("`{text}`: `{name}` is not a parameter name"));
    }
    let spec = parse_spec(spec.trim()).map_err(|e| format!("`{text}`: {e}"))?;
    Ok(Arg {
        name: name.to_string(),
        spec,
    })
}

fn parse_spec(s: &str) -> Result<ArgSpec, String> {
    if let Some(n) = Number::parse(s) {
        return Ok(ArgSpec::Scalar(n));
    }
    let open = s
        .find('[')
        .ok_or_else(|| format!("`{s}` is neither a number nor a buffer like f32[1024]"))?;
    let elem_name = &s[..open];
    let elem = ElemType::from_name(elem_name).ok_or_else(|| {
        let all: Vec<&str> = ElemType::ALL.iter().map(|e| e.name()).collect();
        format!(
            "unknown element type `{elem_name}` (expected one of {})",
            all.join(", ")
        )
    })?;
    let close = s[open..]
        .find(']')
        .map(|i| open + i)
        .ok_or("missing `]` after the size")?;
    let size_text = s[open + 1..close].trim();
    let len = if size_text.is_empty() {
        None
    } else {
        Some(parse_size(size_text)?)
    };
    let rest = &s[close + 1..];
    let init = if rest.is_empty() {
        Init::Zeros
    } else {
        let init_text = rest.strip_prefix(':').ok_or_else(|| {
            format!("unexpected `{rest}` after the size; initialisers follow `:`")
        })?;
        parse_init(init_text.trim())?
    };
    if len.is_none() && !matches!(init, Init::Literal(_) | Init::File(_)) {
        return Err("a buffer needs a size, unless its initialiser is a list or a file".into());
    }
    Ok(ArgSpec::Buffer { elem, len, init })
}

fn parse_init(s: &str) -> Result<Init, String> {
    Ok(match s {
        "zeros" => Init::Zeros,
        "iota" => Init::Iota,
        "rand" => Init::Rand,
        "uninit" => Init::Uninit,
        _ if s.starts_with("fill(") && s.ends_with(')') => {
            let v = &s[5..s.len() - 1];
            Init::Fill(Number::parse(v).ok_or_else(|| format!("fill value `{v}` is not a number"))?)
        }
        _ if s.starts_with("file(") && s.ends_with(')') => {
            Init::File(PathBuf::from(&s[5..s.len() - 1]))
        }
        _ if s.starts_with('[') && s.ends_with(']') => {
            let body = s[1..s.len() - 1].trim();
            let mut items = Vec::new();
            if !body.is_empty() {
                for item in body.split(',') {
                    items.push(Number::parse(item).ok_or_else(|| {
                        format!("list element `{}` is not a number", item.trim())
                    })?);
                }
            }
            Init::Literal(items)
        }
        _ => {
            return Err(format!(
                "unknown initialiser `{s}` (expected zeros, iota, rand, uninit, fill(X), file(PATH) or [1,2,...])"
            ));
        }
    })
}

/// Parses a size expression: integers, names, `+ - * / %`, parentheses.
pub fn parse_size(s: &str) -> Result<SizeExpr, String> {
    let tokens = tokenize_size(s)?;
    let mut pos = 0;
    let e = size_sum(&tokens, &mut pos, 0)?;
    if pos != tokens.len() {
        return Err(format!("unexpected `{}` in size `{s}`", tokens[pos]));
    }
    Ok(e)
}

fn tokenize_size(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if "+-*/%()".contains(c) {
            out.push(c.to_string());
            chars.next();
        } else if c.is_alphanumeric() || c == '_' {
            let mut w = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_alphanumeric() || c == '_' {
                    w.push(c);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(w);
        } else {
            return Err(format!("unexpected character `{c}` in size `{s}`"));
        }
    }
    Ok(out)
}

const MAX_SIZE_DEPTH: usize = 64;

fn size_sum(t: &[String], pos: &mut usize, depth: usize) -> Result<SizeExpr, String> {
    let mut lhs = size_product(t, pos, depth)?;
    while let Some(op) = t.get(*pos).filter(|o| *o == "+" || *o == "-") {
        let op = op.chars().next().unwrap_or('+');
        *pos += 1;
        let rhs = size_product(t, pos, depth)?;
        lhs = SizeExpr::Binary(op, Box::new(lhs), Box::new(rhs));
    }
    Ok(lhs)
}

fn size_product(t: &[String], pos: &mut usize, depth: usize) -> Result<SizeExpr, String> {
    let mut lhs = size_atom(t, pos, depth)?;
    while let Some(op) = t.get(*pos).filter(|o| *o == "*" || *o == "/" || *o == "%") {
        let op = op.chars().next().unwrap_or('*');
        *pos += 1;
        let rhs = size_atom(t, pos, depth)?;
        lhs = SizeExpr::Binary(op, Box::new(lhs), Box::new(rhs));
    }
    Ok(lhs)
}

fn size_atom(t: &[String], pos: &mut usize, depth: usize) -> Result<SizeExpr, String> {
    if depth > MAX_SIZE_DEPTH {
        return Err("size expression nests too deeply".into());
    }
    let tok = t.get(*pos).ok_or("size expression ends early")?;
    *pos += 1;
    if tok == "(" {
        let e = size_sum(t, pos, depth + 1)?;
        if t.get(*pos).map(String::as_str) != Some(")") {
            return Err("missing `)` in size expression".into());
        }
        *pos += 1;
        return Ok(e);
    }
    if let Some(Number::Int(i)) = Number::parse(tok) {
        return Ok(SizeExpr::Const(i));
    }
    if tok
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
    {
        return Ok(SizeExpr::Name(tok.clone()));
    }
    Err(format!("unexpected `{tok}` in size expression"))
}

/// SplitMix64: a tiny, fast, well-distributed generator whose output is fixed forever.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A stream for one argument: the seed mixed with the FNV-1a hash of its name.
    pub fn for_arg(seed: u64, name: &str) -> SplitMix64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        SplitMix64(seed ^ h)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Limits on what arguments may allocate, so that a typo cannot exhaust memory.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The most bytes of one launch's buffers together (and so of each one).
    pub max_total_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_total_bytes: 8 << 30,
        }
    }
}

/// A buffer argument whose contents are generated on demand, a chunk at a time, so that a
/// caller can write them straight into the emulator's memory without first building a
/// second copy of the whole buffer (peak memory).
#[derive(Clone, Debug)]
pub struct PlannedBuffer {
    pub elem: ElemType,
    pub len: usize,
    /// False when the buffer was given as `:uninit`: every byte starts uninitialised.
    pub initialized: bool,
    source: Source,
}

/// Where a planned buffer's bytes come from.
#[derive(Clone, Debug)]
enum Source {
    Zeros,
    /// `:uninit`: filled with 0xCD so that a read of it is visible.
    Uninit,
    Iota,
    Rand(SplitMix64),
    /// One encoded element, repeated.
    Fill(Vec<u8>),
    /// Literal lists and files: already bytes.
    Bytes(Vec<u8>),
}

/// Elements generated per chunk by [`PlannedBuffer::generate`].
const CHUNK_ELEMENTS: usize = 1 << 16;

impl PlannedBuffer {
    /// Bytes of the buffer.
    pub fn byte_len(&self) -> usize {
        self.len * self.elem.size()
    }

    /// Whether every byte is zero (the caller's fresh, zeroed memory needs no writes).
    pub fn is_zeros(&self) -> bool {
        matches!(self.source, Source::Zeros)
    }

    /// Calls `sink(byte offset, bytes)` for consecutive chunks covering the buffer, in
    /// order. The contents are those [`materialize`] gives.
    pub fn generate(
        &self,
        mut sink: impl FnMut(usize, &[u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        let size = self.elem.size();
        if let Source::Bytes(b) = &self.source {
            for (k, chunk) in b.chunks(CHUNK_ELEMENTS * size).enumerate() {
                sink(k * CHUNK_ELEMENTS * size, chunk)?;
            }
            return Ok(());
        }
        let mut rng = match &self.source {
            Source::Rand(r) => r.clone(),
            _ => SplitMix64(0),
        };
        let mut chunk = Vec::with_capacity(CHUNK_ELEMENTS.min(self.len) * size);
        let mut first = 0;
        while first < self.len {
            let n = CHUNK_ELEMENTS.min(self.len - first);
            chunk.clear();
            match &self.source {
                Source::Zeros => chunk.resize(n * size, 0),
                Source::Uninit => chunk.resize(n * size, 0xCD),
                Source::Fill(one) => {
                    for _ in 0..n {
                        chunk.extend_from_slice(one);
                    }
                }
                Source::Iota => {
                    for i in first..first + n {
                        self.elem.encode(iota_value(self.elem, i), &mut chunk)?;
                    }
                }
                Source::Rand(_) => {
                    for _ in 0..n {
                        let r = rng.next_u64();
                        let v = if self.elem.is_float() {
                            Number::Float((r >> 11) as f64 / (1u64 << 53) as f64)
                        } else {
                            Number::Int((r % 100) as i128)
                        };
                        self.elem.encode(v, &mut chunk)?;
                    }
                }
                Source::Bytes(_) => unreachable!("handled above"),
            }
            sink(first * size, &chunk)?;
            first += n;
        }
        Ok(())
    }

    /// The whole contents as one vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(self.byte_len());
        self.generate(|_, chunk| {
            out.extend_from_slice(chunk);
            Ok(())
        })?;
        Ok(out)
    }
}

/// Element `i` of `:iota`: integer types wrap, as `(T)i` would in C.
fn iota_value(elem: ElemType, i: usize) -> Number {
    if elem.is_float() {
        return Number::Int(i as i128);
    }
    let bits = elem.size() * 8;
    let m = (i as u128) & ((1u128 << bits) - 1);
    let signed = matches!(
        elem,
        ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64
    );
    if signed && m >> (bits - 1) == 1 {
        Number::Int(m as i128 - (1i128 << bits))
    } else {
        Number::Int(m as i128)
    }
}

/// Plans one buffer argument: checks its size against the limits and its initialiser
/// against the element type; the contents are generated later ([`PlannedBuffer::generate`]).
/// `scalars` are the integer scalar arguments, for sizes.
pub fn plan(
    name: &str,
    elem: ElemType,
    len: Option<&SizeExpr>,
    init: &Init,
    scalars: &HashMap<String, Number>,
    seed: u64,
    limits: Limits,
) -> Result<PlannedBuffer, String> {
    let declared = match len {
        Some(e) => {
            let n = e.eval(scalars).map_err(|m| format!("`{name}`: {m}"))?;
            if n < 0 {
                return Err(format!(
                    "`{name}`: size {e} evaluates to {n}, which is negative"
                ));
            }
            let bytes = (n as u128).saturating_mul(elem.size() as u128);
            if bytes > limits.max_total_bytes as u128 {
                return Err(format!(
                    "`{name}`: {n} elements of {elem} need {bytes} bytes, over the limit of {} bytes",
                    limits.max_total_bytes
                ));
            }
            Some(n as usize)
        }
        None => None,
    };
    let count = || -> Result<usize, String> {
        declared.ok_or_else(|| format!("`{name}`: the buffer needs a size"))
    };
    let planned = |len: usize, initialized: bool, source: Source| PlannedBuffer {
        elem,
        len,
        initialized,
        source,
    };
    Ok(match init {
        Init::Zeros => planned(count()?, true, Source::Zeros),
        Init::Uninit => planned(count()?, false, Source::Uninit),
        Init::Iota => planned(count()?, true, Source::Iota),
        Init::Rand => planned(
            count()?,
            true,
            Source::Rand(SplitMix64::for_arg(seed, name)),
        ),
        Init::Fill(v) => {
            let n = count()?;
            let mut one = Vec::new();
            elem.encode(*v, &mut one)
                .map_err(|m| format!("`{name}`: {m}"))?;
            planned(n, true, Source::Fill(one))
        }
        Init::Literal(items) => {
            if let Some(d) = declared
                && d != items.len()
            {
                return Err(format!(
                    "`{name}`: size is {d} but the list has {} elements",
                    items.len()
                ));
            }
            let mut bytes = Vec::new();
            for v in items {
                elem.encode(*v, &mut bytes)
                    .map_err(|m| format!("`{name}`: {m}"))?;
            }
            planned(items.len(), true, Source::Bytes(bytes))
        }
        Init::File(path) => {
            let bytes = read_elements(path, elem, limits).map_err(|m| format!("`{name}`: {m}"))?;
            let n = bytes.len() / elem.size();
            if let Some(d) = declared
                && d != n
            {
                return Err(format!(
                    "`{name}`: size is {d} but {} holds {n} elements",
                    path.display()
                ));
            }
            planned(n, true, Source::Bytes(bytes))
        }
    })
}

/// Materialises one buffer argument: [`plan`], then every byte in one vector.
pub fn materialize(
    name: &str,
    elem: ElemType,
    len: Option<&SizeExpr>,
    init: &Init,
    scalars: &HashMap<String, Number>,
    seed: u64,
    limits: Limits,
) -> Result<BufferValue, String> {
    let p = plan(name, elem, len, init, scalars, seed, limits)?;
    let bytes = p.to_bytes().map_err(|m| format!("`{name}`: {m}"))?;
    Ok(BufferValue {
        elem,
        len: p.len,
        bytes,
        initialized: p.initialized,
    })
}

/// Reads a `.npy` file (checking its dtype) or raw little-endian elements.
fn read_elements(
    path: &std::path::Path,
    elem: ElemType,
    limits: Limits,
) -> Result<Vec<u8>, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "{} is not a regular file (a device or a pipe has no size to read)",
            path.display()
        ));
    }
    if meta.len() > limits.max_total_bytes {
        return Err(format!(
            "{} is larger than the limit of {} bytes",
            path.display(),
            limits.max_total_bytes
        ));
    }
    // Read with a bound, not by the size the file claims: a symlink to `/dev/zero` has
    // none.
    let mut data = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(
            std::fs::File::open(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
            limits.max_total_bytes + 1,
        ),
        &mut data,
    )
    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if data.len() as u64 > limits.max_total_bytes {
        return Err(format!(
            "{} is larger than the limit of {} bytes",
            path.display(),
            limits.max_total_bytes
        ));
    }
    if path.extension().is_some_and(|e| e == "npy") {
        return npy::decode(&data, elem).map_err(|m| format!("{}: {m}", path.display()));
    }
    if data.len() % elem.size() != 0 {
        return Err(format!(
            "{} has {} bytes, not a whole number of {elem} elements",
            path.display(),
            data.len()
        ));
    }
    Ok(data)
}

/// Minimal NumPy `.npy` reading and writing (format versions 1.0–3.0, 1-D, C order).
pub mod npy {
    use super::ElemType;

    const MAGIC: &[u8] = b"\x93NUMPY";

    /// Returns the raw element bytes after checking the header against `elem`.
    pub fn decode(data: &[u8], elem: ElemType) -> Result<Vec<u8>, String> {
        if data.len() < 10 || !data.starts_with(MAGIC) {
            return Err("not a .npy file (bad magic)".into());
        }
        let major = data[6];
        let (header_len, start) = match major {
            1 => (u16::from_le_bytes([data[8], data[9]]) as usize, 10usize),
            2 | 3 => {
                if data.len() < 12 {
                    return Err("truncated .npy header".into());
                }
                (
                    u32::from_le_bytes([data[8], data[9], data[10], data[11]]) as usize,
                    12,
                )
            }
            v => return Err(format!("unsupported .npy version {v}")),
        };
        let end = start
            .checked_add(header_len)
            .filter(|&e| e <= data.len())
            .ok_or("truncated .npy header")?;
        let header =
            std::str::from_utf8(&data[start..end]).map_err(|_| "the .npy header is not text")?;
        let descr = field(header, "descr").ok_or("the .npy header has no descr")?;
        let descr = descr.trim_matches(|c| c == '\'' || c == '"');
        let expect = elem.npy_descr();
        let same = descr == expect
            || (descr.len() == 3
                && expect.len() == 3
                && descr[1..] == expect[1..]
                && (descr.starts_with('=') || descr.starts_with('|')));
        if !same {
            return Err(format!(
                "dtype is {descr}, but the argument is {elem} ({expect})"
            ));
        }
        if field(header, "fortran_order").is_some_and(|v| v.starts_with("True")) {
            return Err("Fortran-order arrays are not supported; save with C order".into());
        }
        let body = &data[end..];
        if !body.len().is_multiple_of(elem.size()) {
            return Err("the .npy data is not a whole number of elements".into());
        }
        let elements = shape_elements(header)?;
        if elements != (body.len() / elem.size()) as u128 {
            return Err(format!(
                "the .npy shape holds {elements} elements, but the file has {}",
                body.len() / elem.size()
            ));
        }
        Ok(body.to_vec())
    }

    /// The number of elements the header's `shape` tuple holds (`()` is one).
    fn shape_elements(header: &str) -> Result<u128, String> {
        let k = header
            .find("'shape'")
            .ok_or("the .npy header has no shape")?;
        let rest = &header[k..];
        let (open, close) = match (rest.find('('), rest.find(')')) {
            (Some(o), Some(c)) if o < c => (o, c),
            _ => return Err("the .npy shape is not a tuple".into()),
        };
        let mut n: u128 = 1;
        for dim in rest[open + 1..close].split(',').map(str::trim) {
            if dim.is_empty() {
                continue;
            }
            let d: u128 = dim
                .trim_end_matches('L')
                .parse()
                .map_err(|_| format!("the .npy shape has a bad dimension `{dim}`"))?;
            n = n.saturating_mul(d);
        }
        Ok(n)
    }

    fn field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
        let k = header.find(&format!("'{key}'"))?;
        let rest = header[k + key.len() + 2..]
            .trim_start()
            .strip_prefix(':')?
            .trim_start();
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        Some(rest[..end].trim())
    }

    /// Encodes raw element bytes as a 1-D `.npy` file (version 1.0).
    pub fn encode(bytes: &[u8], elem: ElemType) -> Vec<u8> {
        let mut out = header(bytes.len() / elem.size(), elem);
        out.extend_from_slice(bytes);
        out
    }

    /// The header of a 1-D `.npy` file (version 1.0) of `n` elements; the raw
    /// little-endian elements follow it.
    pub fn header(n: usize, elem: ElemType) -> Vec<u8> {
        let mut header = format!(
            "{{'descr': '{}', 'fortran_order': False, 'shape': ({n},), }}",
            elem.npy_descr()
        );
        // Pad so that the data starts on a 64-byte boundary, ending the header with '\n'.
        let total = MAGIC.len() + 4 + header.len() + 1;
        header.push_str(&" ".repeat((64 - total % 64) % 64));
        header.push('\n');
        let mut out = Vec::with_capacity(10 + header.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_with_a_bound_and_npy_shapes_are_checked() {
        let dir = std::env::temp_dir().join(format!("warpcheck-args-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A symlink to a device is refused at once, not read without end.
        let zero = dir.join("zero.npy");
        let _ = std::fs::remove_file(&zero);
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = read_elements(&zero, ElemType::F32, Limits::default()).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        // A shape that does not match the data.
        let mut bad = npy::encode(&[0u8; 16], ElemType::F32);
        let at = bad.windows(4).position(|w| w == b"(4,)").unwrap();
        bad[at..at + 4].copy_from_slice(b"(5,)");
        let e = npy::decode(&bad, ElemType::F32).unwrap_err();
        assert!(
            e.contains("shape holds 5 elements, but the file has 4"),
            "{e}"
        );
        let good = npy::encode(&[0u8; 16], ElemType::F32);
        assert_eq!(npy::decode(&good, ElemType::F32).unwrap().len(), 16);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn scalars(pairs: &[(&str, i128)]) -> HashMap<String, Number> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Number::Int(*v)))
            .collect()
    }

    fn buf(text: &str, sc: &HashMap<String, Number>) -> Result<BufferValue, String> {
        let arg = parse_arg(text)?;
        match &arg.spec {
            ArgSpec::Buffer { elem, len, init } => materialize(
                &arg.name,
                *elem,
                len.as_ref(),
                init,
                sc,
                7,
                Limits::default(),
            ),
            ArgSpec::Scalar(_) => Err("scalar".into()),
        }
    }

    #[test]
    fn scalars_parse_as_ints_or_floats() {
        assert_eq!(
            parse_arg("n=1024").unwrap().spec,
            ArgSpec::Scalar(Number::Int(1024))
        );
        assert_eq!(
            parse_arg("k=-3").unwrap().spec,
            ArgSpec::Scalar(Number::Int(-3))
        );
        assert_eq!(
            parse_arg("m=0x10").unwrap().spec,
            ArgSpec::Scalar(Number::Int(16))
        );
        assert_eq!(
            parse_arg("alpha=0.5").unwrap().spec,
            ArgSpec::Scalar(Number::Float(0.5))
        );
        assert_eq!(
            parse_arg("eps=1e-3").unwrap().spec,
            ArgSpec::Scalar(Number::Float(1e-3))
        );
    }

    #[test]
    fn buffer_sizes_use_scalar_arguments() {
        let sc = scalars(&[("n", 8)]);
        let b = buf("m=i32[n*n+(n-2)/3]", &sc).unwrap();
        assert_eq!(b.len, 66);
        assert_eq!(b.bytes.len(), 66 * 4);
        assert!(b.bytes.iter().all(|&x| x == 0));
    }

    #[test]
    fn initialisers_produce_the_documented_values() {
        let sc = scalars(&[("n", 4)]);
        let iota = buf("a=f32[n]:iota", &sc).unwrap();
        let f: Vec<f32> = iota
            .bytes
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(f, [0.0, 1.0, 2.0, 3.0]);
        let fill = buf("b=i16[3]:fill(-7)", &sc).unwrap();
        assert_eq!(fill.bytes, [0xF9, 0xFF, 0xF9, 0xFF, 0xF9, 0xFF]);
        let lit = buf("c=u8[]:[1,2,255]", &sc).unwrap();
        assert_eq!((lit.len, lit.bytes), (3, vec![1, 2, 255]));
        let un = buf("d=u32[2]:uninit", &sc).unwrap();
        assert!(!un.initialized);
        let wrap = buf("e=u8[300]:iota", &sc).unwrap();
        assert_eq!(wrap.bytes[299], 43);
    }

    #[test]
    fn rand_is_seeded_per_argument_and_in_range() {
        let sc = scalars(&[]);
        let a = buf("a=f32[1000]:rand", &sc).unwrap();
        let a2 = buf("a=f32[1000]:rand", &sc).unwrap();
        let b = buf("b=f32[1000]:rand", &sc).unwrap();
        assert_eq!(a, a2);
        assert_ne!(a.bytes, b.bytes);
        for c in a.bytes.chunks(4) {
            let v = f32::from_le_bytes(c.try_into().unwrap());
            assert!((0.0..1.0).contains(&v));
        }
        let i = buf("i=i32[1000]:rand", &sc).unwrap();
        assert!(
            i.bytes
                .chunks(4)
                .all(|c| (0..100).contains(&i32::from_le_bytes(c.try_into().unwrap())))
        );
    }

    #[test]
    fn errors_name_the_problem() {
        let sc = scalars(&[("n", 4)]);
        assert!(parse_arg("a").unwrap_err().contains("NAME=VALUE"));
        assert!(
            parse_arg("a=q32[4]")
                .unwrap_err()
                .contains("unknown element type `q32`")
        );
        assert!(
            parse_arg("a=f32[4]:bogus")
                .unwrap_err()
                .contains("unknown initialiser")
        );
        assert!(parse_arg("a=f32[]").unwrap_err().contains("needs a size"));
        assert!(
            buf("a=f32[m]", &sc)
                .unwrap_err()
                .contains("`m`, which is not a scalar argument")
        );
        assert!(buf("a=f32[n-5]", &sc).unwrap_err().contains("negative"));
        assert!(
            buf("a=u8[2]:[1,2,3]", &sc)
                .unwrap_err()
                .contains("size is 2 but the list has 3")
        );
        assert!(
            buf("a=u8[]:[1,256]", &sc)
                .unwrap_err()
                .contains("256 does not fit in u8")
        );
        assert!(
            buf("a=f32[1000000000000]", &sc)
                .unwrap_err()
                .contains("over the limit")
        );
    }

    #[test]
    fn npy_round_trips_and_checks_dtype() {
        let bytes: Vec<u8> = [1.5f32, -2.0, 3.25]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let file = npy::encode(&bytes, ElemType::F32);
        assert_eq!((file.len() - bytes.len()) % 64, 0);
        assert_eq!(npy::decode(&file, ElemType::F32).unwrap(), bytes);
        assert!(
            npy::decode(&file, ElemType::I32)
                .unwrap_err()
                .contains("dtype is <f4")
        );
        assert!(npy::decode(b"garbage", ElemType::F32).is_err());
    }

    proptest::proptest! {
        #[test]
        fn parse_arg_never_panics(s in "\\PC{0,40}") {
            let _ = parse_arg(&s);
        }
    }
}
