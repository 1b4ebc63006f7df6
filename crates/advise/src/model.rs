//! The advisor's report: what it found for each loop nest of a function (Juravle §9,
//! Table 9.1). Expressions are printed with the symbolic engine's notation (`4·N·N - 4`);
//! instantiated values are numbers. Serialised as JSON for tools.

use serde::Serialize;

use crate::source::ForHeader;

/// The advice for one function.
#[derive(Clone, Debug, Serialize)]
pub struct FunctionAdvice {
    pub function: String,
    /// One entry per outermost loop of the function.
    pub nests: Vec<NestAdvice>,
    /// Functions called outside every loop (Juravle §4.2 "functions called").
    pub calls_outside_loops: Vec<String>,
    /// The run-time values used for instantiation, including those solved for (§6.1).
    pub values: Vec<(String, i128)>,
    /// How values were derived (`n = 200 from 100 iterations of loop i`).
    pub solved: Vec<String>,
    /// The steps of symbolic work interpreting the function spent (see
    /// `--analysis-budget`; each nest's own are in its `analysis_steps`).
    pub interpretation_steps: u64,
}

/// One loop of a nest, normalised to `k = 0 .. trip_count − 1` (Juravle §4.1).
#[derive(Clone, Debug, Serialize)]
pub struct LoopDesc {
    /// The loop variable's name in the source (`i`), or `k<N>` when it has none.
    pub var: String,
    /// The line of the `for`.
    pub line: u32,
    pub header: Option<ForHeader>,
    /// `var = init + step·k` after normalisation (`i = 4·k - n`), when the loop is
    /// normalisable.
    pub normalised: Option<String>,
    /// Iterations, symbolic (`⌊(2·n + 3)/4⌋`).
    pub trip_count: Option<String>,
    /// Iterations with the given values.
    pub trip_value: Option<i128>,
}

/// Whether a loop nest can become a kernel, and why (not).
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    /// `yes`, `no`, or `unknown` (the static test was inconclusive).
    pub parallel: String,
    /// The dimensions the verdict is for: the loop variables mapped to the grid.
    pub dims: Vec<String>,
    /// Reasons against (empty when parallel), or notes for a parallel nest.
    pub reasons: Vec<String>,
    /// Loops inside the kernel body that stay sequential, and why.
    pub sequential_inner: Vec<String>,
}

/// An inbound or outbound variable (Juravle §4.2).
#[derive(Clone, Debug, Serialize)]
pub struct Param {
    /// `a`, `c->data`, `total_energy`.
    pub name: String,
    /// `pointer`, `scalar`, `global` or `static`.
    pub kind: String,
    /// For nested pointers: the parameter they are reached through.
    pub nested_in: Option<String>,
    /// The accessed byte section `[first offset, offset of the last element]`, symbolic.
    pub section: Option<[String; 2]>,
    /// Why there is no exact static section (incomparable bounds, Juravle §6.2).
    pub section_note: Option<String>,
    /// The section with the given values.
    pub instantiated: Option<[i128; 2]>,
    /// With the values, the contiguous byte runs actually accessed, when the iteration
    /// space was enumerated (§6.2, where the symbolic range failed).
    pub runs: Vec<[i128; 2]>,
}

/// The coalescing factor of one memory operation under one mapping (Juravle §5.1).
#[derive(Clone, Debug, Serialize)]
pub struct MappingFactor {
    /// `i -> Grid.x` or `j -> Grid.x, i -> Grid.y`.
    pub mapping: String,
    /// Bytes between the addresses of adjacent threads (`4·N`), when affine.
    pub stride: Option<String>,
    /// 128-byte requests per warp: `min(32, max(1, 32·stride/128))`.
    pub factor: String,
    /// With the values.
    pub value: Option<i128>,
}

/// One global memory operation of the nest.
#[derive(Clone, Debug, Serialize)]
pub struct CoalescingRow {
    pub line: u32,
    /// `load` or `store`.
    pub kind: String,
    /// The pointer (`c->data`) and byte offset expression.
    pub access: String,
    pub base: String,
    pub factors: Vec<MappingFactor>,
}

/// The recommended mapping of loop variables to the grid.
#[derive(Clone, Debug, Serialize)]
pub struct Mapping {
    /// `j -> Grid.x, i -> Grid.y`.
    pub recommended: String,
    /// Whether it is the direct mapping (outer loop to x); otherwise the loops are to be
    /// swapped.
    pub is_direct: bool,
    pub reason: String,
    /// Work items with the values (trip counts).
    pub work_items: Option<i128>,
}

/// A shared-memory opportunity: one array's reads grouped (Juravle §5.2).
#[derive(Clone, Debug, Serialize)]
pub struct SharedOpportunity {
    pub base: String,
    pub lines: Vec<u32>,
    /// `uniform` (every thread reads the same elements) or `tile` (neighbours overlap).
    pub kind: String,
    /// Elements a block needs: one interval per axis, relative to the block's first
    /// thread (`x: [-1, blockDim.x]`), in elements of the access width.
    pub tile: Vec<String>,
    /// Elements of the tile, symbolic.
    pub elements: Option<String>,
    /// Elements shared by adjacent threads, per axis.
    pub overlap: Vec<String>,
    /// Bytes per block with the values and the block size used.
    pub bytes_per_block: Option<i128>,
    pub block: Option<[i128; 2]>,
}

/// The advice for one loop nest.
#[derive(Clone, Debug, Serialize)]
pub struct NestAdvice {
    /// Source lines of the outer loop.
    pub lines: [u32; 2],
    /// The loops mapped to the grid (1 or 2), outer first.
    pub loops: Vec<LoopDesc>,
    pub verdict: Verdict,
    pub inbound: Vec<Param>,
    pub outbound: Vec<Param>,
    /// Functions called inside the loop.
    pub calls: Vec<String>,
    pub coalescing: Vec<CoalescingRow>,
    pub mapping: Option<Mapping>,
    pub shared: Vec<SharedOpportunity>,
    /// What to do instead, for a loop that is not parallel as written.
    pub rewrite: Vec<String>,
    /// Assumptions the analyses made (`N > 0`, pointer parameters do not overlap).
    pub assumptions: Vec<String>,
    /// The analysis bound that was reached for this nest, and where; what it left out
    /// (the whole verdict is `unknown` when the bound came before it).
    pub bound: Option<String>,
    /// The steps of symbolic work the nest's analysis spent (see `--analysis-budget`).
    pub analysis_steps: u64,
}
