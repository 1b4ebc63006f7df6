//! The vocabulary of race findings, shared by the dynamic race checker
//! (`warpcheck-check`) and the static race lint (`warpcheck-lint`) so that both say the
//! same thing about the same race.

/// Where a race happens: which threads are unordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Two lanes of one warp.
    IntraWarp,
    /// Two warps of one block.
    InterWarp,
    /// Two blocks.
    InterBlock,
}

impl Scope {
    /// "between lanes of one warp", … as a finding's message says it.
    pub fn describe(self) -> &'static str {
        match self {
            Scope::IntraWarp => "between lanes of one warp",
            Scope::InterWarp => "between warps of one block",
            Scope::InterBlock => "between blocks",
        }
    }

    /// How to order the two accesses.
    pub fn help(self) -> &'static str {
        match self {
            Scope::IntraWarp => {
                "lanes of a warp are not ordered under independent thread scheduling: put a `__syncwarp()` between the accesses"
            }
            Scope::InterBlock => {
                "blocks are not ordered within a launch: give each block its own part of the buffer, use atomics, or split the kernel"
            }
            Scope::InterWarp => "put a `__syncthreads()` between the two accesses",
        }
    }
}

/// The hazard of a race whose first access (in program order of the report) writes or
/// not and whose second writes or not: RAW, WAR or WAW (two reads never race).
pub fn hazard(first_writes: bool, second_writes: bool) -> &'static str {
    match (first_writes, second_writes) {
        (true, false) => "read-after-write",
        (false, true) => "write-after-read",
        _ => "write-after-write",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hazards_are_named_from_the_writes() {
        assert_eq!(hazard(true, false), "read-after-write");
        assert_eq!(hazard(false, true), "write-after-read");
        assert_eq!(hazard(true, true), "write-after-write");
    }
}
