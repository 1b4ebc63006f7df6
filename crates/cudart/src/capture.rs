//! Launch capture (`--capture DIR`): before each launch runs, the runtime writes it as a
//! kernel-mode launch file, `DIR/NNN-KERNEL.toml` (the format of
//! [`warpcheck_launch::toml_launches`]), and the contents of the device allocations its
//! pointer arguments point into as `.npy` files beside it (`DIR/NNN-KERNEL-PARAM.npy`),
//! so that one launch can be replayed, changed and bisected alone:
//! `warpcheck check FILE.cu --launches DIR/NNN-KERNEL.toml`.
//!
//! Parameters are named and typed as kernel mode names them: by the source names and C
//! types of the kernel's signature, which the CLI hands over in a JSON file
//! (`WARPCHECK_CUDART_KERNELS`), else as `arg0`, `arg1` … with the PTX types (a 64-bit
//! parameter whose value lies in a device allocation is taken as a pointer to bytes).
//! A pointer into the middle of an allocation is captured from the pointer to the
//! allocation's end. Scalars are written exactly (floats as the shortest decimal that
//! reads back to the same bits).
//!
//! What a launch file cannot express is said in the file's comment and on stderr, and the
//! launch is marked as not replayable exactly: null pointers and pointers outside device
//! allocations, structs and vectors passed by value, bf16 scalars, two parameters
//! pointing into one allocation (kernel mode gives each its own buffer), and the values
//! the program gave the module's `__device__`/`__constant__` variables (kernel mode starts
//! them from their initialisers).

use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

use warpcheck_emu::args::{ElemType, npy};
use warpcheck_front::{KernelSignature, ParamKind};
use warpcheck_ir::FuncId;
use warpcheck_launch::bind::{ParamSlot, elem_of_scalar, param_slots, pointee_elem};
use warpcheck_launch::{Dim3, LaunchSpec, launch_file_text};

use crate::state::Runtime;

/// The kernels' signatures the CLI wrote, read once.
fn signatures(path: Option<&str>) -> &'static [KernelSignature] {
    static SIGNATURES: OnceLock<Vec<KernelSignature>> = OnceLock::new();
    SIGNATURES.get_or_init(|| {
        path.and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    })
}

/// One parameter as the launch file gives it.
enum Captured {
    /// `NAME=VALUE`.
    Scalar(String),
    /// A pointer into the allocation at `base`, captured as `bytes` of `elem`.
    Buffer {
        base: u64,
        elem: ElemType,
        bytes: Vec<u8>,
    },
    /// Why a launch file cannot give it.
    Not(String),
}

/// A kernel name as part of a file name: letters, digits and `_`.
fn file_safe(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    s.trim_matches('_').chars().take(60).collect()
}

/// The value of a scalar of `elem` in little-endian `raw`, as a launch file writes it.
fn scalar_text(elem: ElemType, raw: &[u8]) -> Option<String> {
    let mut b = [0u8; 8];
    b.get_mut(..raw.len())?.copy_from_slice(raw);
    let u = u64::from_le_bytes(b);
    let bits = 8 * elem.size() as u32;
    let signed = |u: u64| ((u << (64 - bits)) as i64) >> (64 - bits);
    Some(match elem {
        ElemType::F64 => format!("{:?}", f64::from_bits(u)),
        ElemType::F32 => format!("{:?}", f64::from(f32::from_bits(u as u32))),
        ElemType::F16 => format!("{:?}", f16_to_f64(u as u16)),
        ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64 => signed(u).to_string(),
        _ => u.to_string(),
    })
}

/// An IEEE half's value (exact in an f64).
fn f16_to_f64(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

/// A scalar parameter's element type from its PTX type and size.
fn ptx_scalar(slot: &ParamSlot) -> Option<ElemType> {
    let t = slot.ptx_type.as_str();
    Some(match (t.chars().next(), slot.size) {
        (Some('f'), 2) => ElemType::F16,
        (Some('f'), 4) => ElemType::F32,
        (Some('f'), 8) => ElemType::F64,
        (Some('s'), 1) => ElemType::I8,
        (Some('s'), 2) => ElemType::I16,
        (Some('s'), 4) => ElemType::I32,
        (Some('s'), 8) => ElemType::I64,
        (_, 1) => ElemType::U8,
        (_, 2) => ElemType::U16,
        (_, 4) => ElemType::U32,
        (_, 8) => ElemType::U64,
        _ => return None,
    })
}

impl Runtime {
    /// Captures launch `index` (of `kernel` in `module`, with its parameter block) when
    /// `--capture` is on. A capture that cannot be written is reported on stderr once.
    pub fn capture_launch(&self, module: usize, kernel: FuncId, params: &[u8], index: usize) {
        static FAILED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let Some(dir) = &self.config.capture else {
            return;
        };
        if let Err(e) = self.write_capture(Path::new(dir), module, kernel, params, index)
            && !FAILED.swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            eprintln!("warpcheck: cannot write the launch capture to {dir}: {e}");
        }
    }

    /// A parameter's value as the launch file gives it.
    fn capture_param(&self, slot: &ParamSlot, raw: &[u8]) -> Captured {
        let pointer = |elem: Option<ElemType>| {
            let mut b = [0u8; 8];
            let n = raw.len().min(8);
            b[..n].copy_from_slice(&raw[..n]);
            let address = u64::from_le_bytes(b);
            if address == 0 {
                return Captured::Not(format!("`{}` is a null pointer", slot.name));
            }
            let live = self.alloc_at(address).filter(|(_, a)| a.freed.is_none());
            let Some((base, a)) = live else {
                return Captured::Not(format!(
                    "`{}` is {address:#x}, not in a device allocation",
                    slot.name
                ));
            };
            let len = base + a.size - address;
            let Ok(bytes) = self.memory.read(address, len) else {
                return Captured::Not(format!("`{}`: its allocation cannot be read", slot.name));
            };
            let elem = elem.filter(|e| bytes.len() % e.size() == 0);
            Captured::Buffer {
                base,
                elem: elem.unwrap_or(ElemType::U8),
                bytes,
            }
        };
        let scalar = |elem: Option<ElemType>| match elem.and_then(|e| scalar_text(e, raw)) {
            Some(v) => Captured::Scalar(v),
            None => Captured::Not(format!("`{}` ({}) is not a number", slot.name, slot.c_type)),
        };
        match &slot.kind {
            Some(ParamKind::Pointer(p)) => pointer(pointee_elem(&p.pointee)),
            Some(ParamKind::Scalar(t)) => scalar(elem_of_scalar(*t)),
            Some(ParamKind::Untyped { .. }) | None => {
                let value = (raw.len() == 8)
                    .then(|| u64::from_le_bytes(raw.try_into().unwrap_or_default()));
                match value {
                    Some(v) if !slot.ptx_type.starts_with('f') && self.alloc_at(v).is_some() => {
                        pointer(None)
                    }
                    _ => scalar(ptx_scalar(slot)),
                }
            }
            Some(_) => Captured::Not(format!(
                "`{}` is passed by value as `{}`",
                slot.name, slot.c_type
            )),
        }
    }

    fn write_capture(
        &self,
        dir: &Path,
        module: usize,
        kernel: FuncId,
        params: &[u8],
        index: usize,
    ) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let m = &self.modules[module];
        let f = m.program.function(kernel);
        let sig = signatures(self.config.kernels.as_deref())
            .iter()
            .find(|s| s.mangled_name == f.name);
        let slots = param_slots(&m.program, kernel, sig);
        let stem = format!("{:03}-{}", index + 1, file_safe(f.display_name()));
        let mut args = Vec::new();
        let mut not_replayable = Vec::new();
        let mut bases: Vec<(u64, &str)> = Vec::new();
        for slot in &slots {
            let at = slot.offset as usize;
            let raw = params.get(at..at + slot.size as usize).unwrap_or_default();
            match self.capture_param(slot, raw) {
                Captured::Scalar(v) => args.push(format!("{}={v}", slot.name)),
                Captured::Buffer { base, elem, bytes } => {
                    if let Some((_, other)) = bases.iter().find(|(b, _)| *b == base) {
                        not_replayable.push(format!(
                            "`{}` and `{other}` point into one allocation; kernel mode gives each its own buffer",
                            slot.name
                        ));
                    }
                    bases.push((base, &slot.name));
                    let file = format!("{stem}-{}.npy", file_safe(&slot.name));
                    std::fs::write(dir.join(&file), npy::encode(&bytes, elem))?;
                    args.push(format!("{}={elem}[]:file({file})", slot.name));
                }
                Captured::Not(why) => not_replayable.push(why),
            }
        }
        let symbols: Vec<&str> = self
            .vars
            .values()
            .filter(|v| v.module == module)
            .map(|v| v.name.as_str())
            .collect();
        if !symbols.is_empty() {
            let mut symbols = symbols;
            symbols.sort_unstable();
            not_replayable.push(format!(
                "the module's variables ({}) start from their initialisers in kernel mode, not from the values the program gave them",
                symbols.join(", ")
            ));
        }
        let file = dir.join(format!("{stem}.toml"));
        let comment = self.capture_comment(module, f.display_name(), &file, index, &not_replayable);
        let l = &self.launches[index];
        let spec = LaunchSpec {
            kernel: Some(f.name.clone()),
            grid: Dim3(l.grid),
            block: Dim3(l.block),
            shared: l.shared,
            args,
            seed: 0,
        };
        for why in &not_replayable {
            eprintln!(
                "warpcheck: capture: launch {} of `{}` cannot be replayed exactly: {why}",
                index + 1,
                f.display_name()
            );
        }
        std::fs::write(file, launch_file_text(&comment, &[spec]))
    }

    /// The launch file's comment: what was captured, how to replay it, what is missing.
    fn capture_comment(
        &self,
        module: usize,
        kernel: &str,
        file: &Path,
        index: usize,
        not_replayable: &[String],
    ) -> String {
        let source = self.modules[module].ptx_name.trim_end_matches(".ptx");
        let mut c = format!(
            "Launch {} of `{kernel}`, captured by warpcheck before it ran",
            index + 1
        );
        if let Some(at) = self.line(&self.launches[index].site) {
            let _ = write!(c, " (launched at {at})");
        }
        let options = self.config.replay.as_deref().map(|o| format!(" {o}"));
        let _ = write!(
            c,
            ".\nReplay: warpcheck check {source}{} --launches {}",
            options.unwrap_or_default(),
            file.display()
        );
        for why in not_replayable {
            let _ = write!(c, "\nNot replayable exactly: {why}.");
        }
        c
    }
}
