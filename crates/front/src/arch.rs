//! GPU architecture names and the PTX ISA version compiled for each.

use crate::error::FrontError;

/// A validated `sm_XX` architecture: the number and an optional feature suffix (`sm_90a`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    pub name: String,
    pub number: u32,
}

impl Arch {
    /// Parses `sm_<digits>[a|f]`.
    pub fn parse(name: &str) -> Result<Arch, FrontError> {
        let invalid = || {
            FrontError::InvalidOption(format!(
                "invalid GPU architecture `{name}`: expected sm_XX, e.g. sm_80 or sm_90a"
            ))
        };
        let digits_and_suffix = name.strip_prefix("sm_").ok_or_else(invalid)?;
        let digits: String = digits_and_suffix
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let suffix = &digits_and_suffix[digits.len()..];
        if digits.is_empty() || !(suffix.is_empty() || suffix == "a" || suffix == "f") {
            return Err(invalid());
        }
        let number: u32 = digits.parse().map_err(|_| invalid())?;
        if number < 20 {
            return Err(invalid());
        }
        Ok(Arch {
            name: name.to_string(),
            number,
        })
    }

    /// The PTX ISA version (times ten) that clang is told to target.
    ///
    /// clang picks the PTX version from the CUDA installation it finds; with none it falls back
    /// to PTX 4.2, which lacks the `*.sync` warp instructions (PTX ISA 6.0) that the shims
    /// need. warpcheck therefore asks for the first PTX version that supports the architecture
    /// (PTX ISA release notes, "PTX ISA version" table), and never less than 7.0, the version
    /// that introduced `redux.sync` and is supported by every clang from 14 on.
    pub fn ptx_version(&self) -> u32 {
        let arch_minimum = match (self.number, self.name.ends_with('a')) {
            (n, _) if n < 80 => 60,
            (80, _) => 70,
            (86, _) => 71,
            (87, _) => 74,
            (89, _) => 78,
            (90, false) => 78,
            (90, true) => 80,
            (100..=101, _) => 86,
            _ => 87,
        };
        arch_minimum.max(70)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_architectures_and_picks_ptx_versions() {
        assert_eq!(Arch::parse("sm_80").unwrap().ptx_version(), 70);
        assert_eq!(Arch::parse("sm_86").unwrap().ptx_version(), 71);
        assert_eq!(Arch::parse("sm_60").unwrap().ptx_version(), 70);
        assert_eq!(Arch::parse("sm_90").unwrap().ptx_version(), 78);
        assert_eq!(Arch::parse("sm_90a").unwrap().ptx_version(), 80);
        for bad in ["80", "sm80", "sm_", "sm_8x", "compute_80", "sm_10"] {
            let error = Arch::parse(bad).unwrap_err().to_string();
            assert!(error.contains(bad) && error.contains("sm_XX"), "{error}");
        }
    }
}
