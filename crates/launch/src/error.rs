//! Why a launch could not be prepared or run. Each message is a full sentence for the user;
//! the caller decides how to show it and which exit code follows.

use std::path::PathBuf;
use warpcheck_emu::args::{ElemType, Number};

/// A failure to read, bind or run a launch.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// No function of the program has the name the user gave.
    #[error("no kernel or function named `{name}`; kernels in this file: {kernels}")]
    NoSuchFunction { name: String, kernels: String },
    /// The name fits several functions (overloads, template instances).
    #[error("`{name}` names several functions; use one of the mangled names: {}", .candidates.join(", "))]
    AmbiguousFunction {
        name: String,
        candidates: Vec<String>,
    },
    /// The launch names no kernel and the PTX has none.
    #[error("the file has no kernel (no .entry in its PTX)")]
    NoKernel,
    /// The launch names no kernel and the PTX has several.
    #[error("the file has several kernels; choose one with --kernel: {kernels}")]
    SeveralKernels { kernels: String },
    /// An `--arg` that does not parse.
    #[error("{0}")]
    BadArg(String),
    /// The same argument twice.
    #[error("argument `{0}` is given twice")]
    ArgGivenTwice(String),
    /// An argument for a parameter the kernel does not have.
    #[error("the kernel has no parameter `{name}`; its parameters are: {params}")]
    NoSuchParam { name: String, params: String },
    /// A parameter left out that the synthesis policy cannot make up.
    #[error(
        "parameter `{name}` ({c_type}) cannot be synthesised ({why}); give it with --arg {name}=..."
    )]
    CannotSynthesize {
        name: String,
        c_type: String,
        why: &'static str,
    },
    /// A buffer whose element type does not fit the pointer's pointee.
    #[error("argument `{name}` is a buffer of {elem}, but the parameter is `{c_type}`")]
    BufferTypeMismatch {
        name: String,
        elem: ElemType,
        c_type: String,
    },
    /// A buffer for a parameter that is not a pointer.
    #[error("argument `{name}` is a buffer, but the parameter is `{c_type}`, not a pointer")]
    NotAPointer { name: String, c_type: String },
    /// A number for a pointer parameter.
    #[error(
        "argument `{name}` is the number {number}, but the parameter is the pointer `{c_type}`; give a buffer such as {name}=f32[1024]"
    )]
    NumberForPointer {
        name: String,
        number: Number,
        c_type: String,
    },
    /// A kernel that reads textures: kernel mode has no runtime to bind them.
    #[error(
        "kernel `{kernel}` reads textures (`tex`), which kernel mode cannot bind; run the whole program instead (`warpcheck run PROGRAM.cu -- ARGS`), whose CUDA runtime binds them"
    )]
    TexturesNeedProgram { kernel: String },
    /// A scalar type the emulator's argument encoder does not know (`__nv_bfloat16`).
    #[error("parameter `{name}` has type `{c_type}`, which warpcheck cannot pass yet")]
    ScalarNotPassable { name: String, c_type: String },
    /// A struct or vector passed by value, or an unclassified type.
    #[error(
        "parameter `{name}` has type `{c_type}`; give a struct's fields one by one (`--arg {name}.FIELD=VALUE`); other by-value types cannot be given from the command line yet"
    )]
    ByValueNotSupported { name: String, c_type: String },
    /// A field given for a struct parameter that has no such field, or whose fields are
    /// not known.
    #[error("parameter `{name}` ({c_type}) has no field `{field}` that can be given: {fields}")]
    NoSuchField {
        name: String,
        c_type: String,
        field: String,
        fields: String,
    },
    /// A field value given for a parameter that is not a struct passed by value.
    #[error(
        "parameter `{name}` ({c_type}) is not a struct passed by value: `{arg}` names a field of it"
    )]
    NotAStruct {
        name: String,
        c_type: String,
        arg: String,
    },
    /// A parameter whose C type (from the source) is wider or narrower than its PTX
    /// `.param` (the source and the PTX disagree, e.g. a stale `--launches` file).
    #[error(
        "parameter `{name}` is `{c_type}` ({c_size} bytes) in the source but `.{ptx_type}` ({ptx_size} bytes) in the PTX: the source and the PTX disagree (recompile, or check which `.cu` the launches come from)"
    )]
    ParamSizeMismatch {
        name: String,
        c_type: String,
        c_size: u64,
        ptx_type: String,
        ptx_size: u64,
    },
    /// A launch that gives a buffer of an earlier launch (same name) another size or
    /// element type: buffers persist across launches and are not re-sized.
    #[error(
        "buffer `{name}` is {was} from an earlier launch; this launch gives it as {now}: a buffer keeps its size across launches (give it the same size, or another name)"
    )]
    BufferResized {
        name: String,
        was: String,
        now: String,
    },
    /// A PTX-only parameter whose type and size take no number.
    #[error(
        "parameter `{name}` has PTX type {ptx_type} of {size} bytes, which cannot take a number"
    )]
    PtxTypeTakesNoNumber {
        name: String,
        ptx_type: String,
        size: u64,
    },
    /// A number that does not fit its parameter.
    #[error("argument `{name}` ({c_type}): {message}")]
    BadScalar {
        name: String,
        c_type: String,
        message: String,
    },
    /// A buffer whose size or initialiser cannot be planned.
    #[error("{0}")]
    BadBuffer(String),
    /// Device memory for a buffer could not be allocated.
    #[error("cannot allocate `{name}`: {message}")]
    Alloc { name: String, message: String },
    /// A buffer's initial contents could not be written.
    #[error("cannot initialise `{name}`: {message}")]
    Init { name: String, message: String },
    /// The emulator refused the launch.
    #[error("cannot run `{kernel}`: {message}")]
    Run { kernel: String, message: String },
    /// A buffer could not be read back.
    #[error("cannot read `{name}`: {message}")]
    ReadBuffer { name: String, message: String },
    /// A file of launches could not be read.
    #[error("cannot read {}: {source}", .path.display())]
    ReadFile {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A `// warpcheck-launch:` line that does not parse.
    #[error("line {line}: bad warpcheck-launch line: {message}")]
    BadHeaderLine { line: usize, message: String },
    /// A TOML launch file that does not parse.
    #[error("bad launch file: {0}")]
    BadLaunchFile(String),
    /// Bad dimensions in a launch file's launch (counted from 1).
    #[error("launch {launch}: `{what}`: {message}")]
    BadDims {
        launch: usize,
        what: &'static str,
        message: String,
    },
    /// A launch file with no `[[launch]]` table.
    #[error("{} has no launches", .0.display())]
    NoLaunches(PathBuf),
    /// A kernel file with no `// warpcheck-launch:` line.
    #[error("{} has no `// warpcheck-launch:` lines", .0.display())]
    NoHeaderLaunches(PathBuf),
}
