//! The `isa!` macro that turns the instruction table of [`crate::isa`] into the [`Op`]
//! enum, the [`Opcode`] metadata, the modifier decoder, the modifier printer and the
//! operand signatures.
//!
//! Each table entry lists its fields in the order the PTX manual writes the modifiers; a
//! field is one of
//!
//! * `flag("ftz")` — a `bool`, true when the modifier is present;
//! * `opt(Group)` — an `Option<Group>`, one modifier of a [`Modifier`] group, or none;
//! * `req(Group)` — exactly one modifier of the group;
//! * `dflt(Group)` — at most one; absent means the group's `Default` (e.g. the generic
//!   state space);
//! * `ty()` / `opt_ty()` — an instruction type (`.f32`), required or optional. Type
//!   modifiers fill the type fields in order (`cvt.f32.s32` is destination then source).
//!
//! The decoder matches every modifier token against the fields in declaration order; the
//! first field that accepts it takes it. A token that a field would accept but that field
//! is already filled goes on to the next field (so two fields of the same group, as in
//! `cp.async.ca.shared.global`, fill in order) and is reported as a conflict only if no
//! field takes it. After the tokens, the entry's `check` expression validates the
//! combination with the fields in scope as plain values.
//!
//! [`Op`]: crate::isa::Op
//! [`Opcode`]: crate::isa::Opcode
//! [`Modifier`]: crate::modifiers::Modifier

/// The Rust type of a field kind.
macro_rules! field_type {
    (flag($s:literal)) => { bool };
    (opt($t:ty)) => { Option<$t> };
    (req($t:ty)) => { $t };
    (dflt($t:ty)) => { $t };
    (ty()) => { $crate::types::Type };
    (opt_ty()) => { Option<$crate::types::Type> };
}

/// Offers one modifier token to a field's decoding state (an `Option`).
macro_rules! field_accept {
    (flag($s:literal), $state:ident, $tok:expr) => {
        if $tok == $s {
            if $state.is_some() {
                $crate::isa::Accept::Filled($s)
            } else {
                $state = Some(true);
                $crate::isa::Accept::Taken
            }
        } else {
            $crate::isa::Accept::No
        }
    };
    (opt($t:ty), $state:ident, $tok:expr) => {
        $crate::isa::accept_modifier::<$t>(&mut $state, $tok)
    };
    (req($t:ty), $state:ident, $tok:expr) => {
        $crate::isa::accept_modifier::<$t>(&mut $state, $tok)
    };
    (dflt($t:ty), $state:ident, $tok:expr) => {
        $crate::isa::accept_modifier::<$t>(&mut $state, $tok)
    };
    (ty(), $state:ident, $tok:expr) => {
        $crate::isa::accept_type(&mut $state, $tok)
    };
    (opt_ty(), $state:ident, $tok:expr) => {
        $crate::isa::accept_type(&mut $state, $tok)
    };
}

/// Turns a field's decoding state into its value, or returns the "missing" error.
macro_rules! field_finish {
    (flag($s:literal), $state:ident) => {
        $state.is_some()
    };
    (opt($t:ty), $state:ident) => {
        $state
    };
    (req($t:ty), $state:ident) => {
        match $state {
            Some(value) => value,
            None => {
                return Err($crate::isa::ModifierError::Missing {
                    what: <$t as $crate::modifiers::Modifier>::WHAT,
                    expected: $crate::modifiers::spellings::<$t>(),
                })
            }
        }
    };
    (dflt($t:ty), $state:ident) => {
        $state.unwrap_or_default()
    };
    (ty(), $state:ident) => {
        match $state {
            Some(value) => value,
            None => {
                return Err($crate::isa::ModifierError::Missing {
                    what: "instruction type",
                    expected: Vec::new(),
                })
            }
        }
    };
    (opt_ty(), $state:ident) => {
        $state
    };
}

/// Appends a field's spelling (if any) to the modifier list.
macro_rules! field_print {
    (flag($s:literal), $value:expr, $out:ident) => {
        if $value {
            $out.push($s);
        }
    };
    (opt($t:ty), $value:expr, $out:ident) => {
        if let Some(m) = $value {
            $out.push($crate::modifiers::Modifier::spelling(m));
        }
    };
    (req($t:ty), $value:expr, $out:ident) => {
        $out.push($crate::modifiers::Modifier::spelling($value));
    };
    (dflt($t:ty), $value:expr, $out:ident) => {{
        let spelling = $crate::modifiers::Modifier::spelling($value);
        if !spelling.is_empty() {
            $out.push(spelling);
        }
    }};
    (ty(), $value:expr, $out:ident) => {
        $out.push($value.name());
    };
    (opt_ty(), $value:expr, $out:ident) => {
        if let Some(t) = $value {
            $out.push(t.name());
        }
    };
}

macro_rules! first_literal {
    ($first:literal $(, $rest:literal)*) => {
        $first
    };
}

macro_rules! isa {
    ($(
        $variant:ident {
            summary: $summary:literal,
            spell: [$($key:literal $(=> [$($implied:literal),* $(,)?])?),+ $(,)?],
            refs: [$(($section:literal, $anchor:literal)),+ $(,)?],
            fields: { $($field:ident : $kind:ident ($($arg:tt)*)),* $(,)? },
            operands: $sig:expr,
            check: $check:expr $(,)?
        }
    )+) => {
        /// A decoded instruction: which instruction it is and what its modifiers mean.
        ///
        /// Generated from the table in `isa.rs`; each variant's fields are its modifiers in
        /// manual order. `Op` is `Copy` and at most 16 bytes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op {
            $(
                #[doc = $summary]
                $variant { $($field: field_type!($kind($($arg)*))),* },
            )+
        }

        /// The instruction of an [`Op`] without its modifiers: the key of the table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $( #[doc = $summary] $variant, )+
        }

        /// Every spelling of every opcode, with the modifiers the spelling implies
        /// (`bar.sync` is `barrier.sync.aligned`).
        pub static SPELLINGS: &[Spelling] = &[
            $( $(
                Spelling {
                    key: $key,
                    implies: &[$($($implied),*)?],
                    opcode: Opcode::$variant,
                },
            )+ )+
        ];

        impl Opcode {
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),+];

            /// The table entry: name, summary and manual references.
            pub fn info(self) -> &'static OpcodeInfo {
                match self {
                    $(
                        Opcode::$variant => &OpcodeInfo {
                            opcode: Opcode::$variant,
                            name: first_literal!($($key),+),
                            summary: $summary,
                            refs: &[$(IsaRef { section: $section, anchor: $anchor }),+],
                        },
                    )+
                }
            }

            /// Decodes the modifier tokens (without dots, implied ones first) of one
            /// instruction of this opcode.
            #[allow(unused_mut, unused_variables, unused_labels, clippy::all)]
            pub fn decode_modifiers(self, mods: &[&str]) -> Result<Op, ModifierError> {
                match self {
                    $(
                        Opcode::$variant => {
                            $( let mut $field = None; )*
                            'tokens: for (position, &token) in mods.iter().enumerate() {
                                let mut previous: Option<&'static str> = None;
                                $(
                                    match field_accept!($kind($($arg)*), $field, token) {
                                        Accept::Taken => continue 'tokens,
                                        Accept::Filled(p) => {
                                            previous.get_or_insert(p);
                                        }
                                        Accept::No => {}
                                    }
                                )*
                                return Err(match previous {
                                    Some(previous) => ModifierError::Conflict { position, previous },
                                    None => ModifierError::Unsupported { position },
                                });
                            }
                            $( let $field: field_type!($kind($($arg)*)) = field_finish!($kind($($arg)*), $field); )*
                            let checked: Result<(), String> = $check;
                            checked.map_err(ModifierError::Combination)?;
                            Ok(Op::$variant { $($field),* })
                        }
                    )+
                }
            }
        }

        impl Op {
            pub fn opcode(&self) -> Opcode {
                match self {
                    $( Op::$variant { .. } => Opcode::$variant, )+
                }
            }

            /// The modifiers in canonical order and spelling, without dots.
            #[allow(unused_variables, unused_mut)]
            pub fn modifiers(&self) -> Vec<&'static str> {
                let mut out: Vec<&'static str> = Vec::new();
                match *self {
                    $( Op::$variant { $($field),* } => { $( field_print!($kind($($arg)*), $field, out); )* } )+
                }
                out
            }

            /// The operand signature: one [`Slot`] per operand position. Decoded
            /// instructions always have exactly this many operands (omitted optional ones
            /// are [`Operand::Absent`](crate::Operand::Absent)).
            #[allow(unused_variables)]
            pub fn slots(&self) -> &'static [Slot] {
                match *self {
                    $( Op::$variant { $($field),* } => { $sig } )+
                }
            }
        }
    };
}
