//! Device `printf`: CUDA compiles `printf(fmt, args…)` into `vprintf(fmt, buf)` where
//! `buf` is a per-thread local buffer holding the arguments, each at the next multiple of
//! its own size (`int` 4 bytes; `long`, pointers and `double` 8 bytes; `float` promoted
//! to `double`). This module formats such a call the way the C library does (flags
//! `-+ #0`, width, precision, `*`, length modifiers `hh h l ll z j t`, conversions
//! `d i u x X o c s f F e E g G a A p %`).

/// Reads the next argument of `size` bytes from the buffer (aligned to `size`).
pub(crate) trait ArgSource {
    fn next(&mut self, size: u32) -> Result<u64, String>;
    /// Reads the NUL-terminated string at a device address.
    fn string(&mut self, address: u64) -> Result<Vec<u8>, String>;
}

/// Formats one `printf` call.
pub(crate) fn format(fmt: &[u8], args: &mut dyn ArgSource) -> Result<String, String> {
    let mut out = String::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            let start = i;
            while i < fmt.len() && fmt[i] != b'%' {
                i += 1;
            }
            out.push_str(&String::from_utf8_lossy(&fmt[start..i]));
            continue;
        }
        i += 1;
        if i < fmt.len() && fmt[i] == b'%' {
            out.push('%');
            i += 1;
            continue;
        }
        let mut spec = Spec::default();
        while i < fmt.len() {
            match fmt[i] {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if i < fmt.len() && fmt[i] == b'*' {
            let w = args.next(4)? as u32 as i32;
            if w < 0 {
                spec.left = true;
            }
            spec.width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                spec.width = spec.width * 10 + (fmt[i] - b'0') as usize;
                i += 1;
            }
        }
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            let mut p = 0usize;
            if i < fmt.len() && fmt[i] == b'*' {
                let v = args.next(4)? as u32 as i32;
                p = v.max(0) as usize;
                i += 1;
            } else {
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    p = p * 10 + (fmt[i] - b'0') as usize;
                    i += 1;
                }
            }
            spec.precision = Some(p);
        }
        let mut long = 0;
        while i < fmt.len() && matches!(fmt[i], b'h' | b'l' | b'z' | b'j' | b't' | b'L' | b'q') {
            if matches!(fmt[i], b'l' | b'z' | b'j' | b't' | b'L' | b'q') {
                long += 1;
            }
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.push('%');
            break;
        };
        i += 1;
        let int_size = if long > 0 { 8 } else { 4 };
        let body = match conv {
            b'd' | b'i' => {
                let v = args.next(int_size)?;
                let v = if int_size == 4 {
                    v as u32 as i32 as i64
                } else {
                    v as i64
                };
                spec.signed_int(v)
            }
            b'u' | b'x' | b'X' | b'o' => {
                let v = args.next(int_size)?;
                let v = if int_size == 4 { v as u32 as u64 } else { v };
                spec.unsigned_int(v, conv)
            }
            b'c' => {
                let v = args.next(4)? as u8;
                spec.pad((v as char).to_string(), false)
            }
            b's' => {
                let a = args.next(8)?;
                let s = if a == 0 {
                    b"(null)".to_vec()
                } else {
                    args.string(a)?
                };
                let mut s = String::from_utf8_lossy(&s).into_owned();
                if let Some(p) = spec.precision {
                    s = s.chars().take(p).collect();
                }
                spec.pad(s, false)
            }
            b'p' => {
                let a = args.next(8)?;
                spec.pad(format!("0x{a:x}"), false)
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let v = f64::from_bits(args.next(8)?);
                spec.float(v, conv)
            }
            other => {
                return Err(format!(
                    "unsupported printf conversion `%{}`",
                    other as char
                ));
            }
        };
        out.push_str(&body);
    }
    Ok(out)
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

impl Spec {
    /// Pads to the width; `numeric` allows zero padding after the sign/prefix.
    fn pad(&self, s: String, numeric: bool) -> String {
        let len = s.chars().count();
        if len >= self.width {
            return s;
        }
        let fill = self.width - len;
        if self.left {
            format!("{s}{}", " ".repeat(fill))
        } else if self.zero && numeric {
            let prefix_len = s
                .char_indices()
                .take_while(|(_, c)| matches!(c, '+' | '-' | ' '))
                .count()
                + if s.trim_start_matches(['+', '-', ' ']).starts_with("0x")
                    || s.trim_start_matches(['+', '-', ' ']).starts_with("0X")
                {
                    2
                } else {
                    0
                };
            let (p, rest) = s.split_at(prefix_len);
            format!("{p}{}{rest}", "0".repeat(fill))
        } else {
            format!("{}{s}", " ".repeat(fill))
        }
    }

    fn sign(&self, negative: bool) -> &'static str {
        if negative {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        }
    }

    fn digits_with_precision(&self, mut digits: String) -> String {
        if let Some(p) = self.precision {
            if p == 0 && digits == "0" {
                digits.clear();
            }
            while digits.len() < p {
                digits.insert(0, '0');
            }
        }
        digits
    }

    fn signed_int(&self, v: i64) -> String {
        let digits = self.digits_with_precision(v.unsigned_abs().to_string());
        let zero_ok = self.precision.is_none();
        let s = format!("{}{digits}", self.sign(v < 0));
        self.pad(s, zero_ok)
    }

    fn unsigned_int(&self, v: u64, conv: u8) -> String {
        let digits = match conv {
            b'x' => format!("{v:x}"),
            b'X' => format!("{v:X}"),
            b'o' => format!("{v:o}"),
            _ => v.to_string(),
        };
        let mut digits = self.digits_with_precision(digits);
        if self.alt && v != 0 {
            match conv {
                b'x' => digits.insert_str(0, "0x"),
                b'X' => digits.insert_str(0, "0X"),
                b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
                _ => {}
            }
        }
        self.pad(digits, self.precision.is_none())
    }

    fn float(&self, v: f64, conv: u8) -> String {
        let upper = conv.is_ascii_uppercase();
        let neg = v.is_sign_negative() && !v.is_nan();
        let a = v.abs();
        let body = if v.is_nan() {
            "nan".to_string()
        } else if v.is_infinite() {
            "inf".to_string()
        } else {
            let p = self.precision.unwrap_or(6);
            match conv.to_ascii_lowercase() {
                b'f' => {
                    let mut s = format!("{a:.p$}");
                    if self.alt && p == 0 {
                        s.push('.');
                    }
                    s
                }
                b'e' => exp_format(a, p, self.alt),
                b'g' => {
                    let p = if p == 0 { 1 } else { p };
                    let x = if a == 0.0 { 0 } else { exp_of(a, p - 1) };
                    let mut s = if (x as i64) < p as i64 && x >= -4 {
                        format!("{a:.*}", (p as i64 - 1 - x as i64) as usize)
                    } else {
                        exp_format(a, p - 1, self.alt)
                    };
                    if !self.alt {
                        s = strip_trailing_zeros(&s);
                    }
                    s
                }
                _ => hex_float(a, self.precision),
            }
        };
        let body = if upper { body.to_uppercase() } else { body };
        let s = format!("{}{body}", self.sign(neg));
        self.pad(s, v.is_finite())
    }
}

/// The decimal exponent of `a` once rounded to `p` digits after the point in `%e` form.
fn exp_of(a: f64, p: usize) -> i32 {
    let s = format!("{a:.p$e}");
    s.rsplit('e')
        .next()
        .and_then(|e| e.parse().ok())
        .unwrap_or(0)
}

/// C's `%e`: `d.dddddde+XX`.
fn exp_format(a: f64, p: usize, alt: bool) -> String {
    let s = format!("{a:.p$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    let mut mant = mant.to_string();
    if alt && p == 0 {
        mant.push('.');
    }
    format!(
        "{mant}e{}{:02}",
        if e < 0 { '-' } else { '+' },
        e.unsigned_abs()
    )
}

fn strip_trailing_zeros(s: &str) -> String {
    let (num, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let num = if num.contains('.') {
        num.trim_end_matches('0').trim_end_matches('.')
    } else {
        num
    };
    format!("{num}{exp}")
}

/// `%a`: hexadecimal floating point, `0x1.8p+1`.
fn hex_float(a: f64, precision: Option<usize>) -> String {
    if a == 0.0 {
        return "0x0p+0".into();
    }
    let bits = a.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mant = bits & ((1 << 52) - 1);
    let lead = if exp == 0 {
        exp = -1022;
        0
    } else {
        exp -= 1023;
        1
    };
    let mut digits = format!("{mant:013x}");
    if let Some(p) = precision {
        if p < 13 {
            let shift = (13 - p) * 4;
            let round = (mant >> (shift - 1)) & 1;
            mant = (mant >> shift) + round;
            digits = if p == 0 {
                String::new()
            } else {
                format!("{mant:0p$x}")
            };
        }
    } else {
        digits = digits.trim_end_matches('0').to_string();
    }
    let dot = if digits.is_empty() { "" } else { "." };
    format!(
        "0x{lead}{dot}{digits}p{}{}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Args(Vec<(u32, u64)>, usize);
    impl ArgSource for Args {
        fn next(&mut self, _size: u32) -> Result<u64, String> {
            let v = self.0.get(self.1).map(|x| x.1).ok_or("too few arguments")?;
            self.1 += 1;
            Ok(v)
        }
        fn string(&mut self, _address: u64) -> Result<Vec<u8>, String> {
            Ok(b"debug".to_vec())
        }
    }

    fn f(fmt: &str, args: Vec<u64>) -> String {
        format(
            fmt.as_bytes(),
            &mut Args(args.into_iter().map(|a| (8, a)).collect(), 0),
        )
        .unwrap()
    }

    #[test]
    fn formats_like_c() {
        assert_eq!(
            f(
                "n=%d x=%5.2f%%\n",
                vec![(-3i32) as u32 as u64, 3.25159f64.to_bits()]
            ),
            "n=-3 x= 3.25%\n"
        );
        assert_eq!(f("%x %08X %#x", vec![255, 255, 255]), "ff 000000FF 0xff");
        assert_eq!(f("%s|%-4d|%04d", vec![1, 7, 7]), "debug|7   |0007");
        assert_eq!(f("%e", vec![12345.678f64.to_bits()]), "1.234568e+04");
        assert_eq!(
            f(
                "%g %g %g",
                vec![0.0001f64.to_bits(), 1e20f64.to_bits(), 2.5f64.to_bits()]
            ),
            "0.0001 1e+20 2.5"
        );
        assert_eq!(
            f("%lld %u", vec![(-5i64) as u64, 4_000_000_000]),
            "-5 4000000000"
        );
        assert_eq!(f("%+.1f %c", vec![2.25f64.to_bits(), 65]), "+2.2 A");
        assert_eq!(f("%a", vec![3.0f64.to_bits()]), "0x1.8p+1");
    }
}
