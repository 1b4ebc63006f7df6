//! NVIDIA's fat binary container, as nvcc embeds it in a host object (section
//! `.nv_fatbin`) and hands it to `__cudaRegisterFatBinary` through its wrapper
//! (`__fatbinwrap`, magic [`WRAPPER_MAGIC`], the same `{magic, version, data, unused}`
//! layout as clang's `__cuda_fatbin_wrapper`).
//!
//! The format is undocumented by NVIDIA; this reading follows what cuobjdump accepts and
//! what nvcc 12 and 13 write. All numbers are little-endian.
//!
//! ```text
//! container: magic u32 = 0xBA55ED50, version u16 = 1, header size u16 = 16,
//!            size of the entries that follow u64
//! entry:     kind u16 (1 PTX, 2 ELF), version u16, header size u32 (at least 64),
//!            padded payload size u64, payload size u32 (when compressed), …,
//!            0x18: PTX version (minor u16, major u16), 0x1c: sm arch u32,
//!            0x20: name offset u32, 0x24: name length u32 (within the header),
//!            0x28: flags u64 (0x2000 LZ4-compressed, 0x8000 zstd-compressed),
//!            0x38: uncompressed size u64 (when compressed)
//!            then the payload at entry + header size, padded to the padded size
//! ```
//!
//! A section may hold several containers back to back; entries follow each other within
//! a container (`next = entry + header size + padded size`). An uncompressed PTX payload
//! is the PTX text followed by NUL padding.
//!
//! Every length read is checked against the bytes at hand (and a container's total
//! against [`MAX_CONTAINER_BYTES`]), so a corrupt fat binary gives a [`FatbinError`],
//! never an out-of-bounds read. Compressed payloads are refused with a message:
//! warpcheck's build asks nvcc for uncompressed PTX (`-Xfatbin=-compress=false`), and
//! decompressing is left to a later need.

use std::fmt;

/// The magic of the wrapper nvcc (and clang) hand to `__cudaRegisterFatBinary`.
pub const WRAPPER_MAGIC: u32 = 0x4662_43b1;
/// The magic of a fat binary container.
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// The largest container read (1 GiB): a larger size field means a corrupt header.
pub const MAX_CONTAINER_BYTES: u64 = 1 << 30;
/// A container header's size.
pub const CONTAINER_HEADER_BYTES: usize = 16;

const ENTRY_HEADER_MIN: usize = 64;
const KIND_PTX: u16 = 1;
const KIND_ELF: u16 = 2;
const FLAG_LZ4: u64 = 0x2000;
const FLAG_ZSTD: u64 = 0x8000;

/// One PTX entry of a fat binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxEntry {
    /// The source file the entry names (nvcc records the input's path), if any.
    pub name: Option<String>,
    /// The `sm_XX` number the PTX targets (90 for `compute_90`).
    pub arch: u32,
    /// The PTX text.
    pub ptx: String,
}

/// Why a fat binary could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FatbinError {
    /// The bytes do not start with [`FATBIN_MAGIC`].
    BadMagic(u32),
    /// A header or payload runs past the end of the container (or of the bytes).
    Truncated {
        what: &'static str,
        offset: usize,
        needs: u64,
        has: usize,
    },
    /// The container's size field is larger than [`MAX_CONTAINER_BYTES`].
    TooLarge(u64),
    /// An entry header shorter than the fixed fields.
    BadEntryHeader { offset: usize, size: u64 },
    /// A PTX entry whose payload is compressed.
    Compressed { arch: u32, method: &'static str },
    /// A PTX payload that is not UTF-8 text.
    NotText { arch: u32 },
    /// No PTX entry: only machine code (for the listed architectures) or nothing.
    NoPtx { elf_archs: Vec<u32> },
}

impl fmt::Display for FatbinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FatbinError::BadMagic(m) => write!(
                f,
                "not an NVIDIA fat binary (magic {m:#010x}, expected {FATBIN_MAGIC:#010x})"
            ),
            FatbinError::Truncated {
                what,
                offset,
                needs,
                has,
            } => write!(
                f,
                "corrupt fat binary: the {what} at byte {offset} needs {needs} bytes, {has} remain"
            ),
            FatbinError::TooLarge(n) => write!(
                f,
                "corrupt fat binary: its header gives a size of {n} bytes (more than {MAX_CONTAINER_BYTES})"
            ),
            FatbinError::BadEntryHeader { offset, size } => write!(
                f,
                "corrupt fat binary: the entry at byte {offset} has a header of {size} bytes (at least {ENTRY_HEADER_MIN})"
            ),
            FatbinError::Compressed { arch, method } => write!(
                f,
                "the PTX for sm_{arch} in the fat binary is {method}-compressed, which warpcheck does not read (compile with nvcc's -Xfatbin=-compress=false)"
            ),
            FatbinError::NotText { arch } => {
                write!(f, "the PTX for sm_{arch} in the fat binary is not text")
            }
            FatbinError::NoPtx { elf_archs } if elf_archs.is_empty() => {
                write!(f, "the fat binary holds no PTX")
            }
            FatbinError::NoPtx { elf_archs } => {
                let archs: Vec<String> = elf_archs.iter().map(|a| format!("sm_{a}")).collect();
                write!(
                    f,
                    "the fat binary holds no PTX, only machine code for {} (warpcheck runs PTX: compile with -gencode arch=compute_XX,code=compute_XX)",
                    archs.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for FatbinError {}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or_default())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default())
}

/// Checks that `needs` bytes are there at `offset` of `bytes`.
fn need(bytes: &[u8], offset: usize, needs: u64, what: &'static str) -> Result<usize, FatbinError> {
    let has = bytes.len().saturating_sub(offset);
    match usize::try_from(needs) {
        Ok(n) if n <= has => Ok(n),
        _ => Err(FatbinError::Truncated {
            what,
            offset,
            needs,
            has,
        }),
    }
}

/// The total length (header included) of the container whose 16-byte header is `head`:
/// how many bytes to read from a raw pointer before parsing.
pub fn container_len(head: &[u8]) -> Result<usize, FatbinError> {
    need(head, 0, CONTAINER_HEADER_BYTES as u64, "container header")?;
    let magic = u32_at(head, 0);
    if magic != FATBIN_MAGIC {
        return Err(FatbinError::BadMagic(magic));
    }
    let header = u64::from(u16_at(head, 6)).max(CONTAINER_HEADER_BYTES as u64);
    let size = u64_at(head, 8);
    let total = header.saturating_add(size);
    if total > MAX_CONTAINER_BYTES {
        return Err(FatbinError::TooLarge(size));
    }
    Ok(total as usize)
}

/// Whether `bytes` starts with a fat binary container.
pub fn is_fatbin(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && u32_at(bytes, 0) == FATBIN_MAGIC
}

/// Every PTX entry of the containers in `bytes` (one container, or a section holding
/// several back to back; zero padding between them is skipped).
pub fn ptx_entries(bytes: &[u8]) -> Result<Vec<PtxEntry>, FatbinError> {
    let mut entries = Vec::new();
    let mut elf_archs = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at..].iter().all(|&b| b == 0) {
            break;
        }
        let container = &bytes[at..];
        let len = container_len(container)?;
        need(container, 0, len as u64, "container")?;
        let header = usize::from(u16_at(container, 6)).max(CONTAINER_HEADER_BYTES);
        read_entries(&container[..len], header, at, &mut entries, &mut elf_archs)?;
        at += len;
    }
    if entries.is_empty() {
        elf_archs.sort_unstable();
        elf_archs.dedup();
        return Err(FatbinError::NoPtx { elf_archs });
    }
    Ok(entries)
}

/// The entries of one container (`base`: its offset, for messages).
fn read_entries(
    container: &[u8],
    first: usize,
    base: usize,
    entries: &mut Vec<PtxEntry>,
    elf_archs: &mut Vec<u32>,
) -> Result<(), FatbinError> {
    let mut at = first;
    while at < container.len() {
        let offset = base + at;
        let entry = &container[at..];
        let truncated = |what, needs| FatbinError::Truncated {
            what,
            offset,
            needs,
            has: entry.len(),
        };
        if entry.len() < ENTRY_HEADER_MIN {
            return Err(truncated("entry header", ENTRY_HEADER_MIN as u64));
        }
        let kind = u16_at(entry, 0);
        let header = u64::from(u32_at(entry, 4));
        if header < ENTRY_HEADER_MIN as u64 {
            return Err(FatbinError::BadEntryHeader {
                offset,
                size: header,
            });
        }
        let header = need(entry, 0, header, "entry header")?;
        let padded = u64_at(entry, 8);
        let payload_len = need(entry, header, padded, "entry payload")?;
        let payload = &entry[header..header + payload_len];
        let arch = u32_at(entry, 0x1c);
        let flags = u64_at(entry, 0x28);
        match kind {
            KIND_PTX => {
                let method = if flags & FLAG_ZSTD != 0 {
                    Some("zstd")
                } else if flags & FLAG_LZ4 != 0 {
                    Some("LZ4")
                } else {
                    None
                };
                if let Some(method) = method {
                    return Err(FatbinError::Compressed { arch, method });
                }
                let text = payload.split(|&b| b == 0).next().unwrap_or_default();
                let ptx = std::str::from_utf8(text)
                    .map_err(|_| FatbinError::NotText { arch })?
                    .to_string();
                entries.push(PtxEntry {
                    name: entry_name(&entry[..header]),
                    arch,
                    ptx,
                });
            }
            KIND_ELF => elf_archs.push(arch),
            _ => {}
        }
        at += header + payload_len;
    }
    Ok(())
}

/// The name an entry header records (offset and length at 0x20 and 0x24), when it lies
/// within the header.
fn entry_name(header: &[u8]) -> Option<String> {
    let offset = u32_at(header, 0x20) as usize;
    let len = u32_at(header, 0x24) as usize;
    if offset < ENTRY_HEADER_MIN || len == 0 {
        return None;
    }
    let bytes = header.get(offset..offset.checked_add(len)?)?;
    let text = bytes.split(|&b| b == 0).next()?;
    std::str::from_utf8(text)
        .ok()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The entry to run on an `sm_{arch}` device: the newest PTX not newer than the device,
/// else the oldest there is (the emulator runs any target's PTX alike).
pub fn select(entries: &[PtxEntry], arch: u32) -> Option<&PtxEntry> {
    entries
        .iter()
        .filter(|e| e.arch <= arch)
        .max_by_key(|e| e.arch)
        .or_else(|| entries.iter().min_by_key(|e| e.arch))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A container with one entry of `kind`, `flags` and `payload`, named `name`.
    pub(crate) fn container(
        kind: u16,
        arch: u32,
        flags: u64,
        name: &str,
        payload: &[u8],
    ) -> Vec<u8> {
        let name_at = ENTRY_HEADER_MIN;
        let header = (name_at + name.len() + 1).next_multiple_of(8);
        let padded = payload.len().next_multiple_of(8);
        let mut entry = vec![0u8; header];
        entry[0..2].copy_from_slice(&kind.to_le_bytes());
        entry[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
        entry[4..8].copy_from_slice(&(header as u32).to_le_bytes());
        entry[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
        entry[0x1c..0x20].copy_from_slice(&arch.to_le_bytes());
        entry[0x20..0x24].copy_from_slice(&(name_at as u32).to_le_bytes());
        entry[0x24..0x28].copy_from_slice(&(name.len() as u32).to_le_bytes());
        entry[0x28..0x30].copy_from_slice(&flags.to_le_bytes());
        entry[name_at..name_at + name.len()].copy_from_slice(name.as_bytes());
        entry.extend_from_slice(payload);
        entry.resize(header + padded, 0);
        let mut out = Vec::new();
        out.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        out.extend_from_slice(&(entry.len() as u64).to_le_bytes());
        out.extend_from_slice(&entry);
        out
    }

    const PTX: &str = ".version 9.0\n.target sm_90\n.address_size 64\n";

    #[test]
    fn reads_the_ptx_and_name_of_an_uncompressed_entry() {
        let bin = container(KIND_PTX, 90, 0x11, "/src/k.cu", PTX.as_bytes());
        assert_eq!(container_len(&bin), Ok(bin.len()));
        let entries = ptx_entries(&bin).unwrap();
        assert_eq!(
            entries,
            [PtxEntry {
                name: Some("/src/k.cu".into()),
                arch: 90,
                ptx: PTX.into()
            }]
        );
    }

    #[test]
    fn reads_containers_back_to_back_and_selects_by_architecture() {
        let mut bin = container(KIND_PTX, 75, 0, "a.cu", b".target sm_75\n");
        bin.extend(container(
            KIND_ELF,
            90,
            0,
            "a.cu",
            &[0x7f, b'E', b'L', b'F'],
        ));
        bin.extend(container(KIND_PTX, 90, 0, "a.cu", b".target sm_90\n"));
        bin.extend([0u8; 16]);
        let entries = ptx_entries(&bin).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(select(&entries, 90).unwrap().arch, 90);
        assert_eq!(select(&entries, 80).unwrap().arch, 75);
        assert_eq!(select(&entries, 70).unwrap().arch, 75);
    }

    #[test]
    fn machine_code_only_and_compressed_ptx_are_explained() {
        let elf = container(KIND_ELF, 90, 0, "a.cu", b"\x7fELF");
        let err = ptx_entries(&elf).unwrap_err();
        assert_eq!(
            err,
            FatbinError::NoPtx {
                elf_archs: vec![90]
            }
        );
        assert!(
            err.to_string().contains("only machine code for sm_90"),
            "{err}"
        );
        let zstd = container(KIND_PTX, 90, 0x8011, "a.cu", &[0x28, 0xb5, 0x2f, 0xfd]);
        let err = ptx_entries(&zstd).unwrap_err();
        assert!(err.to_string().contains("zstd-compressed"), "{err}");
        let lz4 = container(KIND_PTX, 90, 0x2001, "a.cu", b"xx");
        assert!(ptx_entries(&lz4).unwrap_err().to_string().contains("LZ4"));
    }

    /// Every corruption of lengths gives an error, never a panic or a read out of bounds.
    #[test]
    fn corrupt_lengths_are_errors() {
        let good = container(KIND_PTX, 90, 0, "k.cu", PTX.as_bytes());
        assert_eq!(
            ptx_entries(&[0x50, 0xed, 0x55]),
            Err(FatbinError::Truncated {
                what: "container header",
                offset: 0,
                needs: 16,
                has: 3
            })
        );
        assert!(matches!(
            ptx_entries(&[1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            Err(FatbinError::BadMagic(0x0403_0201))
        ));
        // The container's size: larger than the bytes, and absurdly large.
        let mut long = good.clone();
        long[8..16].copy_from_slice(&(good.len() as u64).to_le_bytes());
        assert!(matches!(
            ptx_entries(&long),
            Err(FatbinError::Truncated { .. })
        ));
        long[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            container_len(&long),
            Err(FatbinError::TooLarge(_))
        ));
        assert!(matches!(ptx_entries(&long), Err(FatbinError::TooLarge(_))));
        // The entry's header size: too small, and past the end.
        let mut small = good.clone();
        small[16 + 4..16 + 8].copy_from_slice(&8u32.to_le_bytes());
        assert!(matches!(
            ptx_entries(&small),
            Err(FatbinError::BadEntryHeader { size: 8, .. })
        ));
        let mut big = good.clone();
        big[16 + 4..16 + 8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            ptx_entries(&big),
            Err(FatbinError::Truncated { .. })
        ));
        // The payload's size past the end, and a name offset past the header.
        let mut payload = good.clone();
        payload[16 + 8..16 + 16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            ptx_entries(&payload),
            Err(FatbinError::Truncated { .. })
        ));
        let mut name = good.clone();
        name[16 + 0x20..16 + 0x24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(ptx_entries(&name).unwrap()[0].name, None);
        // Every truncation of a good container.
        for n in 0..good.len() {
            let mut cut = good[..n].to_vec();
            if n >= 16 {
                cut[8..16].copy_from_slice(&((n - 16) as u64).to_le_bytes());
            }
            let _ = ptx_entries(&cut);
        }
        // Every single-byte corruption.
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0xff;
            let _ = ptx_entries(&bad);
        }
    }

    #[test]
    fn non_text_ptx_is_an_error() {
        let bin = container(KIND_PTX, 90, 0, "k.cu", &[0xff, 0xfe, b'x']);
        assert_eq!(ptx_entries(&bin), Err(FatbinError::NotText { arch: 90 }));
    }

    /// A fat binary made by nvcc now (skipped without one): its PTX entry carries the
    /// kernel and its line information; nvcc's default compression is explained.
    #[test]
    fn reads_the_fat_binary_nvcc_makes() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("k.cu");
        std::fs::write(
            &source,
            "__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n",
        )
        .unwrap();
        let nvcc = match warpcheck_front::Compiler::discover(
            warpcheck_front::CompilerChoice::Nvcc,
            warpcheck_front::Language::Cuda,
            &source,
        ) {
            Ok(nvcc) => nvcc,
            Err(e) => {
                println!("skipped: no nvcc ({e})");
                return;
            }
        };
        let fatbin = |out: &str, extra: &[&str]| {
            let out = dir.path().join(out);
            let status = std::process::Command::new(&nvcc.path)
                .args([
                    "-fatbin",
                    "-gencode",
                    "arch=compute_90,code=compute_90",
                    "-lineinfo",
                ])
                .args(extra)
                .arg("-o")
                .arg(&out)
                .arg(&source)
                .status()
                .unwrap();
            assert!(status.success());
            std::fs::read(out).unwrap()
        };
        let plain = fatbin("plain.fatbin", &["-Xfatbin=-compress=false"]);
        let entries = ptx_entries(&plain).unwrap();
        let entry = select(&entries, 90).unwrap();
        assert_eq!(entry.arch, 90);
        assert!(entry.ptx.contains(".entry _Z5scalePff"), "{}", entry.ptx);
        assert!(entry.ptx.contains(".loc"), "{}", entry.ptx);
        assert!(entry.name.as_deref().is_some_and(|n| n.ends_with("k.cu")));
        let default = fatbin("default.fatbin", &[]);
        match ptx_entries(&default) {
            // nvcc 13 compresses PTX by default; older ones may not.
            Err(e) => assert!(matches!(e, FatbinError::Compressed { .. }), "{e}"),
            Ok(entries) => assert!(entries[0].ptx.contains(".entry")),
        }
    }
}
